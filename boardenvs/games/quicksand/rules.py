"""Quicksand's rules (``boardenvs/rules/quicksand.md``, QS-1..QS-12) as numba
kernels: the board's tables, the state row and every kernel.  Notation and
the text form are in ``text.py``, the pictures in ``picture.py``, the
declaration (:class:`~boardenvs.games.quicksand.QuicksandGame`) in
``__init__.py``.

Board indexing: cell ``i = 6 * (rank - 1) + file`` (file ``a`` = 0), absolute
for both seats (the board has no front); the sentinel cell 36 (code ``OFF``)
stands for "off the board".  The quadrants Q1..Q4 (QS-2) turn clockwise, as
drawn (rank 6 at the top)::

    rank 6 | 30 31 32 | 33 34 35 |        quadrants      directions d (file, rank step)
         5 | 24 25 26 | 27 28 29 |        Q1 | Q2           NW 7   N 0   NE 1
         4 | 18 19 20 | 21 22 23 |        ---+---          W 6   cell    E 2
           +----------+----------+        Q3 | Q4           SW 5   S 4   SE 3
         3 | 12 13 14 | 15 16 17 |
         2 |  6  7  8 |  9 10 11 |       N = towards rank 6 (``DIRECTIONS``)
         1 |  0  1  2 |  3  4  5 |
              a  b  c    d  e  f

Tables: ``RAYS[c, d, j]`` the cell ``j`` steps (0..4) from ``c`` in direction
``d``, 36 off the board (flat: ``RAY_FLAT[40 c + 5 d + j]``); ``CYCLES[q, 0 /
1]`` the corner and edge 4-cycles of a quarter turn of quadrant ``q`` (0..3
for Q1..Q4); ``STEP_*[d]`` a step of a whole cell set (bit ``c`` = cell
``c``) in direction ``d``; ``OBS_CELL[c]`` the observation grid index (row
0 = rank 6, column 0 = file ``a``).  Actions: ``36 * size + i`` place (size 0 S, 1 M, 2 L),
``SELECT0 + i`` (108) the jumper, ``HOP0 + 3 d + (k - 1)`` (144) hop over
``k`` = 1..3, ``STOP`` (168), ``ROT0 + 3 q + (deg / 90 - 1)`` (169) rotate
quadrant ``q`` clockwise by ``deg``.  A cell's code in the state row is 0
empty or ``1 + 3 * seat + size``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E
from ...engine import lowest_bit as _lowest_bit  # the processor's trailing-zero count, compiled

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
# observation grid index of each cell: row 0 = rank 6
OBS_CELL = np.array([(5 - c // 6) * 6 + c % 6 for c in range(NCELLS)], np.int64)
# cell sets as 36-bit words (bit c = cell c): a step in direction d moves
# cell c to c + 6 * rank step + file step; STEP_IN[d] is the cells that have a
# neighbour in direction d, and a set X taken one step back, the cells whose
# neighbour in direction d is in X, is ((X >> STEP_SHR[d]) << STEP_SHL[d]) & STEP_IN[d]
_OFFSETS = [df + 6 * dr for df, dr in DIRECTIONS]
STEP_SHR = np.array([max(o, 0) for o in _OFFSETS], np.int64)
STEP_SHL = np.array([max(-o, 0) for o in _OFFSETS], np.int64)
STEP_IN = np.array([sum(1 << c for c in range(NCELLS) if RAYS[c, d, 1] != SENTINEL) for d in range(8)], np.int64)
# planes 0-5 of a cell as an 8-byte word (plane p in byte p), per seat and cell code
CELL_PLANES = np.zeros((2, 8), np.int64)
for _seat in (0, 1):
    for _size in range(3):
        CELL_PLANES[_seat, 1 + 3 * _seat + _size] = 1 << (8 * _size)  # own S/M/L: planes 0-2
        CELL_PLANES[_seat, 1 + 3 * (1 - _seat) + _size] = 1 << (8 * (3 + _size))  # the opponent's: planes 3-5


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
def _back(x, d):
    """The cells whose neighbour in direction ``d`` is in the cell set ``x``."""
    return ((x >> STEP_SHR[d]) << STEP_SHL[d]) & STEP_IN[d]


@njit(cache=True)
def _boards(state, seat):
    """The board as cell sets: the pyramids, the empty cells, and ``seat``'s
    small, medium and large pyramids."""
    pyramids = empty = small = medium = large = np.int64(0)
    own = 1 + 3 * seat
    for i in range(NCELLS):
        v = state[Q_CELLS + i]
        bit = np.int64(1) << i
        if v == EMPTY:
            empty |= bit
        else:
            pyramids |= bit
            if v == own:
                small |= bit
            elif v == own + 1:
                medium |= bit
            elif v == own + 2:
                large |= bit
    return pyramids, empty, small, medium, large


@njit(cache=True)
def _jumpers(pyramids, empty, small, medium, large):
    """QS-5..QS-8 at the start of a turn, for every cell at once: the cells
    of ``small``, ``medium`` and ``large`` whose pyramid can complete a jump
    (what :func:`_any_hop` finds cell by cell).  A hop over k pyramids from
    c in direction d needs c + d .. c + kd pyramids and c + (k + 1)d empty;
    a small takes k = 1, a large k = 1, 2 or 3; a medium k = 2, or k = 1 to
    a landing L from which a second one-pyramid hop exists (QS-8).  That
    second hop may not go back over the first pyramid, nor land on c (left
    empty), and both would be the one direction back, whose landing c holds
    the jumper on the board as it is: so L's hops on this board are the
    ones to count, the cells ``one`` below."""
    one = np.int64(0)  # cells with a one-pyramid hop, in any direction
    two = np.int64(0)  # cells with a two-pyramid hop
    three = np.int64(0)
    for d in range(8):
        p1 = _back(pyramids, d)
        p2 = _back(p1, d)
        e2 = _back(_back(empty, d), d)
        e3 = _back(e2, d)
        one |= p1 & e2
        two |= p1 & p2 & e3
        three |= p1 & p2 & _back(p2, d) & _back(e3, d)
    medium_ok = two
    for d in range(8):  # (each direction's one-pyramid hops again: keeping eight sets would allocate)
        hop = _back(pyramids, d) & _back(_back(empty, d), d)
        medium_ok |= hop & _back(_back(one, d), d)
    return (small & one) | (medium & medium_ok) | (large & (one | two | three))


@njit(cache=True)
def _can_move(state, seat):
    """QS-11: can ``seat`` place (a pyramid in reserve and an empty cell) or jump?"""
    if state[Q_RESERVE + 3 * seat] + state[Q_RESERVE + 3 * seat + 1] + state[Q_RESERVE + 3 * seat + 2] > 0:
        for i in range(NCELLS):
            if state[Q_CELLS + i] == EMPTY:
                return True
    return _jumpers(*_boards(state, seat)) != 0


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
        pyramids, empty, small, medium, large = _boards(state, seat)
        for size in range(3):
            if state[Q_RESERVE + 3 * seat + size] > 0:
                base = 36 * size
                x = empty
                while x:
                    mask[np.uint64(base + _lowest_bit(x))] = 1
                    x &= x - 1
                    count += 1
        x = _jumpers(pyramids, empty, small, medium, large)
        while x:
            mask[np.uint64(SELECT0 + _lowest_bit(x))] = 1
            x &= x - 1
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
    """A cell's 19 planes are 19 bytes in a row: planes 0-7 (pyramids, the
    jumper, jumped) one 8-byte word per cell from ``CELL_PLANES``, planes
    8-15 (decision kind, reserves) one word the same for every cell, then
    three bytes (reserve, scores): two unaligned stores and three bytes a
    cell (:func:`boardenvs.engine.store8`) where there were 19 bytes."""
    other = 1 - seat
    phase = state[Q_PHASE]
    jumper = -1
    if phase == PH_HOP:
        jumper = state[Q_TURN + R_CELLS + state[Q_TURN + R_N] - 1]
    jmask = state[Q_JMASK]
    r, o = Q_RESERVE + 3 * seat, Q_RESERVE + 3 * other
    # planes 8-15: the decision kind (8-10), own reserve (11-13), the opponent's S and M (14-15)
    middle = (np.int64(1) << (8 * phase)) | (state[r] << 24) | (state[r + 1] << 32) | (state[r + 2] << 40)
    middle |= (state[o] << 48) | (state[o + 1] << 56)
    o2, own_score, opp_score = state[o + 2], state[Q_SCORE + seat], state[Q_SCORE + other]
    for i in range(NCELLS):
        g = np.uint64(OBS_CELL[i] * OBS_PLANES)  # unsigned: no negative-index checks
        word = CELL_PLANES[seat, state[Q_CELLS + i]] | (np.int64(i == jumper) << 48) | (((jmask >> i) & 1) << 56)
        E.store8(obs, g, word)
        E.store8(obs, g + np.uint64(8), middle)
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
