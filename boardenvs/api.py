"""The package's entry points: :func:`register` a game, and build its faces
by id — :func:`make` (the wrapped PettingZoo AEC env), :func:`make_vec` (N
games per call), :func:`position` (python-chess-like).

Registering a game stores its class (:mod:`boardenvs.registry`, the leaf
store) and makes its PettingZoo module ``boardenvs.<env id>`` (``env()`` /
``raw_env()`` / ``parallel_env()``, documented by the game's env card).  Its
gymnasium id ``boardenvs/<Name>-v<N>`` is registered by the layer that holds
its entry points, the single-agent view and its vector view
(:mod:`boardenvs.wrappers.registration`, through
:func:`boardenvs.registry.on_register`): the core names nothing above it.
"""

from __future__ import annotations

import sys
import time
import types

from . import engine as E
from . import registry
from .aec import BoardEnv
from .aec_views import turn_based_parallel, wrap
from .clock import ChessClock
from .position import Position
from .registry import game_class, make_game
from .vector import VectorEnv

_PACKAGE = __package__


def register(game_cls) -> types.ModuleType:
    """Register ``game_cls`` (a Game class, or a :class:`~boardenvs.registry.LazyGame`)
    under its ``env_id``; returns the id's PettingZoo module (also importable
    as ``boardenvs.<env id>``).  Everything is checked first (TypeError for
    something that is no game, ValueError naming what is wrong with a
    game's declaration: its id, its gymnasium name, taken by another game,
    its kernels, options or variants); a refused game registers nothing."""
    registry.check_registration(game_cls)
    env_id = game_cls.env_id
    module = _env_module(game_cls)
    previous = registry.entry(env_id)
    package = sys.modules[_PACKAGE]
    try:
        sys.modules[module.__name__] = module
        setattr(package, env_id, module)
        registry.add(game_cls)  # (and the layers above add their faces: registry.on_register)
        _register_pettingzoo(game_cls)
    except BaseException:
        if previous is None:
            registry.unregister(env_id)
        raise
    return module


def _register_pettingzoo(game_cls) -> None:
    """PettingZoo's registry: ``pettingzoo.make("aec", "boardenvs/<Name>-v<N>")``
    is ``boardenvs.<env id>.env()`` and ``pettingzoo.make("parallel", ...)``
    its ``parallel_env()``, options passed through; the same id as gymnasium's.
    PettingZoo has a registry from 1.27 on; on 1.24-1.26 (where some trainers
    pin it) there is nothing to register, and ``boardenvs.make`` is the way."""
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        return
    gym_id = registry.gym_id_of(game_cls)
    for kind, known, creator in (
        ("aec", pettingzoo.aec_registry, "env"),
        ("parallel", pettingzoo.parallel_registry, "parallel_env"),
    ):
        if gym_id not in known:
            pettingzoo.register(kind, gym_id, entry_point=f"{_PACKAGE}.{game_cls.env_id}:{creator}")


def make(env_id: str, render_mode=None, **options):
    """The registered (wrapped) PettingZoo AEC env for ``env_id``."""
    game_class(env_id)
    return sys.modules[f"{_PACKAGE}.{env_id}"].env(render_mode=render_mode, **options)


def make_vec(env_id: str, num_envs: int, device: str = "cpu", **options) -> VectorEnv:
    """``num_envs`` games of ``env_id`` stepped in one call (see
    :class:`boardenvs.vector.VectorEnv`); ``device="cuda"``: the same games
    on a CUDA device, their arrays staying there
    (:class:`boardenvs.device.DeviceVectorEnv`)."""
    if device == "cuda":
        from .device import DeviceVectorEnv

        return DeviceVectorEnv(game_class(env_id), num_envs, **options)
    if device != "cpu":
        raise ValueError(f"{env_id} make_vec: device must be 'cpu' or 'cuda', got {device!r}")
    return VectorEnv(game_class(env_id), num_envs, **options)


def position(env_id: str, seed: int = 0, **options) -> Position:
    """The initial Position of ``env_id``; ``first_player`` defaults to seat 0
    here when the game's default is random.  ``seed`` seeds the row's own
    generator, which :meth:`Position.roll` draws the dice from: two
    positions of one seed roll the same dice."""
    from .spec import check_seed

    game = make_game(env_id, **options)
    first = int(game.params[E.P_FIRST])
    return Position(game, game.new_state(max(first, 0), rng_seed=check_seed(seed)))


class _EnvModule(types.ModuleType):
    """A game's PettingZoo module; its docstring (the game's env card) and
    ``GAME`` load the game on first read."""

    @property
    def __doc__(self):
        return game_class(self._env_id).__doc__

    def __getattr__(self, name):
        if name == "GAME":
            return game_class(self._env_id)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


def _env_module(game_cls) -> types.ModuleType:
    """The PettingZoo module of one game: ``env`` / ``raw_env`` /
    ``parallel_env``, documented by the game's env card."""
    env_id = game_cls.env_id
    module = _EnvModule(f"{_PACKAGE}.{env_id}")
    module._env_id = env_id

    def raw_env(render_mode=None, **options) -> BoardEnv:
        """The env without wrappers."""
        return BoardEnv(game_class(env_id), render_mode=render_mode, **options)

    def env(render_mode=None, clock_seconds=None, clock_increment=0.0, time_source=None, **options):
        """The wrapped env (what ``boardenvs.make(env_id)`` returns).
        ``clock_seconds`` adds a chess clock per agent, ``clock_increment``
        seconds added after each turn (:class:`boardenvs.clock.ChessClock`;
        Quess' speed variant QU-12), read from ``time_source``
        (``time.monotonic`` unless given)."""
        wrapped = wrap(raw_env(render_mode=render_mode, **options))
        if clock_seconds is not None:
            wrapped = ChessClock(wrapped, clock_seconds, clock_increment, time_source=time_source or time.monotonic)
        elif time_source is not None or clock_increment:
            raise TypeError("time_source and clock_increment are only used with clock_seconds")
        return wrapped

    def parallel_env(render_mode=None, max_cycles=None, idle_mask="zeros", **options):
        """The turn-based parallel view (see :func:`boardenvs.aec_views.turn_based_parallel`)."""
        return turn_based_parallel(env, max_cycles=max_cycles, idle_mask=idle_mask, render_mode=render_mode, **options)

    for fn in (raw_env, env, parallel_env):
        fn.__module__ = module.__name__
        fn.__qualname__ = fn.__name__
        setattr(module, fn.__name__, fn)
    module.__all__ = ["env", "parallel_env", "raw_env"]
    return module
