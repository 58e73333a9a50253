"""Quess notation (``F3-E3``) and text form (the board, ``since_capture``),
and the checks of a parsed position: :class:`QuessText`, a mixin of
:class:`~boardenvs.games.quess.QuessGame`."""

from __future__ import annotations

import re

import numpy as np

from ... import engine as E
from ...errors import NotationError
from ...textform import turns_of
from .rules import (
    DARK,
    INITIAL_BOARD,
    LIGHT,
    NUM_ACTIONS,
    P_HIST_CAP,
    PIECE_CHARS,
    Q_BB,
    Q_HIST,
    Q_HLEN,
    REASON_MEMORY,
    REASON_NO_MOVE,
    REASON_ONE_EACH,
    REASON_ZONE,
    ZOBRIST,
    ZONE_BB,
    _frame,
    _moves,
    _popcount,
    _remember,
    square_index,
    square_name,
)

_MOVE_RE = re.compile(r"^([A-Fa-f][1-6])-([A-Fa-f][1-6])$")


class QuessText:
    """Notation and the text form (the ``Game`` hooks of those names)."""

    # -- notation ---------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        seat = max(int(state[E.H_CURRENT]), 0)
        return f"{square_name(_frame(action // 36, seat))}-{square_name(_frame(action % 36, seat))}"

    def move_to_action(self, state, move: str) -> int:
        m = _MOVE_RE.match(move.strip()) if isinstance(move, str) else None
        if not m:
            raise NotationError(f"{self.env_id}: malformed move {move!r}; expected from-to like 'F3-E3'")
        seat = max(int(state[E.H_CURRENT]), 0)
        i, j = square_index(m.group(1)), square_index(m.group(2))
        return _frame(i, seat) * 36 + _frame(j, seat)

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
        boards = int(state[Q_HLEN])
        if (
            not 1 <= boards <= self.params[P_HIST_CAP]
        ):  # (read in plain Python: a row from outside is checked by its text)
            raise ValueError(
                f"{self.env_id}: {boards} boards since the last capture; the record holds "
                f"1..{int(self.params[P_HIST_CAP])}"
            )
        moves = [((int(state[Q_HIST + k // 4]) >> (16 * (k % 4))) & 0xFFFF) % 1296 for k in range(boards - 1)]
        lines.append("since_capture: " + " ".join(f"{square_name(m // 36)}-{square_name(m % 36)}" for m in moves))
        return [ln.rstrip() for ln in lines]

    def body_from_text(self, lines: list[str], state) -> None:
        if len(lines) < 8 or lines[0] != "board:" or lines[1].split() != list("123456"):
            raise NotationError(f"{self.env_id}: expected 'board:', the file line '1 2 3 4 5 6' and six rows A..F")
        board = np.zeros(36, np.int64)
        for r in range(6):
            cells = lines[2 + r].split()
            if (
                len(cells) != 7
                or cells[0] != "ABCDEF"[r]
                or any(len(c) != 1 or c not in PIECE_CHARS for c in cells[1:])
            ):
                raise NotationError(
                    f"{self.env_id}: row {'ABCDEF'[r]} must be its letter and six of {PIECE_CHARS!r}, got "
                    f"{lines[2 + r]!r}"
                )
            board[r * 6 : r * 6 + 6] = [PIECE_CHARS.index(c) for c in cells[1:]]
        counts = np.bincount(board, minlength=7)[1:]
        for code, count in enumerate(counts):
            colour, shape = divmod(code, 3)
            have = (3, 2, 1)[shape]
            if count > have:
                raise NotationError(
                    f"{self.env_id}: {count} {('Light', 'Dark')[colour]} {('triangles', 'circles', 'squares')[shape]} "
                    f"on the board; each side has {have} (QU-2)"
                )
        if len(lines) < 9 or not lines[8].startswith("since_capture:"):
            raise NotationError(f"{self.env_id}: the line 'since_capture: <moves>' is missing after the board")
        key, _, rest = lines[8].partition(":")
        if key != "since_capture" or len(lines) > 9:
            raise NotationError(f"{self.env_id}: the last line must be 'since_capture: <moves>'")
        moves = []
        for token in rest.split():
            m = _MOVE_RE.match(token)
            if not m:
                raise NotationError(f"{self.env_id}: malformed move {token!r} in since_capture")
            moves.append((square_index(m.group(1)), square_index(m.group(2))))
        cap = int(self.params[P_HIST_CAP])
        if len(moves) + 1 > cap:
            raise NotationError(
                f"{self.env_id}: {len(moves)} moves since the last capture; the superko record holds "
                f"{cap - 1} (min(max_turns, superko_memory - 1))"
            )
        captures = len(INITIAL_BOARD.nonzero()[0]) - int(np.count_nonzero(board))
        if captures + len(moves) > state[E.H_TURN]:
            raise NotationError(
                f"{self.env_id}: {captures} captures and since_capture's {len(moves)} moves since the last one "
                f"take more than the {int(state[E.H_TURN])} turns played"
            )
        if captures == 0 and len(moves) != state[E.H_TURN]:
            raise NotationError(
                f"{self.env_id}: with no capture yet, since_capture lists every move of the game: "
                f"{int(state[E.H_TURN])}, not {len(moves)} (QU-8 counts the boards since the start)"
            )
        if state[E.H_CURRENT] == E.CHANCE:
            raise NotationError(f"{self.env_id}: there are no chance nodes; to_move must be player_0 or player_1")
        # walk back from the current board to rebuild every earlier board
        boards = [board.copy()]
        for i, j in reversed(moves):
            b = boards[-1].copy()
            if b[j] == 0 or b[i] != 0:
                raise NotationError(
                    f"{self.env_id}: since_capture move {square_name(i)}-{square_name(j)} does not fit the board"
                )
            b[i], b[j] = b[j], 0
            boards.append(b)
        boards.reverse()
        if captures == 0 and not np.array_equal(boards[0], INITIAL_BOARD):
            raise NotationError(
                f"{self.env_id}: with no capture yet, since_capture must lead back to the start position (QU-2)"
            )
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
        step = self.one_row().step  # the engine's one step, with the replay's own params
        probs, step_mask = np.zeros(1, np.float64), np.empty(self.mask_size, np.int8)
        for k, (i, j) in enumerate(moves):
            seat = int(replay[E.H_CURRENT])
            action = _frame(i, seat) * 36 + _frame(j, seat)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            if replay[E.H_STATUS] != E.PLAYING or not (_moves(replay, seat, mask) and mask[action]):
                raise NotationError(
                    f"{self.env_id}: since_capture move {k + 1} ({square_name(i)}-{square_name(j)}) "
                    f"is not a legal move for player_{seat} there"
                )
            self.one_row().settle(replay, params, False, probs, step_mask)  # the mask the step checks
            if step(replay, params, action, E.ILLEGAL_REFUSE, False, probs, step_mask) == E.STEP_REFUSED:
                raise NotationError(f"{self.env_id}: since_capture move {k + 1} is refused by the rules (superko)")
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
        if _moves(state, mover, E.no_mask(state)) == 0:  # QU-11
            return REASON_NO_MOVE, last
        return None

    @staticmethod
    def _in_zone(state, colour) -> int:
        """How many of ``colour``'s pieces stand in the other side's starting zone."""
        own = state[Q_BB + 3 * colour] | state[Q_BB + 3 * colour + 1] | state[Q_BB + 3 * colour + 2]
        return _popcount(int(own & ZONE_BB[1 - colour]))

    def check_history(self, state) -> None:
        """QU-V1: a move takes at most one piece, the opponent's (QU-4), and
        the players alternate, so each side's lost pieces are at most the
        moves its opponent made before since_capture began; the move just
        before it (if any piece is lost) was a capture, which cost the other
        side a piece."""
        mover, turn = int(state[E.H_CURRENT]), int(state[E.H_TURN])
        before = turn - (int(state[Q_HLEN]) - 1)  # the turns up to the last capture
        # pieces lost per colour: the start's six (QU-2) less those on the board
        lost = [6 - sum(_popcount(int(state[Q_BB + 3 * colour + k])) for k in range(3)) for colour in (LIGHT, DARK)]
        for colour in (LIGHT, DARK):
            moves = turns_of(1 - colour, (mover - turn + before) % 2, before, 2)
            if lost[colour] > moves:
                raise NotationError(
                    f"{self.env_id}: player_{colour} lost {lost[colour]} pieces, but player_{1 - colour} made "
                    f"{moves} moves before since_capture's, each taking at most one (QU-V1)"
                )
        capturer = (mover - (turn - before + 1)) % 2  # who played turn before - 1, the last capture
        if sum(lost) and not lost[1 - capturer]:
            raise NotationError(
                f"{self.env_id}: turn {before - 1}, the move before since_capture's, was player_{capturer}'s "
                f"capture, but player_{1 - capturer} has lost no piece (QU-V1)"
            )

    def check_state(self, state) -> None:
        mover = int(state[E.H_CURRENT])
        if self._in_zone(state, mover) >= 2:
            raise NotationError(
                f"{self.env_id}: player_{mover} (to move) has two pieces in the other zone: it would have won "
                "on entering (QU-9), and the loser is the one to move"
            )
        status = int(state[E.H_STATUS])
        for colour in (LIGHT, DARK):
            # the capture of the last piece ends the game: by QU-11, or by QU-9 (checked first) when
            # the capturing move also brought the mover's second piece into the zone
            if not any(state[Q_BB + 3 * colour + k] for k in range(3)) and (
                colour != mover or status != E.TERMINATED or state[E.H_REASON] not in (REASON_NO_MOVE, REASON_ZONE)
            ):
                raise NotationError(
                    f"{self.env_id}: player_{colour} has no pieces: its last one was just taken, so it is to move "
                    "and the game is over (no_legal_move, QU-11; or zone, QU-9, if that move also entered the zone)"
                )
        full = state[Q_HLEN] >= self.params[P_HIST_CAP]
        if (status == E.PLAYING and full) or (state[E.H_REASON] == REASON_MEMORY and not full):
            raise NotationError(
                f"{self.env_id}: the superko record holds {int(self.params[P_HIST_CAP])} boards; the game is truncated "
                "(reason superko_memory) exactly when since_capture fills it"
            )
        ruled = self.outcome(state)
        if status == E.PLAYING:
            if ruled is not None:
                raise NotationError(
                    f"{self.env_id}: the game is over ({self.reason_name(ruled[0])}), so status cannot be playing"
                )
            return
        code = int(state[E.H_REASON])
        if status == E.TRUNCATED or code in (E.REASON_ILLEGAL, E.REASON_TIMEOUT):
            if ruled is not None:  # a limit, a forfeit or a flag fall never ends a game the rules ended
                raise NotationError(
                    f"{self.env_id}: the rules end this game ({self.reason_name(ruled[0])}), so it cannot end by "
                    f"{self.reason_name(code)}"
                )
            return
        if ruled is None or ruled[0] != code:
            said = "nothing ends it" if ruled is None else self.reason_name(ruled[0])
            raise NotationError(f"{self.env_id}: reason {self.reason_name(code)} does not hold on this board ({said})")
        winner = ruled[1]
        rets = [int(state[E.H_RET + s]) for s in (0, 1)]
        want = [0, 0] if winner is None else [1 if s == winner else -1 for s in (0, 1)]
        # QU-12: with the chess clock, the one-each draw goes to the side with more time left
        clock = code == REASON_ONE_EACH and sorted(rets) == [-1, 1]
        if rets != want and not clock:
            raise NotationError(f"{self.env_id}: returns must be {want[0]} {want[1]} for this ending")
