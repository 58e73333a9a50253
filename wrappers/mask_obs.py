"""The action mask inside the observation, for trainers that read it there.

The single-agent gymnasium view hands the learner's mask out the way
gymnasium and sb3-contrib expect: ``info["action_mask"]`` and the
``action_masks()`` method.  Some trainers look for it in the observation
instead: Tianshou's DQN and its random policies read ``batch.obs.mask`` (and
the network ``batch.obs.obs``).  :class:`MaskInObservation` gives them that
shape, ``{"obs": <the view's observation>, "mask": <bool mask>}``::

    env = MaskInObservation(gymnasium.make("boardenvs/Quess-v0"))

The mask is the same as ``info["action_mask"]`` of the step, as bools; the
info is passed on unchanged.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces


class MaskInObservation(gymnasium.Wrapper):
    """``{"obs": observation, "mask": action mask (bool)}`` as the observation
    of a single-agent view whose info carries ``"action_mask"`` (every
    boardenvs gymnasium id does, on every step)."""

    def __init__(self, env: gymnasium.Env, obs_key: str = "obs", mask_key: str = "mask"):
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise ValueError(f"MaskInObservation needs a Discrete action space, got {env.action_space}")
        if not (isinstance(obs_key, str) and isinstance(mask_key, str) and obs_key != mask_key):
            raise ValueError(f"obs_key and mask_key must be two different strings, got {obs_key!r}, {mask_key!r}")
        self.obs_key, self.mask_key = obs_key, mask_key
        self.observation_space = spaces.Dict(
            {obs_key: env.observation_space, mask_key: spaces.MultiBinary(int(env.action_space.n))}
        )

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._with_mask(obs, info), reward, terminated, truncated, info

    def _with_mask(self, obs, info) -> dict:
        if "action_mask" not in info:
            raise ValueError('MaskInObservation: the wrapped env gave no info["action_mask"]')
        mask = np.asarray(info["action_mask"]).astype(np.bool_)
        return {self.obs_key: obs, self.mask_key: mask}
