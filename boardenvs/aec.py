"""The PettingZoo AEC face: one generic class that drives any game's kernels."""

from __future__ import annotations

import functools
import threading

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from . import engine as E
from .aec_infos import INFO_MODES, AgentInfos
from .book import AgentBook
from .errors import IllegalActionError, ResetNeededError
from .game import Game
from .illegal import reported, why_not
from .position import Position
from .spaces import LegalDiscrete, LegalOf
from .spec import (
    ILLEGAL_ACTION_DEFAULT,
    check_choice,
    check_flag,
    check_illegal_action,
    check_render_mode,
    check_seed,
    check_size,
    is_action_int,
)

MARKED = 'infos[agent]["illegal_action"]'  # where this face marks an illegal action
CHANCE_AGENT = "chance"  # the agent that plays chance nodes in the raw mode chance_agent=True
# BoardEnv._settle reads the header's first five fields in one go
assert (E.H_CURRENT, E.H_STATUS, E.H_ALIVE) == (0, 1, 4)


def _one_at_a_time(method):
    """``method`` of the AEC env, taking its turn with reset / step / observe
    between threads (it reads or changes the env's row through the kernels)."""

    @functools.wraps(method)
    def taking_turns(self, *args, **kwargs):
        with self._call_lock:
            return method(self, *args, **kwargs)

    return taking_turns


