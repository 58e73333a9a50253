"""Env ids, and the functions that build games, envs, positions and vector
envs from them.

:func:`register` is the one registration mechanism: the package registers
the games of :mod:`boardenvs.catalog` with it at import; tests register
their toy game the same way.  Registering a game makes its PettingZoo module
``boardenvs.<env id>`` (``env()`` / ``raw_env()`` / ``parallel_env()``) and
its gymnasium id ``boardenvs/<Name>-v<N>`` (the single-agent view,
:class:`boardenvs.wrappers.single_agent.SingleAgentEnv`, and for
``gymnasium.make_vec`` the vector view, built by the entry points
``gym_env`` / ``gym_vector_env`` of the id's module, which fix the game).
A game is checked whole before anything is registered.
"""
from __future__ import annotations

import re
import sys
import types

import gymnasium

from . import engine as E

_GAMES: dict = {}  # env id -> Game class, or the catalog's LazyGame until first use


class LazyGame:
    """A game of the catalog that is imported on first use: its id and
    gymnasium name, which registration needs, and where its class lives
    (``"boardenvs.games.quess:QuessGame"``).  Importing a game module builds
    its kernels' dispatchers (tens of milliseconds each game), so ``import
    boardenvs`` registers every id and loads only the games that are made.
    The class must declare the same ``env_id`` and gymnasium name (checked
    when it loads)."""

    def __init__(self, env_id: str, gym_name: str, path: str):
        self.env_id, self.gym_name, self.title, self.path = env_id, gym_name, "", path
        self._cls = None

    def load(self):
        if self._cls is None:
            import importlib

            module, _, name = self.path.partition(":")
            cls = getattr(importlib.import_module(module), name)
            if cls.env_id != self.env_id or gym_id_of(cls) != gym_id_of(self):
                raise ValueError(
                    f"the catalog line of {self.path} says {self.env_id!r} / {gym_id_of(self)!r}, "
                    f"the class declares {cls.env_id!r} / {gym_id_of(cls)!r}"
                )
            self._cls = cls
        return self._cls

    def __repr__(self) -> str:
        return f"LazyGame({self.env_id!r}, {self.gym_name!r}, {self.path!r})"


def _resolve(entry):
    return entry.load() if isinstance(entry, LazyGame) else entry


def _check_registration(game_cls) -> str:
    """Everything :func:`register` needs from ``game_cls``, checked before
    anything is registered; returns its gymnasium id.  TypeError for
    something that is no game; ValueError naming what is wrong with a game's
    declaration (id, gymnasium name, kernels, options, variants)."""
    from .game import Game

    is_class = isinstance(game_cls, type) and issubclass(game_cls, Game)
    if not (is_class or isinstance(game_cls, LazyGame)):
        raise TypeError(f"register takes a Game subclass (boardenvs.game.Game) or a LazyGame, got {game_cls!r}")
    env_id = game_cls.env_id
    if not isinstance(env_id, str) or not re.fullmatch(r"[a-z][a-z0-9_]*_v[0-9]+", env_id):
        raise ValueError(f"env id {env_id!r} must look like 'name_v0' (lower case; it names a module)")
    if env_id in _GAMES and _GAMES[env_id] is not game_cls and _resolve(_GAMES[env_id]) is not _resolve(game_cls):
        raise ValueError(f"env id {env_id!r} is already registered to {_resolve(_GAMES[env_id]).__name__}")
    if env_id not in _GAMES and hasattr(sys.modules[__package__], env_id):
        raise ValueError(f"env id {env_id!r} would shadow boardenvs.{env_id}")
    gym_name, title = game_cls.gym_name, game_cls.title
    if not isinstance(gym_name, str) or not isinstance(title, str):
        raise ValueError(f"{env_id}: gym_name and title must be str, got {gym_name!r} and {title!r}")
    name = gym_name or title.replace(" ", "")
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise ValueError(f"{env_id}: the gymnasium name {name!r} (gym_name, else the title without spaces) must be "
                         "letters, digits and '_', starting with a letter")  # fmt: skip
    gym_id = gym_id_of(game_cls)
    spec = gymnasium.registry.get(gym_id)
    if spec is not None and spec.kwargs.get("env_id") != env_id:
        raise ValueError(f"{env_id}: its gymnasium id {gym_id!r} is already registered to "
                         f"{spec.kwargs.get('env_id') or spec.entry_point!r}; give the game another gym_name")  # fmt: skip
    if is_class:
        _check_declaration(game_cls)
    return gym_id


