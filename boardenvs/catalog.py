"""The games of the package: one line each.

Everything generic follows from this tuple: ``boardenvs.ENV_IDS``, the
PettingZoo module trio ``boardenvs.<env id>`` (``env`` / ``raw_env`` /
``parallel_env``), ``make`` / ``make_vec`` / ``position``, the benchmark's
rows and the parametrised tests.  Adding a game = one module under
``games/`` plus one line here.
"""
from __future__ import annotations

from .games.quagmire import QuagmireGame
from .games.hex_quoridor import HexQuoridorGame
from .games.quess import QuessGame
from .games.quicksand import QuicksandGame
from .games.tryasina import TryasinaGame

GAMES = (
    QuessGame,
    QuagmireGame,
    QuicksandGame,
    TryasinaGame,
    HexQuoridorGame,
)
