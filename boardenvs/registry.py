"""Env ids, and the functions that build games, envs and positions from them."""
from __future__ import annotations

import importlib

from . import engine as E

# env id -> (module with env()/raw_env(), Game class path)
_ENVS = {
    "quagmire_v0": ("boardenvs.quagmire_v0", "boardenvs.games.quagmire:QuagmireGame"),
    "quess_v0": ("boardenvs.quess_v0", "boardenvs.games.quess:QuessGame"),
}
ENV_IDS = tuple(_ENVS)


def _check(env_id: str) -> None:
    if env_id not in _ENVS:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(ENV_IDS)}")


def game_class(env_id: str):
    _check(env_id)
    module, _, name = _ENVS[env_id][1].partition(":")
    return getattr(importlib.import_module(module), name)


def make_game(env_id: str, **options):
    return game_class(env_id)(**options)


def make(env_id: str, render_mode=None, **options):
    """The registered (wrapped) PettingZoo AEC env for ``env_id``."""
    _check(env_id)
    return importlib.import_module(_ENVS[env_id][0]).env(render_mode=render_mode, **options)


def position(env_id: str, **options):
    """The initial Position of ``env_id``; ``first_player`` defaults to seat 0
    here when the game's default is random (a Position has no generator)."""
    from .position import Position

    game = make_game(env_id, **options)
    first = int(game.params[E.P_FIRST])
    return Position(game, game.new_state(max(first, 0)))
