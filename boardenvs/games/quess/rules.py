"""Quess's rules (``boardenvs/rules/quess.md``, QU-1..QU-13) as numba kernels:
the board, the state row and every kernel.  Notation and the text form are in
``text.py``, the pictures in ``picture.py``, the declaration
(:class:`~boardenvs.games.quess.QuessGame`) in ``__init__.py``.

Board indexing: square ``i = row * 6 + col``, row 0 = ``A`` at the top, col 0
= file ``1`` (the notation's and the text form's coordinates); on the right
the start position (QU-2; Light upper case ``T C S``, Dark lower case
``t c s``, triangles / circles / squares)::

         1  2  3  4  5  6                 1 2 3 4 5 6
      A  0  1  2  3  4  5              A  . . . t c s    Dark's zone  A4 A5 A6 B5 B6 C6
      B  6  7  8  9 10 11              B  . . . . t c
      C 12 13 14 15 16 17              C  . . . . . t
      D 18 19 20 21 22 23              D  T . . . . .
      E 24 25 26 27 28 29              E  C T . . . .
      F 30 31 32 33 34 35              F  S C T . . .    Light's zone D1 E1 E2 F1 F2 F3

The state row holds absolute squares: one bitboard per colour and shape (bit
``i`` = square ``i``; cell code ``1 + 3 * colour + shape``, 0 empty).
Actions and observations are in the acting / observing seat's *frame*
(:func:`_frame`): Light's (seat 0) is the board as drawn, Dark's (seat 1) is
turned 180 degrees, square ``i`` seen as ``35 - i``, so both seats start
bottom-left and one policy plays both.  Action ``from * 36 + to`` in that
frame: Light's ``F3-E3`` is ``32 * 36 + 26 = 1178``, and so is Dark's
``A4-B4`` (squares 3 and 9 turned).  Observation ``(6, 6, 8)``: entry
``_frame(i, seat) * 8 + plane`` (planes: see the env card in ``__init__.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E
from ...engine import lowest_bit as _lowest_bit  # the processor's instructions, compiled
from ...engine import popcount as _popcount

TRIANGLE, CIRCLE, SQUARE = 0, 1, 2
LIGHT, DARK = 0, 1
# cell code: 0 empty, 1 + 3 * colour + shape
PIECE_CHARS = ".TCStcs"

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("quess_v0")
Q_BB = LAYOUT.add("bitboards", 6, "one per colour and shape (index 3 * colour + shape), bit i = square i")
Q_HASH = LAYOUT.add("hash", 1, "Zobrist hash of the current board")
Q_HLEN = LAYOUT.add("boards", 1, "boards since the last capture, the current one included")
BLOOM_WORDS = 64  # a 4096-bit Bloom filter, two bits per board
Q_BLOOM = LAYOUT.add("bloom", BLOOM_WORDS, "Bloom filter of the hashes of those boards")
# the moves between those boards, four 16-bit moves a slot, each
# (code - 1) * 1296 + from * 36 + to in absolute squares, so the hashes can be
# rebuilt backwards and the text form can list them
Q_HIST = LAYOUT.add("history", "history_words", "moves since the last capture, 4 per slot")
P_HIST_CAP = E.P_GAME  # boards the history holds

REASON_ZONE = E.REASON_GAME
REASON_ONE_EACH = E.REASON_GAME + 1
REASON_NO_MOVE = E.REASON_GAME + 2
REASON_MEMORY = E.REASON_GAME + 3  # a truncation: the superko record is full

NUM_ACTIONS = 36 * 36
OBS_PLANES = 8

# QU-2: Light's set-up; Dark's is the same turned 180 degrees.
LIGHT_SETUP = {"F1": SQUARE, "E1": CIRCLE, "F2": CIRCLE, "D1": TRIANGLE, "E2": TRIANGLE, "F3": TRIANGLE}


def square_index(name: str) -> int:
    return (ord(name[0].upper()) - ord("A")) * 6 + int(name[1]) - 1


def square_name(i: int) -> str:
    return "ABCDEF"[i // 6] + str(i % 6 + 1)


INITIAL_BOARD = np.zeros(36, np.int64)
LIGHT_ZONE = np.zeros(36, np.int64)
for _sq, _shape in LIGHT_SETUP.items():
    _i = square_index(_sq)
    INITIAL_BOARD[_i] = 1 + 3 * LIGHT + _shape
    INITIAL_BOARD[35 - _i] = 1 + 3 * DARK + _shape
    LIGHT_ZONE[_i] = 1
ZONE = np.stack([LIGHT_ZONE, LIGHT_ZONE[::-1].copy()])  # ZONE[colour][square]

ZOBRIST = np.random.default_rng(0x51E55).integers(-(2**63), 2**63 - 1, size=(36, 7), dtype=np.int64)
ZOBRIST[:, 0] = 0

ORTH = np.array([[-1, 0], [1, 0], [0, -1], [0, 1]], np.int64)
KNIGHT = np.array([[-2, -1], [-2, 1], [2, -1], [2, 1], [-1, -2], [-1, 2], [1, -2], [1, 2]], np.int64)


def _target_table(deltas) -> np.ndarray:
    table = np.zeros(36, np.int64)
    for i in range(36):
        for dr, dc in deltas:
            r, c = i // 6 + dr, i % 6 + dc
            if 0 <= r < 6 and 0 <= c < 6:
                table[i] |= 1 << (r * 6 + c)
    return table


STEP_BB = _target_table(ORTH)  # QU-5
KNIGHT_BB = _target_table(KNIGHT)  # QU-6


def _ray_table() -> np.ndarray:
    """``ROOK_RAYS[d, i]``: the squares from ``i`` (excluded) to the board's
    edge in direction ``ORTH[d]``."""
    rays = np.zeros((4, 36), np.int64)
    for d, (dr, dc) in enumerate(ORTH):
        for i in range(36):
            r, c = i // 6 + dr, i % 6 + dc
            while 0 <= r < 6 and 0 <= c < 6:
                rays[d, i] |= 1 << (r * 6 + c)
                r, c = r + dr, c + dc
    return rays


ROOK_RAYS = _ray_table()  # QU-7
RAY_ASCENDS = np.array([dr * 6 + dc > 0 for dr, dc in ORTH])  # along the ray the square index grows
ZONE_BB = np.array([sum(1 << i for i in range(36) if ZONE[c, i]) for c in (LIGHT, DARK)], np.int64)
# the constant zone planes (6 and 7) of each seat's observation
ZONE_OBS = np.zeros((2, 36 * OBS_PLANES), np.int8)
for _seat in (LIGHT, DARK):
    for _i in range(36):
        _e = _i if _seat == LIGHT else 35 - _i
        ZONE_OBS[_seat, _e * OBS_PLANES + 6] = ZONE[_seat, _i]
        ZONE_OBS[_seat, _e * OBS_PLANES + 7] = ZONE[1 - _seat, _i]
ZONE_OBS_WORDS = ZONE_OBS.view(np.int64).copy()  # the same, eight planes per word


# --- kernels -----------------------------------------------------------------


@njit(cache=True)
def _frame(i, seat):
    """Square ``i`` seen from ``seat`` (Dark's view is turned 180 degrees)."""
    return i if seat == LIGHT else 35 - i


@njit(cache=True)
def _bloom_bits(h):
    """The two filter bits of board hash ``h`` (12 bits each, from its top)."""
    u = np.uint64(h)
    return np.int64(u >> np.uint64(52)), np.int64((u >> np.uint64(40)) & np.uint64(4095))


@njit(cache=True)
def _remember(state, h):
    """Put board hash ``h`` into the Bloom filter and make it current (QU-8)."""
    b1, b2 = _bloom_bits(h)
    state[Q_BLOOM + (b1 >> 6)] |= np.int64(1) << (b1 & 63)
    state[Q_BLOOM + (b2 >> 6)] |= np.int64(1) << (b2 & 63)
    state[Q_HASH] = h


@njit(cache=True)
def _set_move(state, k, move):
    slot = Q_HIST + k // 4
    shift = 16 * (k % 4)
    state[slot] = (state[slot] & ~(np.int64(0xFFFF) << shift)) | (np.int64(move) << shift)


@njit(cache=True)
def _get_move(state, k):
    return (state[Q_HIST + k // 4] >> (16 * (k % 4))) & 0xFFFF


@njit(cache=True)
def _seen(state, h):
    """Did board hash ``h`` occur since the last capture?  The filter answers
    'no' for almost every board; otherwise the moves are undone one by one
    from the current board, comparing each earlier board's hash."""
    b1, b2 = _bloom_bits(h)
    if (state[Q_BLOOM + (b1 >> 6)] >> (b1 & 63)) & 1 == 0 or (state[Q_BLOOM + (b2 >> 6)] >> (b2 & 63)) & 1 == 0:
        return False
    hh = state[Q_HASH]
    for k in range(state[Q_HLEN] - 2, -1, -1):
        m = _get_move(state, k)
        code = m // 1296 + 1
        hh ^= ZOBRIST[(m % 1296) // 36, code] ^ ZOBRIST[m % 36, code]
        if hh == h:
            return True
    return False


@njit(cache=True)
def _code_at(state, j):
    """The cell code on square ``j``: 0 empty, else 1 + 3 * colour + shape."""
    for k in range(6):
        if (state[Q_BB + k] >> j) & 1:
            return k + 1
    return 0


@njit(cache=True)
def _rook_targets(i, occ):
    """QU-7: squares a rook on ``i`` reaches, up to and including the first
    piece: each ray up to its first piece (the lowest set bit of the pieces
    on a ray that ascends, the highest on one that descends), the squares
    past it cut off with that piece's own ray."""
    targets = np.int64(0)
    for d in range(4):
        ray = ROOK_RAYS[d, i]
        blockers = ray & occ
        if blockers:
            b = _lowest_bit(blockers) if RAY_ASCENDS[d] else E.highest_bit(blockers)
            ray ^= ROOK_RAYS[d, b]
        targets |= ray
    return targets


@njit(cache=True)
def _moves(state, seat, mask):
    """Mark the legal moves of ``seat`` in ``mask`` and count them; with an
    empty mask (:func:`boardenvs.engine.no_mask`), 1 at the first legal move
    found (0 if none)."""
    own = state[Q_BB + 3 * seat] | state[Q_BB + 3 * seat + 1] | state[Q_BB + 3 * seat + 2]
    other = 3 * (1 - seat)
    opp = state[Q_BB + other] | state[Q_BB + other + 1] | state[Q_BB + other + 2]
    occ = own | opp
    h = state[Q_HASH]
    write = mask.shape[0] > 0
    count = 0
    for shape in range(3):
        code = 1 + 3 * seat + shape
        capturable = opp & ~state[Q_BB + other + shape]  # QU-4: never the same shape
        pieces = state[Q_BB + code - 1]
        while pieces:
            i = _lowest_bit(pieces)
            pieces &= pieces - 1
            if shape == TRIANGLE:
                targets = STEP_BB[i]
            elif shape == CIRCLE:
                targets = KNIGHT_BB[i]
            else:
                targets = _rook_targets(i, occ)
            caps = targets & capturable
            t = (targets & ~occ) | caps
            while t:
                j = _lowest_bit(t)
                t &= t - 1
                # a capture lowers the piece count, so it never repeats a
                # board; a quiet move must not recreate one (QU-8)
                if (caps >> j) & 1 or not _seen(state, h ^ ZOBRIST[i, code] ^ ZOBRIST[j, code]):
                    count += 1
                    if not write:
                        return count
                    mask[np.uint64(_frame(i, seat) * 36 + _frame(j, seat))] = 1
    return count


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)
    h = 0
    for i in range(36):
        v = INITIAL_BOARD[i]
        if v:
            state[Q_BB + v - 1] |= np.int64(1) << i
            h ^= ZOBRIST[i, v]
    _remember(state, h)  # QU-8: the initial board counts
    state[Q_HLEN] = 1


@njit(cache=True)
def legal(state, params, mask):
    mask[:] = 0
    return _moves(state, state[E.H_CURRENT], mask)


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    opp = 1 - seat
    i = _frame(action // 36, seat)
    j = _frame(action % 36, seat)
    c = _code_at(state, i)
    t = _code_at(state, j)
    h = state[Q_HASH] ^ ZOBRIST[i, c] ^ ZOBRIST[j, c]
    state[Q_BB + c - 1] ^= (np.int64(1) << i) | (np.int64(1) << j)
    if t != 0:  # QU-4 capture: boards before it can never return
        state[Q_BB + t - 1] ^= np.int64(1) << j
        h ^= ZOBRIST[j, t]
        for w in range(Q_HIST, Q_HIST + (state[Q_HLEN] + 2) // 4):  # the moves recorded since the last capture
            state[w] = 0  # (cleared: a row holds nothing its position text does not show, see Game.check_row)
        state[Q_HLEN] = 1
        for w in range(Q_BLOOM, Q_BLOOM + BLOOM_WORDS):  # (a loop: numba's slice fill is slower)
            state[w] = 0
    else:
        _set_move(state, state[Q_HLEN] - 1, (c - 1) * 1296 + i * 36 + j)
        state[Q_HLEN] += 1
    _remember(state, h)
    E.record_action(state, seat, action)

    mine = state[Q_BB + 3 * seat] | state[Q_BB + 3 * seat + 1] | state[Q_BB + 3 * seat + 2]
    theirs = state[Q_BB + 3 * opp] | state[Q_BB + 3 * opp + 1] | state[Q_BB + 3 * opp + 2]
    if _popcount(mine & ZONE_BB[opp]) >= 2:  # QU-9
        E.win_seat(state, seat, REASON_ZONE)
    elif _popcount(mine) == 1 and _popcount(theirs) == 1:  # QU-10
        E.draw(state, REASON_ONE_EACH)
    elif _moves(state, opp, E.no_mask(state)) == 0:  # QU-11
        E.win_seat(state, seat, REASON_NO_MOVE)
    E.end_turn(state, params, opp)
    if state[E.H_STATUS] == E.PLAYING and state[Q_HLEN] >= params[P_HIST_CAP]:
        E.truncate(state, REASON_MEMORY)  # the superko record is full


@njit(cache=True)
def observe(state, params, seat, obs):
    # copied a word (one square's eight planes) at a time, faster than byte by byte
    for w in range(36):
        E.store8(obs, 8 * w, ZONE_OBS_WORDS[seat, w])
    for k in range(6):
        plane = k % 3 + (0 if k // 3 == seat else 3)
        bb = state[Q_BB + k]
        while bb:
            i = _lowest_bit(bb)
            bb &= bb - 1
            obs[_frame(i, seat) * OBS_PLANES + plane] = 1


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


@njit(cache=True)
def _side_value(state, seat):
    """3 per piece, 2 more per piece in the opponent's starting zone (QU-9
    needs two there), and a tenth per step of advance towards that corner."""
    pieces = state[Q_BB + 3 * seat] | state[Q_BB + 3 * seat + 1] | state[Q_BB + 3 * seat + 2]
    value = 3.0 * _popcount(pieces) + 2.0 * _popcount(pieces & ZONE_BB[1 - seat])
    while pieces:
        i = _lowest_bit(pieces)
        pieces &= pieces - 1
        f = _frame(i, seat)  # own frame: starting bottom-left, heading for the top-right
        value += 0.1 * ((5 - f // 6) + f % 6)
    return value


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (QU-4 captures, QU-9 the zone): the
    mover's material, zone and advance (:func:`_side_value`) minus the
    opponent's."""
    return _side_value(state, seat) - _side_value(state, 1 - seat)
