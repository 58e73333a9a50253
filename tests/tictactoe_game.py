"""Tic-tac-toe — ``tictactoe_v0``: the tests' sixth game, written as a newcomer
would add one (this module plus one line, ``register(TicTacToeGame)``, in
conftest.py), to show that every generic piece follows from the declaration.

Board (TT-1), cells indexed in reading order, rows ``a``..``c`` from the top,
columns ``1``..``3`` from the left; the action is the cell::

        1   2   3
    a   0 | 1 | 2
    b   3 | 4 | 5
    c   6 | 7 | 8

Observation ``int8 (3, 3, 2)``: plane 0 the observer's marks, plane 1 the
other player's (egocentric).  Rules in ``tictactoe.md`` (TT-1..TT-3).
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from boardenvs import engine as E
from boardenvs.errors import NotationError
from boardenvs.game import Game
from boardenvs.spec import Config, first_player_option, max_turns_option

LAYOUT = E.HEADER_LAYOUT.extend("tictactoe_v0")
T_BOARD = LAYOUT.add("board", 9, "0 empty, 1 + seat of the mark")
REASON_LINE, REASON_FULL = E.REASON_GAME, E.REASON_GAME + 1
LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]], np.int64)
NAMES = [f"{'abc'[i // 3]}{i % 3 + 1}" for i in range(9)]


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)


@njit(cache=True)
def legal(state, params, mask):
    count = 0
    for i in range(9):
        mask[i] = state[T_BOARD + i] == 0
        count += mask[i]
    return count


@njit(cache=True)
def _line(state, mark):
    for k in range(8):
        if (
            state[T_BOARD + LINES[k, 0]] == mark
            and state[T_BOARD + LINES[k, 1]] == mark
            and state[T_BOARD + LINES[k, 2]] == mark
        ):
            return True
    return False


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    E.record_action(state, seat, action)
    state[T_BOARD + action] = seat + 1
    if _line(state, seat + 1):  # TT-2
        E.win_seat(state, seat, REASON_LINE)
    elif state[E.H_DECISIONS] == 9:  # TT-3
        E.draw(state, REASON_FULL)
    E.end_turn(state, params, 1 - seat)


@njit(cache=True)
def observe(state, params, seat, obs):
    for i in range(9):
        mark = state[T_BOARD + i]
        obs[2 * i] = mark == seat + 1
        obs[2 * i + 1] = mark == 2 - seat


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


class TicTacToeGame(Game):
    env_id = "tictactoe_v0"
    title = "Tic-tac-toe"
    gym_name = "TicTacToe"
    rule_prefix = "TT"
    rules_file = "tictactoe.md"  # beside this module
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (first_player_option(0), max_turns_option(9))
    reason_names = {REASON_LINE: "line", REASON_FULL: "full"}
    reason_docs = {"line": "three marks in a row: their player wins", "full": "the board is full with no line: a draw"}
    seat_labels = ("x", "o")

    def configure(self, o):
        return Config(num_actions=9, obs_shape=(3, 3, 2))

    def action_to_move(self, state, action: int) -> str:
        return NAMES[self.check_action_id(action)]

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str) or move not in NAMES:
            raise NotationError(f"{self.env_id}: malformed move {move!r}; expected a cell a1..c3")
        return NAMES.index(move)

    def body_to_text(self, state) -> list[str]:
        marks = [".xo"[int(v)] for v in state[T_BOARD : T_BOARD + 9]]
        return ["board:"] + [" ".join(marks[3 * r : 3 * r + 3]) for r in range(3)]

    def body_from_text(self, lines: list[str], state) -> None:
        if (
            len(lines) != 4
            or lines[0] != "board:"
            or not all(re.fullmatch(r"[.xo] [.xo] [.xo]", ln) for ln in lines[1:])
        ):
            raise NotationError(f"{self.env_id}: the body is 'board:' and three rows of . x o")
        for i, ch in enumerate("".join(lines[1:]).replace(" ", "")):
            state[T_BOARD + i] = ".xo".index(ch)
        state[E.H_DECISIONS] = int(np.count_nonzero(state[T_BOARD : T_BOARD + 9]))

    def check_state(self, state) -> None:
        board = state[T_BOARD : T_BOARD + 9]
        x, o = int((board == 1).sum()), int((board == 2).sum())
        if abs(x - o) > 1 or int(state[E.H_TURN]) != x + o:
            raise NotationError(
                f"{self.env_id}: {x} x and {o} o after turn {int(state[E.H_TURN])}: marks alternate (TT-1)"
            )
        lines = [s for s in (0, 1) if _line(state, s + 1)]
        if state[E.H_STATUS] == E.PLAYING and (lines or x + o == 9):
            raise NotationError(f"{self.env_id}: the board is won or full, so the game is over (TT-2, TT-3)")

    def render_ansi(self, state) -> str:
        rows = self.body_to_text(state)[1:]
        return "\n".join(["  1 2 3"] + [f"{'abc'[r]} {rows[r]}" for r in range(3)])

    def render_rgb(self, state) -> np.ndarray:
        from boardenvs.render import GridPicture

        pic = GridPicture(rows=3, cols=3, row_labels="abc", col_labels="123", cell=56)
        for i in range(9):
            if state[T_BOARD + i]:
                pic.piece(i // 3, i % 3, "circle", int(state[T_BOARD + i]) - 1)
        if state[E.H_LAST_ACTION] >= 0:
            pic.outline(int(state[E.H_LAST_ACTION]) // 3, int(state[E.H_LAST_ACTION]) % 3)
        return pic.to_array()

    def last_move(self, state) -> str:
        return NAMES[int(state[E.H_LAST_ACTION])] if state[E.H_LAST_ACTION] >= 0 else ""


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
TOOLS = {
    "training": {"extractor": "mlp", "steps": 20_000},
    "bench": {"closest": ("connect_four", "lines of marks on a small grid")},
    "doc_picture": {"options": {"first_player": 0}, "decisions": 4, "seed": 1},
}
