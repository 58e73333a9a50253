"""Tryasina — ``tryasina_v0``: a Ludo-family race for 2-4 players with one die,
shortcuts, swamps and a central quagmire ("Трясина").

Rules: ``boardenvs/rules/tryasina.md`` (``boardenvs rules tryasina_v0``)
(TR-1..TR-17), implemented once, in the numba kernels below;
:class:`TryasinaGame` adds notation, the text form and pictures.

=================  ==========================================================
Agents             ``player_0`` .. ``player_{n-1}``, sides (TR-6): 2 players
                   bottom, top; 3 bottom, left, top; 4 bottom, left, top,
                   right.  Pawn letters ``A``, ``B``, ``C``, ``D``.
Turn (TR-7)        a chance node (the die, ``roll 1`` .. ``roll 6``, 1/6
                   each), then one decision by the roller; a roller with no
                   pawn to move has one legal action, ``pass`` (the turn
                   counts), so every seat is asked once per turn.
Actions            ``Discrete(68)``: the location of the pawn to move **in
                   the mover's own track terms** (so one policy plays every
                   side): ``0`` ``O`` (origin), ``1`` ``Q`` (quagmire),
                   ``2..50`` ``C1..C49``, ``51..54`` ``H1..H4``,
                   ``55 + 3 (j-1) + (l-1)`` ``S<j>.<l>`` (swamp ``j`` 1..4
                   counted along the mover's lap, level ``l`` 1..3);
                   ``67`` ``pass`` (legal alone, when no pawn can move).  At a
                   chance node the kernels' outcomes ``0..5`` are the rolls
                   1..6 (the AEC env and ``make_vec`` resolve them).
Action mask        exact (TR-8..TR-14)
Observation        ``int8 (n, 91)``, one row per seat starting with the
                   observer (then seat order): columns ``0..75`` the seat's
                   pawns on the 76 cells, numbered **with the observer's
                   side at the bottom** (``0..47`` the circle from the
                   observer's bottom-right corner clockwise, ``48 + 4 s + h``
                   the homes of the sides ``s`` counted clockwise from the
                   observer's, ``64 + 3 g + l`` the swamps counted clockwise
                   from the observer's bottom-left one); ``76`` pawns in its
                   origin, ``77`` in the quagmire, ``78`` in its home (counts
                   0..4); ``79`` it is this seat's turn; ``80..85`` the
                   current roll one-hot (in the roller's row, after the
                   roll); ``86..89`` its side relative to the observer's
                   (0 own, 1 next clockwise, ...); ``90`` its pawn on its
                   entry cell after a full lap (``C49``, TR-3: the cell
                   column alone cannot tell it from ``C1``).
Rewards            +1 to the first player with all four pawns home, -1 to
                   every other (TR-15); 0 on truncation
Options            ``num_players`` (2; 2..4), ``first_player`` (0),
                   ``max_turns`` (default 3000, TR-16: random play's 99.9th
                   percentile is well below; see the README)
Notation           ``roll 4`` (chance), ``O``, ``Q``, ``C12``, ``H2``,
                   ``S1.3`` (the pawn's location in the mover's terms),
                   ``pass``
=================  ==========================================================
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from .. import engine as E
from ..errors import IllegalMoveError, NotationError
from ..game import Game
from ..spec import first_player_option, max_turns_option, num_players_option

# --- geometry (TR-1..TR-5) ------------------------------------------------------
NUM_CIRCLE = 48
HOME0 = 48  # 48 + 4 side + (h-1)
SWAMP0 = 64  # 64 + 3 g + (l-1), g = global swamp 0..3 (entrance 9 + 12 g)
NUM_CELLS = 76
PAWNS = 4
NUM_SIDES = 4
# locations in a player's own track terms (also the action ids)
LOC_O, LOC_Q = 0, 1
LOC_C1 = 2  # C_i = 1 + i, i = 1..49; the walking index t = loc - 1 (C_i -> i, H_h -> 49 + h)
LOC_H1 = 51
LOC_S = 55
NUM_LOCS = 67
PASS = NUM_LOCS  # TR-7: the roller's one legal action when its roll moves no pawn
NUM_ACTIONS = NUM_LOCS + 1
NUM_FACES = 6
LEAVE_LEVEL = np.array([1, 3, 6], np.int64)  # TR-8: the roll that leaves L1, L2, L3
SIDE_NAMES = ("bottom", "left", "top", "right")
SIDES_OF = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}  # TR-6
LETTERS = "ABCD"

REASON_HOME = E.REASON_GAME


def entry_of(side: int) -> int:
    return 6 + 12 * side


def _rot(x, y, k):
    """(x, y) turned k quarter turns clockwise (bottom -> left -> top -> right)."""
    for _ in range(k % 4):
        x, y = y, -x
    return x, y


def circle_xy(k: int) -> tuple:
    """TR-1: the coordinates of circle cell k."""
    if k <= 12:
        return 6 - k, -6
    if k <= 24:
        return -6, -6 + (k - 12)
    if k <= 36:
        return -6 + (k - 24), 6
    return 6, 6 - (k - 36)


def cell_xy(c: int) -> tuple:
    """The coordinates of every cell (circle, homes, swamp levels)."""
    if c < HOME0:
        return circle_xy(c)
    if c < SWAMP0:
        side, h = divmod(c - HOME0, 4)
        return _rot(0, -5 + h, side)  # TR-2: bottom home (0,-5)..(0,-2)
    g, level = divmod(c - SWAMP0, 3)
    return _rot(-3 - level, -5, g)  # TR-5: bottom-left swamp (-3,-5), (-4,-5), (-5,-5)


CELL_XY = np.array([cell_xy(c) for c in range(NUM_CELLS)], np.int64)
XY_CELL = {tuple(map(int, CELL_XY[c])): c for c in range(NUM_CELLS)}
DIAGONAL_XY = {_rot(-2 - i, -5 + i, g): g for g in range(4) for i in range(4)}  # TR-4 transit drawing
QUAGMIRE_XY = {(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)}


def _loc_to_cell_table() -> np.ndarray:
    table = np.full((NUM_SIDES, NUM_LOCS), -1, np.int64)
    for side in range(NUM_SIDES):
        e = entry_of(side)
        for i in range(1, 50):
            table[side, LOC_C1 + i - 1] = (e + i - 1) % NUM_CIRCLE
        for h in range(4):
            table[side, LOC_H1 + h] = HOME0 + 4 * side + h
        for j in range(4):
            for level in range(3):
                table[side, LOC_S + 3 * j + level] = SWAMP0 + 3 * ((side + j) % 4) + level
    return table


LOC2CELL = _loc_to_cell_table()


def _egocentric_table() -> np.ndarray:
    """ROT[observer side, cell]: the cell's index with the observer's side at the bottom."""
    table = np.zeros((NUM_SIDES, NUM_CELLS), np.int64)
    for so in range(NUM_SIDES):
        for c in range(NUM_CELLS):
            x, y = _rot(*cell_xy(c), -so)
            table[so, c] = XY_CELL[(x, y)]
    return table


ROT = _egocentric_table()

# game params after the generic ones
P_SIDES = E.P_GAME  # side of each seat (4 slots)

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("tryasina_v0")
T_ROLLER = LAYOUT.add("roller", 1, "the seat whose turn it is (rolls, then moves)")
T_ROLL = LAYOUT.add("roll", 1, "this turn's roll 1..6, 0 before the roll")
T_PAWNS = LAYOUT.add("pawns", 4 * PAWNS, "4 seat + p: location in the owner's track terms (sorted per seat)")
T_CELLS = LAYOUT.add("cells", NUM_CELLS, "0 empty, 1 + seat")
T_LAST = LAYOUT.add("last_move", 3, "seat, from, to (owner's track terms) of the last pawn move; -1 none")

OBS_WIDTH = 91
O_ORIGIN, O_QUAG, O_HOME, O_TURN, O_ROLL, O_SIDE, O_LAPPED = 76, 77, 78, 79, 80, 86, 90


# --- kernels -----------------------------------------------------------------


@njit(cache=True)
def _slot_on_cell(state, params, cell):
    """The pawn slot (4 seat + p) standing on ``cell`` (-1 if none)."""
    owner = state[T_CELLS + cell] - 1
    if owner < 0:
        return -1
    side = params[P_SIDES + owner]
    for p in range(PAWNS):
        if LOC2CELL[side, state[T_PAWNS + PAWNS * owner + p]] == cell:
            return PAWNS * owner + p
    return -1


@njit(cache=True)
def _capture(state, params, cell):
    """TR-11: the pawn on ``cell`` goes to its owner's quagmire."""
    slot = _slot_on_cell(state, params, cell)
    if slot >= 0:
        state[T_PAWNS + slot] = LOC_Q
    state[T_CELLS + cell] = 0


