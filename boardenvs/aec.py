"""The PettingZoo AEC face: one generic class that drives any game's kernels."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import engine as E
from .errors import IllegalActionError
from .game import Game
from .position import Position

ILLEGAL_ACTION_MODES = ("raise", "lose", "random")


class BoardEnv(AECEnv):
    """A PettingZoo AEC env over one game's kernels (see each game module for
    its card: agents, actions, observation, rewards, options).

    Options common to all games:

    * ``render_mode``: ``"ansi"`` or ``"rgb_array"``;
    * ``illegal_action``: ``"raise"`` (default: an IllegalActionError, state
      untouched); ``"lose"`` (the offender gets -1, the others 0, and the game
      ends, PettingZoo classic's convention); ``"random"`` (an out-of-range or
      masked-out int is replaced by a uniformly random legal action from the
      env's seeded generator and ``infos[agent]["illegal_action"]`` says so:
      for mask-unaware policies such as PettingZoo's ``max_cycles_test``,
      which samples the whole action space; a non-int still raises);
    * ``max_cycles``: PettingZoo's name for the length limit: the game is
      truncated once every agent has been asked ``max_cycles`` times, i.e.
      ``max_turns = max_cycles * num_players`` (give one or the other);
    * the game's own options (``first_player``, ``max_turns``, ...).

    Chance nodes are resolved with the env's seeded generator, so agents only
    ever see decisions.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        game_cls: type[Game],
        render_mode: str | None = None,
        illegal_action: str = "raise",
        max_cycles: int | None = None,
        **options,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.game = game_cls(**options)
        if max_cycles is not None:
            self.game = game_cls(**_cycles_as_turns(options, max_cycles, self.game.num_players))
        self.metadata = {**self.metadata, "name": self.game.env_id}
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.possible_agents = self.game.agents
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n_act = self.game.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, self.game.obs_shape, np.int8),
                "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
        self._state = None
        self._no_mask = np.zeros(n_act, np.int8)
        self.np_random, self.np_random_seed = seeding.np_random()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- episode ----------------------------------------------------------
    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        first = int(self.game.params[E.P_FIRST])
        if first < 0:  # C-2 "random": drawn from the seeded generator
            first = int(self.np_random.integers(self.game.num_players))
        self._state = self.game.new_state(first, rng_seed=int(self.np_random.integers(2**62)))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._alive = int(self._state[E.H_ALIVE])
        self._settle()

    def observe(self, agent):
        seat = self._seat[agent]
        mask = self._mask if agent == self.agent_selection and not self._done(agent) else self._no_mask
        return {"observation": self.game.observe(self._state, seat), "action_mask": mask.copy()}

    def step(self, action):
        if self._state is None or not self.agents:
            raise IllegalActionError(f"step({action!r}) after the game ended: call reset() first")
        agent = self.agent_selection
        if self._done(agent):
            if action is not None:
                raise IllegalActionError(f"{agent} is done; its only valid action is None, got {action!r}")
            self._was_dead_step(action)
            return
        problem = self._check(action)
        seat = self._seat[agent]
        if "illegal_action" in self.infos[agent]:  # said of an earlier step ("random")
            self.infos[agent] = {k: v for k, v in self.infos[agent].items() if k != "illegal_action"}
        if problem:
            if self.illegal_action == "raise" or (self.illegal_action == "random" and not _is_int(action)):
                raise IllegalActionError(f"{self.game.env_id}: {agent} sent {action!r}: {problem}")
            self.infos[agent] = {**self.infos[agent], "illegal_action": f"{action!r}: {problem}"}
            if self.illegal_action == "lose":
                E.forfeit(self._state, seat, E.REASON_ILLEGAL)
            else:
                substitute = int(self.np_random.choice(np.flatnonzero(self._mask)))
                self.game.kernels.apply(self._state, self.game.params, substitute)
        else:
            self.game.kernels.apply(self._state, self.game.params, int(action))
        self._cumulative_rewards[agent] = 0.0
        self._settle()
        self._accumulate_rewards()

    def _check(self, action) -> str:
        """Why ``action`` is illegal for the agent to act, or '' if it is legal."""
        if action is None:
            return "None is only valid for an agent that is done"
        if not _is_int(action):
            return f"an action is an int in 0..{self.game.num_actions - 1}, not {type(action).__name__}"
        action = int(action)
        if not 0 <= action < self.game.num_actions:
            return f"outside the action space 0..{self.game.num_actions - 1}"
        if not self._mask[action]:
            return f"masked out ({self.game.describe_action(self._state, int(action))} is not legal now)"
        return ""

    def _done(self, agent) -> bool:
        return self.terminations[agent] or self.truncations[agent]

    def _settle(self):
        """After the state changed: resolve chance, refresh the mask, and hand
        the ended agents their rewards and flags."""
        state = self._state
        game = self.game
        while state[E.H_STATUS] == E.PLAYING and state[E.H_CURRENT] == E.CHANCE:
            probs = game.chance_probs(state)
            game.kernels.apply(state, game.params, int(self.np_random.choice(len(probs), p=probs)))
        status = state[E.H_STATUS]
        if status == E.PLAYING:
            # the kernels' mask also spans the chance outcomes, which may
            # outnumber the actions (a die with more faces than moves)
            self._mask = game.legal_mask(state)[: game.num_actions]
        else:
            self._mask = self._no_mask
        self.agent_selection = self.possible_agents[int(state[E.H_CURRENT])]
        alive = int(state[E.H_ALIVE])
        if status == E.PLAYING and alive == self._alive:
            return  # the common case: nobody's episode ended
        self._alive = alive
        newly_done = False
        for agent in self.agents:
            if self._done(agent):
                continue
            seat = self._seat[agent]
            if status != E.PLAYING or not (alive >> seat) & 1:
                self.rewards[agent] = float(state[E.H_RET + seat])
                self.terminations[agent] = status == E.TERMINATED or not (alive >> seat) & 1
                self.truncations[agent] = status == E.TRUNCATED and (alive >> seat) & 1 == 1
                self.infos[agent] = {**self.infos[agent], "end_reason": game.end_reason(state)}
                newly_done = True
        if newly_done:
            self._deads_step_first()

    def adjudicate(self, winner: str | None, reason: int = E.REASON_TIMEOUT):
        """End the game now with ``winner`` (+1, others -1) or a draw (None).
        For out-of-rules endings such as a flag fall (QU-12)."""
        if winner is None:
            E.draw(self._state, reason)
        else:
            E.win_seat(self._state, self._seat[winner], reason)
        for agent in self.agents:
            self.rewards[agent] = 0.0
            self.terminations[agent] = False
            self.truncations[agent] = False
        self._alive = -1  # force the end-of-game bookkeeping
        self._settle()
        for agent in self.agents:
            self._cumulative_rewards[agent] = self.rewards[agent]

    # -- faces ----------------------------------------------------------------
    def position(self) -> Position:
        """A snapshot of the live game as a Position (independent copy)."""
        return Position(self.game, self._state.copy())

    def action_to_move(self, action: int) -> str:
        return self.game.action_to_move(self._state, action)

    def move_to_action(self, move: str) -> int:
        return self.game.move_to_action(self._state, move)

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self._state is None:
            raise RuntimeError("render() before reset()")
        if self.render_mode == "ansi":
            return self.game.render_ansi(self._state)
        return self.game.render_rgb(self._state)

    def close(self):
        pass