class BoardEnv(AgentInfos, AECEnv):
    """A PettingZoo AEC env over one game's kernels (see each game module for
    its card: agents, actions, observation, rewards, options).

    Options common to all games:

    * ``render_mode``: ``"ansi"``, ``"rgb_array"`` or ``"human"`` (a pygame
      window, opened on the first render and released by ``close()``;
      needs ``boardenvs[render]``): the board with its coordinates, the
      legend, whose turn it is, the last move, the result and notes such as
      a chess clock (``boardenvs/render.py``);
    * ``illegal_action`` (C-6, the same on every face; the engine's step's
      modes, :func:`boardenvs._drivers.step_row`): ``"lose"`` (default,
      PettingZoo classic's and Pgx's convention: the offender -1, the others
      0, end reason ``"illegal_action"``), ``"raise"`` (IllegalActionError,
      nothing changes) or ``"random"`` (a random legal action from the game
      row's own generator instead; a non-int still raises).  After such a
      step ``infos[agent]["illegal_action"]`` is True, and a warning is
      logged once per env.  ``action_space(agent).sample()`` draws a legal
      action (:class:`boardenvs.spaces.LegalDiscrete`), so mask-unaware
      checkers such as PettingZoo's ``max_cycles_test`` play whole games;
    * ``max_cycles``: PettingZoo's length limit, in decisions: the game is
      truncated (end reason ``"max_cycles"``) when an agent asked that often
      would be asked again (:class:`boardenvs.book.AgentBook`, the RLlib
      env's too); ``max_turns`` counts the rules' turns.  A seat out of a
      game that goes on ends with ``end_reason`` ``"eliminated"``;
    * ``max_decisions``: truncate after this many decisions in all (the
      parallel view's ``max_cycles``: there every agent is asked every step);
    * ``chance_agent``: ``False`` (default): chance nodes (Tryasina's die)
      are rolled inside the engine's step by the game row's seeded die, as
      ``make_vec`` rolls them; ``True`` (raw mode): each is the turn of one
      more agent, ``"chance"`` (OpenSpiel's chance player: the outcomes as
      actions, their probabilities as its ``float32`` observation, never
      rewarded), so whoever steps it sets the roll (planners, replays;
      :class:`boardenvs.wrappers.dice.ResolveChance` rolls the seeded die);
    * ``infos``: ``"all"`` (default: every key on every step, with one
      type, ``action_mask`` included) or ``"numbers"`` (see
      :mod:`boardenvs.aec_infos`);
    * the game's own options (``first_player``, ``max_turns``, ...).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        game_cls: type[Game],
        render_mode: str | None = None,
        illegal_action: str = ILLEGAL_ACTION_DEFAULT,
        max_cycles: int | None = None,
        max_decisions: int | None = None,
        chance_agent: bool = False,
        infos: str = "all",
        **options,
    ):
        super().__init__()
        where = f"{game_cls.env_id}: "
        check_illegal_action(illegal_action, where)
        check_flag("chance_agent", chance_agent, where)
        self.info_keys = check_choice("infos", infos, INFO_MODES, where)
        self.max_cycles = None if max_cycles is None else check_size("max_cycles", max_cycles, 2**62, where)
        self.max_decisions = None if max_decisions is None else check_size("max_decisions", max_decisions, 2**62, where)
        self.game = game_cls(**options)
        info = self.game.info
        modes = list(self.game.render_modes) + (["human"] if "rgb_array" in self.game.render_modes else [])
        self.metadata = {**self.metadata, "name": self.game.env_id, "render_modes": modes}
        check_render_mode(render_mode, modes, where)
        if render_mode == "human":
            from .render import require_pygame

            require_pygame()  # fail now, with the extra to install, not at the first frame
        self.render_mode = render_mode
        self._window = None
        self._seat_notes = []
        self.illegal_action = illegal_action
        self._warned_illegal = False
        self.chance_agent = bool(chance_agent and info.num_chance_outcomes)
        self.possible_agents = self.game.agents
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n_act = info.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(info.obs_low, info.obs_high, info.obs_shape, np.int8),
                "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: LegalDiscrete(n_act, LegalOf(self, a)) for a in self.possible_agents}
        if self.chance_agent:
            # the last agent, so possible_agents[CHANCE] (index -1) names it
            k = info.num_chance_outcomes
            self.possible_agents = [*self.possible_agents, CHANCE_AGENT]
            self._seat[CHANCE_AGENT] = E.CHANCE
            self.observation_spaces[CHANCE_AGENT] = spaces.Dict(
                {"observation": spaces.Box(0.0, 1.0, (k,), np.float32), "action_mask": spaces.Box(0, 1, (k,), np.int8)}
            )
            self.action_spaces[CHANCE_AGENT] = LegalDiscrete(k, LegalOf(self, CHANCE_AGENT))
            self._no_chance_mask = np.zeros(k, np.int8)
        self._state = None
        self._no_mask = np.zeros(n_act, np.int8)
        self._masked_agent = None  # whose infos hold the live action_mask
        self._observe = self.game.observe  # (read once: PettingZoo's loop observes every step)
        # a mask buffer the legal kernel fills after every step (observe hands out copies)
        self._mask_buffer = np.zeros(self.game.mask_size, np.int8)
        self._book = AgentBook(self.game, self.game.agents, self.max_cycles, self.max_decisions)
        self.np_random, self.np_random_seed = seeding.np_random()
        self._setup()

    # what is derived, not copied: kernel handles, the mask buffer's views
    # (a copy must validate against its own buffer), the human window
    _DERIVED = (
        "_params",
        "_step_row",
        "_settle_row",
        "_probs",
        "_mask_actions",
        "_mask_chance",
        "_mask",
        "_window",
        "_call_lock",
    )

    def _setup(self) -> None:
        """The hot path's handles: the engine's one step on this game's row
        (:meth:`boardenvs.game.Game.one_row`, what ``make_vec`` runs on
        every row), the params, the observation kernel, the views of the
        mask buffer for the agents and for chance."""
        game = self.game
        self._params = game.params
        one = game.one_row()
        self._step_row, self._settle_row = one.step, one.settle
        self._probs = np.zeros(max(game.num_chance_outcomes, 1), np.float64)  # the die's scratch
        self._mask_actions = self._mask_buffer[: game.num_actions]
        self._mask_chance = self._mask_buffer[: game.num_chance_outcomes]
        self._window = None
        for idle in (self._no_mask, getattr(self, "_no_chance_mask", None)):
            if idle is not None:  # handed out in infos: nobody writes into them (an unpickled copy's too)
                idle.flags.writeable = False
        # one call at a time: two threads stepping one env would run the
        # engine's step on its row at once; they take turns instead
        self._call_lock = threading.RLock()
        self._select_mask()

    def _select_mask(self) -> None:
        """``_mask``: the view of the mask buffer for whoever acts now."""
        state = self._state
        if state is None or state[E.H_STATUS] != E.PLAYING:
            self._mask = self._no_mask
        else:
            self._mask = self._mask_chance if state[E.H_CURRENT] == E.CHANCE else self._mask_actions

    def __getstate__(self):
        """``copy.deepcopy`` and ``pickle``: the game, its row, the generator,
        the episode's bookkeeping; the kernel handles, the mask views and a
        window are rebuilt (:meth:`__setstate__`), so a copy validates
        against its own mask and plays on independently."""
        state = dict(self.__dict__)
        for key in self._DERIVED:
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        """An unpickled env: its row checked as a Position's (C-6: a pickle
        is data from outside), the mask the step trusts computed again from
        it, never read from the pickle."""
        self.__dict__.update(state)
        game = self.game
        if not isinstance(game, Game):
            raise ValueError(f"an unpickled env's game must be a boardenvs Game, got {type(game).__name__}")
        self._mask_buffer = np.zeros(game.mask_size, np.int8)
        if self._state is not None:
            row = self._state
            self._state = row = row.copy() if isinstance(row, np.ndarray) else row
            game.check_row(row, "an unpickled env's row")
        self._setup()
        if self._state is not None:
            self._settle_row(self._state, self._params, False, self._probs, self._mask_buffer)

    def legal_mask_of(self, agent):
        """The mask of ``agent`` (int8; the env's own: do not write into it)
        if it is to act now, else None (the action spaces' ``sample()``,
        wrappers such as the dice variant)."""
        if self._state is None or not self.agents or agent != self.agent_selection or self._done(agent):
            return None
        return self._mask

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- episode ----------------------------------------------------------
    # reset, step and observe take turns between threads (the engine's step
    # and the observation kernel read and write the env's one row)
    def reset(self, seed=None, options=None):
        with self._call_lock:
            if seed is not None:
                self.np_random, self.np_random_seed = seeding.np_random(check_seed(seed))
            first = int(self.game.params[E.P_FIRST])
            if first < 0:  # C-2 "random": drawn from the seeded generator
                first = int(self.np_random.integers(self.game.num_players))
            self._state = self.game.new_state(first, rng_seed=int(self.np_random.integers(2**62)))
            self.agents = agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(agents, 0.0)
            self.terminations = dict.fromkeys(agents, False)
            self.truncations = dict.fromkeys(agents, False)
            self.infos = self._first_infos()
            self._masked_agent = None
            self._skip_agent_selection = None
            self._book.reset(self._state)
            self._refresh()
            if self.render_mode == "human":
                self.render()

    def observe(self, agent):
        with self._call_lock:
            state = self._state
            if state is None:
                self._require_reset("observe")
            seat = self._seat[agent]
            acting = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
            if seat == E.CHANCE:
                probs = self.game.chance_probs(state) if acting else np.zeros(self.game.num_chance_outcomes)
                return {
                    "observation": probs.astype(np.float32),
                    "action_mask": (self._mask if acting else self._no_chance_mask).copy(),
                }
            return {
                "observation": self._observe(state, seat),
                "action_mask": (self._mask if acting else self._no_mask).copy(),
            }

    def last(self, observe=True):
        """PettingZoo's ``last()`` (observation, cumulative reward,
        terminated, truncated, info of the agent to act), read here."""
        with self._call_lock:
            agent = self.agent_selection
            if agent not in self._cumulative_rewards:  # every agent's episode is over and gone (a KeyError before)
                raise ResetNeededError(f"last() after the game ended ({agent} is out of it too): call reset() first")
            return (
                self.observe(agent) if observe else None,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )

    def step(self, action):
        with self._call_lock:
            if self._state is None:
                self._require_reset("step")
            if not self.agents:
                raise IllegalActionError(f"step({action!r}) after the game ended: call reset() first")
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                if action is not None:
                    raise IllegalActionError(f"{agent} is done; its only valid action is None, got {action!r}")
                self._was_dead_step(action)
                self._note_mask()
                return
            seat = self._seat[agent]
            mask = self._mask
            # the common case first: a legal plain int
            if type(action) is int and 0 <= action < mask.shape[0] and mask[action]:
                if self.infos[agent]["illegal_action"]:  # a note of an earlier step goes
                    self.infos[agent] = {**self.infos[agent], "illegal_action": False}
                # the engine's one step: apply, the seeded die (unless the chance agent rolls), the next mask
                self._step_row(
                    self._state,
                    self._params,
                    action,
                    E.ILLEGAL_LOSE,
                    not self.chance_agent,
                    self._probs,
                    self._mask_buffer,
                )
                self._book.asked_once(seat)
            else:
                self._step_problem(agent, seat, action)
            self._cumulative_rewards[agent] = 0.0
            if self._settle():
                # someone's episode ended: hand out the rewards.  Otherwise every
                # reward is 0 (a step that ends an agent's episode is followed by
                # that agent's dead step, which clears them), so there is nothing
                # to accumulate
                self._accumulate_rewards()
            if self.render_mode == "human":
                self.render()

    def _step_problem(self, agent, seat, action) -> None:
        """``step`` for an action that is not a legal plain int: the engine's
        step with the ``illegal_action`` mode (``"raise"``: the engine refuses
        and nothing changes; ``"random"``: it plays a uniformly random legal
        action from the game row's own generator; ``"lose"``: the mover
        forfeits).  An action that is no int cannot be replaced: ``"lose"``
        forfeits, the other modes raise.  No one forfeits for chance: a wrong
        outcome always raises."""
        problem = self._check(action)  # (read before the step changes the row)
        whole = is_action_int(action)
        if not problem:  # a numpy integer that is legal
            played = int(action)
        elif not whole:
            played = None if self.illegal_action != "lose" or seat == E.CHANCE else -1
        else:
            # an id outside the actions is -1 to the engine (never its code for a random action)
            played = int(action) if 0 <= int(action) < self._mask_buffer.shape[0] else -1
        mode = E.ILLEGAL_MODES[self.illegal_action] if seat != E.CHANCE else E.ILLEGAL_REFUSE
        flag = (
            E.STEP_REFUSED
            if played is None
            else self._step_row(
                self._state, self._params, played, mode, not self.chance_agent, self._probs, self._mask_buffer
            )
        )
        illegal = flag == E.STEP_ILLEGAL
        if flag != E.STEP_REFUSED and (illegal or self.infos[agent]["illegal_action"]):  # an earlier note goes
            self.infos[agent] = {**self.infos[agent], "illegal_action": illegal}
        # refused: raised, nothing changed, infos included (C-6); else the first illegal action said once
        what, help_ = f"{agent} sent {action!r}: {problem}", self.illegal_action == "raise" and seat != E.CHANCE
        reported(self, flag, self.game.env_id, what, self.illegal_action, MARKED, help_)
        if not (flag == E.STEP_ILLEGAL and mode == E.ILLEGAL_LOSE):  # a forfeit asks nobody
            self._book.asked_once(seat)

    def warn_illegal(self, what: str) -> None:
        """Say the first illegal action of this env (``what`` describes it),
        as every face does (:func:`boardenvs.illegal.reported`)."""
        reported(self, E.STEP_ILLEGAL, self.game.env_id, what, self.illegal_action, MARKED)

    def _check(self, action) -> str:
        """Why ``action`` is illegal for the agent to act, or '' if it is legal."""
        return why_not(action, self._mask, lambda a: self.game.describe_action(self._state, a))

    def _require_reset(self, what: str) -> None:
        if self._state is None:
            raise ResetNeededError(f"{self.game.env_id}: {what}() before reset(): call reset() first")

    def _done(self, agent) -> bool:
        return self.terminations[agent] or self.truncations[agent]

    def _refresh(self, resolve: bool | None = None) -> bool:
        """After the row changed otherwise than by the engine's step (a new
        game, an out-of-rules ending): chance resolved (unless the chance
        agent rolls), the mask refreshed, then :meth:`_settle`."""
        resolve = not self.chance_agent if resolve is None else resolve
        self._settle_row(self._state, self._params, resolve, self._probs, self._mask_buffer)
        return self._settle()

    def _settle(self) -> bool:
        """After the engine's step (or ``_settle_row``) changed the state
        (chance resolved, the mask refreshed: the mask buffer spans the
        chance outcomes too, which may outnumber the actions): the
        ``max_cycles`` limit, and the ended agents' rewards and flags, from
        the agent book (:class:`boardenvs.book.AgentBook`).  True if some
        agent's episode may have ended (then the rewards are set)."""
        state, book = self._state, self._book
        if book.bounded:
            book.limit(state)
        self._select_mask()
        self.agent_selection = self.possible_agents[state[E.H_CURRENT]]
        if book.unchanged(state):
            self._note_mask()
            return False  # the common case: nobody's episode ended
        newly_done = False
        for end in book.ends(state):
            agent = end.agent
            self.rewards[agent] = end.reward
            self.terminations[agent], self.truncations[agent] = end.terminated, end.truncated
            self.infos[agent] = {**self.infos[agent], **end.info}
            if self.info_keys == "numbers":
                del self.infos[agent]["end_reason"]
            newly_done = True
        status = state[E.H_STATUS]
        if status != E.PLAYING and CHANCE_AGENT in self.agents and not self._done(CHANCE_AGENT):
            # the chance agent is never rewarded; it is done when the game is
            self.terminations[CHANCE_AGENT] = bool(status == E.TERMINATED)
            self.truncations[CHANCE_AGENT] = bool(status == E.TRUNCATED)
            if self.info_keys == "all":
                self.infos[CHANCE_AGENT] = {**self.infos[CHANCE_AGENT], "end_reason": self.game.end_reason(state)}
            newly_done = True
        if newly_done:
            self._deads_step_first()
        self._note_mask()
        return True

    @_one_at_a_time
    def adjudicate(self, winner: str | None, reason=E.REASON_TIMEOUT):
        """End the game now with ``winner`` (+1, others -1) or a draw (None),
        for out-of-rules endings such as a flag fall (QU-12); ``reason`` is an
        end reason's code or name (``"timeout"``, or the game's own)."""
        reason = self._reason_code(reason)
        if winner is None:
            E.draw(self._state, reason)
        else:
            E.win_seat(self._state, self._seat[winner], reason)
        for agent in self.agents:
            self.rewards[agent] = 0.0
            self.terminations[agent] = False
            self.truncations[agent] = False
        self._book.forget()  # every agent's end is told again, by the adjudicated returns
        self._refresh(resolve=False)
        for agent in self.agents:
            self._cumulative_rewards[agent] = self.rewards[agent]

    @_one_at_a_time
    def eliminate(self, agent: str, reason="timeout"):
        """Take ``agent`` (the one to act) out of the game for an
        out-of-rules reason, e.g. a fallen flag: in a two-player (or
        two-team, last seat) game the others win; in a game with eliminations
        the others play on without it (``Game.eliminate_seat``); elsewhere
        the game ends as a forfeit (the agent -1, the others 0)."""
        self._require_reset("eliminate")
        if agent != self.agent_selection or self._done(agent):
            raise ValueError(f"{self.game.env_id}: only the agent to act can be eliminated, not {agent!r}")
        code = self._reason_code(reason)
        seat = self._seat[agent]
        for a in self.agents:
            self.rewards[a] = 0.0
        if not self.game.eliminate_seat(self._state, seat, code):
            E.forfeit(self._state, seat, code)
        self._cumulative_rewards[agent] = 0.0
        self._book.recheck()  # the seat is out: its end is told
        self._refresh()  # the game may go on without the agent: chance resolved, the next mover's mask
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _reason_code(self, reason) -> int:
        if isinstance(reason, str):
            from .game import GENERIC_REASONS

            codes = {name: code for code, name in {**GENERIC_REASONS, **self.game.reason_names}.items()}
            if reason not in codes:
                raise ValueError(f"{self.game.env_id}: unknown end reason {reason!r}; expected one of {sorted(codes)}")
            return codes[reason]
        return int(reason)

    # -- public read-outs (what wrappers such as the chess clock use) ---------
    @property
    def end_reason(self) -> str | None:
        """Why the game ended (``"zone"``, ``"timeout"``, ``"max_turns"``, ...),
        or None while it is playing (or before reset)."""
        if self._state is None or self._state[E.H_STATUS] == E.PLAYING:
            return None
        return self.game.end_reason(self._state)

    @property
    def turn(self) -> int:
        """Completed turns (what the rules call moves): a chain of decisions
        by one agent is one turn."""
        self._require_reset("turn")
        return int(self._state[E.H_TURN])

    @_one_at_a_time
    def roll_chance(self) -> int:
        """At a chance node: the outcome the seeded die rolls (the game row's
        own generator, which moves on: :meth:`boardenvs.game.Game.draw_chance`),
        for whoever steps the chance agent (``chance_agent=True``)."""
        self._require_reset("roll_chance")
        if self._state[E.H_STATUS] != E.PLAYING or self._state[E.H_CURRENT] != E.CHANCE:
            raise ValueError(f"{self.game.env_id}: roll_chance() at a chance node only")
        return self.game.draw_chance(self._state)

    @_one_at_a_time
    def random_of(self, mask) -> int:
        """A uniformly random index ``mask`` allows (at least one), from the game
        row's own generator (the engine's die, seeded at ``reset``): the dice
        variant's rolls, so a seed fixes them with the game's."""
        self._require_reset("random_of")
        mask = np.ascontiguousarray(mask, np.int8)
        if mask.ndim != 1 or not mask.any():
            raise ValueError("random_of takes a 1-D mask with at least one action allowed")
        return int(E.sample_mask(self._state, (mask != 0).astype(np.int8)))

    @_one_at_a_time
    def state_snapshot(self) -> np.ndarray:
        """A copy of the state row (the kernels' whole state of the game;
        :meth:`position` wraps the same copy as a Position)."""
        self._require_reset("state_snapshot")
        return self._state.copy()

    def add_seat_note(self, note) -> None:
        """Show ``note()`` -> ``{agent: text}`` beside the agents in every
        picture (the chess clock's time left)."""
        self._seat_notes.append(note)

    def seat_notes(self) -> dict:
        """``{seat: text}`` from the notes added with :meth:`add_seat_note`."""
        out: dict = {}
        for note in self._seat_notes:
            for agent, text in note().items():
                seat = self._seat[agent]
                out[seat] = f"{out[seat]}  {text}" if seat in out else text
        return out

    # -- faces ----------------------------------------------------------------
    @_one_at_a_time
    def position(self) -> Position:
        """A snapshot of the live game as a Position (independent copy)."""
        self._require_reset("position")
        return Position._own(self.game, self._state.copy())

    def is_done(self, agent) -> bool:  # (terminated or truncated)
        return self._state is None or not self.agents or self._done(agent)

    @_one_at_a_time
    def action_to_move(self, action: int) -> str:
        return self.position().action_to_move(action)

    @_one_at_a_time
    def move_to_action(self, move: str) -> int:
        return self.position().move_to_action(move)

    @_one_at_a_time
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
            )
            return None
        self._require_reset("render")
        from .render import frame_for

        out, self._window = frame_for(
            self.render_mode, self.game, self._state, self.seat_notes(), self._window, self.metadata["render_fps"]
        )
        return out

    def close(self):
        """Release the human mode's window (if one was opened)."""
        if self._window is not None:
            self._window.close()
            self._window = None
