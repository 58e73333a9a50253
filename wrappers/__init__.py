"""Wrappers and views over the boardenvs environments (installed as
``boardenvs.wrappers``).  Names load on first use, so importing this package
needs neither stable-baselines3 nor pygame."""

from __future__ import annotations

import importlib

_NAMES = {  # name -> the module that defines it (relative: this package's; absolute: the core's)
    "SingleAgentEnv": ".single_agent",
    "SingleAgentVectorEnv": ".vector",
    "SB3VecEnv": ".sb3",
    "League": "boardenvs.league",
    "SB3SelfPlayCallback": ".selfplay",
    "sb3_snapshot": ".selfplay",
    "ModelOpponent": ".selfplay",
    "make_player": ".selfplay",
    "RandomOpponent": "boardenvs.opponents",
    "PolicyOpponent": "boardenvs.opponents",
    "Opponent": "boardenvs.opponents",
    "Batch": "boardenvs.opponents",
    "make_opponent": "boardenvs.opponents",
    "register_opponent": "boardenvs.opponents",
    "opponent_names": "boardenvs.opponents",
    "ChessClock": "boardenvs.clock",
    "Recorder": ".recording",
    "record_game": ".recording",
    "save_animation": ".recording",
    "save_replay_html": ".html_replay",
    "evaluate": ".evaluation",
    "MaskInObservation": ".mask_obs",
    "VectorMaskInObservation": ".mask_obs",
    "ObservationWithoutMask": ".mask_obs",
    "unflatten_emulated": ".puffer",
}
__all__ = sorted(_NAMES)


def __getattr__(name):
    if name in _NAMES:
        module = _NAMES[name]
        return getattr(
            importlib.import_module(module, __name__) if module.startswith(".") else importlib.import_module(module),
            name,
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
