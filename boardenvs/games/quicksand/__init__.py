"""Quicksand — ``quicksand_v0``: pyramids that jump like checkers on a 6x6
board of four rotating quadrants.

Rules: ``boardenvs/rules/quicksand.md`` (``boardenvs rules quicksand_v0``)
(QS-1..QS-12), implemented once, in the numba kernels below;
:class:`QuicksandGame` adds notation, the text form and pictures.

A turn is a chain of decisions by the same agent (``multi_decision_turns``):
place a pyramid *or* select a jumper and hop, hop, ... (stop: large only),
then rotate a quadrant.  Every decision is exactly masked, and a jumper or a
hop is offered only if it can still be completed to a legal jump (QS-8).

=================  ==========================================================
Agents             ``player_0`` (``S M L``, light), ``player_1`` (``s m l``, dark)
Actions            ``Discrete(181)``, absolute cells ``i = 6 * (rank - 1) +
                   file`` (``a1`` = 0, ``f1`` = 5, ``a2`` = 6, ``f6`` = 35):

                   * ``0 .. 107`` place: ``36 * size + i`` (size 0 S, 1 M, 2 L);
                   * ``108 .. 143`` select the own pyramid on ``i`` as jumper;
                   * ``144 .. 167`` hop: ``144 + 3 * d + (k - 1)``, direction
                     ``d`` 0..7 = N NE E SE S SW W NW (N = towards rank 6),
                     over ``k`` = 1..3 aligned pyramids;
                   * ``168`` stop the jump (large only, QS-7);
                   * ``169 .. 180`` rotate: ``169 + 3 * (q - 1) + (deg / 90 - 1)``
                     for quadrant ``Qq`` clockwise by ``deg``.
Action mask        exact; the decision kind is in the observation
Observation        ``int8 (6, 6, 19)``, grid row 0 = rank 6 (top), column 0 =
                   file a; planes 0-2 own S/M/L, 3-5 the opponent's S/M/L,
                   6 the jumper, 7 pyramids already jumped in this jump,
                   8-10 the decision kind (place or select / hop or stop /
                   rotate, constant planes), 11-13 own reserve S/M/L (counts
                   0..5), 14-16 the opponent's reserve, 17 own score, 18 the
                   opponent's score (0..30)
Rewards            +1 / -1: 15 points wins at once (QS-10); a player who can
                   neither place nor jump at the start of its turn loses
                   (QS-11); truncation 0 / 0
Options            ``first_player`` (``"random"``, C-2), ``max_turns``
                   (default 1000, QS-12)
Notation           ``M@c3 Q2:90`` (place, rotate), ``c3:e5:e3 Q1:180`` (the
                   jumper's cell, then every landing, then the rotation),
                   ``c3:e5:e3`` for a jump that wins at once (QS-10); single
                   decisions ``M@c3``, ``c3``, ``:e5``, ``stop``, ``Q4:270``
=================  ==========================================================

Random games last 55 turns (130 decisions) at the median and under 100
turns at most, and all end by score (``make bench`` measures it).  Dice
classes (the dice variant): ``small``, ``medium``, ``large``, the size
placed or jumping.  Memory: 82 int64 slots per game, 656 bytes.

Action ids, one range per decision kind (``d`` = direction 0..7: N NE E SE S
SW W NW, N towards rank 6; ``k`` = pyramids cleared by the hop)::

      0 ..  35   place S on cell i          108 .. 143  select the jumper on cell i
     36 ..  71   place M on cell i          144 .. 167  hop: 144 + 3 d + (k - 1)
     72 .. 107   place L on cell i          168         stop (large only)
                                            169 .. 180  rotate: 169 + 3 (q - 1) + (deg / 90 - 1)

    cells i:  6 | 30 31 32 | 33 34 35 |     quadrants:  Q1 | Q2
              5 | 24 25 26 | 27 28 29 |                 ---+---
              4 | 18 19 20 | 21 22 23 |                 Q3 | Q4
                +----------+----------+
              3 | 12 13 14 | 15 16 17 |     a quarter turn of Q3:
              2 |  6  7  8 |  9 10 11 |     a3 -> c3 -> c1 -> a1 -> a3
              1 |  0  1  2 |  3  4  5 |
                   a  b  c    d  e  f

A turn of ``c3:e5:e3 Q1:180`` is four decisions: select ``c3`` (122), the hop
NE over ``d4`` (147), the hop S over ``e4`` (156), and the rotation (170),
plus ``stop`` (168) before the rotation when a large could have hopped on.
``max_cycles`` counts these decisions; ``max_turns`` counts whole turns.  The
ANSI picture draws the quadrants::

    6 . . . | . . .
    5 . . . | . . .
    4 . . . | s . .
      ------+------
    3 . . M | . . .
    2 . . . | . . .
    1 . . . | . . .
      a b c   d e f
    reserve player_0: S5 M4 L5
    reserve player_1: S4 M5 L5
    > player_0 = light (S M L)
      player_1 = dark (s m l)
    score 0-0
    turn 2: player_0 (light) to move; last move S@d4 Q1:180
"""

