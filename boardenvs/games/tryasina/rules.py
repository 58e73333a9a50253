"""Tryasina's rules (``boardenvs/rules/tryasina.md``, TR-1..TR-17) as numba
kernels: the board, the tracks, the state row and every kernel (the die is a
chance node).  Notation and the text form are in ``text.py``, the pictures in
``picture.py``, the declaration (:class:`~boardenvs.games.tryasina.TryasinaGame`)
in ``__init__.py``.

Board indexing: the 13 x 13 squares have coordinates ``(x, y)``, ``x`` = -6..6
to the right, ``y`` = -6..6 upwards, the quagmire ``~`` the 3 x 3 centre; the
76 cells (``CELL_XY``, ``XY_CELL``), shown by index (``.`` grass)::

     y
     6   24 25 26 27 28 29 30 31 32 33 34 35 36
     5   23 69  .  .  .  . 56  .  . 70 71 72 37      0..47   the circle (TR-1), clockwise
     4   22 68  .  .  .  . 57  .  .  .  .  . 38              from the bottom-right corner
     3   21 67  .  .  .  . 58  .  .  .  .  . 39      48..63  the homes (TR-2): 48 + 4 s + h
     2   20  .  .  .  .  . 59  .  .  .  .  . 40              for H(h+1) of side s (0 bottom,
     1   19  .  .  .  .  ~  ~  ~  .  .  .  . 41              1 left, 2 top, 3 right); H1
     0   18 52 53 54 55  ~  ~  ~ 63 62 61 60 42              next to the circle
    -1   17  .  .  .  .  ~  ~  ~  .  .  .  . 43      64..75  the swamps (TR-5): 64 + 3 g + l
    -2   16  .  .  .  .  . 51  .  .  .  .  . 44              for level L(l+1) of swamp g,
    -3   15  .  .  .  .  . 50  .  .  .  . 73 45              g = 0 bottom-left, clockwise;
    -4   14  .  .  .  .  . 49  .  .  .  . 74 46              its entrance is circle
    -5   13 66 65 64  .  . 48  .  .  .  . 75 47              cell 9 + 12 g, its exit (12 + 12 g) % 48
    -6   12 11 10  9  8  7  6  5  4  3  2  1  0
     x   -6 -5 -4 -3 -2 -1  0  1  2  3  4  5  6

Side ``s`` enters the circle at cell ``6 + 12 s`` (its ``C1``) and walks
clockwise: its ``C_i`` is cell ``(6 + 12 s + i - 1) % 48``, ``C49`` its entry
again after a full lap (TR-3).  A pawn's location is kept *in its owner's
track terms* (``LOC_*``, also the action ids, so one policy plays every side):
0 ``O`` origin, 1 ``Q`` quagmire, ``2..50`` ``C1..C49``, ``51..54``
``H1..H4``, ``55 + 3 j + (l - 1)`` ``S<j+1>.<l>`` (swamp ``j`` counted along
the owner's lap); ``LOC2CELL[side, loc]`` is its cell (-1 for ``O`` and
``Q``).  Seat -> side (TR-6) is in ``params[P_SIDES + seat]``.  The
observation numbers the cells with the observer's side at the bottom:
``ROT[observer side, cell]`` (the board turned a quarter per side).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E

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
        return _enter_level(state, params, seat, (side + (t - 4) // 12) % 4, np.int64(0), start_cell, slot, do)
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
        # np.int64: a literal argument would compile another copy of _land (numba specialises on literals)
        return _land(state, params, seat, side, np.int64(LOC_C1), np.int64(-1), slot, do)
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