def _check_declaration(cls) -> None:
    """A Game class declares what every face needs: a title, its kernels
    (:class:`boardenvs.engine.Kernels` of callables), options and variants
    that configure (each variant builds a game)."""
    from .game import Game
    from .spec import Option

    env_id = cls.env_id
    if not cls.title:
        raise ValueError(f"{env_id}: {cls.__name__} declares no title (the game's name for people)")
    kernels = getattr(cls, "kernels", None)
    if not isinstance(kernels, E.Kernels) or not all(callable(k) for k in kernels):
        raise ValueError(f"{env_id}: {cls.__name__}.kernels must be a boardenvs.engine.Kernels of compiled functions "
                         f"({', '.join(E.Kernels._fields)}), got {kernels!r}")  # fmt: skip
    if cls.configure is Game.configure:
        raise ValueError(f"{env_id}: {cls.__name__} does not implement configure() (the sizes of a configured game)")
    if not isinstance(cls.option_specs, tuple) or not all(isinstance(o, Option) for o in cls.option_specs):
        raise ValueError(f"{env_id}: {cls.__name__}.option_specs must be a tuple of boardenvs.spec.Option")
    if not isinstance(cls.variants, tuple) or not cls.variants or not all(isinstance(v, dict) for v in cls.variants):
        raise ValueError(f"{env_id}: {cls.__name__}.variants must be a non-empty tuple of option dicts")
    for variant in cls.variants:
        try:
            cls(**variant)
        except Exception as exc:  # noqa: BLE001 - whatever a broken declaration raises, named
            raise ValueError(f"{env_id}: {cls.__name__}(**{variant!r}) cannot be built: "
                             f"{type(exc).__name__}: {exc}") from None  # fmt: skip


def register(game_cls) -> types.ModuleType:
    """Register ``game_cls`` (a Game class, or a :class:`LazyGame`) under
    its ``env_id``; returns the id's PettingZoo module (also importable as
    ``boardenvs.<env id>``).  Everything is checked first (TypeError for
    something that is no game, ValueError naming what is wrong with a
    game's declaration: its id, its gymnasium name, taken by another game,
    its kernels, options or variants); a refused game registers nothing."""
    gym_id = _check_registration(game_cls)
    env_id = game_cls.env_id
    module = _env_module(game_cls)
    previous = _GAMES.get(env_id)
    try:
        _GAMES[env_id] = game_cls
        sys.modules[module.__name__] = module
        setattr(sys.modules[__package__], env_id, module)
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id,
                # the id's own entry points (its PettingZoo module's), which fix the game: a
                # gymnasium.make(id, env_id=<another game>) is refused (see _GymEntry)
                entry_point=f"{module.__name__}:gym_env",
                vector_entry_point=f"{module.__name__}:gym_vector_env",
                kwargs={"env_id": env_id},
            )
    except BaseException:
        if previous is None:
            unregister(env_id)
        raise
    return module


class _GymEntry:
    """The gymnasium entry point of one id: the single-agent view
    (:class:`boardenvs.wrappers.single_agent.SingleAgentEnv`), or with
    ``vector=True`` the vector view (``SingleAgentVectorEnv``), of the id's
    game only.  The id fixes the game: an ``env_id`` keyword naming another
    game is a ValueError (gymnasium merges the caller's keywords over the
    id's ``kwargs={"env_id": ...}``)."""

    def __init__(self, env_id: str, vector: bool = False):
        self.env_id, self.vector = env_id, vector

    def _checked(self, kwargs: dict) -> dict:
        given = kwargs.pop("env_id", self.env_id)
        if not (isinstance(given, str) and given == self.env_id):
            gym_id = gym_id_of(_GAMES[self.env_id])
            other = f"gymnasium.make({gym_id_of(_GAMES[given])!r})" if isinstance(given, str) and given in _GAMES \
                else "that game's own id"  # fmt: skip
            raise ValueError(f"{gym_id} is {self.env_id}: env_id={given!r} cannot change its game (use {other})")
        return kwargs

    @property
    def metadata(self) -> dict:  # gymnasium reads the render modes here, as from the class
        return self._cls().metadata

    def _cls(self):
        if self.vector:
            from .wrappers.vector import SingleAgentVectorEnv

            return SingleAgentVectorEnv
        from .wrappers.single_agent import SingleAgentEnv

        return SingleAgentEnv

    def __call__(self, *args, **kwargs):
        return self._cls()(self.env_id, *args, **self._checked(kwargs))

    def __repr__(self) -> str:
        return f"<{'vector ' if self.vector else ''}gymnasium entry point of {self.env_id}>"