def _cycles_as_turns(options: dict, max_cycles, turns_per_cycle: int) -> dict:
    """``options`` with PettingZoo's ``max_cycles`` given as ``max_turns``."""
    if "max_turns" in options:
        raise ValueError("give max_turns or max_cycles, not both")
    if not _is_int(max_cycles) or max_cycles < 1:
        raise ValueError(f"max_cycles must be a positive int, got {max_cycles!r}")
    return {**options, "max_turns": int(max_cycles) * turns_per_cycle}


def _is_int(action) -> bool:
    """An int, a numpy integer or a 0-d integer array (what ``Discrete.sample`` gives)."""
    if isinstance(action, np.ndarray):
        return action.shape == () and np.issubdtype(action.dtype, np.integer)
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, except that a step after the game ended
    raises (C-6) where PettingZoo's only logs a warning."""

    def step(self, action):
        if self._has_reset and not self.agents:
            raise IllegalActionError(f"step({action!r}) after the game ended: call reset() first")
        super().step(action)


def wrap(raw: BoardEnv):
    """The wrapper stack of the registered env: order enforcing (step/observe
    before reset, and the like) over the raw env, which does its own C-6
    checks (PettingZoo's AssertOutOfBounds/TerminateIllegal wrappers raise
    AssertionError and skip wrong types, so they do not fit C-6)."""
    return OrderEnforcing(raw)


def turn_based_parallel(env_fn, max_cycles: int | None = None, **options):
    """The PettingZoo parallel view of a turn-based env (PettingZoo's own
    ``turn_based_aec_to_parallel``): every live agent sends an action each
    step, only the action of the agent to act is played, and
    ``infos[agent]["active_agent"]`` names it.  Every agent is asked once per
    parallel step, so ``max_cycles`` parallel steps are ``max_cycles`` turns."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    if max_cycles is not None:
        options = _cycles_as_turns(options, max_cycles, 1)
    return turn_based_aec_to_parallel(env_fn(**options))