from __future__ import annotations

import numpy as np

from ... import engine as E
from ...game import Game
from ...spec import Config, first_player_option, max_turns_option
from .picture import QuicksandPicture
from .rules import (
    HOP0,
    KERNELS,
    LAYOUT,
    NCELLS,
    NUM_ACTIONS,
    OBS_HIGH,
    OBS_PLANES,
    PH_HOP,
    PHASE_NAMES,
    Q_CELLS,
    Q_PHASE,
    Q_RESERVE,
    Q_SCORE,
    Q_TURN,
    R_CELLS,
    R_N,
    REASON_NO_MOVE,
    REASON_SCORE,
    SELECT0,
    heuristic,
)
from .text import QuicksandText


class QuicksandGame(QuicksandText, QuicksandPicture, Game):
    """Quicksand with its options fixed (see the module docstring for the card)."""

    env_id = "quicksand_v0"
    title = "Quicksand"
    rule_prefix = "QS"
    rules_file = "quicksand.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        first_player_option("random"),  # C-2: the original lets the players choose
        # QS-12: well above random-play lengths (see the rules file)
        max_turns_option(1000),
    )
    reason_names = {REASON_SCORE: "score", REASON_NO_MOVE: "no_legal_move"}
    reason_docs = {
        "score": "a player reached 15 points: it wins at once (QS-10)",
        "no_legal_move": "the player to move can neither place nor jump: it loses (QS-11)",
    }
    multi_decision_turns = True
    seat_labels = ("light", "dark")
    seat_symbols = ("S M L", "s m l")  # small, medium, large in the text form
    action_class_names = ("small", "medium", "large")
    variants = ({}, {"max_turns": 20})
    json_fields = {"reserve": "text", "score": "ints", "phase": "word", "jump": "word?"}

    def configure(self, o):
        return Config(num_actions=NUM_ACTIONS, obs_shape=(6, 6, OBS_PLANES), obs_high_per_plane=OBS_HIGH)

    # -- reading a state -----------------------------------------------------
    @staticmethod
    def cells(state) -> np.ndarray:
        """Cell codes, a1 = 0 .. f6 = 35: 0 empty, 1 + 3 * seat + size."""
        return state[Q_CELLS : Q_CELLS + NCELLS]

    @staticmethod
    def scores(state) -> tuple[int, int]:
        return int(state[Q_SCORE]), int(state[Q_SCORE + 1])

    @staticmethod
    def reserve(state, seat: int) -> tuple[int, int, int]:
        return tuple(int(v) for v in state[Q_RESERVE + 3 * seat : Q_RESERVE + 3 * seat + 3])

    @staticmethod
    def phase(state) -> str:
        return PHASE_NAMES[int(state[Q_PHASE])]

    @staticmethod
    def jump_path(state) -> list[int]:
        """The jump in progress: the start cell and every landing so far."""
        if state[Q_PHASE] != PH_HOP:
            return []
        return [int(c) for c in state[Q_TURN + R_CELLS : Q_TURN + R_CELLS + state[Q_TURN + R_N]]]

    def end_infos(self, state) -> dict:
        return {"scores": self.scores(state)}

    def action_classes(self, state) -> np.ndarray:
        """The dice variant's class of each first decision: the size of the
        pyramid placed, or of the jumper selected."""
        classes = np.full(NUM_ACTIONS, -1, np.int64)
        classes[:SELECT0] = np.arange(SELECT0) // 36
        seat = int(state[E.H_CURRENT])
        cells = self.cells(state)
        own = (cells - 1) // 3 == seat
        classes[SELECT0:HOP0] = np.where((cells > 0) & own, (cells - 1) % 3, -1)
        return classes


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
def policy_actions(game) -> list:
    """How a board-shaped policy reads the actions (``boardenvs.baselines.boardnet``):
    placements and jumper selections on their cell (cell ``i = 6 * (rank - 1) +
    file`` is grid row ``5 - i // 6``, column ``i % 6``; outputs 0-2 place S/M/L,
    3 selects), hops from the jumper (plane 6) in a 5x5 window, the stop and the
    rotations from the whole board."""
    grid = (5 - np.arange(36) // 6) * 6 + np.arange(36) % 6
    place = np.stack([np.stack([grid, np.full(36, size)], axis=1) for size in range(4)])  # (4, 36, 2)
    return [
        {"kind": "cells", "first": 0, "taps": place.reshape(4 * 36, 1, 2)},  # 36 * size + i; 108 + i selects
        {"kind": "piece", "first": 144, "count": 24, "plane": 6, "rank": 0, "window": 5},
        {"kind": "board", "first": 168, "count": 13},
    ]


TOOLS = {
    "training": {"extractor": "cnn", "actions": policy_actions, "opponents": {"greedy": 1.0}},
    "bench": {
        "closest": (
            "amazons",
            "turns are chains of decisions on a board that fills up; steps count decisions, like OpenSpiel's amazons",
        ),
        "envpool": ("Othello-v1", "placements on a square board that fills up"),
    },
    "greedy": {"heuristic": heuristic},
}
