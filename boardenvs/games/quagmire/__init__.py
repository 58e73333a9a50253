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

Memory: ``26 + cells`` int64 slots per game, 504 bytes at radius 3.

Cells are named per C-5: rows ``a..g`` from the top, numbered from 1 at the
left of each row, centre ``d4``.  The ANSI picture and the text form draw
the board as hexes (``.`` empty, ``~`` water, ``x``, ``o``); the picture adds
the legend (``>`` marks the agent to act) and the status line::

    a    o . . .
    b   . . . . .
    c  . . . ~ x .
    d . . . ~ o . .
    e  . . . . . .
    f   . . . . .
    g    . . . x
      player_0 = x
    > player_1 = o
    turn 5: player_1 (o) to move; last move d4-c4-c5
"""

from __future__ import annotations

import numpy as np

from ... import engine as E
from ...game import Game
from ...hexboard import MAX_RADIUS, hex_board
from ...spec import Config, Option, first_player_option, max_turns_option
from .picture import QuagmirePicture
from .rules import (
    KERNELS,
    LAYOUT,
    M_CELLS,
    M_PIECES,
    M_PLACED,
    MOVES_PER_PIECE,
    OBS_PLANES,
    PER_DIRECTION,
    REASON_TRAPPED,
    heuristic,
    move_tables,
)
from .text import QuagmireText


class QuagmireGame(QuagmireText, QuagmirePicture, Game):
    """Quagmire with its options fixed (see the module docstring for the card)."""

    env_id = "quagmire_v0"
    title = "Quagmire"
    rule_prefix = "QM"
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
    reason_docs = {"no_legal_move": "the player to move has no legal move at the start of its turn: it loses (QM-8)"}
    seat_labels = ("x", "o")
    variants = ({}, {"radius": 2}, {"radius": 4})

    def configure(self, o):
        self.board = board = hex_board(o["radius"])
        n = board.num_cells
        self.num_cells = n
        return Config(
            num_actions=n + 2 * MOVES_PER_PIECE,
            obs_shape=(board.side, board.side, OBS_PLANES),
            params=np.concatenate([[n], move_tables(board)]),
            sizes={"cells": n + 1},
        )

    # -- reading a state -----------------------------------------------------
    def cells(self, state) -> np.ndarray:
        """Cell codes in reading order: 0 empty, 1 water, 2 + seat a piece."""
        return state[M_CELLS : M_CELLS + self.num_cells]

    def in_setup(self, state) -> bool:
        return int(state[M_PLACED]) < 4

    def _piece_cells(self, state) -> list[int]:
        """The cells of the mover's pieces 0 and 1 (-1 before placed)."""
        seat = max(int(state[E.H_CURRENT]), 0)
        return [int(c) for c in state[M_PIECES + 2 * seat : M_PIECES + 2 * seat + 2]]

    # -- the dice variant (boardenvs.wrappers.dice.DiceVariant) -------------
    action_class_names = ("walk", "run", "jump")

    def action_classes(self, state) -> np.ndarray:
        """Walk (0), run (1) or jump (2) for every move id; placements
        belong to no class (the setup is played without a roll)."""
        classes = np.full(self.num_actions, -1, np.int64)
        k = np.arange(2 * MOVES_PER_PIECE) % PER_DIRECTION
        classes[self.num_cells :] = np.where(k == 0, 0, np.where(k == PER_DIRECTION - 1, 2, 1))
        return classes


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
def policy_actions(game) -> list:
    """How a board-shaped policy reads the actions (``boardenvs.baselines.boardnet``):
    a placement on its cell's place in the axial grid; piece ``p``'s 42 moves
    (direction x walk, runs, jump) from the features in a 5x5 window of the grid
    centred on the mover's ``p``-th piece in reading order (plane 2), where
    every move of it lands."""
    board = game.board
    cells = board.num_cells
    taps = np.stack([board.grid_index, np.zeros(cells, np.int64)], axis=1)[:, None, :]
    return [
        {"kind": "cells", "first": 0, "taps": taps},
        {"kind": "piece", "first": cells, "count": 42, "plane": 2, "rank": 0, "window": 5},
        {"kind": "piece", "first": cells + 42, "count": 42, "plane": 2, "rank": 1, "window": 5},
    ]


TOOLS = {
    # its actions name the mover's pieces by reading order: split the own-pieces plane (2) and
    # give each piece its own view of the board (BoardCNN's around)
    # time to strength: the board network fitted to greedy's decisions, then self-play with a share of greedy
    "training": {
        "extractor": "cnn",
        "extractor_kwargs": {"hex": True, "split": [2], "around": True},
        "shaping_scale": 20.0,
        "actions": policy_actions,
        "opponents": {"greedy": 0.2, "random": 0.1},
        "warm_start": 2000,
    },
    "bench": {
        "closest": (
            "amazons",
            "move a piece, then block a cell, on a shrinking board (OpenSpiel splits the move in 3 decisions)",
        ),
        "envpool": ("Hex-v1", "a hex board that fills up"),
    },
    "doc_picture": {"options": {}, "decisions": 9, "seed": 1},
    "greedy": {"heuristic": heuristic},
}
