"""Potential-based reward shaping with a game's own heuristic (``--shaping``)."""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from .greedy import heuristic_of


class ShapedRewards(VecEnvWrapper):
    """Potential-based reward shaping (Ng, Harada & Russell, 1999): the
    learner's reward becomes ``r + gamma * phi(s') - phi(s)`` with
    ``phi(s) = coef * tanh(h / scale)``, ``h`` the game's own heuristic (the
    greedy opponent's evaluation, ``TOOLS["greedy"]["heuristic"]``) of the state at the
    learner's decision, for the learner's seat, and ``phi = 0`` once the game
    is over.  Shaping of this form leaves the optimal policies unchanged; it
    only gives the learner a denser signal.  The episode statistics SB3 logs
    (``rollout/ep_rew_mean``) stay the game's own rewards."""

    def __init__(self, venv, coef: float, scale: float, gamma: float):
        super().__init__(venv)
        inner = venv.venv  # SB3VecEnv -> SingleAgentVectorEnv
        self.inner, self.coef, self.scale, self.gamma = inner, float(coef), float(scale), float(gamma)
        game = inner.game
        heuristic = heuristic_of(game)
        if heuristic is None:
            raise ValueError(f"{inner.env_id} has no heuristic to shape rewards with")
        self.heuristic, self.params = heuristic, game.params
        self.scratch = np.zeros(game.mask_size, np.int8)
        self.phi = np.zeros(venv.num_envs)

    def _potentials(self) -> np.ndarray:
        states, seats = np.array(self.inner.vec.states), self.inner.seats  # the heuristic kernels take writable rows
        h = np.array([self.heuristic(states[i], self.params, int(seats[i]), self.scratch) for i in range(len(seats))])
        return self.coef * np.tanh(h / self.scale)

    def reset(self):
        obs = self.venv.reset()
        self.phi = self._potentials()
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        phi = self._potentials()  # a finished row is at its next game's start already
        rewards = rewards + (self.gamma * np.where(dones, 0.0, phi) - self.phi).astype(np.float32)
        self.phi = phi
        return obs, rewards, dones, infos
