"""What wraps the AEC env for PettingZoo's users: order enforcing with the
package's errors (:func:`wrap`, the registered env's stack) and the
turn-based parallel view (:func:`turn_based_parallel`)."""

from __future__ import annotations

import numpy as np
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from .aec import BoardEnv
from .errors import IllegalActionError, ResetNeededError


def _read_after_reset(name: str, checked: bool = True) -> property:
    """The wrapped env's attribute ``name`` as a property of the wrapper:
    what PettingZoo's ``__getattr__`` forwards, without its lookup miss on
    every read (``last()`` and ``agent_iter()`` read five of them a step)."""

    def read(self):
        if checked and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def written(self, value):
        """PettingZoo 1.24-1.26's wrappers assign these after each reset and
        step; reads go to the wrapped env anyway, so the write is dropped."""

    read.__name__ = name
    return property(read, written)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, except that a step before reset or
    after the game ended raises our errors (C-6) where PettingZoo's asserts
    or only logs a warning.  The attributes PettingZoo's ``__getattr__``
    forwards on every step are properties here, with the same refusal
    before reset."""

    agents = _read_after_reset("agents")
    agent_selection = _read_after_reset("agent_selection")
    rewards = _read_after_reset("rewards")
    terminations = _read_after_reset("terminations")
    truncations = _read_after_reset("truncations")
    infos = _read_after_reset("infos")
    _cumulative_rewards = _read_after_reset("_cumulative_rewards", checked=False)

    def step(self, action):
        if not self._has_reset:
            raise ResetNeededError(f"step({action!r}) before reset(): call reset() first")
        env = self.env
        if not env.agents:
            raise IllegalActionError(f"step({action!r}) after the game ended: call reset() first")
        self._has_updated = True
        env.step(action)

    def last(self, observe=True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def wrap(raw: BoardEnv):
    """The wrapper stack of the registered env: order enforcing (step/observe
    before reset, and the like) over the raw env, which does its own C-6
    checks (PettingZoo's AssertOutOfBounds/TerminateIllegal wrappers raise
    AssertionError and skip wrong types, so they do not fit C-6)."""
    return OrderEnforcing(raw)


class TurnBasedParallel(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based parallel conversion, with ``active_agent`` in
    the infos from ``reset`` on (PettingZoo adds it only after a step).

    ``idle_mask``: the ``action_mask`` of the agents that are not to act.
    ``"zeros"`` (default, PettingZoo's meaning: no legal action now) or
    ``"ones"``: every action is allowed and ignored, for learners that sample
    every agent's action from a masked distribution each step (TorchRL's
    ``PettingZooWrapper`` with ``use_mask=True``; a masked categorical over
    an all-zero mask has no support)."""

    def __init__(self, aec_env, idle_mask: str = "zeros"):
        if idle_mask not in ("zeros", "ones"):
            raise ValueError(f"idle_mask must be 'zeros' or 'ones', got {idle_mask!r}")
        super().__init__(aec_env)
        self.idle_mask = idle_mask

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        observations = self._idle(observations)
        return observations, self._masks_in(infos, observations)

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = super().step(actions)
        live = self.aec_env.agents
        if len(live) < len(observations):
            # PettingZoo observes before the dead steps of agents out of a game that goes on (an
            # elimination), while one of them is selected: the agent to act would see an all-zeros mask
            observations.update({a: self.aec_env.observe(a) for a in live})
        observations = self._idle(observations)
        return observations, rewards, terminations, truncations, self._masks_in(infos, observations)

    def _masks_in(self, infos, observations):
        """``infos[agent]["action_mask"]`` is the very array of the agent's
        observation (the idle mask included), and every agent's infos hold
        ``active_agent`` on every step, ``""`` once nobody is to act."""
        active = self.aec_env.agent_selection if self.aec_env.agents else ""
        out = {}
        for agent, info in infos.items():
            obs = observations.get(agent)
            info = {**info, "active_agent": active}
            if isinstance(obs, dict) and "action_mask" in obs:
                info["action_mask"] = obs["action_mask"]
            out[agent] = info
        return out

    def _idle(self, observations):
        if self.idle_mask == "zeros" or not self.aec_env.agents:
            return observations
        active = self.aec_env.agent_selection
        for agent, obs in observations.items():
            if agent != active and isinstance(obs, dict) and "action_mask" in obs:
                observations[agent] = {**obs, "action_mask": np.ones_like(obs["action_mask"])}
        return observations


def turn_based_parallel(env_fn, max_cycles: int | None = None, idle_mask: str = "zeros", **options):
    """The PettingZoo parallel view of a turn-based env (PettingZoo's own
    ``turn_based_aec_to_parallel``): every live agent sends an action each
    step, only the action of the agent to act is played, and
    ``infos[agent]["active_agent"]`` names it.  Every agent is asked at every
    parallel step, so ``max_cycles`` parallel steps are ``max_cycles``
    decisions.  ``idle_mask``: see :class:`TurnBasedParallel`."""
    if "max_decisions" in options:
        raise TypeError("the parallel view counts its length with max_cycles")
    if idle_mask not in ("zeros", "ones"):
        raise ValueError(f"idle_mask must be 'zeros' or 'ones', got {idle_mask!r}")
    return TurnBasedParallel(env_fn(max_decisions=max_cycles, **options), idle_mask=idle_mask)
