"""The single-agent view: one seat learns, opponents play every other seat.

``gymnasium.make("boardenvs/Quess-v0", opponent="random", seat="random")``
builds a :class:`SingleAgentEnv`: a ``gymnasium.Env`` over one game's
kernels.  The learner plays ``seat`` (an int, or ``"random"``: drawn per
episode from the reset seed); every other seat is played by ``opponent``;
chance is resolved inside by the seeded die (``Game.draw_chance``: the game
row's own generator, seeded from the env's at reset).  So after
``reset`` and after every ``step`` it is the learner's turn, or the episode
is over.

* Observation: the learner's own, egocentric, ``int8``.  By default one flat
  vector (``flatten=True``: the convention of gymnasium's and SB3's MLP
  policies, so SB3's ``check_env`` is quiet); ``flatten=False`` gives the
  game's planes (``plane_shape``, e.g. ``(6, 6, 8)`` for Quess) for
  convolutional extractors.  Either way the numbers are the same and
  ``int8``, so SB3 never normalises them as pixels (SB3 treats any 3-D
  box as an image and warns unless it is ``uint8`` of at least 36x36,
  which board planes are not).
* ``action_masks()`` (the method sb3-contrib's ``MaskablePPO`` calls) and
  ``info["action_mask"]``: the learner's mask.
* Reward from the learner's point of view: +1 / -1 / 0 when the game ends,
  on its own move or an opponent's; -1 when the learner is eliminated (its
  episode ends there); 0 otherwise.  ``truncated`` when a limit ends the game.
* ``illegal_action`` (C-6, the same on every face): ``"lose"`` (default,
  PettingZoo classic's and Pgx's convention: the learner forfeits, -1,
  episode over, end reason ``"illegal_action"``), ``"raise"``
  (IllegalActionError, nothing changes) or ``"random"`` (a random legal
  action instead).  ``info["illegal_action"]`` is True after such a step,
  and a warning is logged once per env.  ``action_space.sample()`` draws a
  legal action (:class:`boardenvs.spaces.LegalDiscrete`), so checkers that
  sample without the mask (gymnasium's and SB3's ``check_env``) play real
  games.
* End of an episode: ``info["end_reason"]`` (the name), ``info["length"]``
  (the game's turns) and ``info["learner_steps"]``.
* Opponents (:mod:`boardenvs.opponents`): ``"random"`` (a
  uniformly random legal action from the env's generator); a callable
  ``policy(observations, action_masks) -> actions`` on batches (arrays in,
  array out; here batches of one); a trained SB3 model (``MaskablePPO``);
  or a :class:`~boardenvs.wrappers.selfplay.SelfPlayPool`, which picks one
  of its snapshots per episode (the pick is in ``info["opponent"]``).
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import engine as E
from ..errors import ILLEGAL_ACTION_HELP, IllegalActionError, ResetNeededError
from ..registry import make_game
from ..spaces import LegalDiscrete
from ..spec import (ILLEGAL_ACTION_DEFAULT, check_flag, check_illegal_action, check_render_mode, check_seat, check_seed,
                     is_action_int)
from ..opponents import Batch, decide
from .selfplay import make_picker


class SingleAgentEnv(gymnasium.Env):
    """See the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, env_id: str, opponent="random", seat="random", render_mode=None,
                 illegal_action=ILLEGAL_ACTION_DEFAULT, flatten=True, **options):  # fmt: skip
        self.game = game = make_game(env_id, **options)
        where = f"{env_id}: "
        self.illegal_action = check_illegal_action(illegal_action, where)
        check_seat(seat, game.num_players, "seat", where)
        modes = list(game.render_modes) + (["human"] if "rgb_array" in game.render_modes else [])
        self.metadata = {**self.metadata, "render_modes": modes}
        check_render_mode(render_mode, modes, where)
        check_flag("flatten", flatten, where)
        if render_mode == "human":
            from ..render import require_pygame

            require_pygame()
        self._window = None
        self.env_id = env_id
        self.seat_option = seat
        self.opponents = make_picker(opponent)
        self.opponent = None  # this episode's, picked at reset
        self.render_mode = render_mode
        info = game.info
        self.flatten = bool(flatten)
        self.plane_shape = info.obs_shape  # the observation's planes (flatten=False)
        low, high = (info.obs_low.ravel(), info.obs_high.ravel()) if flatten else (info.obs_low, info.obs_high)
        self.observation_space = spaces.Box(low, high, low.shape, np.int8)
        self.action_space = LegalDiscrete(info.num_actions, self.legal_mask)
        self.seat = 0 if seat == "random" else int(seat)
        self._state = None
        self._mask = np.zeros(game.mask_size, np.int8)  # the engine's mask of the row, kept current by its step
        self._steps = 0
        self._warned_illegal = False

    def __getstate__(self):
        """``copy.deepcopy`` / ``pickle``: everything but a window (a copy opens its own)."""
        state = dict(self.__dict__)
        state["_window"] = None
        return state

    def legal_mask(self):
        """The learner's int8 mask while its episode goes on, else None
        (``action_space.sample()``)."""
        return None if self._over() else self._mask[: self.game.num_actions].copy()

    # -- gymnasium API ----------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """A new episode: the learner's seat, the opponent and a new game,
        played until the learner is to act.  A game that ends before the
        learner's first decision (others won, or passes left it no turn) is
        no episode of the learner's: it is dealt again from the generator (at
        most 64 times), as the batched view does."""
        super().reset(seed=None if seed is None else check_seed(seed))
        game, rng = self.game, self.np_random
        n = game.num_players
        for _ in range(64):
            self.seat = int(rng.integers(n)) if self.seat_option == "random" else int(self.seat_option)
            first = int(game.params[E.P_FIRST])
            if first < 0:
                first = int(rng.integers(n))
            self._state = game.new_state(first, rng_seed=int(rng.integers(2**62)))
            game.settle(self._state, self._mask)  # the seeded die, the mask of whoever acts
            self.opponent = self.opponents.pick(rng)
            self._steps = 0
            self._play_others()
            if not self._over():
                break
        else:
            raise RuntimeError(f"{self.env_id}: 64 new games in a row ended before the learner's first decision")
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        self._require_reset("step")
        if self._over():
            raise IllegalActionError(f"{self.env_id}: step({action!r}) after the episode ended: call reset() first")
        mask = self.action_masks()
        whole = is_action_int(action)  # an int, a numpy integer or a 0-d integer array
        if whole:
            action = int(action)
        note = None
        if not (whole and 0 <= action < mask.shape[0] and mask[action]):
            note = f"the learner (player_{self.seat}) sent {action!r}: not a legal action now"
            if self.illegal_action == "raise" or (self.illegal_action == "random" and not whole):
                help_ = f" {ILLEGAL_ACTION_HELP}" if self.illegal_action == "raise" else ""
                raise IllegalActionError(f"{self.env_id}: {note}.{help_}")
            if not self._warned_illegal:
                self._warned_illegal = True
                outcome = "the learner loses the game" if self.illegal_action == "lose" else "a random legal action is played"
                gymnasium.logger.warn(f"{self.env_id}: {note}; illegal_action={self.illegal_action!r}: {outcome} "
                                      '(info["illegal_action"] is True; this warning is shown once per env)')  # fmt: skip
        if note and self.illegal_action == "lose":
            self.game.step(self._state, -1, self._mask)  # the engine's step: -1 forfeits the learner's game
        else:
            played = int(self.np_random.choice(np.flatnonzero(mask))) if note else action
            before = self._state.copy(), self._mask.copy(), self.np_random.bit_generator.state
            self.game.step(self._state, played, self._mask)  # the engine's step (chance by the seeded die)
            try:
                self._play_others()
            except BaseException:
                # an opponent failed: the learner's move is taken back, nothing changed
                self._state[:], self._mask[:] = before[0], before[1]
                self.np_random.bit_generator.state = before[2]
                raise
        self._steps += 1
        terminated = self._over() and (self._state[E.H_STATUS] == E.TERMINATED or not self._alive())
        truncated = self._over() and not terminated
        reward = float(self._state[E.H_RET + self.seat]) if self._over() else 0.0
        info = self._info()
        if note:
            info["illegal_action"] = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """The learner's mask (all zeros once the episode is over), as bools."""
        if self._over():
            return np.zeros(self.game.num_actions, np.bool_)
        return self._mask[: self.game.num_actions].astype(np.bool_)

    def render(self):
        if self.render_mode is None or self._state is None:
            return None
        from ..render import frame_for  # the board with legend, turn, last move, result

        out, self._window = frame_for(self.render_mode, self.game, self._state, None, self._window, self.metadata["render_fps"])
        return out

    def close(self):
        """Release the human mode's window (if one was opened)."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def position(self):
        """A Position snapshot of the game."""
        from ..position import Position

        self._require_reset("position")
        return Position(self.game, self._state)

    def _require_reset(self, what: str) -> None:
        if self._state is None:
            raise ResetNeededError(f"{self.env_id}: {what}() before reset(): call reset() first")

    # -- inside ----------------------------------------------------------------------
    def _alive(self) -> bool:
        return bool((int(self._state[E.H_ALIVE]) >> self.seat) & 1)

    def _over(self) -> bool:
        return self._state is None or self._state[E.H_STATUS] != E.PLAYING or not self._alive()

    def _play_others(self):
        """Opponents until the learner is to act or its episode is over (the
        engine's step resolves chance with the seeded die: the row's
        generator, seeded at reset)."""
        game, state, rng = self.game, self._state, self.np_random
        while not self._over():
            mover = int(state[E.H_CURRENT])
            if mover == self.seat:
                return
            mask = self._mask[: game.num_actions]
            obs = game.observe(state, mover)
            batch = Batch(game, mask[None], rng, seats=[mover], observations=(obs.ravel() if self.flatten else obs)[None],
                          states=lambda: state[None].copy())  # fmt: skip
            action = int(decide(self.opponent, batch)[0])  # (checked against the mask: legal)
            game.step(state, action, self._mask)

    def _obs(self) -> np.ndarray:
        obs = self.game.observe(self._state, self.seat)
        return obs.ravel() if self.flatten else obs

    def _info(self) -> dict:
        info = {"action_mask": self.action_masks(), "seat": self.seat, "opponent": self.opponent.name}
        if self._over():
            info["end_reason"] = self.game.end_reason(self._state)
            info["length"] = int(self._state[E.H_TURN])
            info["learner_steps"] = self._steps
        return info