@njit(cache=True)
def _free_end(state, side):
    """TR-10: the walking index of the free end: the first of H4, H3, H2, H1,
    C49, ... not occupied by a pawn."""
    for t in range(53, 0, -1):
        if state[T_CELLS + LOC2CELL[side, t + 1]] == 0:
            return t
    return 0


@njit(cache=True)
def _enter_level(state, params, seat, g, level, start_cell, slot, do):
    """TR-13: the mover enters level ``level`` (0..2) of swamp ``g``, pushing
    the chain; the pawn pushed out of L3 lands on the exit under TR-11, so
    the move is illegal if the exit holds a pawn of that pushed pawn's
    colour (it never captures its own colour: the revised ruling) or one of
    the mover's own pawns."""
    base = T_CELLS + SWAMP0 + 3 * g
    k = level
    while k < 3 and state[base + k] != 0 and SWAMP0 + 3 * g + k != start_cell:
        k += 1
    exit_cell = (12 + 12 * g) % NUM_CIRCLE
    if k == 3:
        on_exit = state[T_CELLS + exit_cell]
        if on_exit == seat + 1 or (on_exit != 0 and on_exit == state[base + 2]):
            return False
    if not do:
        return True
    if start_cell >= 0:
        state[T_CELLS + start_cell] = 0
    if k == 3:  # the L3 occupant goes to the exit, capturing a pawn of another colour there
        if state[T_CELLS + exit_cell] != 0:
            _capture(state, params, exit_cell)
        pushed = _slot_on_cell(state, params, SWAMP0 + 3 * g + 2)
        owner = pushed // PAWNS
        j = (g - params[P_SIDES + owner]) % 4
        state[T_PAWNS + pushed] = LOC_C1 + 6 + 12 * j  # its own C7, C19, ...
        state[T_CELLS + exit_cell] = owner + 1
        state[base + 2] = 0
        k = 2
    for m in range(k, level, -1):  # each occupant one level down the chain
        pushed = _slot_on_cell(state, params, SWAMP0 + 3 * g + m - 1)
        owner = pushed // PAWNS
        j = (g - params[P_SIDES + owner]) % 4
        state[T_PAWNS + pushed] = LOC_S + 3 * j + m
        state[base + m] = owner + 1
        state[base + m - 1] = 0
    state[T_PAWNS + slot] = LOC_S + 3 * ((g - params[P_SIDES + seat]) % 4) + level
    state[base + level] = seat + 1
    return True


