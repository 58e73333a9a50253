"""Every registered game's gymnasium id, registered by the layer that holds
its entry points: ``boardenvs/<Name>-v<N>`` makes the single-agent view
(:class:`boardenvs.wrappers.single_agent.SingleAgentEnv`), and its vector
entry point the vector view over ``make_vec``
(:class:`boardenvs.wrappers.vector.SingleAgentVectorEnv`).

Importing this module registers the ids of the games registered so far and
of every game registered later (:func:`boardenvs.registry.on_register`);
``import boardenvs`` imports it, so ``gymnasium.make("boardenvs/Quess-v0")``
works after it.  The views themselves load when gymnasium first builds one.

Each id's entry points are its own (``boardenvs.wrappers.registration:<env
id>`` and ``...:<env id>__vector``, attributes this module answers for every
registered id): they fix the game, so ``gymnasium.make(id, env_id=<another
game>)`` is refused rather than quietly making the other game (gymnasium
merges the caller's keywords over the id's ``kwargs={"env_id": ...}``).
"""

from __future__ import annotations

import gymnasium

from .. import registry
from ..registry import LazyGame, game_class, gym_id_of

_VECTOR = "__vector"


class GymEntry:
    """The gymnasium entry point of one id: the single-agent view, or with
    ``vector=True`` the vector view, of the id's game only."""

    def __init__(self, env_id: str, vector: bool = False):
        self.env_id, self.vector = env_id, vector

    def _checked(self, kwargs: dict) -> dict:
        given = kwargs.pop("env_id", self.env_id)
        if not (isinstance(given, str) and given == self.env_id):
            gym_id = gym_id_of(game_class(self.env_id))
            known = isinstance(given, str) and registry.entry(given) is not None
            other = f"gymnasium.make({gym_id_of(registry.entry(given))!r})" if known else "that game's own id"
            raise ValueError(f"{gym_id} is {self.env_id}: env_id={given!r} cannot change its game (use {other})")
        return kwargs

    @property
    def metadata(self) -> dict:  # gymnasium reads the render modes here, as from the class
        return self._cls().metadata

    def _cls(self):
        if self.vector:
            from .vector import SingleAgentVectorEnv

            return SingleAgentVectorEnv
        from .single_agent import SingleAgentEnv

        return SingleAgentEnv

    def __call__(self, *args, **kwargs):
        return self._cls()(self.env_id, *args, **self._checked(kwargs))

    def __repr__(self) -> str:
        return f"<{'vector ' if self.vector else ''}gymnasium entry point of {self.env_id}>"


def register_gym_id(game_cls) -> None:
    """Register the gymnasium id of ``game_cls`` (a Game class or a
    :class:`~boardenvs.registry.LazyGame`; the core checked that the id is
    free or already this game's)."""
    gym_id = gym_id_of(game_cls)
    if gym_id in gymnasium.registry:
        return
    gymnasium.register(
        gym_id,
        entry_point=f"{__name__}:{game_cls.env_id}",
        vector_entry_point=f"{__name__}:{game_cls.env_id}{_VECTOR}",
        kwargs={"env_id": game_cls.env_id},
    )


def __getattr__(name: str):
    """``<env id>`` / ``<env id>__vector``: the entry points gymnasium loads
    by name (``module:attribute``), for every registered id."""
    env_id, vector = (name[: -len(_VECTOR)], True) if name.endswith(_VECTOR) else (name, False)
    entry = registry.entry(env_id)
    if isinstance(entry, (type, LazyGame)):
        return GymEntry(env_id, vector)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


registry.on_register(register_gym_id)
