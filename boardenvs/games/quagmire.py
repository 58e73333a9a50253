"""Quagmire — ``quagmire_v0``: two pieces each on a hex board that floods.

Rules: ``boardenvs/rules/quagmire.md`` (``boardenvs rules quagmire_v0``) (QM-1..QM-9, Christopher Field's game),
implemented once, in the numba kernels below; :class:`QuagmireGame` adds
notation, the text form and pictures.  Board geometry (C-5) comes from
:mod:`boardenvs.hexboard`.

=================  ==========================================================
Agents             ``player_0`` (``x``), ``player_1`` (``o``)
Setup (QM-2)       four placements: first player, other, other, first; then
                   the first player makes the first move
Actions            ``Discrete(C + 84)`` with ``C`` cells (37 at radius 3, so
                   ``Discrete(121)``), absolute (the board has no front):

                   * ``0 .. C-1``: place a piece on cell ``i`` (cells in
                     reading order: ``a1`` = 0, ..., ``d4`` = 18, ``g4`` = 36);
                   * ``C + 42 * p + 7 * d + k``: move the mover's piece ``p``
                     (0 is the one on the lower cell index, 1 the other) in
                     direction ``d`` (0..5: E, NE, NW, W, SW, SE): ``k = 0``
                     walk; ``1..5`` run, the second step going straight on,
                     turning 60 or 120 degrees left (counter-clockwise), 120
                     or 60 degrees right; ``6`` jump.
Action mask        exact (placements during the setup, moves after it)
Observation        ``int8 (2R+1, 2R+1, 5)`` over the axial grid (cell ``(q, r)``
                   at row ``r + R``, column ``q + R``; the grid's corners are
                   off the board and all zeros): 0 on the board, 1 water,
                   2 own pieces, 3 opponent's pieces, 4 on the board during
                   the setup.  Own piece 0 is the first own piece in
                   reading order of the grid.
Rewards            +1 / -1; the player with no legal move at the start of its
                   turn loses (QM-8); no draws (QM-9)
Options            ``radius`` (3; 2..12, QM-1), ``first_player`` (0, QM-2),
                   ``max_turns`` (default 1000: never reached, a game lasts at
                   most as many turns as the board has cells)
Notation           ``@d4`` place, ``d4-d5`` walk, ``d4-d5-e5`` run (the whole
                   path), ``d4^d6`` jump (from, landing)
=================  ==========================================================
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from .. import engine as E
from ..errors import IllegalMoveError, NotationError
from ..game import Game
from ..hexboard import MAX_RADIUS, hex_board
from ..spec import Option, first_player_option, max_turns_option

EMPTY, WATER, PIECE = 0, 1, 2  # cell codes; a piece of seat s is PIECE + s
OFF = 4  # the code of the sentinel cell that stands for "off the board"
CELL_CHARS = ".~xo"

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("quagmire_v0")
M_PLACED = LAYOUT.add("placed", 1, "placements made so far (0..4)")
M_PIECES = LAYOUT.add("pieces", 4, "2 * seat + p: cells of the pieces, -1 before placed")
M_LAST = LAYOUT.add("last_move", 4, "kind, from, via (run middle / jumped cell), to")
M_CELLS = LAYOUT.add("cells", "cells", "one code per cell, then the sentinel cell (OFF)")

# game options after the generic ones.  The geometry travels in params, so
# the kernels serve every radius; off-board cells are the sentinel cell C,
# whose code OFF blocks every move, so the move table needs no bounds checks.
P_NCELLS = E.P_GAME
P_TABLES = E.P_GAME + 1
# tables, one after the other: for every cell (the sentinel included) and
# direction d, 8 entries: the neighbour B, then the cells one step beyond B
# turning 0, +1, +2, -2, -1 sixths of a turn (RUN_TURNS), then 2 unused; then
# the grid index of every cell
TABLE_STRIDE = 48
RUN_TURNS = (0, 1, 2, 4, 5)  # (d2 - d1) % 6 of the five runs; 3 would turn back

NONE, PLACE, WALK, RUN, JUMP = 0, 1, 2, 3, 4  # move kinds (M_LAST)
MOVES_PER_PIECE = 42
PER_DIRECTION = 7  # walk, five runs (RUN_TURNS order), jump
OBS_PLANES = 5

REASON_TRAPPED = E.REASON_GAME


def move_tables(board) -> np.ndarray:
    """The flat geometry tables the kernels read from ``params``."""
    n = board.num_cells
    nb = np.full((n + 1, 6), n, np.int64)
    nb[:n] = np.where(board.neighbours >= 0, board.neighbours, n)
    table = np.full((n + 1, 6, 8), n, np.int64)
    for a in range(n + 1):
        for d in range(6):
            table[a, d, 0] = nb[a, d]
            table[a, d, 1:6] = nb[nb[a, d], [(d + t) % 6 for t in RUN_TURNS]]
    return np.concatenate([table.ravel(), board.grid_index])


# --- kernels -----------------------------------------------------------------
# Indices are cast to uint64 in the hot loops: numba then skips the
# negative-index wraparound it adds to every signed index (3x faster here).


@njit(cache=True)
def _mark_moves(state, params, seat, mask):
    """Write the move entries of ``mask`` for ``seat``'s pieces, walks (QM-4),
    runs (QM-5) and jumps (QM-6), without branches; return how many are legal."""
    n = params[P_NCELLS]
    cells = state[M_CELLS:]
    count = 0
    for p in range(2):
        t = np.uint64(P_TABLES + TABLE_STRIDE * state[M_PIECES + 2 * seat + p])
        o = np.uint64(n + MOVES_PER_PIECE * p)
        for d in range(6):
            on_b = cells[np.uint64(params[t])]
            walk = on_b == EMPTY
            # the start floods as the piece leaves it, and no run turns back to it
            straight = cells[np.uint64(params[t + np.uint64(1)])] == EMPTY
            run1 = cells[np.uint64(params[t + np.uint64(2)])] == EMPTY
            run2 = cells[np.uint64(params[t + np.uint64(3)])] == EMPTY
            run4 = cells[np.uint64(params[t + np.uint64(4)])] == EMPTY
            run5 = cells[np.uint64(params[t + np.uint64(5)])] == EMPTY
            # a jump lands beyond B, passing over water, never over a piece
            jump = (on_b <= WATER) & straight
            mask[o] = walk
            mask[o + np.uint64(1)] = walk & straight
            mask[o + np.uint64(2)] = walk & run1
            mask[o + np.uint64(3)] = walk & run2
            mask[o + np.uint64(4)] = walk & run4
            mask[o + np.uint64(5)] = walk & run5
            mask[o + np.uint64(6)] = jump
            count += np.int64(walk) * (1 + np.int64(straight) + run1 + run2 + run4 + run5) + np.int64(jump)
            t += np.uint64(8)
            o += np.uint64(PER_DIRECTION)
    return count


@njit(cache=True)
def _has_move(state, params, seat):
    """QM-8: does ``seat`` have any walk or jump (a run starts with a walk)?"""
    for p in range(2):
        t = P_TABLES + TABLE_STRIDE * state[M_PIECES + 2 * seat + p]
        for d in range(6):
            on_b = state[M_CELLS + params[t + 8 * d]]
            if on_b == EMPTY:
                return True
            if on_b == WATER and state[M_CELLS + params[t + 8 * d + 1]] == EMPTY:
                return True
    return False


@njit(cache=True)
def decode_move(params, a, m):
    """Move ``m`` (0..41) of the piece on cell ``a``: ``(kind, b, c)`` with
    ``c`` the landing, ``b`` the run's middle or the jumped cell (-1 for a
    walk); off-board cells are the sentinel ``C``."""
    t = P_TABLES + TABLE_STRIDE * a + 8 * (m // PER_DIRECTION)
    k = m % PER_DIRECTION
    if k == 0:
        return WALK, -1, params[t]
    if k < PER_DIRECTION - 1:
        return RUN, params[t], params[t + k]
    return JUMP, params[t], params[t + 1]  # QM-6: the jumped cell stays as it is


@njit(cache=True)
def _sort_pieces(state, seat):
    s = M_PIECES + 2 * seat
    if state[s + 1] >= 0 and (state[s] < 0 or state[s + 1] < state[s]):
        state[s], state[s + 1] = state[s + 1], state[s]


@njit(cache=True)
def _set_last(state, kind, a, b, c):
    state[M_LAST] = kind
    state[M_LAST + 1] = a
    state[M_LAST + 2] = b
    state[M_LAST + 3] = c


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)  # QM-3: every cell empty, no water
    state[M_PIECES : M_PIECES + 4] = -1
    state[M_CELLS + params[P_NCELLS]] = OFF
    _set_last(state, NONE, -1, -1, -1)


@njit(cache=True)
def legal(state, params, mask):
    n = params[P_NCELLS]
    if state[M_PLACED] < 4:  # QM-2: place on any empty cell
        mask[n:] = 0
        count = 0
        for i in range(n):
            free = state[M_CELLS + i] == EMPTY
            mask[i] = free
            count += free
        return count
    mask[:n] = 0
    return _mark_moves(state, params, state[E.H_CURRENT], mask)


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    n = params[P_NCELLS]
    if state[M_PLACED] < 4:
        state[M_CELLS + action] = PIECE + seat
        slot = M_PIECES + 2 * seat
        state[slot if state[slot] < 0 else slot + 1] = action
        _sort_pieces(state, seat)
        _set_last(state, PLACE, -1, -1, action)
        state[M_PLACED] += 1
        # QM-2: first, other, other, first, and the first player moves next
        nxt = seat if state[M_PLACED] % 2 == 0 else 1 - seat
    else:
        p, m = divmod(action - n, MOVES_PER_PIECE)
        a = state[M_PIECES + 2 * seat + p]
        kind, b, c = decode_move(params, a, m)
        if kind == RUN:
            state[M_CELLS + b] = WATER  # QM-5/QM-7: the middle cell floods too
        state[M_CELLS + a] = WATER  # QM-7: the cell left floods, for good
        state[M_CELLS + c] = PIECE + seat
        state[M_PIECES + 2 * seat + p] = c
        _sort_pieces(state, seat)
        _set_last(state, kind, a, b, c)
        nxt = 1 - seat
    E.record_action(state, seat, action)
    # QM-8: no legal move at the start of one's turn loses
    if state[M_PLACED] == 4 and not _has_move(state, params, nxt):
        E.win_seat(state, 1 - nxt, REASON_TRAPPED)
    E.end_turn(state, params, nxt)


@njit(cache=True)
def observe(state, params, seat, obs):
    obs[:] = 0
    n = params[P_NCELLS]
    grid = P_TABLES + TABLE_STRIDE * (n + 1)
    setup = state[M_PLACED] < 4
    own, opp = PIECE + seat, PIECE + 1 - seat
    for i in range(n):
        g = params[grid + i] * OBS_PLANES
        v = state[M_CELLS + i]
        obs[g] = 1
        obs[g + 1] = v == WATER
        obs[g + 2] = v == own
        obs[g + 3] = v == opp
        obs[g + 4] = setup


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


@njit(cache=True)
def _mobility(state, params, seat):
    """How many walks, runs and jumps ``seat``'s placed pieces have (QM-4..6)."""
    count = 0
    for p in range(2):
        a = state[M_PIECES + 2 * seat + p]
        if a < 0:
            continue
        t = P_TABLES + TABLE_STRIDE * a
        for d in range(6):
            on_b = state[M_CELLS + params[t]]
            straight = state[M_CELLS + params[t + 1]] == EMPTY
            if on_b == EMPTY:
                count += 1 + straight
                for k in range(2, 6):
                    count += state[M_CELLS + params[t + k]] == EMPTY
            elif on_b == WATER and straight:
                count += 1
            t += 8
    return count


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (QM-8: who cannot move loses): the
    mover's moves minus the opponent's."""
    return float(_mobility(state, params, seat) - _mobility(state, params, 1 - seat))

_CELL = r"([a-zA-Z]\d{1,2})"
_PLACE_RE = re.compile(rf"^@{_CELL}$")
_STEPS_RE = re.compile(rf"^{_CELL}-{_CELL}(?:-{_CELL})?$")
_JUMP_RE = re.compile(rf"^{_CELL}\^{_CELL}$")


class QuagmireGame(Game):
    """Quagmire with its options fixed (see the module docstring for the card)."""

    env_id = "quagmire_v0"
    title = "Quagmire"
    rules_file = "quagmire.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        Option("radius", 3, "board radius (QM-1): 37 cells at 3", low=2, high=MAX_RADIUS),
        first_player_option(0),  # QM-2
        # never reached: a game lasts at most as many turns as the board has cells
        max_turns_option(1000),
    )
    reason_names = {REASON_TRAPPED: "no_legal_move"}
    seat_labels = ("x", "o")
    variants = ({}, {"radius": 2}, {"radius": 4})
    heuristic = staticmethod(heuristic)

    def configure(self, o):
        self.board = board = hex_board(o["radius"])
        n = board.num_cells
        self.num_cells = n
        return dict(num_actions=n + 2 * MOVES_PER_PIECE, obs_shape=(board.side, board.side, OBS_PLANES),
                    params=np.concatenate([[n], move_tables(board)]), sizes={"cells": n + 1})  # fmt: skip

    # -- reading a state -----------------------------------------------------
    def cells(self, state) -> np.ndarray:
        """Cell codes in reading order: 0 empty, 1 water, 2 + seat a piece."""
        return state[M_CELLS : M_CELLS + self.num_cells]

    def in_setup(self, state) -> bool:
        return int(state[M_PLACED]) < 4

    def _notation(self, kind, a, b, c) -> str:
        name = self.board.name
        if kind == PLACE:
            return "@" + name(c)
        if kind == RUN:
            return f"{name(a)}-{name(b)}-{name(c)}"
        return f"{name(a)}{'^' if kind == JUMP else '-'}{name(c)}"

    def last_move(self, state) -> str:
        """The last move in notation, or '' before the first."""
        kind, a, b, c = (int(v) for v in state[M_LAST : M_LAST + 4])
        return "" if kind == NONE else self._notation(kind, a, b, c)

    def _piece_cells(self, state) -> list[int]:
        """The cells of the mover's pieces 0 and 1 (-1 before placed)."""
        seat = max(int(state[E.H_CURRENT]), 0)
        return [int(c) for c in state[M_PIECES + 2 * seat : M_PIECES + 2 * seat + 2]]

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
            raise IllegalMoveError(f"quagmire_v0: action {action} moves piece {p} of player_{seat}, which is not on the board yet")
        kind, b, c = (int(v) for v in decode_move(self.params, a, m))
        if c == n or b == n:
            raise IllegalMoveError(f"quagmire_v0: action {action} takes the piece on {self.board.name(a)} off the board")
        return self._notation(kind, a, b, c)

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(f"quagmire_v0: a move is a str like '@d4', 'd4-d5', 'd4-d5-e5' or 'd4^d6', got {move!r}")
        text = move.strip()
        board = self.board
        if m := _PLACE_RE.match(text):
            return board.cell(m.group(1))
        steps, jump = _STEPS_RE.match(text), _JUMP_RE.match(text)
        if not (steps or jump):
            raise NotationError(
                f"quagmire_v0: malformed move {move!r}; expected '@d4' (place), 'd4-d5' (walk), "
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
                raise IllegalMoveError(f"quagmire_v0: {move!r}: player_{seat} has no piece on {board.name(a)}")
            return self.num_cells + MOVES_PER_PIECE * mine.index(a) + found
        # the shape of the move is wrong wherever the pieces stand: a notation error
        if jump:
            raise NotationError(f"quagmire_v0: {move!r} is not a jump: the landing must be two cells away in a straight line (QM-6)")
        if kind == RUN and rest[1] == a and board.direction(a, rest[0]) >= 0:
            raise NotationError(f"quagmire_v0: {move!r}: a run may not turn back to its start (QM-5)")
        raise NotationError(f"quagmire_v0: {move!r}: each step of a walk or run goes to a neighbouring cell (QM-4)")

    # -- the dice variant (boardenvs.wrappers.dice.DiceVariant) -------------
    action_class_names = ("walk", "run", "jump")

    def action_classes(self, state) -> np.ndarray:
        """Walk (0), run (1) or jump (2) for every move id; placements
        belong to no class (the setup is played without a roll)."""
        classes = np.full(self.num_actions, -1, np.int64)
        k = np.arange(2 * MOVES_PER_PIECE) % PER_DIRECTION
        classes[self.num_cells :] = np.where(k == 0, 0, np.where(k == PER_DIRECTION - 1, 2, 1))
        return classes

    # -- text form -----------------------------------------------------------
    def board_lines(self, state) -> list[str]:
        cells = self.cells(state)
        R = self.board.radius
        lines = []
        for row, members in enumerate(self.board.rows()):
            indent = " " * abs(row - R)
            lines.append(f"{chr(ord('a') + row)} {indent}" + " ".join(CELL_CHARS[int(cells[i])] for i in members))
        return lines

    def body_to_text(self, state) -> list[str]:
        return ["board:"] + self.board_lines(state)

    def body_from_text(self, lines: list[str], state) -> None:
        board = self.board
        rows = board.rows()
        if len(lines) != 1 + len(rows) or lines[0] != "board:":
            raise NotationError(f"quagmire_v0: expected 'board:' and then {len(rows)} rows a..{chr(ord('a') + len(rows) - 1)}")
        for row, members in enumerate(rows):
            letter = chr(ord("a") + row)
            tokens = lines[1 + row].split()
            if len(tokens) != 1 + len(members) or tokens[0] != letter or any(t not in CELL_CHARS or len(t) != 1 for t in tokens[1:]):
                raise NotationError(
                    f"quagmire_v0: row {letter} must be its letter and {len(members)} of "
                    f"'.' (empty), '~' (water), 'x' (player_0), 'o' (player_1); got {lines[1 + row]!r}"
                )
            for i, t in zip(members, tokens[1:]):
                state[M_CELLS + i] = CELL_CHARS.index(t)
        cells = self.cells(state)
        counts = [int(np.sum(cells == PIECE + s)) for s in (0, 1)]
        if max(counts) > 2:
            raise NotationError(f"quagmire_v0: each player has two pieces, got {counts[0]} x and {counts[1]} o")
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
            raise NotationError("quagmire_v0: there are no chance nodes; to_move must be player_0 or player_1")
        if placed < 4:
            if (cells == WATER).any():
                raise NotationError("quagmire_v0: no cell floods before the four placements are made (QM-2, QM-3)")
            # QM-2's order (first, other, other, first): the seat to place has
            # fewer pieces, and after one or three placements it is the one behind
            if counts[mover] == 2 or (placed % 2 == 1 and counts[mover] > counts[1 - mover]) or (placed == 2 and counts != [1, 1]):
                raise NotationError(
                    f"quagmire_v0: player_{mover} cannot be the one to place with {counts[0]} x and {counts[1]} o on the board (QM-2)"
                )

    def check_state(self, state) -> None:
        placed, turn = int(state[M_PLACED]), int(state[E.H_TURN])
        water = int(np.sum(self.cells(state) == WATER))
        moves = turn - 4
        if placed < 4 and turn != placed:
            raise NotationError(f"quagmire_v0: {placed} pieces placed, so this is turn {placed}, not {turn} (QM-2)")
        if placed == 4 and not (0 <= moves <= water <= 2 * moves):
            raise NotationError(
                f"quagmire_v0: turn {turn} is {max(moves, 0)} moves after the setup, which flood "
                f"{max(moves, 0)}..{2 * max(moves, 0)} cells, but {water} are water (QM-7)"
            )
        mover = int(state[E.H_CURRENT])
        trapped = placed == 4 and not _has_move(state, self.params, mover)
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        if status == E.PLAYING and trapped:
            raise NotationError(f"quagmire_v0: player_{mover} has no legal move, so the game is over (QM-8)")
        if status == E.TERMINATED and code == REASON_TRAPPED:
            rets = [int(state[E.H_RET + s]) for s in (0, 1)]
            want = [-1 if s == mover else 1 for s in (0, 1)]
            if not trapped or rets != want:
                raise NotationError(
                    f"quagmire_v0: reason no_legal_move needs player_{mover} (to move) trapped and returns "
                    f"{want[0]} {want[1]} (QM-8)"
                )

    # -- pictures (the board; boardenvs/render.py adds legend, turn, result) ----
    def turn_notes(self, state) -> list[str]:
        placed = int(state[M_PLACED])
        return [f"setup: placement {placed + 1} of 4 (QM-2)"] if placed < 4 else []

    def render_ansi(self, state) -> str:
        """Rows a..g from the top, cells numbered from 1 at the left of each
        row (``d4`` is the centre); ``x`` / ``o`` pieces, ``~`` water."""
        return "\n".join(self.board_lines(state))

    def cell_at(self, x, y):
        from ..render import HexPicture

        i = HexPicture(self.board, names=False).cell_at(x, y)
        return None if i is None else self.board.name(i)

    def render_rgb(self, state) -> np.ndarray:
        """Row letters on both sides, each empty cell's name in it, water
        blue, the last move's cells outlined, pieces in the seat colours."""
        from ..render import HexPicture

        pic = HexPicture(self.board)
        cells = self.cells(state)
        for i in range(self.num_cells):
            if cells[i] == WATER:
                pic.tint(i, "water")
        for c in state[M_LAST + 1 : M_LAST + 4]:
            if c >= 0:
                pic.outline(int(c))
        for i in range(self.num_cells):
            if cells[i] >= PIECE:
                pic.piece(i, int(cells[i]) - PIECE)
        return pic.to_array()
