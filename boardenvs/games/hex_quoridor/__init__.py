"""Hex Quoridor — ``hex_quoridor_v1``: Quoridor on a hex-hex board with zig-zag fences.

Rules: ``boardenvs/rules/hex_quoridor.md`` (``boardenvs rules hex_quoridor_v1``)
(HQ-1..HQ-16), implemented once, in the numba kernels below;
:class:`HexQuoridorGame` adds notation, the text form and pictures.  Board
geometry (C-5) comes from :mod:`boardenvs.hexboard`.

=================  ==========================================================
Agents             ``player_0`` .. ``player_{n-1}``, ``n`` in {2, 3, 4, 6}
                   (HQ-4); seat ``s`` starts on side ``SIDES[n][s]``
Actions            ``Discrete(C + F + 1)`` in the **mover's frame** (the
                   board turned so its start side is at the bottom):
                   ``0 .. C-1`` move the pawn to cell ``i`` (reading order of
                   the turned board; step or jump, HQ-11/12); ``C + f``:
                   place fence ``f`` (fences in the order of
                   :func:`fence_geometry`); ``C + F``: ``pass``, legal alone
                   when the seat has no step, jump or fence (HQ-13: only with
                   3+ players), so every seat in the game is asked once a
                   turn.  Radius 4: ``C = 61``, ``F = 264``,
                   ``Discrete(326)``.
Action mask        exact, path rule (HQ-8) and eliminations (HQ-9) included
Observation        ``int8 (2R+1, 2R+1, 5n+7)`` over the axial grid, in the
                   observer's frame: 0 on the board; 1 own pawn; 2..n the
                   other pawns in seat order after the observer; n+1..n+6
                   edge blocked (fence or rim) per direction E, NE, NW, W, SW,
                   SE of the turned board; n+7 own goal cells; n+8..2n+7
                   fences left per seat (a count, observer first);
                   2n+8..3n+7 still in the game per seat (observer first);
                   3n+8..4n+6 the goal cells of each other seat (seat order
                   after the observer); 4n+7..5n+6 that seat is the
                   observer's teammate (observer first: always 1), so every
                   seat sees each pawn's goal side and team (HQ-2, HQ-15)
Rewards            +1 to the winner (team play: the whole team, HQ-14/15),
                   -1 to every other seat; an eliminated seat -1 at once (HQ-9)
Options            ``num_players`` (2), ``teams`` ("none"), ``radius`` (4),
                   ``fences_per_player`` (-1: by HQ-5), ``first_player``
                   ("random"), ``max_turns`` (1000)
Notation           a pawn move is its destination (``e5``); a fence its two
                   facing pairs (``d3d4/e4e5``); ``pass``
=================  ==========================================================

Memory: ``42 + 7 (C + 1) + F + ceil(F / 64)`` int64 slots per game: 5.8 KB
at radius 4, 1.8 KB at radius 2.

The frames: ``player_0`` (side 0) sees the board as it is; a seat on side
``k`` sees it turned ``k`` sixths of a turn counter-clockwise, so its pawn
starts on ``i3`` of its frame and its goal is row ``a``.  With two players,
``player_1`` (top) sees the board turned half a turn: frame cell ``i5``
(action 60) is the board's ``a1``, frame ``e5`` is ``e5``, frame ``h3`` (one
step up-left of its start) is the board's ``b4``.  Fences turn with the
cells.  Directions in the observation are the turned board's::

     action = frame cell index         player_0's frame = the board   player_1's frame (turned half a turn)
     a       0   1   2   3   4         a   a1  a2  a3  a4  a5         a   i5  i4  i3  i2  i1
     b     5   6   7   8   9  10       b  b1 ... b6                   b  h6 ... h1
     ...                               ...                            ...
     e  26  27  28  29  30  31  32  33  34  e  e1 ... e5 ... e9       e  e9 ... e5 ... e1
     ...                               ...                            ...
     i      56  57  58  59  60         i   i1  i2 [i3] i4  i5         i   a5  a4 [a3] a2  a1
                                       [ ] = own start: i3 = 58       player_1's action 58 moves to the board's a3

A fence blocks three consecutive edges of a zig-zag line; the ANSI picture
draws a blocked edge inside a row as ``|`` and one between rows as ``-``
under the cell (here ``e4e5/f4f5`` and ``c4c5/d4d5``; pawns are seat
digits)::

    a           .   .   .   .   .
    b         .   .   .   1   .   .
    c       .   .   .   .   .   .   .
                       - - -
    d     .   .   .   .   .   .   .   .
    e   .   .   .   .   .   .   .   .   .
                     - - -
    f     .   .   .   .   .   .   .   .
    ...
    i           .   .   0   .   .
    > player_0
      player_1
    fences left player_0:7 player_1:9
    turn 4: player_0 to move; last move c4c5/d4d5

The ``rgb_array`` picture (and the ``human`` window, which shows it) draws
the hexes, the fences as thick zig-zag lines along the cell sides, the
pawns in seat colours, each pawn's goal side (HQ-2, HQ-14) as a band in its
seat's colour just outside the rim (a corner's edge shared by two goal
sides is split between their bands), and above the board a strip with the
fences each seat has left (``out`` once eliminated).

Legal fences need path checks.  A fence can only cut a pawn off if it
closes a loop of walls (two of its corners already joined by fences, the
rim counting as one wall), so on boards up to radius 4 the kernel finds
those fences bit-parallel (fence sets of 64 to a word, per wall component)
and tries only them, flooding the cells on the fence's sides as one-word
cell sets; larger boards mark one shortest path per live pawn and search
the fences touching one.  ``tests/test_hex_quoridor_rules.py`` checks the
legal moves against a pure-Python model's brute force (every pawn searched
after every fence) on random positions of every player count, and the two
checks against each other.
make_vec's benchmark rows for this game first play 300 steps: from a reset
every game is in its opening, where fences are placed and checked, the
slowest phase.
"""

