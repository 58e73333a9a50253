"""Dice: chance nodes resolved by a seeded die, and the dice variant of the
deterministic games.

**Chance nodes.**  The game core exposes every die roll as a chance node
(OpenSpiel-style): ``Position.to_move == -1``, ``legal_moves()`` lists the
outcomes (``roll 1`` .. ``roll 6`` in Tryasina) and ``chance_outcomes()``
their probabilities, so planners and replays set the roll themselves.  The
envs agents use resolve them with one component, the *seeded die*
:meth:`boardenvs.game.Game.draw_chance` (an outcome drawn by its
probability from the env's generator, which ``reset(seed=...)`` fixes):

* the registered env (``boardenvs.make("tryasina_v0")``) and the raw env by
  default roll inside, so agents only ever see decisions;
* the raw env's raw mode ``raw_env(chance_agent=True)`` exposes each chance
  node as the turn of the agent ``"chance"`` instead, and
  :class:`ResolveChance` over it rolls that agent's turns with the same
  die: ``ResolveChance(raw_env(chance_agent=True))`` plays exactly the
  trajectory of ``raw_env()`` for the same seed and actions;
* ``make_vec`` rolls the same die inside its kernels, from each row's own
  generator.

**The dice variant** (:class:`DiceVariant`, deterministic games only).
Before each turn a die picks one class of actions (the game's
``Game.action_class_names``: Quess the shape to move, Quagmire walk / run /
jump, Quicksand the pyramid size, Hex Quoridor move / fence), and the mover
may play only actions of that class; a class with no legal action is
re-rolled.  The roll is in the observation (``"roll"``, one-hot over the
classes).  A game whose legal actions at the start of a turn belong to no
class (Quagmire's placements) plays that turn unrestricted, with no roll.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from .. import engine as E
from ..aec import CHANCE_AGENT
from ..errors import IllegalActionError
from ..position import turn_over
from ..spaces import LegalDiscrete, LegalOf
from ..spec import is_action_int


class ResolveChance(BaseWrapper):
    """Plays the ``"chance"`` agent of a raw env built with
    ``chance_agent=True`` with the seeded die (``Game.draw_chance``), so the
    agents seen through this wrapper are the players only."""

    def __init__(self, env):
        super().__init__(env)
        raw = env.unwrapped
        if CHANCE_AGENT not in raw.possible_agents:
            raise ValueError(
                f"{raw.game.env_id}: ResolveChance needs a raw env with chance nodes built with chance_agent=True"
            )
        self.possible_agents = [a for a in raw.possible_agents if a != CHANCE_AGENT]

    @property
    def agents(self):
        return [a for a in self.env.agents if a != CHANCE_AGENT]

    @property
    def agent_selection(self):
        return self.env.agent_selection

    @property
    def rewards(self):
        return {a: r for a, r in self.env.rewards.items() if a != CHANCE_AGENT}

    @property
    def _cumulative_rewards(self):
        return {a: r for a, r in self.env._cumulative_rewards.items() if a != CHANCE_AGENT}

    @property
    def terminations(self):
        return {a: v for a, v in self.env.terminations.items() if a != CHANCE_AGENT}

    @property
    def truncations(self):
        return {a: v for a, v in self.env.truncations.items() if a != CHANCE_AGENT}

    @property
    def infos(self):
        return {a: v for a, v in self.env.infos.items() if a != CHANCE_AGENT}

    def _roll(self):
        raw = self.env.unwrapped
        while self.env.agents and self.env.agent_selection == CHANCE_AGENT:
            if raw.is_done(CHANCE_AGENT):
                self.env.step(None)
            else:
                self.env.step(raw.roll_chance())

    def reset(self, seed=None, options=None):
        self.env.reset(seed=seed, options=options)
        self._roll()

    def step(self, action):
        self.env.step(action)
        self._roll()

    def last(self, observe=True):
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )


class DiceVariant(BaseWrapper):
    """The dice variant of a deterministic game (see the module docstring):
    ``DiceVariant(boardenvs.make("quess_v0"))``.

    Observations gain ``"roll"`` (int8 one-hot over the game's classes, all
    zeros while no roll restricts the turn) and the action mask keeps only
    the rolled class.  The rolls come from a generator seeded by the env's
    own at ``reset(seed=...)``, so a seed fixes them too.  An action outside
    the rolled class is handled like any illegal action, by the env's
    ``illegal_action`` mode: ``"raise"`` (IllegalActionError, nothing
    changes), ``"random"`` (a random action of the rolled class instead) or
    ``"lose"`` (the mover forfeits).
    """

    def __init__(self, env):
        super().__init__(env)
        raw = env.unwrapped
        game = raw.game
        if not game.action_class_names:
            raise ValueError(
                f"{game.env_id} has no dice variant: its game declares no action classes "
                "(Game.action_class_names / Game.action_classes)"
                + ("; it has its own dice (chance nodes)" if game.num_chance_outcomes else "")
            )
        if game.num_chance_outcomes:
            raise ValueError(f"{game.env_id} has chance nodes of its own; the dice variant is for deterministic games")
        self.class_names = tuple(game.action_class_names)
        k = len(self.class_names)
        self._obs_spaces = {  # (not observation_spaces: PettingZoo 1.24-1.26's BaseWrapper makes that a property)
            a: spaces.Dict({**raw.observation_space(a).spaces, "roll": spaces.Box(0, 1, (k,), np.int8)})
            for a in raw.possible_agents
        }
        # sample() draws from the rolled class (boardenvs.spaces.LegalDiscrete)
        self._act_spaces = {a: LegalDiscrete(raw.action_space(a).n, LegalOf(self, a)) for a in raw.possible_agents}
        self.roll = -1  # the rolled class, -1 while no roll restricts the turn
        self._allowed = None
        self._turn_state = None

    @property
    def _cumulative_rewards(self):  # (PettingZoo's last() reads it; 1.24-1.26's wrappers forward no private name)
        return self.env._cumulative_rewards

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def legal_mask_of(self, agent):
        mask = self.env.unwrapped.legal_mask_of(agent)
        if mask is None or self._allowed is None:
            return mask
        return (mask & self._allowed).astype(np.int8)

    def reset(self, seed=None, options=None):
        self.env.reset(seed=seed, options=options)
        self._turn_state = None
        self._new_turn()
        self._note_mask()

    def _note_mask(self) -> None:
        """The agent to act's ``infos[agent]["action_mask"]`` keeps only the
        rolled class, as its observation's mask does."""
        raw, agent = self.env.unwrapped, self.agent_selection
        if self._allowed is not None and agent in raw.infos:
            info = raw.infos[agent]
            raw.infos[agent] = {**info, "action_mask": (info["action_mask"] & self._allowed).astype(np.int8)}

    def _new_turn(self):
        """After every change: roll when a new turn starts."""
        raw = self.env.unwrapped
        state = raw.state_snapshot()
        if state[E.H_STATUS] != E.PLAYING:
            self.roll = -1
            self._allowed = None
            return
        if self._turn_state is not None and not turn_over(self._turn_state, state):
            self._allowed = None  # later decisions of a turn are free
            return
        self._turn_state = state.copy()
        game = raw.game
        classes = np.asarray(game.action_classes(state))[: game.num_actions]
        legal = game.legal_mask(state)[: game.num_actions].astype(bool)
        possible = np.unique(classes[legal & (classes >= 0)])
        if possible.size == 0:
            self.roll, self._allowed = -1, None
            return
        k = len(self.class_names)
        every = np.ones(k, np.int8)
        roll = raw.random_of(every)  # the game row's own generator, seeded at reset(seed=...)
        while roll not in possible:  # that class has no legal action: roll again
            roll = raw.random_of(every)
        self.roll = roll
        self._allowed = (classes == roll).astype(np.int8)

    def observe(self, agent):
        obs = self.env.observe(agent)
        if obs is None:
            return None
        roll = np.zeros(len(self.class_names), np.int8)
        if self.roll >= 0:
            roll[self.roll] = 1
        mask = obs["action_mask"]
        if self._allowed is not None and agent == self.agent_selection:
            mask = mask & self._allowed
        return {"observation": obs["observation"], "action_mask": mask, "roll": roll}

    def step(self, action):
        self._step(action)
        self._note_mask()

    def _step(self, action):
        raw = self.env.unwrapped
        agent = self.agent_selection
        if raw.is_done(agent):  # a finished agent's step changes no game: the turn's roll stands
            self.env.step(action)
            return
        if self._allowed is None or action is None or not is_action_int(action):
            self.env.step(action)  # no roll restricts this decision (or the env refuses it itself)
            self._new_turn()
            return
        a = int(action)
        mask = raw.legal_mask_of(agent)
        in_game = mask is not None and 0 <= a < self._allowed.shape[0] and mask[a]
        if in_game and self._allowed[a]:
            self.env.step(a)
        elif raw.illegal_action == "random":  # a random action of the rolled class instead
            problem = f"not legal now for the roll {self.class_names[self.roll]!r}"
            self.env.step(raw.random_of(mask & self._allowed))  # drawn by the row's generator
            raw.infos[agent] = {**raw.infos[agent], "illegal_action": True}
            raw.warn_illegal(f"{agent} sent {action!r}: {problem}")
        elif not in_game:
            self.env.step(action)  # the env raises or forfeits with its own message
        else:
            problem = (
                f"not of the rolled class {self.class_names[self.roll]!r}: "
                f"{raw.game.describe_action(raw.state_snapshot(), a)}"
            )
            if raw.illegal_action == "raise":
                raise IllegalActionError(f"{raw.game.env_id}: {agent} sent {action!r}: {problem}")
            raw.warn_illegal(f"{agent} sent {action!r}: {problem}")  # (before the env's own note)
            self.env.step(raw.game.num_actions)  # "lose": an id outside the space forfeits the mover
            raw.infos[agent] = {**raw.infos[agent], "illegal_action": True}
        self._new_turn()
