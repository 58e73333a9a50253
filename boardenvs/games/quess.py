"""Quess — ``quess_v0``: shapes on a 6x6 board with positional superko.

Rules: ``boardenvs/rules/quess.md`` (``boardenvs rules quess_v0``) (QU-1..QU-13), implemented once, in the numba
kernels below; :class:`QuessGame` adds notation, the text form and pictures.

=================  ==========================================================
Agents             ``player_0`` (Light, starts bottom-left), ``player_1``
                   (Dark, starts top-right)
Actions            ``Discrete(1296)``: ``from * 36 + to`` with squares numbered
                   ``row * 6 + col`` (row 0 = A at the top, col 0 = file 1)
                   **in the acting player's frame**: Dark's board is turned
                   180 degrees (square ``i`` is ``35 - i``), so both seats see
                   themselves starting bottom-left and one policy plays both.
Action mask        exact: piece moves (QU-4..QU-7) minus superko (QU-8)
Observation        ``int8 (6, 6, 8)`` in the observer's frame; planes 0-2 own
                   triangles/circles/squares, 3-5 the opponent's, 6 own
                   starting zone, 7 the opponent's starting zone
Rewards            +1 / -1 on a win / loss, 0 for a draw (QU-10) or truncation
Options            ``first_player`` (``"random"``; QU-3), ``max_turns``
                   (default 3000, QU-13), ``clock_seconds`` / ``time_source``
                   (speed variant QU-12, applied by the chess-clock wrapper)
Notation           ``F3-E3`` (from-to, captures too; lower case accepted)
=================  ==========================================================

Superko (QU-8) is tracked over every board since the last capture: a capture
lowers the piece count for good, so no earlier board can come back.  The
state keeps the moves since the last capture (16 bits each) and a 4096-bit
Bloom filter of those boards' Zobrist hashes; a candidate board the filter
knows is checked exactly by undoing the moves one by one from the current
hash.  The record holds ``min(max_turns + 1, superko_memory)`` boards, so the
state does not grow with ``max_turns`` beyond that: about 6.7 KB per game at
the defaults (``max_turns`` 3000), 8.9 KB at most with the default
``superko_memory`` of 4096.  A game whose capture-free stretch fills the
record is truncated (end reason ``superko_memory``, 0 for both, like
``max_turns``); random play never comes near it within 3000 turns.
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit
from numba.core.extending import overload
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import engine as E
from ..errors import NotationError
from ..game import Game
from ..spec import Option, first_player_option, max_turns_option

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
ZONE_BB = np.array([sum(1 << i for i in range(36) if ZONE[c, i]) for c in (LIGHT, DARK)], np.int64)
# the constant zone planes (6 and 7) of each seat's observation
ZONE_OBS = np.zeros((2, 36 * OBS_PLANES), np.int8)
for _seat in (LIGHT, DARK):
    for _i in range(36):
        _e = _i if _seat == LIGHT else 35 - _i
        ZONE_OBS[_seat, _e * OBS_PLANES + 6] = ZONE[_seat, _i]
        ZONE_OBS[_seat, _e * OBS_PLANES + 7] = ZONE[1 - _seat, _i]
ZONE_OBS_WORDS = ZONE_OBS.view(np.uint64).copy()  # the same, eight planes per word


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


def _lowest_bit(x):
    """Index of the lowest set bit of ``x`` > 0 (plain Python; compiled code
    uses the processor's trailing-zero count, see the overload below)."""
    x = int(x)
    return (x & -x).bit_length() - 1


@overload(_lowest_bit)
def _lowest_bit_compiled(x):
    return lambda x: trailing_zeros(x)


@njit(cache=True)
def _code_at(state, j):
    """The cell code on square ``j``: 0 empty, else 1 + 3 * colour + shape."""
    for k in range(6):
        if (state[Q_BB + k] >> j) & 1:
            return k + 1
    return 0


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _rook_targets(i, occ):
    """QU-7: squares a rook on ``i`` reaches, up to and including the first piece."""
    targets = 0
    r, col = i // 6, i % 6
    for d in range(4):
        for k in range(1, 6):
            rr, cc = r + k * ORTH[d, 0], col + k * ORTH[d, 1]
            if not (0 <= rr < 6 and 0 <= cc < 6):
                break
            bit = np.int64(1) << (rr * 6 + cc)
            targets |= bit
            if occ & bit:
                break
    return targets


@njit(cache=True)
def _moves(state, seat, mask, first_only):
    """Count (and, if ``mask`` is non-empty, mark) the legal moves of ``seat``."""
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
                    if write:
                        mask[np.uint64(_frame(i, seat) * 36 + _frame(j, seat))] = 1
                    if first_only:
                        return count
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
    return _moves(state, state[E.H_CURRENT], mask, False)


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
        state[Q_HLEN] = 1
        state[Q_BLOOM : Q_BLOOM + BLOOM_WORDS] = 0
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
    # QU-11; the empty slice is a "no mask" that costs no allocation
    elif _moves(state, opp, state[0:0], True) == 0:
        E.win_seat(state, seat, REASON_NO_MOVE)
    E.end_turn(state, params, opp)
    if state[E.H_STATUS] == E.PLAYING and state[Q_HLEN] >= params[P_HIST_CAP]:
        E.truncate(state, REASON_MEMORY)  # the superko record is full


@njit(cache=True)
def observe(state, params, seat, obs):
    # copied a word (one square's eight planes) at a time: 2.5x faster than bytes
    words = obs.view(np.uint64)
    zone = ZONE_OBS_WORDS[seat]
    for w in range(zone.shape[0]):
        words[w] = zone[w]
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

_MOVE_RE = re.compile(r"^([A-Fa-f][1-6])-([A-Fa-f][1-6])$")


class QuessGame(Game):
    """Quess with its options fixed: ``first_player`` (``"random"`` or a seat,
    QU-3), ``max_turns`` (default 3000, QU-13: nearly twice the 99.9th
    percentile of random-vs-random game lengths, measured by ``make bench``)
    and ``superko_memory`` (default 4096 boards since the last capture)."""

    env_id = "quess_v0"
    title = "Quess"
    rules_file = "quess.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        first_player_option("random"),  # QU-3
        # QU-13: nearly twice the 99.9th percentile of random-vs-random game
        # lengths, measured by benchmarks/bench.py
        max_turns_option(3000),
        Option("superko_memory", 4096, "boards since the last capture the superko record holds (QU-8); "
               "a game that fills it is truncated", low=16, high=2**20),
    )
    reason_names = {REASON_ZONE: "zone", REASON_ONE_EACH: "one_each", REASON_NO_MOVE: "no_legal_move",
                    REASON_MEMORY: "superko_memory"}  # fmt: skip
    truncation_reasons = frozenset({REASON_MEMORY})
    seat_labels = ("Light", "Dark")
    seat_symbols = ("T C S", "t c s")  # triangles, circles, squares in the text form
    clock_decided_reasons = frozenset({"one_each"})  # QU-10 with QU-12
    variants = ({}, {"max_turns": 40, "superko_memory": 16})
    heuristic = staticmethod(heuristic)

    def configure(self, o):
        # every board since the last capture: at most one per turn plus the initial one
        cap = min(o["max_turns"] + 1, o["superko_memory"])
        return dict(num_actions=NUM_ACTIONS, obs_shape=(6, 6, OBS_PLANES), params=(cap,),
                    sizes={"history_words": (cap + 2) // 4 + 1})  # fmt: skip

    # -- notation ---------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        seat = max(int(state[E.H_CURRENT]), 0)
        return f"{square_name(_frame(action // 36, seat))}-{square_name(_frame(action % 36, seat))}"

    def move_to_action(self, state, move: str) -> int:
        m = _MOVE_RE.match(move.strip()) if isinstance(move, str) else None
        if not m:
            raise NotationError(f"quess_v0: malformed move {move!r}; expected from-to like 'F3-E3'")
        seat = max(int(state[E.H_CURRENT]), 0)
        i, j = square_index(m.group(1)), square_index(m.group(2))
        return _frame(i, seat) * 36 + _frame(j, seat)

    # -- the dice variant (boardenvs.wrappers.dice.DiceVariant) --------------
    action_class_names = ("triangle", "circle", "square")

    def action_classes(self, state) -> np.ndarray:
        """The shape of the mover's piece on each action's from-square (-1: none there)."""
        seat = max(int(state[E.H_CURRENT]), 0)
        cells = self.board_cells(state)
        frm = np.arange(36) if seat == LIGHT else 35 - np.arange(36)  # the acting player's frame
        code = cells[frm] - 1 - 3 * seat
        shape = np.where((code >= 0) & (code < 3), code, -1)
        return np.repeat(shape, 36)

    # -- text form ---------------------------------------------------------
    @staticmethod
    def board_cells(state) -> np.ndarray:
        """The 36 cell codes (0 empty, 1 + 3 * colour + shape), A1 first."""
        cells = np.zeros(36, np.int64)
        for k in range(6):
            cells[(state[Q_BB + k] >> np.arange(36)) & 1 == 1] = k + 1
        return cells

    def body_to_text(self, state) -> list[str]:
        board = self.board_cells(state)
        lines = ["board:", "  1 2 3 4 5 6"]
        for r in range(6):
            lines.append("ABCDEF"[r] + " " + " ".join(PIECE_CHARS[int(v)] for v in board[r * 6 : r * 6 + 6]))
        moves = [_get_move(state, k) % 1296 for k in range(state[Q_HLEN] - 1)]
        lines.append("since_capture: " + " ".join(f"{square_name(m // 36)}-{square_name(m % 36)}" for m in moves))
        return [ln.rstrip() for ln in lines]

    def body_from_text(self, lines: list[str], state) -> None:
        if len(lines) < 8 or lines[0] != "board:" or lines[1].split() != list("123456"):
            raise NotationError("quess_v0: expected 'board:', the file line '1 2 3 4 5 6' and six rows A..F")
        board = np.zeros(36, np.int64)
        for r in range(6):
            cells = lines[2 + r].split()
            if len(cells) != 7 or cells[0] != "ABCDEF"[r] or any(len(c) != 1 or c not in PIECE_CHARS for c in cells[1:]):
                raise NotationError(
                    f"quess_v0: row {'ABCDEF'[r]} must be its letter and six of {PIECE_CHARS!r}, got {lines[2 + r]!r}"
                )
            board[r * 6 : r * 6 + 6] = [PIECE_CHARS.index(c) for c in cells[1:]]
        counts = np.bincount(board, minlength=7)[1:]
        for code, count in enumerate(counts):
            colour, shape = divmod(code, 3)
            have = (3, 2, 1)[shape]
            if count > have:
                raise NotationError(
                    f"quess_v0: {count} {('Light', 'Dark')[colour]} {('triangles', 'circles', 'squares')[shape]} "
                    f"on the board; each side has {have} (QU-2)"
                )
        if len(lines) < 9 or not lines[8].startswith("since_capture:"):
            raise NotationError("quess_v0: the line 'since_capture: <moves>' is missing after the board")
        key, _, rest = lines[8].partition(":")
        if key != "since_capture" or len(lines) > 9:
            raise NotationError("quess_v0: the last line must be 'since_capture: <moves>'")
        moves = []
        for token in rest.split():
            m = _MOVE_RE.match(token)
            if not m:
                raise NotationError(f"quess_v0: malformed move {token!r} in since_capture")
            moves.append((square_index(m.group(1)), square_index(m.group(2))))
        cap = int(self.params[P_HIST_CAP])
        if len(moves) + 1 > cap:
            raise NotationError(
                f"quess_v0: {len(moves)} moves since the last capture; the superko record holds "
                f"{cap - 1} (min(max_turns, superko_memory - 1))"
            )
        captures = len(INITIAL_BOARD.nonzero()[0]) - int(np.count_nonzero(board))
        if captures + len(moves) > state[E.H_TURN]:
            raise NotationError(
                f"quess_v0: {captures} captures and since_capture's {len(moves)} moves since the last one "
                f"take more than the {int(state[E.H_TURN])} turns played"
            )
        if captures == 0 and len(moves) != state[E.H_TURN]:
            raise NotationError(
                f"quess_v0: with no capture yet, since_capture lists every move of the game: "
                f"{int(state[E.H_TURN])}, not {len(moves)} (QU-8 counts the boards since the start)"
            )
        if state[E.H_CURRENT] == E.CHANCE:
            raise NotationError("quess_v0: there are no chance nodes; to_move must be player_0 or player_1")
        # walk back from the current board to rebuild every earlier board
        boards = [board.copy()]
        for i, j in reversed(moves):
            b = boards[-1].copy()
            if b[j] == 0 or b[i] != 0:
                raise NotationError(
                    f"quess_v0: since_capture move {square_name(i)}-{square_name(j)} does not fit the board"
                )
            b[i], b[j] = b[j], 0
            boards.append(b)
        boards.reverse()
        if captures == 0 and not np.array_equal(boards[0], INITIAL_BOARD):
            raise NotationError("quess_v0: with no capture yet, since_capture must lead back to the start position (QU-2)")
        self._replay_history(state, boards[0], moves)

    def _replay_history(self, state, earliest, moves) -> None:
        """Replay ``moves`` from ``earliest`` with the kernels, checking that
        each was legal for the side whose turn it was (the last by the side
        not to move), and copy the rebuilt superko record into ``state``."""
        n = len(moves)
        to_move = int(state[E.H_CURRENT])
        replay = np.zeros(self.state_size, np.int64)
        params = self.params.copy()
        params[E.P_MAX_TURNS] = n + 1  # the replay must not stop at the real limit
        E.new_game(replay, params, (to_move + n) % 2)
        for i in np.flatnonzero(earliest):
            replay[Q_BB + earliest[i] - 1] |= 1 << int(i)
        _remember(replay, np.bitwise_xor.reduce(ZOBRIST[np.arange(36), earliest]))
        replay[Q_HLEN] = 1
        for k, (i, j) in enumerate(moves):
            seat = int(replay[E.H_CURRENT])
            action = _frame(i, seat) * 36 + _frame(j, seat)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            if replay[E.H_STATUS] != E.PLAYING or not (_moves(replay, seat, mask, False) and mask[action]):
                raise NotationError(
                    f"quess_v0: since_capture move {k + 1} ({square_name(i)}-{square_name(j)}) "
                    f"is not a legal move for player_{seat} there"
                )
            self.kernels.apply(replay, params, action)
        state[Q_BB:] = replay[Q_BB:]

    def outcome(self, state):
        """What the rules say of this board, the side to move being
        ``H_CURRENT``: ``(reason, winner)`` if the game is over (winner None
        for the QU-10 draw), else None."""
        mover = int(state[E.H_CURRENT])
        last = 1 - mover  # who made the last move
        pieces = [sum(_popcount(int(state[Q_BB + 3 * c + k])) for k in range(3)) for c in (LIGHT, DARK)]
        if self._in_zone(state, last) >= 2:  # QU-9
            return REASON_ZONE, last
        if pieces == [1, 1]:  # QU-10
            return REASON_ONE_EACH, None
        if _moves(state, mover, state[0:0], True) == 0:  # QU-11
            return REASON_NO_MOVE, last
        return None

    @staticmethod
    def _in_zone(state, colour) -> int:
        """How many of ``colour``'s pieces stand in the other side's starting zone."""
        own = state[Q_BB + 3 * colour] | state[Q_BB + 3 * colour + 1] | state[Q_BB + 3 * colour + 2]
        return _popcount(int(own & ZONE_BB[1 - colour]))

    def check_state(self, state) -> None:
        mover = int(state[E.H_CURRENT])
        if self._in_zone(state, mover) >= 2:
            raise NotationError(
                f"quess_v0: player_{mover} (to move) has two pieces in the other zone: it would have won "
                "on entering (QU-9), and the loser is the one to move"
            )
        status = int(state[E.H_STATUS])
        for colour in (LIGHT, DARK):
            if not any(state[Q_BB + 3 * colour + k] for k in range(3)) and (
                colour != mover or status != E.TERMINATED or state[E.H_REASON] != REASON_NO_MOVE
            ):
                raise NotationError(
                    f"quess_v0: player_{colour} has no pieces: its last one was just taken, so it is to move "
                    "and the game is over (no_legal_move, QU-11)"
                )
        full = state[Q_HLEN] >= self.params[P_HIST_CAP]
        if (status == E.PLAYING and full) or (state[E.H_REASON] == REASON_MEMORY and not full):
            raise NotationError(
                f"quess_v0: the superko record holds {int(self.params[P_HIST_CAP])} boards; the game is truncated "
                "(reason superko_memory) exactly when since_capture fills it"
            )
        ruled = self.outcome(state)
        if status == E.PLAYING:
            if ruled is not None:
                raise NotationError(f"quess_v0: the game is over ({self.reason_name(ruled[0])}), so status cannot be playing")
            return
        code = int(state[E.H_REASON])
        if status == E.TRUNCATED or code in (E.REASON_ILLEGAL, E.REASON_TIMEOUT):
            if ruled is not None:  # a limit, a forfeit or a flag fall never ends a game the rules ended
                raise NotationError(
                    f"quess_v0: the rules end this game ({self.reason_name(ruled[0])}), so it cannot end by "
                    f"{self.reason_name(code)}"
                )
            return
        if ruled is None or ruled[0] != code:
            said = "nothing ends it" if ruled is None else self.reason_name(ruled[0])
            raise NotationError(f"quess_v0: reason {self.reason_name(code)} does not hold on this board ({said})")
        winner = ruled[1]
        rets = [int(state[E.H_RET + s]) for s in (0, 1)]
        want = [0, 0] if winner is None else [1 if s == winner else -1 for s in (0, 1)]
        # QU-12: with the chess clock, the one-each draw goes to the side with more time left
        clock = code == REASON_ONE_EACH and sorted(rets) == [-1, 1]
        if rets != want and not clock:
            raise NotationError(f"quess_v0: returns must be {want[0]} {want[1]} for this ending")

    # -- pictures (the board; boardenvs/render.py adds legend, turn, result) ----
    def render_ansi(self, state) -> str:
        """Files 1..6 above, rows A..F on the left (the notation's
        coordinates); Light upper case ``T C S``, Dark lower case."""
        return "\n".join(self.body_to_text(state)[1:8])

    def last_move(self, state) -> str:
        last = int(state[E.H_LAST_ACTION])
        if last < 0:
            return ""
        lseat = int(state[E.H_LAST_SEAT])
        return f"{square_name(_frame(last // 36, lseat))}-{square_name(_frame(last % 36, lseat))}"

    def cell_at(self, x, y):
        from ..render import GridPicture

        rc = GridPicture(rows=6, cols=6).cell_at(x, y)
        return None if rc is None else square_name(rc[0] * 6 + rc[1])

    def render_rgb(self, state) -> np.ndarray:
        """Rows A..F down, files 1..6 across (the notation's coordinates on
        every edge), the starting zones tinted, the last move's squares
        outlined, triangles / circles / squares in the seat colours."""
        from ..render import GridPicture

        pic = GridPicture(rows=6, cols=6, row_labels="ABCDEF", col_labels="123456")
        for i in range(36):
            if LIGHT_ZONE[i]:
                pic.tint(i // 6, i % 6, "zone_0")
            elif ZONE[DARK, i]:
                pic.tint(i // 6, i % 6, "zone_1")
        last = int(state[E.H_LAST_ACTION])
        if last >= 0:
            lseat = int(state[E.H_LAST_SEAT])
            for sq in (_frame(last // 36, lseat), _frame(last % 36, lseat)):
                pic.outline(sq // 6, sq % 6)
        for i, v in enumerate(self.board_cells(state)):
            if v:
                pic.piece(i // 6, i % 6, ("triangle", "circle", "square")[(v - 1) % 3], (v - 1) // 3)
        return pic.to_array()