@njit(cache=True)
def _land(state, params, seat, side, dest, start_cell, slot, do):
    """TR-11..TR-13: the pawn ends its move on ``dest`` (a C or H location)."""
    own = seat + 1
    cell = LOC2CELL[side, dest]
    if cell != start_cell and state[T_CELLS + cell] == own:
        return False
    t = dest - 1
    if t <= NUM_CIRCLE and (t % 12 == 3 or t % 12 == 11):  # TR-12 shortcut
        other = t + 8 if t % 12 == 3 else t - 8
        ocell = LOC2CELL[side, other + 1]
        if ocell != start_cell and state[T_CELLS + ocell] == own:
            return False
        if do:
            if start_cell >= 0:
                state[T_CELLS + start_cell] = 0
            if state[T_CELLS + cell] != 0:
                _capture(state, params, cell)
            if state[T_CELLS + ocell] != 0:
                _capture(state, params, ocell)
            state[T_PAWNS + slot] = other + 1
            state[T_CELLS + ocell] = own
        return True
    if t <= NUM_CIRCLE and t % 12 == 4:  # TR-13 swamp entrance: on into L1
        return _enter_level(state, params, seat, (side + (t - 4) // 12) % 4, 0, start_cell, slot, do)
    if do:
        if start_cell >= 0:
            state[T_CELLS + start_cell] = 0
        if state[T_CELLS + cell] != 0:
            _capture(state, params, cell)
        state[T_PAWNS + slot] = dest
        state[T_CELLS + cell] = own
    return True


@njit(cache=True)
def _move(state, params, seat, slot, roll, do):
    """Is moving the pawn in ``slot`` with ``roll`` legal (TR-8..TR-14)?
    With ``do``, play it."""
    side = params[P_SIDES + seat]
    loc = state[T_PAWNS + slot]
    if loc == LOC_Q:  # TR-8: a 6 takes it back to its origin
        if roll != 6:
            return False
        if do:
            state[T_PAWNS + slot] = LOC_O
        return True
    if loc == LOC_O:  # TR-8: a 6 puts it on C1
        if roll != 6:
            return False
        return _land(state, params, seat, side, LOC_C1, -1, slot, do)
    start_cell = LOC2CELL[side, loc]
    if loc >= LOC_S:  # TR-8 / TR-14: exact rolls leave a swamp level
        j, level = divmod(loc - LOC_S, 3)
        if roll != LEAVE_LEVEL[level]:
            return False
        if level < 2:
            return _enter_level(state, params, seat, (side + j) % 4, level + 1, start_cell, slot, do)
        return _land(state, params, seat, side, LOC_C1 + 6 + 12 * j, start_cell, slot, do)
    # TR-9 / TR-10: walk along the track, bouncing back from the free end
    t = loc - 1
    end = _free_end(state, side)
    if t > end:
        return False  # a fixed pawn
    for i in range(1, roll):
        p = t + i if t + i <= end else 2 * end - t - i
        if p < 1:
            return False
        c = LOC2CELL[side, p + 1]
        if state[T_CELLS + c] != 0 and c != start_cell:
            return False
    p = t + roll if t + roll <= end else 2 * end - t - roll
    if p < 1:
        return False
    return _land(state, params, seat, side, p + 1, start_cell, slot, do)


@njit(cache=True)
def _mark(state, params, seat, roll, mask):
    """Mark (if ``mask`` is non-empty) the locations whose pawn may move;
    return how many."""
    count = 0
    base = T_PAWNS + PAWNS * seat
    for p in range(PAWNS):
        loc = state[base + p]
        if p > 0 and loc == state[base + p - 1]:
            continue  # pawns on one location are interchangeable
        if _move(state, params, seat, base - T_PAWNS + p, roll, False):
            count += 1
            if mask.shape[0] > 0:
                mask[loc] = 1
    return count


@njit(cache=True)
def _sort_pawns(state, seat):
    base = T_PAWNS + PAWNS * seat
    for i in range(1, PAWNS):
        v = state[base + i]
        j = i - 1
        while j >= 0 and state[base + j] > v:
            state[base + j + 1] = state[base + j]
            j -= 1
        state[base + j + 1] = v


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)  # every cell empty; every pawn at its origin (LOC_O = 0)
    state[T_ROLLER] = first_seat
    state[T_LAST] = -1
    state[T_LAST + 1] = -1
    state[T_LAST + 2] = -1
    state[E.H_CURRENT] = E.CHANCE  # TR-7: every turn starts with the roll


@njit(cache=True)
def legal(state, params, mask):
    mask[:] = 0
    if state[E.H_CURRENT] == E.CHANCE:
        for f in range(NUM_FACES):
            mask[f] = 1
        return NUM_FACES
    count = _mark(state, params, state[E.H_CURRENT], state[T_ROLL], mask)
    if count == 0:  # TR-7: no pawn can move with this roll; the roller passes
        mask[PASS] = 1
        return 1
    return count


@njit(cache=True)
def _end_of_turn(state, params, seat):
    nxt = (seat + 1) % params[E.P_NUM_PLAYERS]
    state[T_ROLLER] = nxt
    state[T_ROLL] = 0
    E.end_turn(state, params, E.CHANCE)
    if state[E.H_STATUS] != E.PLAYING:
        state[E.H_CURRENT] = nxt  # a finished game names no chance node


@njit(cache=True)
def apply(state, params, action):
    if state[E.H_CURRENT] == E.CHANCE:  # TR-7: the roll
        seat = state[T_ROLLER]
        E.record_action(state, E.CHANCE, action)
        state[T_ROLL] = action + 1
        state[E.H_CURRENT] = seat  # it moves a pawn, or passes if none can move (TR-7)
        return
    seat = state[E.H_CURRENT]
    E.record_action(state, seat, action)
    if action == PASS:
        _end_of_turn(state, params, seat)
        return
    base = PAWNS * seat
    slot = base
    while state[T_PAWNS + slot] != action:
        slot += 1
    _move(state, params, seat, slot, state[T_ROLL], True)
    state[T_LAST] = seat
    state[T_LAST + 1] = action
    state[T_LAST + 2] = state[T_PAWNS + slot]
    for s in range(params[E.P_NUM_PLAYERS]):
        _sort_pawns(state, s)
    home = 0
    for p in range(PAWNS):
        loc = state[T_PAWNS + base + p]
        if loc >= LOC_H1 and loc < LOC_S:
            home += 1
    if home == PAWNS:  # TR-15
        E.win_seat(state, seat, REASON_HOME)
    _end_of_turn(state, params, seat)


@njit(cache=True)
def observe(state, params, seat, obs):
    obs[:] = 0
    n = params[E.P_NUM_PLAYERS]
    so = params[P_SIDES + seat]
    roller = state[T_ROLLER]
    for r in range(n):
        s = (seat + r) % n
        side = params[P_SIDES + s]
        row = r * OBS_WIDTH
        for p in range(PAWNS):
            loc = state[T_PAWNS + PAWNS * s + p]
            cell = LOC2CELL[side, loc]
            if cell >= 0:
                obs[row + ROT[so, cell]] = 1
                if loc >= LOC_H1 and loc < LOC_S:
                    obs[row + O_HOME] += 1
                elif loc == LOC_C1 + 48:  # C49 (TR-3): the entry cell, a lap done
                    obs[row + O_LAPPED] = 1
            elif loc == LOC_O:
                obs[row + O_ORIGIN] += 1
            else:
                obs[row + O_QUAG] += 1
        if s == roller and state[E.H_STATUS] == E.PLAYING:
            obs[row + O_TURN] = 1
            if state[T_ROLL] > 0:
                obs[row + O_ROLL + state[T_ROLL] - 1] = 1
        obs[row + O_SIDE + (side - so) % 4] = 1


@njit(cache=True)
def chance_probs(state, params, probs):
    probs[:] = 0.0
    for f in range(NUM_FACES):
        probs[f] = 1.0 / NUM_FACES


KERNELS = E.Kernels(init, legal, apply, observe, chance_probs)


@njit(cache=True)
def _progress(state, seat):
    """How far ``seat``'s pawns are along their tracks (TR-3): the walking
    index (C_i = i, H_h = 49 + h, plus 10 for a pawn home), a swamp pawn at
    its entrance (4 + 12 j), 0 in the origin, -1 in the quagmire (two 6s
    from the origin's C1, TR-8)."""
    total = 0
    for p in range(PAWNS):
        loc = state[T_PAWNS + PAWNS * seat + p]
        if loc == LOC_Q:
            total -= 1
        elif loc >= LOC_S:
            total += 4 + 12 * ((loc - LOC_S) // 3)
        elif loc >= LOC_H1:
            total += loc - 1 + 10
        elif loc >= LOC_C1:
            total += loc - 1
    return total


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (TR-15: a race): the mover's progress
    minus the best progress among the other seats (a capture, TR-11, sends
    a pawn to the quagmire and so counts as the distance it loses)."""
    best = -(1 << 30)
    for s in range(params[E.P_NUM_PLAYERS]):
        if s != seat:
            best = max(best, _progress(state, s))
    return float(_progress(state, seat) - best)
DIE = np.full(NUM_FACES, 1.0 / NUM_FACES)


@njit(cache=True)
def settle_chance(state, params):
    """Roll (``engine.sample_probs`` on the row's generator, as
    ``Game.draw_chance`` does) until a seat is to move or the game is over."""
    while state[E.H_STATUS] == E.PLAYING and state[E.H_CURRENT] == E.CHANCE:
        apply(state, params, E.sample_probs(state, DIE))


# --- notation -------------------------------------------------------------------


def loc_name(loc: int) -> str:
    if loc == LOC_O:
        return "O"
    if loc == LOC_Q:
        return "Q"
    if loc < LOC_H1:
        return f"C{loc - 1}"
    if loc < LOC_S:
        return f"H{loc - LOC_H1 + 1}"
    j, level = divmod(loc - LOC_S, 3)
    return f"S{j + 1}.{level + 1}"


LOC_NAMES = [loc_name(i) for i in range(NUM_LOCS)]
_LOC_OF = {name: i for i, name in enumerate(LOC_NAMES)}
_ROLL_RE = re.compile(r"^roll ([1-6])$")

# text and pictures: the 13 x 13 board, y = 6 (top) .. -6 (bottom)
EMPTY_CH, GRASS_CH, QUAG_CH = ".", "-", "~"


def _static_char(x, y) -> str:
    if (x, y) in XY_CELL:
        return EMPTY_CH
    if (x, y) in QUAGMIRE_XY:
        return QUAG_CH
    if (x, y) in DIAGONAL_XY:
        return "\\" if DIAGONAL_XY[(x, y)] % 2 == 0 else "/"
    return GRASS_CH


STATIC_BOARD = [[_static_char(x, y) for x in range(-6, 7)] for y in range(6, -7, -1)]


class TryasinaGame(Game):
    """Tryasina with its options fixed (see the module docstring for the card)."""

    env_id = "tryasina_v0"
    title = "Tryasina"
    rules_file = "tryasina.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        num_players_option(2, (2, 3, 4)),
        first_player_option(0),  # C-2: seat 0 (the original names no first player)
        max_turns_option(3000),  # TR-16: see README (random play's game lengths)
    )
    reason_names = {REASON_HOME: "all_home"}
    settle_chance = staticmethod(settle_chance)
    # TR-7: a roll no pawn can use passes the turn, as the roller's one legal
    # action "pass" (OpenSpiel's backgammon convention), so every seat is
    # asked once per turn (no forced pass without a decision)
    forced_passes = False
    variants = ({"num_players": 2}, {"num_players": 3}, {"num_players": 4})
    heuristic = staticmethod(heuristic)

    def configure(self, o):
        n = o["num_players"]
        high = [1] * NUM_CELLS + [PAWNS, PAWNS, PAWNS] + [1] * (OBS_WIDTH - O_TURN)  # cells, O/Q/home counts, flags
        sides = list(SIDES_OF[n]) + [0] * (4 - n)
        return dict(num_players=n, num_actions=NUM_ACTIONS, num_chance_outcomes=NUM_FACES,
                    obs_shape=(n, OBS_WIDTH), obs_high_per_plane=high, params=sides)  # fmt: skip

    def side_of(self, seat: int) -> int:
        return int(self.params[P_SIDES + seat])

    def pawn_locations(self, state, seat: int) -> list[int]:
        return [int(v) for v in state[T_PAWNS + PAWNS * seat : T_PAWNS + PAWNS * (seat + 1)]]

    # -- notation ------------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        if state[E.H_CURRENT] == E.CHANCE and state[E.H_STATUS] == E.PLAYING:
            if action >= NUM_FACES:
                raise IllegalMoveError(f"tryasina_v0: action {action} is no chance outcome (0..5 = roll 1..6)")
            return f"roll {action + 1}"
        if action == PASS:
            return "pass"
        return LOC_NAMES[action]

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(f"tryasina_v0: a move is a str like 'roll 4', 'O', 'C12', 'H2' or 'S1.3', got {move!r}")
        text = " ".join(move.split())
        roll = _ROLL_RE.match(text)
        if not roll and text.upper() not in _LOC_OF and text != "pass":
            raise NotationError(
                f"tryasina_v0: malformed move {move!r}; expected 'roll 1'..'roll 6', a location in the mover's "
                "track terms: O, Q, C1..C49, H1..H4, S1.1..S4.3, or 'pass' (when the roll moves no pawn)"
            )
        at_chance = state[E.H_CURRENT] == E.CHANCE and state[E.H_STATUS] == E.PLAYING
        if bool(roll) != bool(at_chance):
            who = "chance" if at_chance else self.seat_name(int(state[E.H_CURRENT]))
            raise IllegalMoveError(f"tryasina_v0: {move!r} is not a move for {who}")
        if text == "pass":
            return PASS
        return int(roll.group(1)) - 1 if roll else _LOC_OF[text.upper()]

    # -- the dice variant and actions by class: none (Tryasina has its own die)

    # -- text form -----------------------------------------------------------
    def board_rows(self, state) -> list[list[str]]:
        rows = [list(r) for r in STATIC_BOARD]
        for seat in range(self.num_players):
            side = self.side_of(seat)
            for loc in self.pawn_locations(state, seat):
                cell = int(LOC2CELL[side, loc])
                if cell >= 0:
                    x, y = (int(v) for v in CELL_XY[cell])
                    lapped = loc == LOC_C1 + 48  # C49: on its own entry cell, lap done
                    rows[6 - y][x + 6] = LETTERS[seat].lower() if lapped else LETTERS[seat]
        return rows

    def body_to_text(self, state) -> list[str]:
        n = self.num_players
        roll = int(state[T_ROLL])
        counts = [[self.pawn_locations(state, s).count(loc) for s in range(n)] for loc in (LOC_O, LOC_Q)]
        return (
            [f"roller: {self.seat_name(int(state[T_ROLLER]))}", f"roll: {roll if roll else '-'}", "board:"]
            + [" ".join(r) for r in self.board_rows(state)]
            + ["origin: " + " ".join(map(str, counts[0])), "quagmire: " + " ".join(map(str, counts[1]))]
        )

    def body_from_text(self, lines: list[str], state) -> None:
        n = self.num_players
        env = self.env_id
        if len(lines) != 18 or lines[2] != "board:":
            raise NotationError(f"{env}: the body is 'roller:', 'roll:', 'board:', 13 board rows, 'origin:' and 'quagmire:'")
        head = {}
        for line in lines[:2] + lines[16:]:
            key, sep, value = line.partition(":")
            head[key] = value.split()
        if set(head) != {"roller", "roll", "origin", "quagmire"}:
            raise NotationError(f"{env}: expected the lines roller:, roll:, origin:, quagmire:; got {sorted(head)}")
        roller = head["roller"][0] if len(head["roller"]) == 1 else ""
        if not re.fullmatch(rf"player_[0-{n - 1}]", roller):
            raise NotationError(f"{env}: roller must be player_0..player_{n - 1}, got {roller!r}")
        roll = head["roll"][0] if len(head["roll"]) == 1 else ""
        if roll not in ("-", "1", "2", "3", "4", "5", "6"):
            raise NotationError(f"{env}: roll must be '-' (before the roll) or 1..6, got {roll!r}")
        state[T_ROLLER] = int(roller[7:])
        state[T_ROLL] = 0 if roll == "-" else int(roll)
        pawns: list[list[int]] = [[] for _ in range(n)]
        for key, loc in (("origin", LOC_O), ("quagmire", LOC_Q)):
            vals = head[key]
            if len(vals) != n or any(not re.fullmatch("[0-4]", v) for v in vals):
                raise NotationError(f"{env}: {key} needs {n} counts 0..4 (one per seat), got {' '.join(vals)!r}")
            for s, v in enumerate(vals):
                pawns[s] += [loc] * int(v)
        for r, line in enumerate(lines[3:16]):
            tokens = line.split()
            y = 6 - r
            if len(tokens) != 13:
                raise NotationError(f"{env}: board row {r + 1} (y = {y}) needs 13 tokens, got {line!r}")
            for c, tok in enumerate(tokens):
                x = c - 6
                static = STATIC_BOARD[r][c]
                if tok == static:
                    continue
                where = f"({x},{y})"
                if len(tok) > 1 and all(ch.upper() in LETTERS for ch in tok):
                    raise NotationError(f"{env}: {tok!r} on {where}: one pawn per cell (only origins and quagmires hold several)")
                if len(tok) != 1 or tok.upper() not in LETTERS[:n]:
                    raise NotationError(
                        f"{env}: {tok!r} on {where}; expected {static!r} there or a pawn letter {LETTERS[:n]} "
                        "(lower case: on its own entry cell after its lap, C49)"
                    )
                if static != EMPTY_CH:
                    raise NotationError(f"{env}: pawn {tok!r} on {where}, which is not a cell (TR-1..TR-5)")
                seat = LETTERS.index(tok.upper())
                side = self.side_of(seat)
                cell = XY_CELL[(x, y)]
                locs = np.flatnonzero(LOC2CELL[side] == cell)
                if len(locs) == 0:
                    owner = (cell - HOME0) // 4
                    raise NotationError(
                        f"{env}: pawn {tok!r} on {where}, the {SIDE_NAMES[owner]} home: no pawn enters another player's home (TR-2)"
                    )
                loc = int(locs[0])
                if tok.islower():
                    if loc != LOC_C1:
                        raise NotationError(f"{env}: lower-case {tok!r} on {where}: only a pawn on its own entry cell is written lower case (C49)")
                    loc = LOC_C1 + 48
                t = loc - 1
                if loc < LOC_H1 and t <= NUM_CIRCLE and t % 12 == 4:
                    raise NotationError(f"{env}: pawn {tok!r} on {where}, a swamp entrance: a pawn never stops there (TR-13)")
                pawns[seat].append(loc)
                state[T_CELLS + cell] = seat + 1
        for s in range(n):
            if len(pawns[s]) != PAWNS:
                raise NotationError(
                    f"{env}: player_{s} ({LETTERS[s]}) has {len(pawns[s])} pawns (board + origin + quagmire); every player has exactly four"
                )
            state[T_PAWNS + PAWNS * s : T_PAWNS + PAWNS * (s + 1)] = sorted(pawns[s])
        state[T_LAST : T_LAST + 3] = -1

    def check_state(self, state) -> None:
        n = self.num_players
        env = self.env_id
        home = [sum(LOC_H1 <= loc < LOC_S for loc in self.pawn_locations(state, s)) for s in range(n)]
        done = [s for s in range(n) if home[s] == PAWNS]
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        cur, roller, roll = int(state[E.H_CURRENT]), int(state[T_ROLLER]), int(state[T_ROLL])
        if len(done) > 1:
            raise NotationError(f"{env}: players {done} all have four pawns home; the game ends with the first (TR-15)")
        out = sum(loc != LOC_O for s in range(n) for loc in self.pawn_locations(state, s))
        if int(state[E.H_TURN]) < out:
            raise NotationError(
                f"{env}: turn {int(state[E.H_TURN])} with {out} pawns out of their origins: a pawn leaves its "
                f"origin in a turn of its own (one pawn moves per turn, TR-7/TR-8), so at least {out} turns were played"
            )
        if status == E.PLAYING:
            if done:
                raise NotationError(f"{env}: player_{done[0]} has all four pawns home, so the game is over (TR-15)")
            if cur == E.CHANCE and roll != 0:
                raise NotationError(f"{env}: to_move chance needs roll '-' (the die is not rolled yet)")
            if cur != E.CHANCE and (cur != roller or roll == 0):
                raise NotationError(f"{env}: to_move must be chance (roll '-') or the roller with its roll 1..6 (TR-7)")
        elif status == E.TERMINATED and code == REASON_HOME:
            want = [1 if s in done else -1 for s in range(n)]
            rets = [int(state[E.H_RET + s]) for s in range(n)]
            if not done or rets != want:
                raise NotationError(f"{env}: reason all_home needs one player with four pawns home and returns +1 for it, -1 for the others")
        elif status != E.PLAYING and done:
            raise NotationError(f"{env}: player_{done[0]} has all four pawns home, so the game ended by the rules (all_home)")

    # -- pictures ------------------------------------------------------------
    @property
    def seat_labels(self) -> tuple:
        """Each seat's pawn letter and side, for the legend."""
        return tuple(f"{LETTERS[s]}, {SIDE_NAMES[self.side_of(s)]}" for s in range(self.num_players))

    def _who(self, seat: int) -> str:
        return f"{self.seat_name(seat)} ({self.seat_labels[seat]})"

    def chance_status(self, state) -> str:
        """The turn indicator before the roll: whose die it is (TR-7, TR-17)."""
        return f"{self._who(int(state[T_ROLLER]))} to roll"

    def turn_notes(self, state) -> list[str]:
        """The roll of the turn under way and whose it is (and that it must
        pass when no pawn can move, TR-7); before a roll, a pass just played."""
        if state[E.H_STATUS] != E.PLAYING:
            return []
        if state[E.H_CURRENT] != E.CHANCE:
            note = f"{self._who(int(state[T_ROLLER]))} rolled {int(state[T_ROLL])}"
            if not self.legal_mask(state)[:PASS].any():
                note += ": no pawn can move, it passes"
            return [note]
        if state[E.H_LAST_ACTION] == PASS and state[E.H_LAST_SEAT] >= 0:
            return [f"{self._who(int(state[E.H_LAST_SEAT]))} passed: its roll moved no pawn"]
        return []

    def last_move(self, state) -> str:
        """The last pawn move, ``player_0 (A) C1->C7`` (its seat, and where
        the pawn stood and ended in that seat's track terms; the roll of the
        turn under way is a turn note, not a move); ``-`` while none is
        known after a decision (the first rolls)."""
        if state[T_LAST] < 0:
            return "-" if state[E.H_DECISIONS] > 0 else ""
        seat = int(state[T_LAST])
        return f"{self.seat_name(seat)} ({LETTERS[seat]}) {LOC_NAMES[int(state[T_LAST + 1])]}->{LOC_NAMES[int(state[T_LAST + 2])]}"

    def render_ansi(self, state) -> str:
        n = self.num_players
        counts = [(self.pawn_locations(state, s).count(LOC_O), self.pawn_locations(state, s).count(LOC_Q)) for s in range(n)]
        pools = "  ".join(f"{LETTERS[s]}: origin {o}, quagmire {q}" for s, (o, q) in enumerate(counts))
        return "\n".join([" ".join(r) for r in self.board_rows(state)] + [pools])

    def spot(self, seat: int, loc: int) -> tuple:
        """The square ``(x, y)`` where the picture draws ``seat``'s pawns at
        location ``loc``: its cell, or for the origin and the quagmire the
        seat's spot (on the grass beside its home's entry, in its side's part
        of the quagmire)."""
        side = self.side_of(seat)
        if loc == LOC_O:
            return _rot(*ORIGIN_SPOT, side)
        if loc == LOC_Q:
            return _rot(*QUAGMIRE_SPOT, side)
        return tuple(int(v) for v in CELL_XY[LOC2CELL[side, loc]])

    def die_spot(self, seat: int) -> tuple:
        """The square where the die lies while ``seat`` rolls (its side)."""
        return _rot(*DIE_SPOT, self.side_of(seat))

    def render_rgb(self, state) -> np.ndarray:
        """The board as the original's map draws it (tiles on a dark channel,
        the diagonal shortcut bands, the framed swamps, the grey quagmire),
        the pawns as discs in the seat colours (a count where several stand),
        the die on the roller's side, the last move outlined and a key to the
        colours under the board."""
        from ..render import PALETTE, _pil, font, seat_colour

        Image, ImageDraw = _pil()
        image = _static_picture().copy()
        draw = ImageDraw.Draw(image)
        n = self.num_players
        for s in range(n):  # each seat's origin: a ring in its colour (TR-2)
            cx, cy = pic_xy(*_rot(*ORIGIN_SPOT, self.side_of(s)))
            r = PIC_DISC + 4
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=seat_colour(s), width=3)
        if state[T_LAST] >= 0:  # the last pawn move's two ends
            seat = int(state[T_LAST])
            for loc in (int(state[T_LAST + 1]), int(state[T_LAST + 2])):
                draw.rounded_rectangle(pic_box(*self.spot(seat, loc), 1), radius=5, outline=PALETTE["last"], width=3)
        if state[E.H_STATUS] == E.PLAYING:
            _draw_die(draw, pic_xy(*self.die_spot(int(state[T_ROLLER]))), int(state[T_ROLL]))
        for s in range(n):
            locs = self.pawn_locations(state, s)
            for loc in sorted(set(locs)):
                cx, cy = pic_xy(*self.spot(s, loc))
                r = PIC_DISC
                colour = seat_colour(s)
                contrast = PALETTE["text"] if sum(colour) > 380 else PALETTE["panel"]
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=PALETTE["edge"], width=2)
                if locs.count(loc) > 1:  # several pawns on an origin or a quagmire spot
                    draw.text((cx, cy), str(locs.count(loc)), fill=contrast, font=font(18), anchor="mm")
                elif loc == LOC_C1 + 48:  # C49: back on its entry after a full lap (TR-3)
                    draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), outline=contrast, width=2)
        return np.asarray(image, dtype=np.uint8).copy()


