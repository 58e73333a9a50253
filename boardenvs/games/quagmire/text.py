"""Quagmire notation (``@d4``, ``d4-d5``, ``d4-d5-e5``, ``d4^d6``) and text
form (the board by rows), and the checks of a parsed position:
:class:`QuagmireText`, a mixin of :class:`~boardenvs.games.quagmire.QuagmireGame`."""

from __future__ import annotations

import re

import numpy as np

from ... import engine as E
from ...errors import IllegalMoveError, NotationError
from .rules import (
    CELL_CHARS,
    JUMP,
    M_CELLS,
    M_PIECES,
    M_PLACED,
    MOVES_PER_PIECE,
    NONE,
    OFF,
    PIECE,
    PLACE,
    REASON_TRAPPED,
    RUN,
    WALK,
    WATER,
    _has_move,
    _set_last,
    decode_move,
)

_CELL = r"([a-zA-Z]\d{1,2})"
_PLACE_RE = re.compile(rf"^@{_CELL}$")
_STEPS_RE = re.compile(rf"^{_CELL}-{_CELL}(?:-{_CELL})?$")
_JUMP_RE = re.compile(rf"^{_CELL}\^{_CELL}$")


class QuagmireText:
    """Notation and the text form (the ``Game`` hooks of those names)."""

    def _notation(self, kind, a, b, c) -> str:
        name = self.board.name
        if kind == PLACE:
            return "@" + name(c)
        if kind == RUN:
            return f"{name(a)}-{name(b)}-{name(c)}"
        return f"{name(a)}{'^' if kind == JUMP else '-'}{name(c)}"

    # -- notation ------------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        n = self.num_cells
        action = self.check_action_id(action)
        if action < n:
            return self._notation(PLACE, -1, -1, action)
        p, m = divmod(action - n, MOVES_PER_PIECE)
        a = self._piece_cells(state)[p]
        if a < 0:
            seat = max(int(state[E.H_CURRENT]), 0)
            raise IllegalMoveError(
                f"{self.env_id}: action {action} moves piece {p} of player_{seat}, which is not on the board yet"
            )
        kind, b, c = (int(v) for v in decode_move(self.params, a, m))
        if c == n or b == n:
            raise IllegalMoveError(
                f"{self.env_id}: action {action} takes the piece on {self.board.name(a)} off the board"
            )
        return self._notation(kind, a, b, c)

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(
                f"{self.env_id}: a move is a str like '@d4', 'd4-d5', 'd4-d5-e5' or 'd4^d6', got {move!r}"
            )
        text = move.strip()
        board = self.board
        if m := _PLACE_RE.match(text):
            return board.cell(m.group(1))
        steps, jump = _STEPS_RE.match(text), _JUMP_RE.match(text)
        if not (steps or jump):
            raise NotationError(
                f"{self.env_id}: malformed move {move!r}; expected '@d4' (place), 'd4-d5' (walk), "
                "'d4-d5-e5' (run) or 'd4^d6' (jump)"
            )
        cells = [board.cell(c) for c in (steps or jump).groups() if c is not None]
        # the move from the first cell whose decoded path is the notation's
        kind = JUMP if jump else (WALK, RUN)[len(cells) - 2]
        a, *rest = cells
        found = -1
        for m in range(MOVES_PER_PIECE):
            k, b, c = decode_move(self.params, a, m)
            if k == kind and c == rest[-1] and (kind != RUN or b == rest[0]):
                found = m
                break
        if found >= 0:
            mine = self._piece_cells(state)
            if a not in mine:
                seat = max(int(state[E.H_CURRENT]), 0)
                raise IllegalMoveError(f"{self.env_id}: {move!r}: player_{seat} has no piece on {board.name(a)}")
            return self.num_cells + MOVES_PER_PIECE * mine.index(a) + found
        # the shape of the move is wrong wherever the pieces stand: a notation error
        if jump:
            raise NotationError(
                f"{self.env_id}: {move!r} is not a jump: the landing must be two cells away in a straight line (QM-6)"
            )
        if kind == RUN and rest[1] == a and board.direction(a, rest[0]) >= 0:
            raise NotationError(f"{self.env_id}: {move!r}: a run may not turn back to its start (QM-5)")
        raise NotationError(f"{self.env_id}: {move!r}: each step of a walk or run goes to a neighbouring cell (QM-4)")

    # -- text form -----------------------------------------------------------
    def board_lines(self, state) -> list[str]:
        cells = self.cells(state)
        R = self.board.radius
        lines = []
        for row, members in enumerate(self.board.rows()):
            indent = " " * abs(row - R)
            lines.append(f"{chr(ord('a') + row)} {indent}" + " ".join(CELL_CHARS[int(cells[i])] for i in members))
        return lines

    def free_fields(self, state) -> dict:
        """The last move (kind, from, via, to: the pictures' outline) is no
        part of a position text."""
        return {**super().free_fields(state), "last_move": ((NONE, -1, -1, -1), (JUMP,) + (self.num_cells - 1,) * 3)}

    def body_to_text(self, state) -> list[str]:
        return ["board:"] + self.board_lines(state)

    def body_from_text(self, lines: list[str], state) -> None:
        board = self.board
        rows = board.rows()
        if len(lines) != 1 + len(rows) or lines[0] != "board:":
            raise NotationError(
                f"{self.env_id}: expected 'board:' and then {len(rows)} rows a..{chr(ord('a') + len(rows) - 1)}"
            )
        for row, members in enumerate(rows):
            letter = chr(ord("a") + row)
            tokens = lines[1 + row].split()
            if (
                len(tokens) != 1 + len(members)
                or tokens[0] != letter
                or any(t not in CELL_CHARS or len(t) != 1 for t in tokens[1:])
            ):
                raise NotationError(
                    f"{self.env_id}: row {letter} must be its letter and {len(members)} of "
                    f"'.' (empty), '~' (water), 'x' (player_0), 'o' (player_1); got {lines[1 + row]!r}"
                )
            for i, t in zip(members, tokens[1:]):
                state[M_CELLS + i] = CELL_CHARS.index(t)
        cells = self.cells(state)
        counts = [int(np.sum(cells == PIECE + s)) for s in (0, 1)]
        if max(counts) > 2:
            raise NotationError(f"{self.env_id}: each player has two pieces, got {counts[0]} x and {counts[1]} o")
        state[M_PIECES : M_PIECES + 4] = -1
        for s in (0, 1):
            for p, c in enumerate(np.flatnonzero(cells == PIECE + s)):
                state[M_PIECES + 2 * s + p] = c
        placed = sum(counts)
        state[M_PLACED] = placed
        _set_last(state, NONE, -1, -1, -1)
        state[M_CELLS + self.num_cells] = OFF
        mover = int(state[E.H_CURRENT])
        if mover == E.CHANCE:
            raise NotationError(f"{self.env_id}: there are no chance nodes; to_move must be player_0 or player_1")
        if placed < 4:
            if (cells == WATER).any():
                raise NotationError(f"{self.env_id}: no cell floods before the four placements are made (QM-2, QM-3)")
            # QM-2's order (first, other, other, first): the seat to place has
            # fewer pieces, and after one or three placements it is the one behind
            if (
                counts[mover] == 2
                or (placed % 2 == 1 and counts[mover] > counts[1 - mover])
                or (placed == 2 and counts != [1, 1])
            ):
                raise NotationError(
                    f"{self.env_id}: player_{mover} cannot be the one to place with {counts[0]} x and "
                    f"{counts[1]} o on the board (QM-2)"
                )

    def check_history(self, state) -> None:
        """QM-V1: every water cell on some piece's trail; QM-V2: no more
        water on a player's trails alone than its moves flood."""
        stranded = self._stranded_water(state)
        if stranded is not None:
            raise NotationError(
                f"{self.env_id}: the water at {self.board.name(stranded)} is on no piece's trail: water is only "
                "left behind by a moving piece, each cell of its trail within two cells of the next (QM-V1)"
            )
        moves = int(state[E.H_TURN]) - 4
        if int(state[M_PLACED]) < 4 or moves < 0:
            return  # (no water before the setup's end: check_state)
        mover = int(state[E.H_CURRENT])
        made = {mover: moves // 2, 1 - mover: moves - moves // 2}  # (the seats alternate; the other moved last)
        cells = self.cells(state)
        reach = [self._trails(cells, np.flatnonzero(cells == PIECE + s)) for s in (0, 1)]
        for s in (0, 1):
            own = reach[s] - reach[1 - s]
            if len(own) > 2 * made[s]:
                raise NotationError(
                    f"{self.env_id}: {len(own)} water cells are on player_{s}'s trails alone, but player_{s} "
                    f"made {made[s]} of the {moves} moves, which flood {2 * made[s]} cells at most (QM-V2)"
                )

    def _trails(self, cells, pieces) -> set:
        """The water cells linked to ``pieces`` by steps of at most two cells
        through water: every cell those pieces' moves flooded is among them
        (a move goes at most two cells, and water stays water)."""
        water = {int(i) for i in np.flatnonzero(cells == WATER)}
        nb = self.board.neighbours
        reached, frontier = set(), [int(i) for i in pieces]
        while frontier:
            i = frontier.pop()
            for j in nb[i]:
                if j < 0:
                    continue
                for k in (j, *nb[j]):
                    if k >= 0 and int(k) in water and int(k) not in reached:
                        reached.add(int(k))
                        frontier.append(int(k))
        return reached

    def _stranded_water(self, state):
        """A water cell that no piece's trail can hold (QM-V1), or None: every
        cell a piece left is water, and a move goes at most two cells (a walk,
        each step of a run, a jump), so each water cell is linked to some
        piece by steps of at most two cells through water."""
        cells = self.cells(state)
        water = {int(i) for i in np.flatnonzero(cells == WATER)}
        stranded = water - self._trails(cells, np.flatnonzero(cells >= PIECE))
        return min(stranded) if stranded else None

    def check_state(self, state) -> None:
        placed, turn = int(state[M_PLACED]), int(state[E.H_TURN])
        water = int(np.sum(self.cells(state) == WATER))
        moves = turn - 4
        if placed < 4 and turn != placed:
            raise NotationError(f"{self.env_id}: {placed} pieces placed, so this is turn {placed}, not {turn} (QM-2)")
        if placed == 4 and not (0 <= moves <= water <= 2 * moves):
            raise NotationError(
                f"{self.env_id}: turn {turn} is {max(moves, 0)} moves after the setup, which flood "
                f"{max(moves, 0)}..{2 * max(moves, 0)} cells, but {water} are water (QM-7)"
            )
        mover = int(state[E.H_CURRENT])
        trapped = placed == 4 and not _has_move(state, self.params, mover)
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        if status == E.PLAYING and trapped:
            raise NotationError(f"{self.env_id}: player_{mover} has no legal move, so the game is over (QM-8)")
        if status == E.TERMINATED and code == REASON_TRAPPED:
            rets = [int(state[E.H_RET + s]) for s in (0, 1)]
            want = [-1 if s == mover else 1 for s in (0, 1)]
            if not trapped or rets != want:
                raise NotationError(
                    f"{self.env_id}: reason no_legal_move needs player_{mover} (to move) trapped and returns "
                    f"{want[0]} {want[1]} (QM-8)"
                )