from __future__ import annotations

import numpy as np

from ... import engine as E
from ...errors import OptionError
from ...game import Game
from ...hexboard import MAX_RADIUS
from ...spec import Config, Option, first_player_option, max_turns_option, num_players_option
from .geometry import Geometry
from .picture import HexQuoridorPicture
from .rules import KERNELS, LAYOUT, P_TABLES, Q_LEFT, Q_OCC, Q_PAWNS, REASON_GOAL, REASON_STUCK, heuristic
from .text import HexQuoridorText

# --- seats, sides, fences (HQ-2, HQ-4, HQ-5, HQ-15) ----------------------------
SIDES = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
SIDE_NAMES = ("bottom", "lower-left", "upper-left", "top", "upper-right", "lower-right")
FENCES = {2: 9, 3: 6, 4: 4, 6: 3}
TEAMS = {  # option value -> (players, team id per seat)
    "none": None,
    "2v2": (4, (0, 0, 1, 1)),
    "3x2": (6, (0, 0, 1, 1, 2, 2)),
    "2x3": (6, (0, 0, 0, 1, 1, 1)),
}
MAX_FENCES_PER_PLAYER = 20  # n * 20 <= 127 fits the int8 observation

MOVE, FENCE = 0, 1  # action classes (the dice variant)


