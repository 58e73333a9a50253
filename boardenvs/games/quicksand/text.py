"""Quicksand notation (whole turns ``M@c3 Q2:90``, ``c3:e5:e3 Q1:180``, and
single decisions) and text form (board, reserve, score, phase, jump), and the
checks of a parsed position: :class:`QuicksandText`, a mixin of
:class:`~boardenvs.games.quicksand.QuicksandGame`."""

from __future__ import annotations

import re

import numpy as np

from ... import engine as E
from ...errors import IllegalMoveError, NotationError
from ...textform import turns_of
from .rules import (
    CELL_CHARS,
    DIRECTION_NAMES,
    DIRECTIONS,
    HOP0,
    JUMP,
    MAX_JUMPED,
    MAX_SCORE,
    NCELLS,
    NONE,
    OFF,
    PH_FIRST,
    PH_HOP,
    PH_ROTATE,
    PHASE_NAMES,
    PIECES_PER_SIZE,
    PLACE,
    POINTS,
    Q_CELLS,
    Q_JCOUNT,
    Q_JMASK,
    Q_LAST,
    Q_PHASE,
    Q_RESERVE,
    Q_SCORE,
    Q_TURN,
    R_CELLS,
    R_KIND,
    R_N,
    R_ROT,
    R_SIZE,
    RAYS,
    REASON_NO_MOVE,
    REASON_SCORE,
    ROT0,
    SELECT0,
    SENTINEL,
    SIZE_CHARS,
    STOP,
    WIN_POINTS,
    _any_hop,
    _can_move,
    _clear_record,
    cell_index,
    cell_name,
)

# --- notation ----------------------------------------------------------------
_CELL = r"[a-f][1-6]"
_PLACE_RE = re.compile(rf"^([SML])@({_CELL})$")
_SELECT_RE = re.compile(rf"^({_CELL})$")
_HOP_RE = re.compile(rf"^:({_CELL})$")
_ROT_RE = re.compile(r"^Q([1-4]):(90|180|270)$")
_JUMP_RE = re.compile(rf"^({_CELL})?((?::{_CELL}){{0,3}})$")
FORMS = (
    "'M@c3 Q2:90' (place, rotate), 'c3:e5:e3 Q1:180' (jump, rotate), 'c3:e5' (a jump that wins at once); "
    "one decision: 'M@c3', 'c3', ':e5', 'stop', 'Q4:270'"
)


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


