"""PettingZoo's AEC loop: the no-op env (the API's own ceiling) and the
PettingZoo classic anchors.

Every AEC row, boardenvs' included, is timed by :func:`aec_stepper`:
PettingZoo's own loop (``agent_iter`` / ``last`` / ``step``, dead steps
counted, a random legal action from the mask every decision).  The no-op env
has a game's spaces, agent count and wrapper but no rules, so boardenvs' AEC
row divided by it says how much of the API's ceiling the rules leave; the
classic connect_four / chess / go 9x9 envs (the ``bench`` extra) are
PettingZoo's own board games, timed by the same loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import bench_harness
import numpy as np
from bench_harness import Row, chunked
from gymnasium import spaces
from pettingzoo import AECEnv

PETTINGZOO_GAMES = ("connect_four", "chess", "go_9x9")


class NoopEnv(AECEnv):
    """The API's own ceiling: ``num_agents`` agents, a constant observation
    and mask, games of a fixed length, no rules at all; same wrapper stack as
    ours."""

    metadata = {"render_modes": [], "name": "noop_v0", "is_parallelizable": False}

    def __init__(self, num_actions=1296, length=120, obs_shape=(6, 6, 8), num_agents=2):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.length = length
        self._obs = {"observation": np.zeros(obs_shape, np.int8), "action_mask": np.ones(num_actions, np.int8)}
        box = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, obs_shape, np.int8),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: box for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.t = 0

    def observe(self, agent):
        return {"observation": self._obs["observation"].copy(), "action_mask": self._obs["action_mask"].copy()}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.t += 1
        self._cumulative_rewards[agent] = 0
        if self.t >= self.length:
            for a in self.agents:
                self.terminations[a] = True
            self.rewards = {a: 1.0 if a == "player_0" else -1.0 for a in self.agents}
        self.agent_selection = self.agents[self.t % len(self.agents)]
        self._accumulate_rewards()


def _classic_stepper(module, kwargs: dict):
    """The AEC stepper of a PettingZoo classic env module with its options."""
    return aec_stepper(lambda: module.env(**kwargs))


def aec_stepper(make_env, seed: int = 0, chunk: int = 64) -> Callable[[], int]:
    """PettingZoo's loop over games of ``make_env()``, ``chunk`` steps a call."""
    env = make_env()
    rng = np.random.default_rng(seed)

    def play():
        game = 0
        while True:
            env.reset(seed=seed + game)
            game += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
                env.step(action)
                yield

    return chunked(play(), chunk)


def pettingzoo_rows(sizes, env_ids, log=print) -> list[Row]:
    """The classic anchors (one AEC env each, whatever the sizes and games), or none with the reason logged."""
    rows = []
    try:
        classic = {
            name: bench_harness.optional_import(f"pettingzoo.classic.{mod}")
            for name, mod in (("connect_four", "connect_four_v3"), ("chess", "chess_v6"), ("go_9x9", "go_v5"))
        }
    except Exception as exc:
        log(f"PettingZoo classic anchors skipped: {exc}; pip install '.[bench]' (in a clone)")
    else:
        kwargs = {"go_9x9": {"board_size": 9}}
        for name in PETTINGZOO_GAMES:
            rows.append(
                Row(
                    "PettingZoo",
                    name,
                    "AEC",
                    1,
                    setup=functools.partial(_classic_stepper, classic[name], kwargs.get(name, {})),
                )
            )
    return rows
