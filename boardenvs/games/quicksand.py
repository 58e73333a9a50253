"""Quicksand — ``quicksand_v0``: pyramids that jump like checkers on a 6x6
board of four rotating quadrants.

Rules: ``boardenvs/rules/quicksand.md`` (``boardenvs rules quicksand_v0``)
(QS-1..QS-12), implemented once, in the numba kernels below;
:class:`QuicksandGame` adds notation, the text form and pictures.

A turn is a chain of decisions by the same agent (``multi_decision_turns``):
place a pyramid *or* select a jumper and hop, hop, ... (stop: large only),
then rotate a quadrant.  Every decision is exactly masked, and a jumper or a
hop is offered only if it can still be completed to a legal jump (QS-8).

=================  ==========================================================
Agents             ``player_0`` (``S M L``, light), ``player_1`` (``s m l``, dark)
Actions            ``Discrete(181)``, absolute cells ``i = 6 * (rank - 1) +
                   file`` (``a1`` = 0, ``f1`` = 5, ``a2`` = 6, ``f6`` = 35):

                   * ``0 .. 107`` place: ``36 * size + i`` (size 0 S, 1 M, 2 L);
                   * ``108 .. 143`` select the own pyramid on ``i`` as jumper;
                   * ``144 .. 167`` hop: ``144 + 3 * d + (k - 1)``, direction
                     ``d`` 0..7 = N NE E SE S SW W NW (N = towards rank 6),
                     over ``k`` = 1..3 aligned pyramids;
                   * ``168`` stop the jump (large only, QS-7);
                   * ``169 .. 180`` rotate: ``169 + 3 * (q - 1) + (deg / 90 - 1)``
                     for quadrant ``Qq`` clockwise by ``deg``.
Action mask        exact; the decision kind is in the observation
Observation        ``int8 (6, 6, 19)``, grid row 0 = rank 6 (top), column 0 =
                   file a; planes 0-2 own S/M/L, 3-5 the opponent's S/M/L,
                   6 the jumper, 7 pyramids already jumped in this jump,
                   8-10 the decision kind (place or select / hop or stop /
                   rotate, constant planes), 11-13 own reserve S/M/L (counts
                   0..5), 14-16 the opponent's reserve, 17 own score, 18 the
                   opponent's score (0..30)
Rewards            +1 / -1: 15 points wins at once (QS-10); a player who can
                   neither place nor jump at the start of its turn loses
                   (QS-11); truncation 0 / 0
Options            ``first_player`` (``"random"``, C-2), ``max_turns``
                   (default 1000, QS-12)
Notation           ``M@c3 Q2:90`` (place, rotate), ``c3:e5:e3 Q1:180`` (the
                   jumper's cell, then every landing, then the rotation),
                   ``c3:e5:e3`` for a jump that wins at once (QS-10); single
                   decisions ``M@c3``, ``c3``, ``:e5``, ``stop``, ``Q4:270``
=================  ==========================================================
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from .. import engine as E
from ..errors import IllegalMoveError, NotationError
from ..game import Game
from ..spec import first_player_option, max_turns_option

SMALL, MEDIUM, LARGE = 0, 1, 2
SIZE_CHARS = "SML"
PIECES_PER_SIZE = 5  # QS-1
POINTS = (1, 2, 3)  # QS-9: S 1, M 2, L 3
MAX_JUMPED = np.array([1, 2, 3], np.int64)  # QS-7: small 1, medium exactly 2, large up to 3
WIN_POINTS = 15  # QS-10
MAX_SCORE = PIECES_PER_SIZE * sum(POINTS)  # every opponent pyramid taken

EMPTY = 0
OFF = 7  # code of the sentinel cell 36 that stands for "off the board"
CELL_CHARS = ".SMLsml"  # code 1 + 3 * seat + size
NCELLS = 36
SENTINEL = 36

# phases of a turn (the decision kind)
PH_FIRST, PH_HOP, PH_ROTATE = 0, 1, 2
PHASE_NAMES = ("place", "jump", "rotate")
NONE, PLACE, JUMP = 0, 1, 2  # kinds of a turn's record

# action ids
SELECT0 = 3 * NCELLS  # 108
HOP0 = SELECT0 + NCELLS  # 144
STOP = HOP0 + 24  # 168
ROT0 = STOP + 1  # 169
NUM_ACTIONS = ROT0 + 12  # 181

OBS_PLANES = 19
OBS_HIGH = [1] * 11 + [PIECES_PER_SIZE] * 6 + [MAX_SCORE] * 2

REASON_SCORE = E.REASON_GAME
REASON_NO_MOVE = E.REASON_GAME + 1

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("quicksand_v0")
Q_CELLS = LAYOUT.add("cells", NCELLS + 1, "code per cell (0 empty, 1 + 3 * seat + size), then the sentinel (OFF)")
Q_RESERVE = LAYOUT.add("reserve", 6, "pyramids in reserve, 3 * seat + size")
Q_SCORE = LAYOUT.add("score", 2, "points scored per seat")
Q_PHASE = LAYOUT.add("phase", 1, "decision kind: 0 place or select, 1 hop or stop, 2 rotate")
Q_JCOUNT = LAYOUT.add("jumped", 1, "pyramids jumped so far in the jump in progress")
Q_JMASK = LAYOUT.add("jumped_mask", 1, "bit per cell of the pyramids jumped so far")
# the turn in progress and the last completed turn: kind, size, number of
# cells, cells (place: the cell; jump: the start and every landing), rotation
# (3 * quadrant + angle index, -1 if none), seat
Q_TURN = LAYOUT.add("turn_record", 9, "the turn in progress: kind, size, ncells, 4 cells, rotation, seat")
Q_LAST = LAYOUT.add("last_record", 9, "the last completed turn, same fields")
R_KIND, R_SIZE, R_N, R_CELLS, R_ROT, R_SEAT = 0, 1, 2, 3, 7, 8

# --- geometry ----------------------------------------------------------------
# directions (file step, rank step), clockwise from north (towards rank 6)
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def cell_name(i: int) -> str:
    return "abcdef"[i % 6] + str(i // 6 + 1)


def cell_index(name: str) -> int:
    return (int(name[1]) - 1) * 6 + "abcdef".index(name[0])


def _rays() -> np.ndarray:
    """RAYS[c, d, j]: the cell j steps from c in direction d, SENTINEL if off."""
    rays = np.full((NCELLS + 1, 8, 5), SENTINEL, np.int64)
    for c in range(NCELLS):
        f, r = c % 6, c // 6
        for d, (df, dr) in enumerate(DIRECTIONS):
            for j in range(5):
                ff, rr = f + j * df, r + j * dr
                if 0 <= ff < 6 and 0 <= rr < 6:
                    rays[c, d, j] = rr * 6 + ff
    return rays


RAYS = _rays()
RAY_FLAT = RAYS.ravel().copy()  # RAYS[c, d, j] at 40 c + 5 d + j, read with unsigned indices in the kernels
# QS-2 quadrants Q1..Q4: (first file, first rank) of their lower-left cell
QUADRANT_ORIGINS = ((0, 3), (3, 3), (0, 0), (3, 0))


def _quadrant_cells(q: int) -> list[int]:
    f0, r0 = QUADRANT_ORIGINS[q]
    return [(r0 + r) * 6 + f0 + f for r in range(3) for f in range(3)]


def _rotate90(q: int) -> dict:
    """QS-4: where each cell of quadrant q goes by a quarter turn clockwise
    (row 6 at the top): (dx, dy) from the centre goes to (dy, -dx)."""
    f0, r0 = QUADRANT_ORIGINS[q]
    out = {}
    for c in _quadrant_cells(q):
        dx, dy = c % 6 - (f0 + 1), c // 6 - (r0 + 1)
        out[c] = (r0 + 1 - dx) * 6 + (f0 + 1 + dy)
    return out


def rotation_map(q: int, angle: int) -> dict:
    """Cell -> cell of rotating quadrant q (0..3) by (angle + 1) quarter turns."""
    step = _rotate90(q)
    out = {c: c for c in _quadrant_cells(q)}
    for _ in range(angle + 1):
        out = {c: step[d] for c, d in out.items()}
    return out


def _cycles() -> np.ndarray:
    """CYCLES[q, 0/1, :]: the corner and edge 4-cycles of a quarter turn."""
    cyc = np.zeros((4, 2, 4), np.int64)
    for q in range(4):
        step = _rotate90(q)
        f0, r0 = QUADRANT_ORIGINS[q]
        for k, start in enumerate(((r0 + 2) * 6 + f0, (r0 + 2) * 6 + f0 + 1)):  # top-left corner, top edge
            c = start
            for j in range(4):
                cyc[q, k, j] = c
                c = step[c]
    return cyc


CYCLES = _cycles()
QUADRANT_OF = np.zeros(NCELLS, np.int64)
for _q in range(4):
    QUADRANT_OF[_quadrant_cells(_q)] = _q
# the eight neighbours of each cell as a bit mask (a jumper needs one occupied)
NEIGHBOURS = np.array([sum(1 << int(RAYS[c, d, 1]) for d in range(8) if RAYS[c, d, 1] != SENTINEL) for c in range(NCELLS)],
                      np.int64)  # fmt: skip
# observation grid index of each cell: row 0 = rank 6
OBS_CELL = np.array([(5 - c // 6) * 6 + c % 6 for c in range(NCELLS)], np.int64)


# --- kernels -----------------------------------------------------------------


@njit(cache=True)
def _hop_in(state, jmask, c, d, most):
    """QS-5/QS-6: the hop from c in direction d, as k (pyramids jumped), or 0
    if there is none within ``most`` pyramids.  The pyramids on consecutive
    cells from c's neighbour on (none jumped before in this jump) are the
    ones hopped over, so a direction holds at most one hop: it lands on the
    first cell after them, which must be on the board and empty (the
    sentinel's code OFF is never empty; a jumped pyramid is not either).
    Indices are unsigned: numba then skips its negative-index checks."""
    base = np.uint64(40 * c + 5 * d)
    for k in range(1, most + 1):
        x = RAY_FLAT[base + np.uint64(k)]
        v = state[np.uint64(Q_CELLS + x)]
        if v < 1 or v > 6 or (jmask >> x) & 1:
            return 0
        if state[np.uint64(Q_CELLS + RAY_FLAT[base + np.uint64(k + 1)])] == EMPTY:
            return k
    return 0


@njit(cache=True)
def _medium_goes_on(state, c, x1, land):
    """QS-8 for a medium's first hop c over x1 to ``land``: is there a second
    one-pyramid hop?  The start c counts as empty once left (QS-6)."""
    for d in range(8):
        y = RAYS[land, d, 1]
        v = state[Q_CELLS + y]
        if y == c or y == x1 or v < 1 or v > 6:
            continue
        z = RAYS[land, d, 2]
        if state[Q_CELLS + z] == EMPTY or z == c:
            return True
    return False


@njit(cache=True)
def _hop_legal(state, jmask, c, size, count, d):
    """The hop in direction d the jumper (of ``size``, ``count`` pyramids
    jumped so far) may take, as k, or 0: a legal hop (QS-5/QS-6) within its
    total (QS-7) that can still be completed to a legal jump (QS-8)."""
    k = _hop_in(state, jmask, c, d, MAX_JUMPED[size] - count)
    if k == 1 and size == MEDIUM and count == 0:
        if not _medium_goes_on(state, c, RAYS[c, d, 1], RAYS[c, d, 2]):
            return 0
    return k


@njit(cache=True)
def _any_hop(state, jmask, c, size, count):
    for d in range(8):
        if _hop_legal(state, jmask, c, size, count, d) > 0:
            return True
    return False


@njit(cache=True)
def _can_move(state, seat):
    """QS-11: can ``seat`` place (a pyramid in reserve and an empty cell) or jump?"""
    reserve = state[Q_RESERVE + 3 * seat] + state[Q_RESERVE + 3 * seat + 1] + state[Q_RESERVE + 3 * seat + 2]
    empty = False
    for i in range(NCELLS):
        if state[Q_CELLS + i] == EMPTY:
            empty = True
            break
    if reserve > 0 and empty:
        return True
    for i in range(NCELLS):
        v = state[Q_CELLS + i] - 1 - 3 * seat
        if 0 <= v <= 2 and _any_hop(state, 0, i, v, 0):
            return True
    return False


@njit(cache=True)
def _clear_record(state, base):
    state[base + R_KIND] = NONE
    state[base + R_SIZE] = -1
    state[base + R_N] = 0
    for j in range(4):
        state[base + R_CELLS + j] = -1
    state[base + R_ROT] = -1
    state[base + R_SEAT] = -1


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)  # QS-2: the board starts empty
    state[Q_CELLS + SENTINEL] = OFF
    for k in range(6):
        state[Q_RESERVE + k] = PIECES_PER_SIZE  # QS-1
    _clear_record(state, Q_TURN)
    _clear_record(state, Q_LAST)


@njit(cache=True)
def legal(state, params, mask):
    mask[:] = 0
    seat = state[E.H_CURRENT]
    phase = state[Q_PHASE]
    count = 0
    if phase == PH_FIRST:
        # QS-3: place one pyramid from the reserve on an empty cell, or jump
        # with an own pyramid that can complete a jump (QS-8)
        has0 = state[Q_RESERVE + 3 * seat] > 0
        has1 = state[Q_RESERVE + 3 * seat + 1] > 0
        has2 = state[Q_RESERVE + 3 * seat + 2] > 0
        sizes = np.int64(has0) + np.int64(has1) + np.int64(has2)
        own = 1 + 3 * seat
        occupied = np.int64(0)
        mine = np.int64(0)
        for i in range(NCELLS):
            u = np.uint64(i)
            v = state[Q_CELLS + i]
            free = v == EMPTY
            mask[u] = free & has0
            mask[u + np.uint64(36)] = free & has1
            mask[u + np.uint64(72)] = free & has2
            count += np.int64(free) * sizes
            occupied |= np.int64(not free) << i
            mine |= np.int64(own <= v <= own + 2) << i
        # a jumper needs an occupied neighbour (QS-5): most pyramids fail that cheap test
        for i in range(NCELLS):
            if (mine >> i) & 1 and occupied & NEIGHBOURS[i]:
                if _any_hop(state, 0, i, state[Q_CELLS + i] - own, 0):
                    mask[np.uint64(i + SELECT0)] = 1
                    count += 1
    elif phase == PH_HOP:
        size = state[Q_TURN + R_SIZE]
        jumped = state[Q_JCOUNT]
        c = state[Q_TURN + R_CELLS + state[Q_TURN + R_N] - 1]
        jmask = state[Q_JMASK]
        for d in range(8):
            k = _hop_legal(state, jmask, c, size, jumped, d)
            if k > 0:
                mask[HOP0 + 3 * d + k - 1] = 1
                count += 1
        if size == LARGE and jumped > 0:  # QS-7: a legal total reached, and a further hop exists
            mask[STOP] = 1
            count += 1
    else:
        for a in range(12):  # QS-4: any quadrant, 90/180/270, empty ones too
            mask[ROT0 + a] = 1
        count = 12
    return count


@njit(cache=True)
def _finish_turn(state, params, seat):
    """Close the turn: keep its record as the last move, then hand over."""
    for j in range(9):
        state[Q_LAST + j] = state[Q_TURN + j]
    state[Q_LAST + R_SEAT] = seat
    _clear_record(state, Q_TURN)
    state[Q_PHASE] = PH_FIRST
    state[Q_JCOUNT] = 0
    state[Q_JMASK] = 0
    nxt = 1 - seat
    # QS-11: neither place nor jump at the start of one's turn loses
    if state[E.H_STATUS] == E.PLAYING and not _can_move(state, nxt):
        E.win_seat(state, seat, REASON_NO_MOVE)
    E.end_turn(state, params, nxt)


@njit(cache=True)
def _end_jump(state, params, seat):
    """QS-9: every jumped pyramid is captured: the mover's own back to its
    reserve, the opponent's out of the game for their points; QS-10: 15
    points win at once, without the rotation."""
    jmask = state[Q_JMASK]
    for x in range(NCELLS):
        if (jmask >> x) & 1:
            v = state[Q_CELLS + x] - 1
            owner, size = v // 3, v % 3
            if owner == seat:
                state[Q_RESERVE + 3 * seat + size] += 1
            else:
                state[Q_SCORE + seat] += size + 1
            state[Q_CELLS + x] = EMPTY
    state[Q_JMASK] = 0
    if state[Q_SCORE + seat] >= WIN_POINTS:
        E.win_seat(state, seat, REASON_SCORE)
        _finish_turn(state, params, seat)
    else:
        state[Q_PHASE] = PH_ROTATE


@njit(cache=True)
def _rotate(state, q, angle):
    for _ in range(angle + 1):
        for k in range(2):
            a = Q_CELLS + CYCLES[q, k, 0]
            b = Q_CELLS + CYCLES[q, k, 1]
            c = Q_CELLS + CYCLES[q, k, 2]
            d = Q_CELLS + CYCLES[q, k, 3]
            t = state[d]
            state[d] = state[c]
            state[c] = state[b]
            state[b] = state[a]
            state[a] = t


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    E.record_action(state, seat, action)
    if action < SELECT0:  # QS-3 place
        size, i = action // 36, action % 36
        state[Q_CELLS + i] = 1 + 3 * seat + size
        state[Q_RESERVE + 3 * seat + size] -= 1
        state[Q_TURN + R_KIND] = PLACE
        state[Q_TURN + R_SIZE] = size
        state[Q_TURN + R_N] = 1
        state[Q_TURN + R_CELLS] = i
        state[Q_PHASE] = PH_ROTATE
    elif action < HOP0:  # QS-3 jump: the jumper
        i = action - SELECT0
        state[Q_TURN + R_KIND] = JUMP
        state[Q_TURN + R_SIZE] = (state[Q_CELLS + i] - 1) % 3
        state[Q_TURN + R_N] = 1
        state[Q_TURN + R_CELLS] = i
        state[Q_JCOUNT] = 0
        state[Q_JMASK] = 0
        state[Q_PHASE] = PH_HOP
    elif action < STOP:  # QS-5 a hop; the jumped pyramids stay until the jump ends (QS-6)
        d, k = (action - HOP0) // 3, (action - HOP0) % 3 + 1
        n = state[Q_TURN + R_N]
        c = state[Q_TURN + R_CELLS + n - 1]
        for j in range(1, k + 1):
            state[Q_JMASK] |= np.int64(1) << RAYS[c, d, j]
        land = RAYS[c, d, k + 1]
        state[Q_CELLS + land] = state[Q_CELLS + c]
        state[Q_CELLS + c] = EMPTY  # QS-6: the cell left counts as empty
        state[Q_TURN + R_CELLS + n] = land
        state[Q_TURN + R_N] = n + 1
        state[Q_JCOUNT] += k
        size = state[Q_TURN + R_SIZE]
        # the jump ends by itself at the size's limit or when no hop is left
        if state[Q_JCOUNT] == MAX_JUMPED[size] or not _any_hop(state, state[Q_JMASK], land, size, state[Q_JCOUNT]):
            _end_jump(state, params, seat)
    elif action == STOP:  # QS-7: a large stops after 1 or 2
        _end_jump(state, params, seat)
    else:  # QS-4 the rotation
        q, angle = (action - ROT0) // 3, (action - ROT0) % 3
        _rotate(state, q, angle)
        state[Q_TURN + R_ROT] = action - ROT0
        _finish_turn(state, params, seat)


@njit(cache=True)
def observe(state, params, seat, obs):
    other = 1 - seat
    phase = state[Q_PHASE]
    jumper = -1
    if phase == PH_HOP:
        jumper = state[Q_TURN + R_CELLS + state[Q_TURN + R_N] - 1]
    jmask = state[Q_JMASK]
    # the constant planes' values: decision kind, reserves, scores
    r0, r1, r2 = state[Q_RESERVE + 3 * seat], state[Q_RESERVE + 3 * seat + 1], state[Q_RESERVE + 3 * seat + 2]
    o0, o1, o2 = state[Q_RESERVE + 3 * other], state[Q_RESERVE + 3 * other + 1], state[Q_RESERVE + 3 * other + 2]
    own_score, opp_score = state[Q_SCORE + seat], state[Q_SCORE + other]
    own = 1 + 3 * seat
    opp = 1 + 3 * other
    for i in range(NCELLS):
        g = np.uint64(OBS_CELL[i] * OBS_PLANES)
        v = state[Q_CELLS + i]
        obs[g] = v == own
        obs[g + np.uint64(1)] = v == own + 1
        obs[g + np.uint64(2)] = v == own + 2
        obs[g + np.uint64(3)] = v == opp
        obs[g + np.uint64(4)] = v == opp + 1
        obs[g + np.uint64(5)] = v == opp + 2
        obs[g + np.uint64(6)] = i == jumper
        obs[g + np.uint64(7)] = (jmask >> i) & 1
        obs[g + np.uint64(8)] = phase == PH_FIRST
        obs[g + np.uint64(9)] = phase == PH_HOP
        obs[g + np.uint64(10)] = phase == PH_ROTATE
        obs[g + np.uint64(11)] = r0
        obs[g + np.uint64(12)] = r1
        obs[g + np.uint64(13)] = r2
        obs[g + np.uint64(14)] = o0
        obs[g + np.uint64(15)] = o1
        obs[g + np.uint64(16)] = o2
        obs[g + np.uint64(17)] = own_score
        obs[g + np.uint64(18)] = opp_score


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (QS-9/QS-10: points win): the mover's
    score minus the opponent's, counting the opponent's pyramids already
    jumped in a jump under way as scored (so a greedy jump goes on hopping
    over what it can), plus a tenth of a point per own pyramid still in play
    (on the board or in the reserve) minus the opponent's."""
    own = state[Q_SCORE + seat]
    other = state[Q_SCORE + 1 - seat]
    material = 0
    jmask = state[Q_JMASK]
    for x in range(NCELLS):
        v = state[Q_CELLS + x] - 1
        if v < 0:
            continue
        if v // 3 == seat:
            material += 1  # jumped or not: an own pyramid goes back to the reserve
        elif (jmask >> x) & 1:
            own += v % 3 + 1  # captured when the jump ends
        else:
            material -= 1
    for size in range(3):
        material += state[Q_RESERVE + 3 * seat + size] - state[Q_RESERVE + 3 * (1 - seat) + size]
    return float(own - other) + 0.1 * material

# --- notation ----------------------------------------------------------------
_CELL = r"[a-f][1-6]"
_PLACE_RE = re.compile(rf"^([SML])@({_CELL})$")
_SELECT_RE = re.compile(rf"^({_CELL})$")
_HOP_RE = re.compile(rf"^:({_CELL})$")
_ROT_RE = re.compile(r"^Q([1-4]):(90|180|270)$")
_JUMP_RE = re.compile(rf"^({_CELL})?((?::{_CELL}){{0,3}})$")
FORMS = ("'M@c3 Q2:90' (place, rotate), 'c3:e5:e3 Q1:180' (jump, rotate), 'c3:e5' (a jump that wins at once); "
         "one decision: 'M@c3', 'c3', ':e5', 'stop', 'Q4:270'")  # fmt: skip


def hop_of(c: int, land: int):
    """(direction, k) of the hop from c to ``land``, or None if ``land`` is not
    2..4 cells away in a straight line (QS-5)."""
    df, dr = land % 6 - c % 6, land // 6 - c // 6
    dist = max(abs(df), abs(dr))
    if dist < 2 or dist > 4 or (df and dr and abs(df) != abs(dr)):
        return None
    step = (int(np.sign(df)), int(np.sign(dr)))
    return DIRECTIONS.index(step), dist - 1


def rotation_name(r: int) -> str:
    return f"Q{r // 3 + 1}:{(r % 3 + 1) * 90}"


class QuicksandGame(Game):
    """Quicksand with its options fixed (see the module docstring for the card)."""

    env_id = "quicksand_v0"
    title = "Quicksand"
    rules_file = "quicksand.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        first_player_option("random"),  # C-2: the original lets the players choose
        # QS-12: well above random-play lengths (see the rules file)
        max_turns_option(1000),
    )
    reason_names = {REASON_SCORE: "score", REASON_NO_MOVE: "no_legal_move"}
    multi_decision_turns = True
    seat_labels = ("light", "dark")
    seat_symbols = ("S M L", "s m l")  # small, medium, large in the text form
    action_class_names = ("small", "medium", "large")
    variants = ({}, {"max_turns": 20})
    heuristic = staticmethod(heuristic)

    def configure(self, o):
        return dict(num_actions=NUM_ACTIONS, obs_shape=(6, 6, OBS_PLANES), obs_high_per_plane=OBS_HIGH)

    # -- reading a state -----------------------------------------------------
    @staticmethod
    def cells(state) -> np.ndarray:
        """Cell codes, a1 = 0 .. f6 = 35: 0 empty, 1 + 3 * seat + size."""
        return state[Q_CELLS : Q_CELLS + NCELLS]

    @staticmethod
    def scores(state) -> tuple[int, int]:
        return int(state[Q_SCORE]), int(state[Q_SCORE + 1])

    @staticmethod
    def reserve(state, seat: int) -> tuple[int, int, int]:
        return tuple(int(v) for v in state[Q_RESERVE + 3 * seat : Q_RESERVE + 3 * seat + 3])

    @staticmethod
    def phase(state) -> str:
        return PHASE_NAMES[int(state[Q_PHASE])]

    @staticmethod
    def jump_path(state) -> list[int]:
        """The jump in progress: the start cell and every landing so far."""
        if state[Q_PHASE] != PH_HOP:
            return []
        return [int(c) for c in state[Q_TURN + R_CELLS : Q_TURN + R_CELLS + state[Q_TURN + R_N]]]

    def end_infos(self, state) -> dict:
        return {"scores": self.scores(state)}

    def action_classes(self, state) -> np.ndarray:
        """The dice variant's class of each first decision: the size of the
        pyramid placed, or of the jumper selected."""
        classes = np.full(NUM_ACTIONS, -1, np.int64)
        classes[:SELECT0] = np.arange(SELECT0) // 36
        seat = int(state[E.H_CURRENT])
        cells = self.cells(state)
        own = (cells - 1) // 3 == seat
        classes[SELECT0:HOP0] = np.where((cells > 0) & own, (cells - 1) % 3, -1)
        return classes

    # -- notation ------------------------------------------------------------
    def _record_move(self, state, base) -> str:
        kind, n = int(state[base + R_KIND]), int(state[base + R_N])
        cells = [int(c) for c in state[base + R_CELLS : base + R_CELLS + n]]
        if kind == NONE:
            return ""
        if kind == PLACE:
            text = f"{SIZE_CHARS[int(state[base + R_SIZE])]}@{cell_name(cells[0])}"
        else:
            text = ":".join(cell_name(c) for c in cells)
        if state[base + R_ROT] >= 0:
            text += " " + rotation_name(int(state[base + R_ROT]))
        return text

    def last_move(self, state) -> str:
        """The turn under way so far (its decisions made), else the last
        completed turn, in notation; '' before the first decision."""
        so_far = self._record_move(state, Q_TURN)
        return f"{so_far} (turn under way)" if so_far else self._record_move(state, Q_LAST)

    def turn_notes(self, state) -> list[str]:
        """What the seat to act is deciding, and the score (QS-11)."""
        scores = self.scores(state)
        note = f"score {scores[0]}-{scores[1]}"
        if state[E.H_STATUS] == E.PLAYING:
            phase = int(state[Q_PHASE])
            if phase == PH_HOP:
                note = f"jumping {':'.join(cell_name(c) for c in self.jump_path(state))}; " + note
            elif phase == PH_ROTATE:
                note = "rotating a quadrant; " + note
        return [note]

    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        if action < SELECT0:
            return f"{SIZE_CHARS[action // 36]}@{cell_name(action % 36)}"
        if action < HOP0:
            return cell_name(action - SELECT0)
        if action < STOP:
            path = self.jump_path(state)
            if not path:
                raise IllegalMoveError(f"quicksand_v0: action {action} is a hop, but no jump is in progress")
            d, k = divmod(action - HOP0, 3)
            land = int(RAYS[path[-1], d, k + 2])
            if land == SENTINEL:
                raise IllegalMoveError(
                    f"quicksand_v0: action {action} hops {DIRECTION_NAMES[d]} over {k + 1} from {cell_name(path[-1])}, "
                    "off the board"
                )
            return ":" + cell_name(land)
        if action == STOP:
            return "stop"
        return rotation_name(action - ROT0)

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(f"quicksand_v0: a move is a str, got {move!r}; expected {FORMS}")
        text = move.strip()
        if m := _PLACE_RE.match(text):
            return 36 * SIZE_CHARS.index(m.group(1)) + cell_index(m.group(2))
        if m := _SELECT_RE.match(text):
            return SELECT0 + cell_index(m.group(1))
        if m := _ROT_RE.match(text):
            return ROT0 + 3 * (int(m.group(1)) - 1) + int(m.group(2)) // 90 - 1
        if text == "stop":
            return STOP
        if m := _HOP_RE.match(text):
            path = self.jump_path(state)
            if not path:
                raise IllegalMoveError(f"quicksand_v0: {move!r} is a hop, but no jump is in progress")
            return self._hop_action(path[-1], cell_index(m.group(1)), move)
        raise NotationError(f"quicksand_v0: malformed decision {move!r}; expected {FORMS}")

    @staticmethod
    def _hop_action(c: int, land: int, move) -> int:
        hop = hop_of(c, land)
        if hop is None:
            raise NotationError(
                f"quicksand_v0: {move!r}: {cell_name(c)} to {cell_name(land)} is not a hop; a hop lands 2 to 4 "
                "cells away in a straight line, orthogonal or diagonal (QS-5)"
            )
        return HOP0 + 3 * hop[0] + hop[1] - 1

    def move_to_actions(self, state, move: str) -> list[int]:
        """A whole turn (or the rest of the turn under way) as its decisions.
        The stop of a large is implied where the jump ends before its limit."""
        if not isinstance(move, str):
            raise NotationError(f"quicksand_v0: a move is a str, got {move!r}; expected {FORMS}")
        tokens = move.split()
        rot = None
        if tokens and _ROT_RE.match(tokens[-1]):
            rot = self.move_to_action(state, tokens.pop())
        if len(tokens) > 1 or (not tokens and rot is None):
            raise NotationError(f"quicksand_v0: malformed move {move!r}; expected {FORMS}")
        steps = []  # ("action", id) or ("hop", landing cell)
        if tokens:
            t = tokens[0]
            if m := _PLACE_RE.match(t):
                steps.append(("action", self.move_to_action(state, t)))
            elif (m := _JUMP_RE.match(t)) and t:
                if m.group(1):
                    steps.append(("action", SELECT0 + cell_index(m.group(1))))
                steps += [("hop", cell_index(c)) for c in m.group(2).split(":")[1:]]
            else:
                raise NotationError(f"quicksand_v0: malformed move {move!r}; expected {FORMS}")
        # the hops' ids from the jumper's cell along the notation (QS-5 shape checked here)
        path = self.jump_path(state)
        cur = path[-1] if path else None
        decisions = []
        for kind, value in steps:
            if kind == "hop":
                if cur is None:
                    raise IllegalMoveError(f"quicksand_v0: {move!r}: a hop needs a jumper; no jump is in progress")
                value, cur = self._hop_action(cur, value, move), value
            elif value >= SELECT0:
                cur = value - SELECT0
            decisions.append(value)
        if rot is not None:
            decisions.append(rot)
        # played on a copy to find where a large's stop is implied (QS-7)
        s = state.copy()
        actions: list[int] = []
        for value in decisions:
            if value >= ROT0 and self._stop_pending(s, state) and not self._play(s, STOP, actions):
                return actions
            if not self._play(s, value, actions):
                return actions
        if decisions and HOP0 <= decisions[-1] < STOP and self._stop_pending(s, state):
            self._play(s, STOP, actions)  # a jump that wins at once, stopped early
        return actions

    def _stop_pending(self, s, start) -> bool:
        return (
            s[E.H_STATUS] == E.PLAYING
            and s[E.H_TURN] == start[E.H_TURN]
            and s[Q_PHASE] == PH_HOP
            and self.legal_mask(s)[STOP] == 1
        )

    def _play(self, s, action, actions) -> bool:
        """Append ``action``; apply it to ``s`` if legal there (else leave the
        verdict to the caller, which checks every decision)."""
        actions.append(int(action))
        if s[E.H_STATUS] != E.PLAYING or not self.legal_mask(s)[action]:
            return False
        self.kernels.apply(s, self.params, int(action))
        return True

    def actions_to_move(self, state, actions) -> str:
        s = state.copy()
        text = ""
        for a in actions:
            a = int(a)
            part = self.action_to_move(s, a)
            if a == STOP:
                part = ""
            elif a >= ROT0:
                part = " " + part
            text += part
            self.kernels.apply(s, self.params, a)
        return text.strip()

    # -- text form -----------------------------------------------------------
    def board_lines(self, state) -> list[str]:
        cells = self.cells(state)
        lines = []
        for rank in range(6, 0, -1):
            row = cells[(rank - 1) * 6 : rank * 6]
            lines.append(f"{rank} " + " ".join(CELL_CHARS[int(v)] for v in row))
        lines.append("  a b c d e f")
        return lines

    def body_to_text(self, state) -> list[str]:
        res = [" ".join(str(v) for v in self.reserve(state, s)) for s in (0, 1)]
        path = self.jump_path(state)
        return ["board:"] + self.board_lines(state) + [
            f"reserve: {res[0]} / {res[1]}",
            "score: {} {}".format(*self.scores(state)),
            f"phase: {self.phase(state)}",
            "jump: " + (":".join(cell_name(c) for c in path) if path else "-"),
        ]

    def body_from_text(self, lines: list[str], state) -> None:
        if len(lines) != 12 or lines[0] != "board:" or lines[7].split() != list("abcdef"):
            raise NotationError(
                "quicksand_v0: expected 'board:', six rows 6..1, the file line 'a b c d e f', then the lines "
                "reserve, score, phase, jump"
            )
        for k, rank in enumerate(range(6, 0, -1)):
            tokens = lines[1 + k].split()
            if len(tokens) != 7 or tokens[0] != str(rank) or any(len(t) != 1 or t not in CELL_CHARS for t in tokens[1:]):
                raise NotationError(
                    f"quicksand_v0: row {rank} must be its number and six of '.' (empty), 'S M L' (player_0), "
                    f"'s m l' (player_1); got {lines[1 + k]!r}"
                )
            for f, t in enumerate(tokens[1:]):
                state[Q_CELLS + (rank - 1) * 6 + f] = CELL_CHARS.index(t)
        state[Q_CELLS + SENTINEL] = OFF
        fields = {}
        for line in lines[8:]:
            key, sep, value = line.partition(":")
            if not sep or key not in ("reserve", "score", "phase", "jump") or key in fields:
                raise NotationError(f"quicksand_v0: unexpected line {line!r}; expected reserve, score, phase, jump")
            fields[key] = value.split()
        res = fields["reserve"]
        if len(res) != 7 or res[3] != "/" or any(r not in "012345" or len(r) != 1 for r in res[:3] + res[4:]):
            raise NotationError(
                f"quicksand_v0: reserve must be 'S M L / s m l' counts 0..5 of player_0 and player_1, got {' '.join(res)!r}"
            )
        reserve = [int(r) for r in res[:3] + res[4:]]
        score = fields["score"]
        if len(score) != 2 or any(not re.fullmatch(r"[0-9]{1,2}", v) for v in score):
            raise NotationError(f"quicksand_v0: score must be two counts 0..{MAX_SCORE}, got {' '.join(score)!r}")
        scores = [int(v) for v in score]
        cells = self.cells(state)
        for seat in (0, 1):
            missing = 0
            for size in range(3):
                on_board = int(np.sum(cells == 1 + 3 * seat + size))
                held = on_board + reserve[3 * seat + size]
                if held > PIECES_PER_SIZE:
                    raise NotationError(
                        f"quicksand_v0: player_{seat} has {held} {('small', 'medium', 'large')[size]} pyramids "
                        f"({on_board} on the board, {reserve[3 * seat + size]} in reserve); each player has "
                        f"{PIECES_PER_SIZE} (QS-1)"
                    )
                missing += (PIECES_PER_SIZE - held) * POINTS[size]
            # QS-9: own pyramids jumped go back to the reserve, so every missing one was scored by the other
            if scores[1 - seat] != missing:
                raise NotationError(
                    f"quicksand_v0: player_{seat}'s missing pyramids are worth {missing} points, so player_{1 - seat}'s "
                    f"score must be {missing}, got {scores[1 - seat]} (QS-9)"
                )
        state[Q_RESERVE : Q_RESERVE + 6] = reserve
        state[Q_SCORE : Q_SCORE + 2] = scores
        phase = fields["phase"]
        if len(phase) != 1 or phase[0] not in PHASE_NAMES:
            raise NotationError(f"quicksand_v0: phase must be one of {', '.join(PHASE_NAMES)}, got {' '.join(phase)!r}")
        state[Q_PHASE] = PHASE_NAMES.index(phase[0])
        _clear_record(state, Q_TURN)
        _clear_record(state, Q_LAST)
        mover = int(state[E.H_CURRENT])
        if mover == E.CHANCE:
            raise NotationError("quicksand_v0: there are no chance nodes; to_move must be player_0 or player_1")
        jump = fields["jump"]
        if state[Q_PHASE] != PH_HOP:
            if jump != ["-"]:
                raise NotationError(f"quicksand_v0: jump must be '-' outside the jump phase, got {' '.join(jump)!r}")
            if state[Q_PHASE] == PH_ROTATE:
                state[Q_TURN + R_KIND] = NONE  # what was played before the rotation is not recorded
            return
        if len(jump) != 1 or not re.fullmatch(rf"{_CELL}(?::{_CELL}){{0,3}}", jump[0]):
            raise NotationError(
                f"quicksand_v0: jump must be the jumper's start cell and its landings, like 'c3:e5', got {' '.join(jump)!r}"
            )
        self._jump_from_text([cell_index(c) for c in jump[0].split(":")], state, mover)

    def _jump_from_text(self, path: list[int], state, mover: int) -> None:
        """The jump in progress, checked against the board (QS-5..QS-8)."""
        cells = self.cells(state)
        where = ":".join(cell_name(c) for c in path)
        jumper = int(cells[path[-1]]) - 1
        if jumper < 0 or jumper // 3 != mover:
            raise NotationError(f"quicksand_v0: jump {where}: player_{mover}'s jumper must stand on {cell_name(path[-1])}")
        size = jumper % 3
        jumped = []
        for a, b in zip(path, path[1:]):
            hop = hop_of(a, b)
            if hop is None:
                raise NotationError(f"quicksand_v0: jump {where}: {cell_name(a)} to {cell_name(b)} is not a hop (QS-5)")
            d, k = hop
            jumped += [int(RAYS[a, d, j]) for j in range(1, k + 1)]
        for c in path[:-1]:
            if cells[c] and c != path[-1]:
                raise NotationError(f"quicksand_v0: jump {where}: the jumper has left {cell_name(c)}, so it is empty")
        for x in jumped:
            if not cells[x] or x in path:
                raise NotationError(f"quicksand_v0: jump {where} passes over {cell_name(x)}, where no pyramid stands (QS-5)")
        if len(set(jumped)) != len(jumped):
            raise NotationError(f"quicksand_v0: jump {where} jumps a pyramid twice (QS-6)")
        if len(jumped) >= MAX_JUMPED[size]:
            raise NotationError(
                f"quicksand_v0: jump {where}: a {('small', 'medium', 'large')[size]} pyramid's jump ends after "
                f"{int(MAX_JUMPED[size])} pyramid(s), {len(jumped)} are jumped (QS-7)"
            )
        state[Q_TURN + R_KIND] = JUMP
        state[Q_TURN + R_SIZE] = size
        state[Q_TURN + R_N] = len(path)
        state[Q_TURN + R_CELLS : Q_TURN + R_CELLS + len(path)] = path
        state[Q_JCOUNT] = len(jumped)
        state[Q_JMASK] = sum(1 << x for x in jumped)
        if jumped and not _any_hop(state, state[Q_JMASK], path[-1], size, len(jumped)):
            raise NotationError(f"quicksand_v0: jump {where}: no hop is left, so the jump has ended (QS-7, QS-8)")

    def check_state(self, state) -> None:
        scores = self.scores(state)
        mover = int(state[E.H_CURRENT])
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        cells = self.cells(state)
        placed = int(np.count_nonzero(cells)) + sum(
            (PIECES_PER_SIZE - int(np.sum(cells == 1 + 3 * s + z)) - int(state[Q_RESERVE + 3 * s + z]))
            for s in (0, 1) for z in range(3)
        )  # fmt: skip
        turn = int(state[E.H_TURN])
        if turn + (state[Q_PHASE] == PH_ROTATE) < placed:
            raise NotationError(
                f"quicksand_v0: {placed} pyramids were placed (on the board or captured), but a turn places at most "
                f"one and {turn} turns are complete (QS-3)"
            )
        won = [s for s in (0, 1) if scores[s] >= WIN_POINTS]
        stuck = state[Q_PHASE] == PH_FIRST and not _can_move(state, mover)
        if status == E.PLAYING:
            if won:
                raise NotationError(f"quicksand_v0: player_{won[0]} has {scores[won[0]]} points, so the game is over (QS-10)")
            if stuck:
                raise NotationError(f"quicksand_v0: player_{mover} can neither place nor jump, so the game is over (QS-11)")
            return
        rets = [int(state[E.H_RET + s]) for s in (0, 1)]
        if code in (REASON_SCORE, REASON_NO_MOVE):
            winner = 1 - mover
            ok = state[Q_PHASE] == PH_FIRST and rets == [1 if s == winner else -1 for s in (0, 1)]
            ok &= (won == [winner]) if code == REASON_SCORE else (stuck and not won)
            if not ok:
                why = "with 15 points or more (QS-10)" if code == REASON_SCORE else (
                    f"to have left player_{mover} with no place and no jump (QS-11)")  # fmt: skip
                raise NotationError(
                    f"quicksand_v0: reason {self.reason_name(code)} does not hold: it needs player_{winner} (not to "
                    f"move) {why}, returns {1 if winner == 0 else -1} {1 if winner == 1 else -1}, phase place"
                )
            return
        if won or stuck:  # a limit or a forfeit never ends a game the rules ended
            raise NotationError(
                f"quicksand_v0: the rules end this game (QS-10/QS-11), so it cannot end by {self.reason_name(code)}"
            )
        if code == E.REASON_TRUNCATED and state[Q_PHASE] != PH_FIRST:
            raise NotationError("quicksand_v0: max_turns ends a game between turns, so phase must be place")

    # -- pictures ------------------------------------------------------------
    def render_ansi(self, state) -> str:
        res = [f"reserve player_{s}: " + " ".join(f"{SIZE_CHARS[z]}{v}" for z, v in enumerate(self.reserve(state, s)))
               for s in (0, 1)]  # fmt: skip
        rows = []
        for line in self.board_lines(state)[:6]:
            rank, cells = line[0], line[2:].split()
            rows.append(f"{rank} " + " ".join(cells[:3]) + " | " + " ".join(cells[3:]))
            if rank == "4":
                rows.append("  ------+------")
        return "\n".join(rows + ["  a b c   d e f"] + res)

    def render_rgb(self, state) -> np.ndarray:
        from ..render import PALETTE, GridPicture

        pic = GridPicture(rows=6, cols=6, row_labels="654321", col_labels="abcdef")

        def rc(i):  # picture row and column of cell i
            return 5 - i // 6, i % 6

        # the last move's cells, where they are after its rotation; its quadrant
        last_rot = int(state[Q_LAST + R_ROT])
        moved = rotation_map(last_rot // 3, last_rot % 3) if last_rot >= 0 else {}
        n = int(state[Q_LAST + R_N])
        for c in state[Q_LAST + R_CELLS : Q_LAST + R_CELLS + n]:
            pic.outline(*rc(moved.get(int(c), int(c))))
        for c in self.jump_path(state):
            pic.outline(*rc(c))
        jmask = int(state[Q_JMASK])
        cells = self.cells(state)
        cell, m = pic.cell, pic.margin
        for i in range(NCELLS):
            v = int(cells[i]) - 1
            if v < 0:
                continue
            r, c = rc(i)
            x0, y0 = m + c * cell, m + r * cell
            half = cell * (0.18 + 0.09 * (v % 3))  # pyramids of three sizes
            cx, cy = x0 + cell / 2, y0 + cell / 2
            colour = PALETTE[f"player_{v // 3}"]
            pic.draw.rectangle((cx - half, cy - half, cx + half, cy + half), fill=colour, outline=PALETTE["edge"], width=2)
            for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):  # the ridges seen from above
                pic.draw.line((cx, cy, cx + dx * half, cy + dy * half), fill=PALETTE["edge"], width=1)
            if (jmask >> i) & 1:
                pic.draw.line((x0 + 6, y0 + 6, x0 + cell - 6, y0 + cell - 6), fill=PALETTE["last"], width=3)
        # quadrant borders, the last rotated quadrant's in red
        size = 6 * cell
        pic.draw.line((m + 3 * cell, m, m + 3 * cell, m + size), fill=PALETTE["edge"], width=4)
        pic.draw.line((m, m + 3 * cell, m + size, m + 3 * cell), fill=PALETTE["edge"], width=4)
        if last_rot >= 0:
            f0, r0 = QUADRANT_ORIGINS[last_rot // 3]
            x0, y0 = m + f0 * cell, m + (3 - r0) * cell
            pic.draw.rectangle((x0 + 2, y0 + 2, x0 + 3 * cell - 2, y0 + 3 * cell - 2), outline=PALETTE["last"], width=3)
        return pic.to_array()
