"""The store of registered games: env id -> Game class (a leaf of the core:
it imports no face).

:func:`boardenvs.register` (:mod:`boardenvs.api`) checks a game here
(:func:`check_registration`), stores it (:func:`add`) and builds its faces'
entry points; :func:`game_class` / :func:`make_game` read the store.  The
catalog's games are stored as :class:`LazyGame` until first use.
"""

from __future__ import annotations

import re
import sys

import gymnasium

from .errors import shorten

_GAMES: dict = {}  # env id -> Game class, or the catalog's LazyGame until first use
_HOOKS: list = []  # what the layers above do for each registered game (on_register)


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


def check_registration(game_cls) -> str:
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
        raise ValueError(
            f"{env_id}: the gymnasium name {name!r} (gym_name, else the title without spaces) must be "
            "letters, digits and '_', starting with a letter"
        )
    gym_id = gym_id_of(game_cls)
    spec = gymnasium.registry.get(gym_id)
    if spec is not None and spec.kwargs.get("env_id") != env_id:
        raise ValueError(
            f"{env_id}: its gymnasium id {gym_id!r} is already registered to "
            f"{spec.kwargs.get('env_id') or spec.entry_point!r}; give the game another gym_name"
        )
    if is_class:
        _check_declaration(game_cls)
    return gym_id


def _check_declaration(cls) -> None:
    """What registration needs beyond the class-definition checks
    (:meth:`boardenvs.game.Game.__init_subclass__`: title, kernels,
    configure, rules, picture): options and variants that configure (each
    variant builds a game)."""
    from .spec import Option

    env_id = cls.env_id
    if not isinstance(cls.option_specs, tuple) or not all(isinstance(o, Option) for o in cls.option_specs):
        raise ValueError(f"{env_id}: {cls.__name__}.option_specs must be a tuple of boardenvs.spec.Option")
    if not isinstance(cls.variants, tuple) or not cls.variants or not all(isinstance(v, dict) for v in cls.variants):
        raise ValueError(f"{env_id}: {cls.__name__}.variants must be a non-empty tuple of option dicts")
    for variant in cls.variants:
        try:
            cls(**variant)
        except Exception as exc:  # noqa: BLE001 - whatever a broken declaration raises, named
            raise ValueError(
                f"{env_id}: {cls.__name__}(**{variant!r}) cannot be built: {type(exc).__name__}: {exc}"
            ) from None


def gym_id_of(game_cls) -> str:
    """The gymnasium id of a game: ``boardenvs/Quess-v0`` for ``quess_v0``."""
    version = game_cls.env_id.rpartition("_v")[2]
    return f"{__package__}/{game_cls.gym_name or game_cls.title.replace(' ', '')}-v{version}"


def unregister(env_id: str) -> None:
    if env_id in _GAMES:
        gym_id = gym_id_of(_GAMES[env_id])
        gymnasium.registry.pop(gym_id, None)
        import pettingzoo

        for known in (getattr(pettingzoo, "aec_registry", None), getattr(pettingzoo, "parallel_registry", None)):
            if known is not None:  # (PettingZoo 1.27 on; 1.24-1.26 have no registry)
                known.pop(gym_id, None)
    _GAMES.pop(env_id, None)
    sys.modules.pop(f"{__package__}.{env_id}", None)
    if hasattr(sys.modules[__package__], env_id):
        delattr(sys.modules[__package__], env_id)


def registered_ids() -> tuple:
    return tuple(_GAMES)


def env_id_of_module(module: str) -> str | None:
    """The env id of the registered game whose module (or package) holds
    ``module`` (a kernel's ``__module__``), without loading any game; None
    for a module of no game (the engine's own)."""
    for env_id, entry in _GAMES.items():
        home = entry.path.partition(":")[0] if isinstance(entry, LazyGame) else entry.__module__
        if module == home or module.startswith(home + "."):
            return env_id
    return None