# --- the picture's geometry and drawing (TR-1..TR-5 as the original's map draws them) ---------

PIC_CELL = 40  # pixels per square
PIC_MARGIN = 10
PIC_KEY = 34  # the strip under the board: what the colours mean
PIC_SIZE = 13 * PIC_CELL + 2 * PIC_MARGIN
PIC_DISC = 14  # a pawn's radius
PIC_COLOURS = {
    "channel": (117, 39, 8),  # under the tiles, and the shortcut bands
    "grass": (16, 117, 8),
    "tile": (154, 52, 12),
    "quagmire": (112, 104, 101),
    "swamp": (112, 104, 101),  # the frame of a swamp level
    "home": (236, 196, 84),  # the frame inside a home square
    "die": (252, 252, 250),
    "pip": (20, 20, 20),
}
ORIGIN_SPOT = (1, -5)  # the bottom side's (turned for the others): grass right of its home's H1
DIE_SPOT = (-1, -5)  # grass left of the home's H1
QUAGMIRE_SPOT = (0, -1)  # the bottom side's part of the quagmire
# TR-4: the bottom-left shortcut's band (turned for the others): the two transit squares next
# to its ends (8: (-2,-6), 16: (-6,-2)) joined by a diagonal strip one square wide
SHORTCUT_BAND = ((-2.5, -5.5), (-1.5, -5.5), (-1.5, -4.5), (-4.5, -1.5), (-5.5, -1.5), (-5.5, -2.5), (-4.5, -2.5), (-2.5, -4.5))
PIPS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)), 4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
        5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)), 6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1))}  # fmt: skip
