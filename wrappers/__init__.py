"""Wrappers and views over the boardenvs environments (installed as
``boardenvs.wrappers``).  Names load on first use, so importing this package
needs neither stable-baselines3 nor pygame."""
from __future__ import annotations

import importlib

_NAMES = {
    "SingleAgentEnv": "single_agent",
    "SingleAgentVectorEnv": "vector",
    "SB3VecEnv": "sb3",
    "SelfPlayPool": "opponents",
    "SelfPlayCallback": "opponents",
    "RandomOpponent": "opponents",
    "PolicyOpponent": "opponents",
    "ModelOpponent": "opponents",
    "make_opponent": "opponents",
    "register_opponent": "opponents",
    "opponent_names": "opponents",
    "ChessClock": "clock",
    "Recorder": "recording",
    "record_game": "recording",
    "save_animation": "recording",
    "evaluate": "evaluation",
}
__all__ = sorted(_NAMES)


def __getattr__(name):
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
