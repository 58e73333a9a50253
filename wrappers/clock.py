"""The chess clock (QU-12) lives in the core, :mod:`boardenvs.clock`, where the
PettingZoo module's ``env(clock_seconds=...)`` builds it; this module keeps
its old import path, ``boardenvs.wrappers.ChessClock``."""

from ..clock import ChessClock

__all__ = ["ChessClock"]