KEY = ("track", "home", "swamp", "shortcut", "quagmire", "origin")


def pic_xy(x, y) -> tuple:
    """The pixel of board point ``(x, y)`` (a square's centre for integers)."""
    return PIC_MARGIN + (x + 6.5) * PIC_CELL, PIC_MARGIN + (6.5 - y) * PIC_CELL


def pic_box(x, y, inset: int = 0) -> tuple:
    """The pixel box of square ``(x, y)``, ``inset`` pixels inside its edges."""
    cx, cy = pic_xy(x, y)
    h = PIC_CELL // 2 - inset
    return (int(cx - h), int(cy - h), int(cx + h - 1), int(cy + h - 1))


def _tile(draw, box, kind: str, small: bool = False) -> None:
    """A square as the map draws it: a rounded tile on the channel; a swamp level framed
    in grey; a home with a gold frame inside (``small``: the key's swatch)."""
    x0, y0, x1, y1 = box
    c = PIC_COLOURS
    if kind == "swamp":
        draw.rectangle(box, fill=c["tile"], outline=c["swamp"], width=2 if small else 3)
        return
    gap, inner = (1, 5) if small else (2, 8)
    draw.rounded_rectangle((x0 + gap, y0 + gap, x1 - gap, y1 - gap), radius=3 if small else 5, fill=c["tile"])
    if kind == "home":
        draw.rounded_rectangle((x0 + inner, y0 + inner, x1 - inner, y1 - inner), radius=2, outline=c["home"], width=2)


