r"""Tryasina — ``tryasina_v0``: a Ludo-family race for 2-4 players with one die,
shortcuts, swamps and a central quagmire ("Трясина").

Rules: ``boardenvs/rules/tryasina.md`` (``boardenvs rules tryasina_v0``)
(TR-1..TR-17), implemented once, in the numba kernels below;
:class:`TryasinaGame` adds notation, the text form and pictures.

=================  ==========================================================
Agents             ``player_0`` .. ``player_{n-1}``, sides (TR-6): 2 players
                   bottom, top; 3 bottom, left, top; 4 bottom, left, top,
                   right.  Pawn letters ``A``, ``B``, ``C``, ``D``.
Turn (TR-7)        a chance node (the die, ``roll 1`` .. ``roll 6``, 1/6
                   each), then one decision by the roller; a roller with no
                   pawn to move has one legal action, ``pass`` (the turn
                   counts), so every seat is asked once per turn.
Actions            ``Discrete(68)``: the location of the pawn to move **in
                   the mover's own track terms** (so one policy plays every
                   side): ``0`` ``O`` (origin), ``1`` ``Q`` (quagmire),
                   ``2..50`` ``C1..C49``, ``51..54`` ``H1..H4``,
                   ``55 + 3 (j-1) + (l-1)`` ``S<j>.<l>`` (swamp ``j`` 1..4
                   counted along the mover's lap, level ``l`` 1..3);
                   ``67`` ``pass`` (legal alone, when no pawn can move).  At a
                   chance node the kernels' outcomes ``0..5`` are the rolls
                   1..6 (the AEC env and ``make_vec`` resolve them).
Action mask        exact (TR-8..TR-14)
Observation        ``int8 (n, 91)``, one row per seat starting with the
                   observer (then seat order): columns ``0..75`` the seat's
                   pawns on the 76 cells, numbered **with the observer's
                   side at the bottom** (``0..47`` the circle from the
                   observer's bottom-right corner clockwise, ``48 + 4 s + h``
                   the homes of the sides ``s`` counted clockwise from the
                   observer's, ``64 + 3 g + l`` the swamps counted clockwise
                   from the observer's bottom-left one); ``76`` pawns in its
                   origin, ``77`` in the quagmire, ``78`` in its home (counts
                   0..4); ``79`` it is this seat's turn; ``80..85`` the
                   current roll one-hot (in the roller's row, after the
                   roll); ``86..89`` its side relative to the observer's
                   (0 own, 1 next clockwise, ...); ``90`` its pawn on its
                   entry cell after a full lap (``C49``, TR-3: the cell
                   column alone cannot tell it from ``C1``).
Rewards            +1 to the first player with all four pawns home, -1 to
                   every other (TR-15); 0 on truncation
Options            ``num_players`` (2; 2..4), ``first_player`` (0),
                   ``max_turns`` (default 3000, TR-16: random play's 99.9th
                   percentile is well below, see below)
Notation           ``roll 4`` (chance), ``O``, ``Q``, ``C12``, ``H2``,
                   ``S1.3`` (the pawn's location in the mover's terms),
                   ``pass``
=================  ==========================================================

Random play's 99.9th percentile is 480 / 743 / 1032 turns with 2 / 3 / 4
players (every roll counts).  Memory: 113 int64 slots per game, 904 bytes.
The raw env takes ``chance_agent=True`` (the die as an agent, see the dice
tutorial).

The text form and the ANSI picture draw the 13 x 13 board, top row first
(``.`` a square, ``-`` grass, ``~`` the quagmire, ``\`` ``/`` the shortcut
diagonals, ``A``..``D`` pawns, lower case for a pawn back on its own entry
after its lap), then the pawns in each origin and quagmire.  The
``rgb_array`` picture draws the board as the original's map does (tiles,
the shortcuts as continuous diagonal bands, the framed swamps, the grey
quagmire, with a key to the colours under it): pawns are discs in the seat
colours with a count where several wait in an origin or lie sunk in the
quagmire, the die lies on the roller's side showing its roll, and the
caption says whose roll it is and the last pawn move.  Every seat is asked
once a turn (a roll no pawn can use is the roller's ``pass``, TR-7), so
PettingZoo's ``max_cycles_test`` applies as it assumes.
"""

from __future__ import annotations

from ...game import Game
from ...spec import Config, first_player_option, max_turns_option, num_players_option
from .picture import TryasinaPicture
from .rules import (
    KERNELS,
    LAYOUT,
    NUM_ACTIONS,
    NUM_CELLS,
    NUM_FACES,
    O_TURN,
    OBS_WIDTH,
    P_SIDES,
    PAWNS,
    REASON_HOME,
    SIDES_OF,
    T_PAWNS,
    heuristic,
)
from .text import TryasinaText


class TryasinaGame(TryasinaText, TryasinaPicture, Game):
    """Tryasina with its options fixed (see the module docstring for the card)."""

    env_id = "tryasina_v0"
    title = "Tryasina"
    rule_prefix = "TR"
    rules_file = "tryasina.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        num_players_option(2, (2, 3, 4)),
        first_player_option(0),  # C-2: seat 0 (the original names no first player)
        max_turns_option(3000),  # TR-16: see the module docstring (random play's game lengths)
    )
    reason_names = {REASON_HOME: "all_home"}
    reason_docs = {"all_home": "a player has all four pawns in its home: +1 for it, -1 for the others (TR-15)"}
    # TR-7: a roll no pawn can use passes the turn, as the roller's one legal
    # action "pass" (OpenSpiel's backgammon convention), so every seat is
    # asked once per turn (no forced pass without a decision)
    forced_passes = False
    variants = ({"num_players": 2}, {"num_players": 3}, {"num_players": 4})
    json_fields = {"roller": "word", "roll": "int?", "origin": "ints", "quagmire": "ints"}

    def configure(self, o):
        n = o["num_players"]
        high = [1] * NUM_CELLS + [PAWNS, PAWNS, PAWNS] + [1] * (OBS_WIDTH - O_TURN)  # cells, O/Q/home counts, flags
        sides = list(SIDES_OF[n]) + [0] * (4 - n)
        return Config(
            num_players=n,
            num_actions=NUM_ACTIONS,
            num_chance_outcomes=NUM_FACES,
            obs_shape=(n, OBS_WIDTH),
            obs_high_per_plane=high,
            params=sides,
        )

    def side_of(self, seat: int) -> int:
        return int(self.params[P_SIDES + seat])

    def pawn_locations(self, state, seat: int) -> list[int]:
        return [int(v) for v in state[T_PAWNS + PAWNS * seat : T_PAWNS + PAWNS * (seat + 1)]]


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
TOOLS = {
    # shaping: a typical difference in track steps; time to strength: the MLP against greedy alone
    "training": {"extractor": "mlp", "shaping_scale": 50.0, "opponents": {"greedy": 1.0}},
    "bench": {
        "closest": ("backgammon", "dice rolled inside the step, race and hits; steps count decisions"),
        "envpool": ("Backgammon-v1", "the dice race with hits"),
    },
    "doc_picture": {"options": {"num_players": 4}, "decisions": 200, "seed": 30},
    "greedy": {"heuristic": heuristic},
}

# -- the dice variant and actions by class: none (Tryasina has its own die)
