"""The action mask inside the observation, for trainers that read it there.

The single-agent gymnasium view hands the learner's mask out the way
gymnasium and sb3-contrib expect: ``info["action_mask"]`` and the
``action_masks()`` method.  Some trainers look for it in the observation
instead, or pass their models nothing but the observation: Tianshou's DQN and
its random policies read ``batch.obs.mask`` (and the network
``batch.obs.obs``); skrl's models see only the observation (flattened), and
PufferLib's emulation keeps only the observation (flattened into one array).
:class:`MaskInObservation` gives them that shape,
``{"obs": <the view's observation>, "mask": <bool mask>}``::

    env = MaskInObservation(gymnasium.make("boardenvs/Quess-v0"))

and :class:`VectorMaskInObservation` the same over a vector env
(``gymnasium.make_vec``: every game stepped by the numba engine in one call)::

    envs = VectorMaskInObservation(gymnasium.make_vec("boardenvs/Quess-v0", num_envs=16))

The mask is the same as ``info["action_mask"]`` of the step, as bools; the
info is passed on unchanged.  Its space is ``Box(0, 1, (n,), bool)``, the
dtype it is given in: a ``MultiBinary`` (int8) would be refused by skrl,
which tensorizes Box, Discrete and MultiDiscrete leaves only.

Others want the opposite: AgileRL's multi-agent algorithms (IPPO) read the
mask from ``infos[agent]["action_mask"]`` only and refuse an observation that
holds one.  :class:`ObservationWithoutMask` gives a parallel env's agents
their ``"observation"`` alone (the infos keep the mask)::

    env = ObservationWithoutMask(boardenvs.quess_v0.parallel_env(idle_mask="ones"))
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space
from pettingzoo.utils.wrappers import BaseParallelWrapper


def _keys(obs_key, mask_key) -> tuple[str, str]:
    if not (isinstance(obs_key, str) and isinstance(mask_key, str) and obs_key != mask_key):
        raise ValueError(f"obs_key and mask_key must be two different strings, got {obs_key!r}, {mask_key!r}")
    return obs_key, mask_key


def _space(obs_space: spaces.Space, action_space: spaces.Space, obs_key: str, mask_key: str) -> spaces.Dict:
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"MaskInObservation needs a Discrete action space, got {action_space}")
    mask = spaces.Box(0, 1, (int(action_space.n),), dtype=np.bool_)
    return spaces.Dict({obs_key: obs_space, mask_key: mask})


def _mask_of(info) -> np.ndarray:
    if "action_mask" not in info:
        raise ValueError('MaskInObservation: the wrapped env gave no info["action_mask"]')
    return np.asarray(info["action_mask"]).astype(np.bool_)


class MaskInObservation(gymnasium.Wrapper):
    """``{"obs": observation, "mask": action mask (bool)}`` as the observation
    of a single-agent view whose info carries ``"action_mask"`` (every
    boardenvs gymnasium id does, on every step)."""

    def __init__(self, env: gymnasium.Env, obs_key: str = "obs", mask_key: str = "mask"):
        super().__init__(env)
        self.obs_key, self.mask_key = _keys(obs_key, mask_key)
        self.observation_space = _space(env.observation_space, env.action_space, obs_key, mask_key)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._with_mask(obs, info), reward, terminated, truncated, info

    def _with_mask(self, obs, info) -> dict:
        return {self.obs_key: obs, self.mask_key: _mask_of(info)}


class VectorMaskInObservation(gymnasium.vector.VectorWrapper):
    """:class:`MaskInObservation` over a gymnasium vector env whose infos
    carry ``"action_mask"`` as one ``(num_envs, n)`` array (the boardenvs ids
    under ``gymnasium.make_vec``): the observation is
    ``{"obs": (num_envs, ...), "mask": (num_envs, n) bool}``."""

    def __init__(self, env: gymnasium.vector.VectorEnv, obs_key: str = "obs", mask_key: str = "mask"):
        super().__init__(env)
        self.obs_key, self.mask_key = _keys(obs_key, mask_key)
        self.single_observation_space = _space(env.single_observation_space, env.single_action_space, obs_key, mask_key)
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def reset(self, *, seed=None, options=None):
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs, infos), infos

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        return self._with_mask(obs, infos), rewards, terminations, truncations, infos

    def _with_mask(self, obs, infos) -> dict:
        mask = _mask_of(infos)
        if mask.shape != (self.num_envs, self.single_action_space.n):
            raise ValueError(f'VectorMaskInObservation: infos["action_mask"] of shape {mask.shape}, not a row per env')
        return {self.obs_key: obs, self.mask_key: mask}


class ObservationWithoutMask(BaseParallelWrapper):
    """A parallel env whose agents observe ``obs[agent]["observation"]``
    only, the mask left in ``infos[agent]["action_mask"]`` (every boardenvs
    parallel env puts it there on every step): the shape AgileRL's IPPO
    asks for."""

    def __init__(self, env):
        super().__init__(env)
        space = env.observation_space(env.possible_agents[0])
        if not (isinstance(space, spaces.Dict) and "observation" in space.spaces):
            raise ValueError(f'ObservationWithoutMask needs observations {{"observation": ...}}, got {space}')

    def observation_space(self, agent):
        return self.env.observation_space(agent)["observation"]

    # (through the base class: PettingZoo 1.24's keeps the wrapper's `agents` there)
    def reset(self, seed=None, options=None):
        obs, infos = super().reset(seed=seed, options=options)
        return self._strip(obs, infos), infos

    def step(self, actions):
        obs, rewards, terminations, truncations, infos = super().step(actions)
        return self._strip(obs, infos), rewards, terminations, truncations, infos

    @staticmethod
    def _strip(obs, infos) -> dict:
        if any("action_mask" not in infos.get(agent, {}) for agent in obs):
            raise ValueError('ObservationWithoutMask: the wrapped env gave no infos[agent]["action_mask"]')
        return {agent: o["observation"] for agent, o in obs.items()}