def gym_id_of(game_cls) -> str:
    """The gymnasium id of a game: ``boardenvs/Quess-v0`` for ``quess_v0``."""
    version = game_cls.env_id.rpartition("_v")[2]
    return f"{__package__}/{game_cls.gym_name or game_cls.title.replace(' ', '')}-v{version}"


def unregister(env_id: str) -> None:
    if env_id in _GAMES:
        gymnasium.registry.pop(gym_id_of(_GAMES[env_id]), None)
    _GAMES.pop(env_id, None)
    sys.modules.pop(f"{__package__}.{env_id}", None)
    if hasattr(sys.modules[__package__], env_id):
        delattr(sys.modules[__package__], env_id)


def registered_ids() -> tuple:
    return tuple(_GAMES)


def game_class(env_id: str):
    if not isinstance(env_id, str) or env_id not in _GAMES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(_GAMES)}")
    entry = _GAMES[env_id]
    if isinstance(entry, LazyGame):
        _GAMES[env_id] = entry = entry.load()
    return entry


def make_game(env_id: str, **options):
    return game_class(env_id)(**options)


def make(env_id: str, render_mode=None, **options):
    """The registered (wrapped) PettingZoo AEC env for ``env_id``."""
    game_class(env_id)
    return sys.modules[f"{__package__}.{env_id}"].env(render_mode=render_mode, **options)


def make_vec(env_id: str, num_envs: int, **options):
    """``num_envs`` games of ``env_id`` stepped in one call (see
    :class:`boardenvs.vector.VectorEnv`)."""
    from .vector import VectorEnv

    return VectorEnv(game_class(env_id), num_envs, **options)


def position(env_id: str, **options):
    """The initial Position of ``env_id``; ``first_player`` defaults to seat 0
    here when the game's default is random (a Position has no generator)."""
    from .position import Position

    game = make_game(env_id, **options)
    first = int(game.params[E.P_FIRST])
    return Position(game, game.new_state(max(first, 0)))


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
    from .aec import BoardEnv, turn_based_parallel, wrap

    env_id = game_cls.env_id
    module = _EnvModule(f"{__package__}.{env_id}")
    module._env_id = env_id

    def raw_env(render_mode=None, **options) -> BoardEnv:
        """The env without wrappers."""
        return BoardEnv(game_class(env_id), render_mode=render_mode, **options)

    def env(render_mode=None, clock_seconds=None, clock_increment=0.0, time_source=None, **options):
        """The wrapped env (what ``boardenvs.make(env_id)`` returns).
        ``clock_seconds`` adds a chess clock per agent, ``clock_increment``
        seconds added after each turn (:class:`boardenvs.wrappers.ChessClock`;
        Quess' speed variant QU-12), read from ``time_source``
        (``time.monotonic`` unless given)."""
        wrapped = wrap(raw_env(render_mode=render_mode, **options))
        if clock_seconds is not None:
            import time

            from .wrappers.clock import ChessClock

            wrapped = ChessClock(wrapped, clock_seconds, clock_increment, time_source=time_source or time.monotonic)
        elif time_source is not None or clock_increment:
            raise TypeError("time_source and clock_increment are only used with clock_seconds")
        return wrapped

    def parallel_env(render_mode=None, max_cycles=None, idle_mask="zeros", **options):
        """The turn-based parallel view (see :func:`boardenvs.aec.turn_based_parallel`)."""
        return turn_based_parallel(env, max_cycles=max_cycles, idle_mask=idle_mask, render_mode=render_mode, **options)

    for fn in (raw_env, env, parallel_env):
        fn.__module__ = module.__name__
        fn.__qualname__ = fn.__name__
        setattr(module, fn.__name__, fn)
    module.gym_env, module.gym_vector_env = _GymEntry(env_id), _GymEntry(env_id, vector=True)
    module.__all__ = ["env", "parallel_env", "raw_env"]
    return module
