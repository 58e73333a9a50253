"""boardenvs: fast, exact PettingZoo environments for five board games.

>>> import boardenvs
>>> env = boardenvs.make("quess_v0")
>>> pos = boardenvs.position("quess_v0").play("F3-E3")
>>> vec = boardenvs.make_vec("quess_v0", num_envs=64)
"""

from . import numba_range

numba_range.check()  # one line where the installed numba is outside the tested range (see the module)
from . import _cache_probe

_cache_probe.ensure()  # numba's cache must be writable somewhere before any kernel is defined (see the module)
# (_threads: numba's threading layer, chosen before any driver runs)
from . import _blas_probe, _threads, compile_notice  # noqa: F401
from .api import make, make_vec, position, register
from .catalog import GAMES
from .errors import IllegalActionError, IllegalMoveError, NotationError, OptionError
from .position import Position
from .registry import game_class, make_game
from .threads import training_threads

_blas_probe.install()  # numba's BLAS probe without importing scipy.linalg (see the module)
compile_notice.install()  # the first compile of a game says so, once
for _game in GAMES:
    register(_game)
# the gymnasium ids: the layer that holds their entry points registers them, for these
# games and every one registered later (the package's entry, not the core, imports it)
try:
    from .wrappers import registration as _gym_ids  # noqa: E402,F401
except ModuleNotFoundError as _missing:  # a source tree used uninstalled: wrappers/ maps in only when installed
    if _missing.name != f"{__name__}.wrappers":
        raise

ENV_IDS = tuple(g.env_id for g in GAMES)
"""The ids of the games this version ships (``boardenvs.catalog``), in the
catalog's order; each is a module here (``boardenvs.quess_v0``) and a
gymnasium id (``boardenvs/Quess-v0``)."""

__version__ = "0.3.0"
__all__ = [  # the entry points first (the API reference lists them in this order)
    "make",
    "make_vec",
    "position",
    "Position",
    "ENV_IDS",
    "register",
    "game_class",
    "make_game",
    "training_threads",
    "IllegalActionError",
    "IllegalMoveError",
    "NotationError",
    "OptionError",
    *ENV_IDS,
]
