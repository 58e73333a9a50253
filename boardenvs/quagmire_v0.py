"""``quagmire_v0`` — PettingZoo-style module access (``env()``, ``raw_env()``,
``parallel_env()``).

See :mod:`boardenvs.games.quagmire` for the env card.
"""
from __future__ import annotations

from .aec import BoardEnv, turn_based_parallel, wrap
from .games.quagmire import QuagmireGame

__all__ = ["env", "parallel_env", "raw_env"]


def raw_env(render_mode=None, **options) -> BoardEnv:
    return BoardEnv(QuagmireGame, render_mode=render_mode, **options)


def env(render_mode=None, **options):
    """The wrapped env (what ``boardenvs.make("quagmire_v0")`` returns)."""
    return wrap(raw_env(render_mode=render_mode, **options))


def parallel_env(render_mode=None, max_cycles=None, **options):
    """The turn-based parallel view (see :func:`boardenvs.aec.turn_based_parallel`)."""
    return turn_based_parallel(env, max_cycles=max_cycles, render_mode=render_mode, **options)