def game_class(env_id: str):
    """The Game class registered under ``env_id`` (loaded on first use);
    ValueError naming the available ids for an unknown one."""
    if not isinstance(env_id, str) or env_id not in _GAMES:
        for known, cls in _GAMES.items():
            if isinstance(env_id, str) and env_id == gym_id_of(cls):  # (say what it is and what to do)
                raise ValueError(
                    f"{env_id!r} is a gymnasium id (gymnasium.make / gymnasium.make_vec take it); here "
                    f"use its env id, {known!r}"
                )
            if isinstance(env_id, str) and env_id.rpartition("_v")[0] == known.rpartition("_v")[0]:
                raise ValueError(
                    f"{env_id!r} is another version of {known!r}, the one this package has: its games "
                    f"differ (docs/guide/changes.md says how); use {known!r}"
                )
        raise ValueError(f"unknown env id {shorten(repr(env_id))}; available: {', '.join(_GAMES)}")
    entry = _GAMES[env_id]
    if isinstance(entry, LazyGame):
        _GAMES[env_id] = entry = entry.load()
    return entry


def env_id_of(name: str) -> str:
    """The env id of ``name``, an env id or a gymnasium id (``boardenvs/Quess-v0``);
    ValueError naming both kinds otherwise."""
    for env_id, cls in _GAMES.items():
        if name in (env_id, gym_id_of(cls)):
            return env_id
    from .errors import did_you_mean, shorten

    ids = [*_GAMES, *(gym_id_of(cls) for cls in _GAMES.values())]
    raise ValueError(
        f"unknown id {shorten(repr(name))}{did_you_mean(name, ids)}: use an env id "
        f"({', '.join(_GAMES)}) or its gymnasium id"
    )


def make_game(env_id: str, **options):
    """The game ``env_id`` configured with ``options`` (checked: ``OptionError``
    for a bad value, TypeError for an unknown name): the declaration the faces
    share, with its spaces' sizes, kernels and parameters."""
    return game_class(env_id)(**options)


def add(game_cls) -> None:
    """Store ``game_cls`` (checked by :func:`check_registration` first) and
    run the registration hooks on it (:func:`on_register`)."""
    _GAMES[game_cls.env_id] = game_cls
    for hook in _HOOKS:
        hook(game_cls)


def on_register(hook) -> None:
    """Call ``hook(game_cls)`` (a Game class or a :class:`LazyGame`) for every
    game registered from now on, and now for every game already registered.
    How a layer above the core adds its own face of every game without the
    core naming it: ``boardenvs.wrappers.registration`` registers each
    game's gymnasium id this way.  A hook that raises refuses the game
    (:func:`boardenvs.register` then registers nothing)."""
    if hook not in _HOOKS:
        _HOOKS.append(hook)
        for game_cls in list(_GAMES.values()):
            hook(game_cls)


def entry(env_id: str):
    """What the store holds for ``env_id`` (a Game class or a LazyGame), or None."""
    return _GAMES.get(env_id)


def tool_settings(game, tool: str) -> dict | None:
    """What a tool above the core reads of a game: ``TOOLS[tool]`` in the
    module that defines the game's class, or else its nearest base class's
    (a copy; None when none declares anything for that tool).  The core reads none of it; each tool checks its own
    keys and gives its defaults (the baselines' ``"training"``, the
    benchmark's ``"bench"``, greedy's ``"greedy"``, the docs'
    ``"doc_picture"``, the chess clock's ``"clock"``)::

        TOOLS = {"training": {"extractor": "cnn"}, "greedy": {"heuristic": heuristic}}

    ``game`` is a Game class or instance, or a registered env id."""
    if isinstance(game, str):
        game = game_class(game)
    cls = game if isinstance(game, type) else type(game)
    for klass in cls.__mro__:  # a subclass in another module keeps its base game's settings
        tools = getattr(sys.modules.get(klass.__module__), "TOOLS", None) or {}
        if tools.get(tool) is not None:
            return dict(tools[tool])
    return None