class HexQuoridorGame(HexQuoridorText, HexQuoridorPicture, Game):
    """Hex Quoridor with its options fixed (see the module docstring for the card)."""

    env_id = "hex_quoridor_v1"
    title = "Hex Quoridor"
    rule_prefix = "HQ"
    # the hex CNN plus each pawn's goal distances and shortest paths (baselines' "hexpaths"); shaping: goal distances
    rules_file = "hex_quoridor.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        num_players_option(2, (2, 3, 4, 6)),  # HQ-4
        Option(
            "teams",
            "none",
            "team play (HQ-15): 'none', '2v2' (4 players), '3x2' or '2x3' (6 players)",
            kind="choice",
            choices=tuple(TEAMS),
        ),
        Option("radius", 4, "board radius (HQ-1), even: 61 cells at 4", choices=tuple(range(2, MAX_RADIUS + 1, 2))),
        Option(
            "fences_per_player",
            -1,
            "fences each player starts with; -1: 9/6/4/3 for 2/3/4/6 players (HQ-5)",
            low=-1,
            high=MAX_FENCES_PER_PLAYER,
        ),
        first_player_option("random"),  # C-2: chosen freely in the original
        max_turns_option(1000),  # HQ-16
    )
    reason_names = {REASON_GOAL: "goal", REASON_STUCK: "no_legal_move"}
    reason_docs = {
        "goal": "a pawn reached its goal side: its team +1, every other seat -1 (HQ-14)",
        "no_legal_move": "no player left has a legal move: a draw, 0 for all (HQ-13)",
    }
    eliminations = True
    json_fields = {"fences_left": "ints"}  # the JSON form's types (boardenvs.jsonform): counts as numbers
    action_class_names = ("move", "fence")
    variants = (
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 6},
        {"num_players": 4, "teams": "2v2"},
        {"num_players": 6, "teams": "3x2"},
        {"num_players": 6, "teams": "2x3"},
        {"radius": 2},
    )

    def configure(self, o):
        n, teams = o["num_players"], o["teams"]
        if TEAMS[teams] is not None and TEAMS[teams][0] != n:
            raise OptionError(
                f"{self.env_id}: option teams={teams!r} needs num_players={TEAMS[teams][0]}, got {n} (HQ-15)"
            )
        team_ids = TEAMS[teams][1] if TEAMS[teams] else tuple(range(n))
        self.geo = geo = Geometry.of(o["radius"])
        self.board = geo.board
        self.num_cells, self.num_fences = geo.n, geo.F
        fpp = FENCES[n] if o["fences_per_player"] < 0 else o["fences_per_player"]
        self.fences_per_player = fpp
        self.sides = SIDES[n]
        sides = list(SIDES[n]) + [0] * (E.MAX_PLAYERS - n)
        masks = [sum(1 << t for t in range(n) if team_ids[t] == team_ids[s]) for s in range(n)] + [0] * (
            E.MAX_PLAYERS - n
        )
        blk = Q_OCC + geo.n + 1
        fen = blk + 6 * (geo.n + 1)
        self.blk_offset, self.fence_offset, self.fence_bits_offset = blk, fen, fen + geo.F
        elim = 1 if n > 2 and TEAMS[teams] is None else 0
        planes = 5 * n + 7
        obs_tables = self._fixed_planes(geo, n, sides, masks, planes)
        head = [
            geo.n,
            geo.F,
            elim,
            blk,
            fen,
            fpp,
            *sides,
            *masks,
            *geo.offsets,
            geo.words,
            geo.num_verts,
            P_TABLES + geo.tables.size,
            obs_tables.shape[1],
            fen + geo.F,
        ]
        assert len(head) == P_TABLES - E.P_GAME
        high = [1] * (n + 8) + [n * fpp] * n + [1] * (3 * n - 1)  # fences left: counts up to every fence
        return Config(
            num_players=n,
            num_actions=geo.n + geo.F + 1,
            obs_shape=(geo.board.side, geo.board.side, planes),
            obs_high_per_plane=high,
            params=np.concatenate([head, geo.tables, obs_tables.ravel()]),
            sizes={"cells1": geo.n + 1, "slots": 6 * (geo.n + 1), "fences": geo.F, "fence_words": geo.words},
            teams=team_ids,
        )

    @staticmethod
    def _fixed_planes(geo, n, sides, masks, planes):
        """Per seat (one row each), what ``observe`` starts from: the planes no
        move changes (on the board, the rim's blocked edges, the goal cells
        of every seat, the teammates) and every seat in the game, ``int8``
        packed eight to an ``int64`` slot; then, per fence, the places in the
        observation of its six blocked edge slots."""
        size = geo.board.side**2 * planes
        words = (size + 7) // 8
        out = np.zeros((n, words * 8), np.int8)
        slots = np.zeros((n, geo.F, 6), np.int64)
        for seat in range(n):
            k = sides[seat]
            t = out[seat, :size].reshape(-1, planes)
            for i in range(geo.n):
                g = t[geo.grid[k, i]]
                g[0] = 1
                for d in range(6):
                    g[n + 1 + (d + k) % 6] = geo.rim[i, d]
                g[n + 7] = geo.on_side[(k + 3) % 6, i]
                for r in range(1, n):
                    g[3 * n + 7 + r] = geo.on_side[(sides[(seat + r) % n] + 3) % 6, i]
                for r in range(n):
                    g[2 * n + 8 + r] = 1  # everyone in (observe clears a seat that is out)
                    g[4 * n + 7 + r] = (masks[seat] >> ((seat + r) % n)) & 1
            c, d = np.divmod(geo.fence_slots, 6)
            slots[seat] = geo.grid[k, c] * planes + n + 1 + (d + k) % 6
        return np.hstack([out.view(np.int64), slots.reshape(n, -1)])

    # -- reading a state -------------------------------------------------------
    def pawns(self, state) -> list:
        """Cell of each seat's pawn (-1 once eliminated)."""
        return [int(c) for c in state[Q_PAWNS : Q_PAWNS + self.num_players]]

    def fences_left(self, state) -> list:
        return [int(c) for c in state[Q_LEFT : Q_LEFT + self.num_players]]

    def placed_fences(self, state) -> list:
        """Indices of the placed fences (absolute, ascending)."""
        return [int(f) for f in np.flatnonzero(state[self.fence_offset : self.fence_offset + self.num_fences])]

    def blocked(self, state) -> np.ndarray:
        """``(C, 6)`` 0/1: edge of cell ``i`` in direction ``d`` blocked (fence or rim)."""
        return state[self.blk_offset : self.blk_offset + 6 * self.num_cells].reshape(self.num_cells, 6)

    def frame(self, seat: int) -> int:
        """The frame (sixths of a turn) of ``seat``: its start side."""
        return self.sides[seat]

    def action_classes(self, state) -> np.ndarray:
        classes = np.full(self.num_actions, FENCE, np.int64)
        classes[: self.num_cells] = MOVE
        classes[self.pass_action] = -1  # no class: a turn with only the pass is played unrestricted
        return classes

    @property
    def pass_action(self) -> int:
        """The action id of ``pass`` (HQ-13): the last one, ``C + F``."""
        return self.num_cells + self.num_fences


