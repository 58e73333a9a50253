"""The games of the package: one line each.

Everything generic follows from this tuple: ``boardenvs.ENV_IDS``, the
PettingZoo module trio ``boardenvs.<env id>`` (``env`` / ``raw_env`` /
``parallel_env``), ``make`` / ``make_vec`` / ``position``, the benchmark's
rows and the parametrised tests.  Adding a game = one module under
``games/`` plus one line here: its env id, its gymnasium name (the title
without spaces) and its class, which is imported when the game is first
used (:class:`boardenvs.registry.LazyGame`: ``import boardenvs`` stays
cheap and registers every id; a line that disagrees with its class's
declaration fails when the game loads, and in the tests).
"""

from __future__ import annotations

from .registry import LazyGame

GAMES = (
    LazyGame("quess_v0", "Quess", "boardenvs.games.quess:QuessGame"),
    LazyGame("quagmire_v0", "Quagmire", "boardenvs.games.quagmire:QuagmireGame"),
    LazyGame("quicksand_v0", "Quicksand", "boardenvs.games.quicksand:QuicksandGame"),
    LazyGame("tryasina_v0", "Tryasina", "boardenvs.games.tryasina:TryasinaGame"),
    LazyGame("hex_quoridor_v1", "HexQuoridor", "boardenvs.games.hex_quoridor:HexQuoridorGame"),
)