def _draw_die(draw, centre, roll: int) -> None:
    """The die as a die: its face showing ``roll`` in pips, ``?`` before the roll."""
    from ..render import PALETTE, font

    cx, cy = centre
    h = 15
    draw.rounded_rectangle((cx - h, cy - h, cx + h, cy + h), radius=5, fill=PIC_COLOURS["die"], outline=PALETTE["edge"], width=2)
    if not roll:
        draw.text((cx, cy), "?", fill=PALETTE["label"], font=font(18), anchor="mm")
        return
    for dx, dy in PIPS[roll]:
        px, py = cx + 8 * dx, cy + 8 * dy
        draw.ellipse((px - 3, py - 3, px + 3, py + 3), fill=PIC_COLOURS["pip"])


def _static_picture():
    """The board without pawns, die or seats (the same for every game), and the key."""
    global _STATIC
    if _STATIC is None:
        from ..render import PALETTE, _pil, font

        Image, ImageDraw = _pil()
        c = PIC_COLOURS
        image = Image.new("RGB", (PIC_SIZE, PIC_SIZE + PIC_KEY), PALETTE["board"])
        draw = ImageDraw.Draw(image)
        x0, y0, _, _ = pic_box(-6, 6)
        _, _, x1, y1 = pic_box(6, -6)
        draw.rectangle((x0, y0, x1, y1), fill=c["channel"])
        for y in range(-6, 7):
            for x in range(-6, 7):
                if (x, y) in QUAGMIRE_XY:
                    draw.rectangle(pic_box(x, y), fill=c["quagmire"])
                elif (x, y) not in XY_CELL:
                    draw.rectangle(pic_box(x, y), fill=c["grass"])
        for g in range(4):  # TR-4: one continuous band per shortcut
            draw.polygon([pic_xy(*_rot(x, y, g)) for x, y in SHORTCUT_BAND], fill=c["channel"])
        for cell in range(NUM_CELLS):
            kind = "track" if cell < HOME0 else "home" if cell < SWAMP0 else "swamp"
            _tile(draw, pic_box(*(int(v) for v in CELL_XY[cell])), kind)
        # the key: one swatch per colour that carries meaning
        f = font(13)
        step = PIC_SIZE // len(KEY)
        top = PIC_SIZE + (PIC_KEY - 20) // 2
        for k, name in enumerate(KEY):
            left = PIC_MARGIN + k * step
            box = (left, top, left + 19, top + 19)
            if name in ("track", "home", "swamp"):
                draw.rectangle(box, fill=c["channel"])
                _tile(draw, box, name, small=True)
            elif name == "shortcut":  # a piece of diagonal band on grass
                draw.rectangle(box, fill=c["grass"])
                draw.polygon([(left, top + 12), (left + 12, top), (left + 19, top), (left + 19, top + 7),
                              (left + 7, top + 19), (left, top + 19)], fill=c["channel"])  # fmt: skip
            elif name == "quagmire":
                draw.rectangle(box, fill=c["quagmire"])
            else:  # origin: the ring of a seat's waiting pawns
                draw.ellipse(box, outline=PALETTE["label"], width=2)
            draw.text((left + 25, top + 10), name, fill=PALETTE["label"], font=f, anchor="lm")
        _STATIC = image
    return _STATIC


_STATIC = None