# what the tools above the core read of this game (boardenvs.registry.tool_settings): how the
# baselines train it, what make bench compares it with, the position its docs show, greedy's
# evaluation, the chess clock's decided draws; not part of the game's declaration
def policy_actions(game) -> list:
    """How a board-shaped policy reads the actions (``boardenvs.baselines.boardnet``),
    all in the mover's frame, the observation's grid for the player to act: a
    pawn move on its destination's place in the axial grid (output 0); a fence
    ``(x, y, m1, m2, o)`` from its four cells, one output for each place in the
    fence and orientation (1-8); ``pass`` from the whole board."""
    board, fences = game.geo.board, game.geo.fences
    grid = board.grid_index
    cells = board.num_cells
    moves = np.stack([grid, np.zeros(cells, np.int64)], axis=1)[:, None, :]
    walls = np.array(
        [[(grid[c], 1 + 4 * o + k) for k, c in enumerate((x, y, m1, m2))] for x, y, m1, m2, o in fences], np.int64
    ).reshape(len(fences), 4, 2)
    return [
        {"kind": "cells", "first": 0, "taps": moves},
        {"kind": "cells", "first": cells, "taps": walls},
        {"kind": "board", "first": cells + len(fences), "count": 1},
    ]


TOOLS = {
    # time to strength: the board network with the paths' planes, fitted to greedy's decisions, then against greedy
    "training": {
        "extractor": "hexpaths",
        "extractor_kwargs": {"hex": True, "layers": 6},
        "shaping_scale": 4.0,
        "actions": policy_actions,
        "board": {"paths": True},
        "opponents": {"greedy": 1.0},
        "warm_start": 2000,
        "shaping": 0.5,
    },
    "bench": {
        "closest": ("quoridor", "the same idea, walls and a path check, on a hex board"),
        "envpool": ("Hex-v1", "a hex board and a connection check"),
    },
    "greedy": {"heuristic": heuristic},
}