class QuicksandText:
    """Notation and the text form (the ``Game`` hooks of those names)."""

    # -- notation ------------------------------------------------------------
    def _record_move(self, state, base) -> str:
        kind, n = int(state[base + R_KIND]), int(state[base + R_N])
        cells = [int(c) for c in state[base + R_CELLS : base + R_CELLS + n] if c >= 0]
        if kind == NONE or not cells:  # (a record no turn wrote, from a row made by hand: no move to show)
            return ""
        if kind == PLACE:
            text = f"{SIZE_CHARS[int(state[base + R_SIZE])]}@{cell_name(cells[0])}"
        else:
            text = ":".join(cell_name(c) for c in cells)
        if state[base + R_ROT] >= 0:
            text += " " + rotation_name(int(state[base + R_ROT]))
        return text

    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        if action < SELECT0:
            return f"{SIZE_CHARS[action // 36]}@{cell_name(action % 36)}"
        if action < HOP0:
            return cell_name(action - SELECT0)
        if action < STOP:
            path = self.jump_path(state)
            if not path:
                raise IllegalMoveError(f"{self.env_id}: action {action} is a hop, but no jump is in progress")
            d, k = divmod(action - HOP0, 3)
            land = int(RAYS[path[-1], d, k + 2])
            if land == SENTINEL:
                raise IllegalMoveError(
                    f"{self.env_id}: action {action} hops {DIRECTION_NAMES[d]} over {k + 1} from "
                    f"{cell_name(path[-1])}, "
                    "off the board"
                )
            return ":" + cell_name(land)
        if action == STOP:
            return "stop"
        return rotation_name(action - ROT0)

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(f"{self.env_id}: a move is a str, got {move!r}; expected {FORMS}")
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
                raise IllegalMoveError(f"{self.env_id}: {move!r} is a hop, but no jump is in progress")
            return self._hop_action(path[-1], cell_index(m.group(1)), move)
        raise NotationError(f"{self.env_id}: malformed decision {move!r}; expected {FORMS}")

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
            raise NotationError(f"{self.env_id}: a move is a str, got {move!r}; expected {FORMS}")
        tokens = move.split()
        rot = None
        if tokens and _ROT_RE.match(tokens[-1]):
            rot = self.move_to_action(state, tokens.pop())
        if len(tokens) > 1 or (not tokens and rot is None):
            raise NotationError(f"{self.env_id}: malformed move {move!r}; expected {FORMS}")
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
                raise NotationError(f"{self.env_id}: malformed move {move!r}; expected {FORMS}")
        # the hops' ids from the jumper's cell along the notation (QS-5 shape checked here)
        path = self.jump_path(state)
        cur = path[-1] if path else None
        decisions = []
        for kind, value in steps:
            if kind == "hop":
                if cur is None:
                    raise IllegalMoveError(f"{self.env_id}: {move!r}: a hop needs a jumper; no jump is in progress")
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
        mask = np.empty(self.mask_size, np.int8)
        return self.step(s, int(action), mask, mode=E.ILLEGAL_REFUSE, settle=False) != E.STEP_REFUSED

    def actions_to_move(self, state, actions) -> str:
        s = state.copy()
        mask = np.empty(self.mask_size, np.int8)
        text = ""
        for a in actions:
            a = int(a)
            part = self.action_to_move(s, a)
            if a == STOP:
                part = ""
            elif a >= ROT0:
                part = " " + part
            text += part
            # the engine's one step: an action the chain cannot take is refused, not applied
            if self.step(s, a, mask, mode=E.ILLEGAL_REFUSE, settle=False) == E.STEP_REFUSED:
                raise IllegalMoveError(f"{self.env_id}: {self.describe_action(s, a)} is not legal in this chain")
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

    def free_fields(self, state) -> dict:
        """The last turn's record (the pictures') is no part of a position
        text; nor, but in the jump phase (whose text shows the jump's path),
        the turn in progress and its count of jumped pyramids."""
        record = (
            (NONE, -1, 0, -1, -1, -1, -1, -1, -1),
            (JUMP, 2, 4, NCELLS - 1, NCELLS - 1, NCELLS - 1, NCELLS - 1, 11, 1),
        )
        free = {**super().free_fields(state), "last_record": record}
        if state[Q_PHASE] != PH_HOP:
            free.update(turn_record=record, jumped=(0, int(MAX_JUMPED.max())))
        return free

    def body_to_text(self, state) -> list[str]:
        res = [" ".join(str(v) for v in self.reserve(state, s)) for s in (0, 1)]
        path = self.jump_path(state)
        return (
            ["board:"]
            + self.board_lines(state)
            + [
                f"reserve: {res[0]} / {res[1]}",
                "score: {} {}".format(*self.scores(state)),
                f"phase: {self.phase(state)}",
                "jump: " + (":".join(cell_name(c) for c in path) if path else "-"),
            ]
        )

    def body_from_text(self, lines: list[str], state) -> None:
        if len(lines) != 12 or lines[0] != "board:" or lines[7].split() != list("abcdef"):
            raise NotationError(
                f"{self.env_id}: expected 'board:', six rows 6..1, the file line 'a b c d e f', then the lines "
                "reserve, score, phase, jump"
            )
        for k, rank in enumerate(range(6, 0, -1)):
            tokens = lines[1 + k].split()
            if (
                len(tokens) != 7
                or tokens[0] != str(rank)
                or any(len(t) != 1 or t not in CELL_CHARS for t in tokens[1:])
            ):
                raise NotationError(
                    f"{self.env_id}: row {rank} must be its number and six of '.' (empty), 'S M L' (player_0), "
                    f"'s m l' (player_1); got {lines[1 + k]!r}"
                )
            for f, t in enumerate(tokens[1:]):
                state[Q_CELLS + (rank - 1) * 6 + f] = CELL_CHARS.index(t)
        state[Q_CELLS + SENTINEL] = OFF
        fields = {}
        for line in lines[8:]:
            key, sep, value = line.partition(":")
            if not sep or key not in ("reserve", "score", "phase", "jump") or key in fields:
                raise NotationError(f"{self.env_id}: unexpected line {line!r}; expected reserve, score, phase, jump")
            fields[key] = value.split()
        res = fields["reserve"]
        if len(res) != 7 or res[3] != "/" or any(r not in "012345" or len(r) != 1 for r in res[:3] + res[4:]):
            raise NotationError(
                f"{self.env_id}: reserve must be 'S M L / s m l' counts 0..5 of player_0 and player_1, got "
                f"{' '.join(res)!r}"
            )
        reserve = [int(r) for r in res[:3] + res[4:]]
        score = fields["score"]
        if len(score) != 2 or any(not re.fullmatch(r"[0-9]{1,2}", v) for v in score):
            raise NotationError(f"{self.env_id}: score must be two counts 0..{MAX_SCORE}, got {' '.join(score)!r}")
        scores = [int(v) for v in score]
        cells = self.cells(state)
        for seat in (0, 1):
            missing = 0
            for size in range(3):
                on_board = int(np.sum(cells == 1 + 3 * seat + size))
                held = on_board + reserve[3 * seat + size]
                if held > PIECES_PER_SIZE:
                    raise NotationError(
                        f"{self.env_id}: player_{seat} has {held} {('small', 'medium', 'large')[size]} pyramids "
                        f"({on_board} on the board, {reserve[3 * seat + size]} in reserve); each player has "
                        f"{PIECES_PER_SIZE} (QS-1)"
                    )
                missing += (PIECES_PER_SIZE - held) * POINTS[size]
            # QS-9: own pyramids jumped go back to the reserve, so every missing one was scored by the other
            if scores[1 - seat] != missing:
                raise NotationError(
                    f"{self.env_id}: player_{seat}'s missing pyramids are worth {missing} points, so "
                    f"player_{1 - seat}'s "
                    f"score must be {missing}, got {scores[1 - seat]} (QS-9)"
                )
        state[Q_RESERVE : Q_RESERVE + 6] = reserve
        state[Q_SCORE : Q_SCORE + 2] = scores
        phase = fields["phase"]
        if len(phase) != 1 or phase[0] not in PHASE_NAMES:
            raise NotationError(
                f"{self.env_id}: phase must be one of {', '.join(PHASE_NAMES)}, got {' '.join(phase)!r}"
            )
        state[Q_PHASE] = PHASE_NAMES.index(phase[0])
        _clear_record(state, Q_TURN)
        _clear_record(state, Q_LAST)
        mover = int(state[E.H_CURRENT])
        if mover == E.CHANCE:
            raise NotationError(f"{self.env_id}: there are no chance nodes; to_move must be player_0 or player_1")
        jump = fields["jump"]
        if state[Q_PHASE] != PH_HOP:
            if jump != ["-"]:
                raise NotationError(f"{self.env_id}: jump must be '-' outside the jump phase, got {' '.join(jump)!r}")
            if state[Q_PHASE] == PH_ROTATE:
                state[Q_TURN + R_KIND] = NONE  # what was played before the rotation is not recorded
            return
        if len(jump) != 1 or not re.fullmatch(rf"{_CELL}(?::{_CELL}){{0,3}}", jump[0]):
            raise NotationError(
                f"{self.env_id}: jump must be the jumper's start cell and its landings, like 'c3:e5', got "
                f"{' '.join(jump)!r}"
            )
        self._jump_from_text([cell_index(c) for c in jump[0].split(":")], state, mover)

    def _jump_from_text(self, path: list[int], state, mover: int) -> None:
        """The jump in progress, checked against the board (QS-5..QS-8)."""
        cells = self.cells(state)
        where = ":".join(cell_name(c) for c in path)
        jumper = int(cells[path[-1]]) - 1
        if jumper < 0 or jumper // 3 != mover:
            raise NotationError(
                f"{self.env_id}: jump {where}: player_{mover}'s jumper must stand on {cell_name(path[-1])}"
            )
        size = jumper % 3
        jumped = []
        for a, b in zip(path, path[1:]):
            hop = hop_of(a, b)
            if hop is None:
                raise NotationError(
                    f"{self.env_id}: jump {where}: {cell_name(a)} to {cell_name(b)} is not a hop (QS-5)"
                )
            d, k = hop
            jumped += [int(RAYS[a, d, j]) for j in range(1, k + 1)]
        for c in path[:-1]:
            if cells[c] and c != path[-1]:
                raise NotationError(f"{self.env_id}: jump {where}: the jumper has left {cell_name(c)}, so it is empty")
        for x in jumped:
            if not cells[x] or x in path:
                raise NotationError(
                    f"{self.env_id}: jump {where} passes over {cell_name(x)}, where no pyramid stands (QS-5)"
                )
        if len(set(jumped)) != len(jumped):
            raise NotationError(f"{self.env_id}: jump {where} jumps a pyramid twice (QS-6)")
        if len(jumped) >= MAX_JUMPED[size]:
            raise NotationError(
                f"{self.env_id}: jump {where}: a {('small', 'medium', 'large')[size]} pyramid's jump ends after "
                f"{int(MAX_JUMPED[size])} pyramid(s), {len(jumped)} are jumped (QS-7)"
            )
        state[Q_TURN + R_KIND] = JUMP
        state[Q_TURN + R_SIZE] = size
        state[Q_TURN + R_N] = len(path)
        state[Q_TURN + R_CELLS : Q_TURN + R_CELLS + len(path)] = path
        state[Q_JCOUNT] = len(jumped)
        state[Q_JMASK] = sum(1 << x for x in jumped)
        if jumped and not _any_hop(state, state[Q_JMASK], path[-1], size, len(jumped)):
            raise NotationError(f"{self.env_id}: jump {where}: no hop is left, so the jump has ended (QS-7, QS-8)")

    def check_history(self, state) -> None:
        """QS-V1: a turn either places one pyramid (QS-3) or jumps, taking at
        most three (QS-7), and the players alternate, so each player's
        pyramids out of its reserve plus a third (rounded up) of the
        opponent's pyramids it took are at most the turns it played (the one
        in progress counted from its rotation on)."""
        cells, mover, turn = self.cells(state), int(state[E.H_CURRENT]), int(state[E.H_TURN])
        total = 3 * PIECES_PER_SIZE
        out = [total - sum(int(state[Q_RESERVE + 3 * s + z]) for z in range(3)) for s in (0, 1)]
        taken = [out[s] - int(np.count_nonzero((cells > 3 * s) & (cells <= 3 * s + 3))) for s in (0, 1)]  # QS-9
        for s in (0, 1):
            played = turns_of(s, mover, turn, 2) + (s == mover and state[Q_PHASE] == PH_ROTATE)
            jumps = -(-taken[1 - s] // 3)
            if out[s] + jumps > played:
                raise NotationError(
                    f"{self.env_id}: player_{s} has {out[s]} pyramids out of its reserve and took {taken[1 - s]} of "
                    f"player_{1 - s}'s, which takes at least {out[s] + jumps} of its turns (one placing each, a jump "
                    f"taking at most three), but it played {played} (QS-V1)"
                )

    def check_state(self, state) -> None:
        scores = self.scores(state)
        mover = int(state[E.H_CURRENT])
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        cells = self.cells(state)
        placed = int(np.count_nonzero(cells)) + sum(
            (PIECES_PER_SIZE - int(np.sum(cells == 1 + 3 * s + z)) - int(state[Q_RESERVE + 3 * s + z]))
            for s in (0, 1)
            for z in range(3)
        )
        turn = int(state[E.H_TURN])
        if turn + (state[Q_PHASE] == PH_ROTATE) < placed:
            raise NotationError(
                f"{self.env_id}: {placed} pyramids were placed (on the board or captured), but a turn places at most "
                f"one and {turn} turns are complete (QS-3)"
            )
        won = [s for s in (0, 1) if scores[s] >= WIN_POINTS]
        stuck = state[Q_PHASE] == PH_FIRST and not _can_move(state, mover)
        if status == E.PLAYING:
            if won:
                raise NotationError(
                    f"{self.env_id}: player_{won[0]} has {scores[won[0]]} points, so the game is over (QS-10)"
                )
            if stuck:
                raise NotationError(
                    f"{self.env_id}: player_{mover} can neither place nor jump, so the game is over (QS-11)"
                )
            return
        rets = [int(state[E.H_RET + s]) for s in (0, 1)]
        if code in (REASON_SCORE, REASON_NO_MOVE):
            winner = 1 - mover
            ok = state[Q_PHASE] == PH_FIRST and rets == [1 if s == winner else -1 for s in (0, 1)]
            ok &= (won == [winner]) if code == REASON_SCORE else (stuck and not won)
            if not ok:
                why = (
                    "with 15 points or more (QS-10)"
                    if code == REASON_SCORE
                    else (f"to have left player_{mover} with no place and no jump (QS-11)")
                )
                raise NotationError(
                    f"{self.env_id}: reason {self.reason_name(code)} does not hold: it needs player_{winner} (not to "
                    f"move) {why}, returns {1 if winner == 0 else -1} {1 if winner == 1 else -1}, phase place"
                )
            return
        if won or stuck:  # a limit or a forfeit never ends a game the rules ended
            raise NotationError(
                f"{self.env_id}: the rules end this game (QS-10/QS-11), so it cannot end by {self.reason_name(code)}"
            )
        if code == E.REASON_TRUNCATED and state[Q_PHASE] != PH_FIRST:
            raise NotationError(f"{self.env_id}: max_turns ends a game between turns, so phase must be place")
