"""A game as an RLlib ``MultiAgentEnv``: every seat an agent, the engine's one step and the agent book."""

from __future__ import annotations

import threading

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .. import engine as E
from ..book import AgentBook
from ..errors import IllegalActionError
from ..illegal import reported, why_not
from ..registry import make_game, registered_ids
from ..spaces import LegalDiscrete, LegalOf
from ..spec import ILLEGAL_ACTION_DEFAULT, check_flag, check_illegal_action, check_seed
from .module import MASK_KEY, OBS_KEY


class BoardMultiAgentEnv(MultiAgentEnv):
    """A game as an RLlib ``MultiAgentEnv`` (see the module docstring).

    ``env_config``: the game's options, and ``env_id`` (the game),
    ``illegal_action`` ("lose", "raise", "random"), ``flatten`` (False:
    the planes, True: one vector)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        env_id = config.pop("env_id", None)
        if env_id is None:
            raise ValueError(f"BoardMultiAgentEnv needs env_config['env_id'] (one of {', '.join(registered_ids())})")
        illegal = check_illegal_action(config.pop("illegal_action", ILLEGAL_ACTION_DEFAULT), f"{env_id}: ")
        flatten = check_flag("flatten", config.pop("flatten", False), f"{env_id}: ")  # ("no" is not False)
        config.pop("num_envs", None)  # RLlib's vector hint: one game per env here
        self.game = game = make_game(env_id, **config)
        self.env_id, self.illegal_action, self.flatten = env_id, illegal, flatten
        info = game.info
        low, high = (info.obs_low.ravel(), info.obs_high.ravel()) if flatten else (info.obs_low, info.obs_high)
        obs_space = gymnasium.spaces.Dict(
            {
                OBS_KEY: gymnasium.spaces.Box(low, high, low.shape, np.int8),
                MASK_KEY: gymnasium.spaces.Box(0, 1, (info.num_actions,), np.int8),
            }
        )
        self.possible_agents = list(game.agents)
        self.agents = []
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: LegalDiscrete(info.num_actions, LegalOf(self, a)) for a in self.possible_agents}
        self._state = None
        self._mask = np.zeros(game.mask_size, np.int8)  # the engine's mask of the row, kept current by its step
        self._warned_illegal = False  # (boardenvs.illegal: the first illegal action is said once)
        self._book = AgentBook(game, self.possible_agents)  # whose episode ended, and how (the AEC env's too)
        self.np_random = np.random.default_rng()
        self._call_lock = threading.RLock()  # reset / step take turns between threads

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_call_lock", None)
        return state

    def __setstate__(self, state):
        """An unpickled env: its row checked as a Position's (C-6), its mask
        computed again from it (what the step trusts is never a pickle's)."""
        self.__dict__.update(state)
        self._call_lock = threading.RLock()
        game = self.game
        self._mask = np.zeros(game.mask_size, np.int8)
        if self._state is not None:
            self._state = row = self._state.copy() if isinstance(self._state, np.ndarray) else self._state
            game.check_row(row, "an unpickled env's row")
            game.settle(row, self._mask, resolve=False)

    # -- RLlib's API ------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        with self._call_lock:
            return self._reset(seed)

    def step(self, action_dict):
        """The action of the agent to act (calls from two threads take turns)."""
        with self._call_lock:
            return self._step(action_dict)

    def _reset(self, seed):
        if seed is not None:
            self.np_random = np.random.default_rng(check_seed(seed))
        game = self.game
        first = int(game.params[E.P_FIRST])
        if first < 0:
            first = int(self.np_random.integers(game.num_players))
        self._state = game.new_state(first, rng_seed=int(self.np_random.integers(2**62)))
        game.settle(self._state, self._mask)  # the seeded die, the mask of whoever acts
        self.agents = list(self.possible_agents)
        self._book.reset(self._state)
        return self._observe(), {a: {} for a in self._observe()}

    def _step(self, action_dict):
        if self._state is None:
            raise ValueError(f"{self.env_id}: step() before reset()")
        game, state = self.game, self._state
        agent = self._to_act()
        if agent is None or set(action_dict) != {agent}:
            raise IllegalActionError(
                f"{self.env_id}: step() takes the action of the agent to act, {agent!r}; got {sorted(action_dict)}"
            )
        action = action_dict[agent]
        whole = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
        # the engine's one step with the illegal_action mode ("random": the row's own generator draws;
        # "raise": it refuses, nothing changes); an action that is no action id is played as -1, always
        # illegal (never the engine's own code for a random action)
        played = int(action) if whole and 0 <= int(action) < game.mask_size else -1
        problem = "" if played >= 0 and self._mask[played] else why_not(action, self._mask[: game.num_actions])
        flag = game.step(state, played, self._mask, mode=E.ILLEGAL_MODES[self.illegal_action])
        what = f"{agent} sent {action!r}: {problem}"
        illegal = reported(self, flag, self.env_id, what, self.illegal_action, 'infos[agent]["illegal_action"]')
        infos = {agent: {"illegal_action": True}} if illegal else {}
        self._book.asked_once(int(self.possible_agents.index(agent)))
        rewards, terminateds, truncateds = {agent: 0.0}, {}, {}  # the actor's step reward (RLlib wants one per action)
        for end in self._book.ends(state):
            rewards[end.agent] = end.reward
            terminateds[end.agent], truncateds[end.agent] = end.terminated, end.truncated
            infos.setdefault(end.agent, {}).update(end.info)
        over = state[E.H_STATUS] != E.PLAYING
        terminateds["__all__"] = bool(over and state[E.H_STATUS] == E.TERMINATED)
        truncateds["__all__"] = bool(over and state[E.H_STATUS] == E.TRUNCATED)
        self.agents = [a for a in self.possible_agents if a not in self._book.done]
        # a truncated agent gets its last observation (RLlib bootstraps its value from it)
        obs = self._observe(last=[a for a, cut in truncateds.items() if cut and a != "__all__"])
        for a in obs:
            infos.setdefault(a, {})
        return obs, rewards, terminateds, truncateds, infos

    # -- inside ---------------------------------------------------------------------------
    def _to_act(self):
        state = self._state
        if state is None or state[E.H_STATUS] != E.PLAYING:
            return None
        return self.possible_agents[int(state[E.H_CURRENT])]

    def legal_mask_of(self, agent):
        """The int8 mask of ``agent`` if it is to act, else None (``action_space(agent).sample()``)."""
        if agent != self._to_act():
            return None
        return self._mask[: self.game.num_actions].copy()

    def _observe(self, last=()) -> dict:
        """The agent to act's observation, and the last one (an empty mask)
        of each agent in ``last``."""
        out = {}
        for agent in last:
            out[agent] = self._observation(agent, np.zeros(self.game.num_actions, np.int8))
        agent = self._to_act()
        if agent is not None:
            out[agent] = self._observation(agent, self.legal_mask_of(agent).astype(np.int8))
        return out

    def _observation(self, agent, mask) -> dict:
        obs = self.game.observe(self._state, self.possible_agents.index(agent))
        return {OBS_KEY: obs.ravel() if self.flatten else obs, MASK_KEY: mask}

    def position(self):
        """A Position snapshot of the game."""
        from ..position import Position

        return Position._own(self.game, self._state.copy())
