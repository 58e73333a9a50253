"""boardenvs: fast, exact PettingZoo environments for five board games.

>>> import boardenvs
>>> env = boardenvs.make("quess_v0")
>>> pos = boardenvs.position("quess_v0").play("F3-E3")
"""
from . import quagmire_v0, quess_v0
from .errors import IllegalActionError, IllegalMoveError, NotationError
from .position import Position
from .registry import ENV_IDS, make, position

__version__ = "0.1.0"
__all__ = [
    "ENV_IDS",
    "IllegalActionError",
    "IllegalMoveError",
    "NotationError",
    "Position",
    "make",
    "position",
    "quagmire_v0",
    "quess_v0",
]
