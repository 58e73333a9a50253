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

The default ``max_turns`` of 3000 is nearly twice the 99.9th percentile of
random-vs-random game lengths (the benchmarks page gives the lengths).
"""

from __future__ import annotations

import numpy as np

from ... import engine as E
from ...game import Game
from ...spec import Config, Option, first_player_option, max_turns_option
from .picture import QuessPicture
from .rules import (
    KERNELS,
    LAYOUT,
    LIGHT,
    NUM_ACTIONS,
    OBS_PLANES,
    REASON_MEMORY,
    REASON_NO_MOVE,
    REASON_ONE_EACH,
    REASON_ZONE,
    heuristic,
)
from .text import QuessText


class QuessGame(QuessText, QuessPicture, Game):
    """Quess with its options fixed: ``first_player`` (``"random"`` or a seat,
    QU-3), ``max_turns`` (default 3000, QU-13: nearly twice the 99.9th
    percentile of random-vs-random game lengths, measured by ``make bench``)
    and ``superko_memory`` (default 4096 boards since the last capture)."""

    env_id = "quess_v0"
    title = "Quess"
    rule_prefix = "QU"
    rules_file = "quess.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        first_player_option("random"),  # QU-3
        # QU-13: nearly twice the 99.9th percentile of random-vs-random game
        # lengths, measured by benchmarks/bench.py
        max_turns_option(3000),
        Option(
            "superko_memory",
            4096,
            "boards since the last capture the superko record holds (QU-8); a game that fills it is truncated",
            low=16,
            high=2**20,
        ),
    )
    reason_names = {
        REASON_ZONE: "zone",
        REASON_ONE_EACH: "one_each",
        REASON_NO_MOVE: "no_legal_move",
        REASON_MEMORY: "superko_memory",
    }
    reason_docs = {
        "zone": "the mover has two or more pieces in the opponent's starting zone: it wins (QU-9)",
        "one_each": "each player has one piece left: a draw (QU-10; with the clock, more time left wins)",
        "no_legal_move": "the player to move has no legal move (no pieces, all blocked or forbidden by "
        "superko): it loses (QU-11)",
        "superko_memory": "the superko record (superko_memory boards since the last capture) is full: truncated",
    }
    truncation_reasons = frozenset({REASON_MEMORY})
    seat_labels = ("Light", "Dark")
    seat_symbols = ("T C S", "t c s")  # triangles, circles, squares in the text form
    variants = ({}, {"max_turns": 40, "superko_memory": 16})

    def configure(self, o):
        # every board since the last capture: at most one per turn plus the initial one
        cap = min(o["max_turns"] + 1, o["superko_memory"])
        return Config(
            num_actions=NUM_ACTIONS,
            obs_shape=(6, 6, OBS_PLANES),
            params=(cap,),
            sizes={"history_words": (cap + 2) // 4 + 1},
        )

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


def policy_actions(game) -> list:
    """How a board-shaped policy reads the actions (``boardenvs.baselines.boardnet``):
    every action is a from-square x to-square pair over the 36 squares, numbered
    ``row * 6 + col`` in the acting player's frame, which is the observation's
    grid for the player to act."""
    return [{"kind": "pairs", "first": 0, "cells": np.arange(36)}]


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
TOOLS = {
    # (time to strength: the board network against greedy alone; benchmarks/results/time_to_strength.md)
    "training": {"extractor": "cnn", "actions": policy_actions, "opponents": {"greedy": 1.0}},
    "bench": {
        "closest": ("breakthrough", "two armies on a small square board, moving and capturing, no drops"),
        "envpool": ("Go9x9-v1", "captures on a small square board with a superko rule"),
    },
    "doc_picture": {"options": {"first_player": 0}, "decisions": 14, "seed": 3},
    "greedy": {"heuristic": heuristic},
    "clock": {"decided_reasons": frozenset({"one_each"})},  # QU-10 with QU-12
}
