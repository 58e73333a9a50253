"""``quess_v0`` — PettingZoo-style module access (``env()``, ``raw_env()``,
``parallel_env()``).

See :mod:`boardenvs.games.quess` for the env card.
"""
from __future__ import annotations

import time

from .aec import BoardEnv, turn_based_parallel, wrap
from .games.quess import QuessGame

__all__ = ["env", "parallel_env", "raw_env"]


def raw_env(render_mode=None, **options) -> BoardEnv:
    return BoardEnv(QuessGame, render_mode=render_mode, **options)


def env(render_mode=None, clock_seconds=None, time_source=time.monotonic, **options):
    """The wrapped env.  ``clock_seconds`` turns on the speed variant (QU-12):
    a chess clock per player, charged from the moment the agent is to act
    until its action arrives, read from ``time_source`` (injectable)."""
    wrapped = wrap(raw_env(render_mode=render_mode, **options))
    if clock_seconds is not None:
        from .wrappers.clock import ChessClock

        wrapped = ChessClock(wrapped, clock_seconds, time_source=time_source)
    return wrapped


def parallel_env(render_mode=None, max_cycles=None, **options):
    """The turn-based parallel view (see :func:`boardenvs.aec.turn_based_parallel`)."""
    return turn_based_parallel(env, max_cycles=max_cycles, render_mode=render_mode, **options)
