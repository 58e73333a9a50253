"""The single-agent view: one seat learns, opponents play every other seat.

``gymnasium.make("boardenvs/Quess-v0", opponent="random", seat="random")``
builds a :class:`SingleAgentEnv`: a ``gymnasium.Env`` over one game's
kernels.  The learner plays ``seat`` (an int, or ``"random"``: drawn per
episode from the reset seed); every other seat is played by ``opponent``;
chance is resolved inside by the seeded die (the game row's own generator,
seeded at reset).  So after ``reset`` and after every ``step`` it is the
learner's turn, or the episode is over.

It is the batched view at one row: a :class:`~boardenvs.wrappers.vector.SingleAgentVectorEnv`
with ``num_envs=1`` (the engine's learner loop; no auto-reset), so the same
seed plays the same games here as in ``gymnasium.make_vec(..., num_envs=1)``.

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
  (the game's turns) and ``info["learner_steps"]``.  Every key is in every
  step's info, with one type (``""``, 0 and False while the episode goes
  on), so trainers that store infos in a buffer (Tianshou) see one shape.
* Opponents (:mod:`boardenvs.opponents`): ``"random"`` (a
  uniformly random legal action from the game's generator); a callable
  ``policy(observations, action_masks) -> actions`` on batches (arrays in,
  array out; here batches of one); a trained SB3 model (``MaskablePPO``);
  or a :class:`~boardenvs.league.League`, which picks one
  of its snapshots per episode (the pick is in ``info["opponent"]``).
  An opponent that fails (raises, or answers an illegal action) stops the
  step part-way: the next ``step`` asks for ``reset()``.
"""

from __future__ import annotations

import threading

import gymnasium
import numpy as np

from ..errors import IllegalActionError, ResetNeededError
from ..illegal import refusal, why_not
from ..registry import game_class
from ..spaces import LegalDiscrete
from ..spec import ILLEGAL_ACTION_DEFAULT, check_illegal_action, check_render_mode, check_seed, is_action_int
from .vector import SingleAgentVectorEnv


class SingleAgentEnv(gymnasium.Env):
    """See the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        env_id: str,
        opponent="random",
        seat="random",
        render_mode=None,
        illegal_action=ILLEGAL_ACTION_DEFAULT,
        flatten=True,
        **options,
    ):
        where = f"{env_id}: "
        self.illegal_action = check_illegal_action(illegal_action, where)
        modes = list(game_class(env_id).render_modes)
        modes += ["human"] if "rgb_array" in modes else []
        self.metadata = {**self.metadata, "render_modes": modes}
        check_render_mode(render_mode, modes, where)
        # the learner loop at one row, its episodes not restarted (the caller resets)
        self._venv = venv = SingleAgentVectorEnv(
            env_id,
            1,
            opponent=opponent,
            seat=seat,
            illegal_action=illegal_action,
            flatten=flatten,
            parallel=False,
            autoreset_mode="next_step",
            **options,
        )
        if render_mode == "human":
            from ..render import require_pygame

            require_pygame()
        self._window = None
        self.game = game = venv.game
        self.env_id = env_id
        self.seat_option = seat
        self.opponents = venv.opponents
        self.opponent = None  # this episode's, picked at reset
        self.render_mode = render_mode
        self.flatten = venv.flatten
        self.plane_shape = venv.plane_shape  # the observation's planes (flatten=False)
        self.observation_space = venv.single_observation_space
        self.action_space = LegalDiscrete(game.num_actions, self.legal_mask)
        self.seat = 0 if seat == "random" else int(seat)
        self._obs = None  # the last observation (None before the first reset)
        self._info = None
        self._over = True
        self._call_lock = threading.RLock()  # reset / step take turns between threads

    def __getstate__(self):
        """``copy.deepcopy`` / ``pickle``: everything but a window (a copy opens its own) and the lock."""
        state = dict(self.__dict__)
        state["_window"] = None
        state.pop("_call_lock")
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._call_lock = threading.RLock()

    def legal_mask(self):
        """The learner's int8 mask while its episode goes on, else None
        (``action_space.sample()``)."""
        return None if self._over else self._venv.action_masks()[0].astype(np.int8)

    # -- gymnasium API ----------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """A new episode: the learner's seat, the opponent and a new game,
        played until the learner is to act.  A game that ends before the
        learner's first decision (others won, or passes left it no turn) is
        no episode of the learner's: it is dealt again from the generator (at
        most 64 times), as the batched view does."""
        with self._call_lock:
            return self._reset(seed)

    def step(self, action):
        """The learner's ``action``, then the opponents until it is to act
        again (the batched view's step at one row).  Calls from two threads
        take turns."""
        with self._call_lock:
            return self._step(action)

    def _reset(self, seed):
        seed = None if seed is None else check_seed(seed)
        super().reset(seed=seed)
        obs, info = self._venv.reset(seed=seed)
        self._over = False
        self._take(obs, info, ended=False)
        if self.render_mode == "human":
            self.render()
        return self._obs, self._info

    def _step(self, action):
        self._require_reset("step")
        if self._over:
            raise IllegalActionError(f"{self.env_id}: step({action!r}) after the episode ended: call reset() first")
        whole = is_action_int(action)  # an int, a numpy integer or a 0-d integer array
        refused = lambda: f"the learner (player_{self.seat}) sent {action!r}: {why_not(action, self.action_masks())}"  # noqa: E731
        if not whole and self.illegal_action != "lose":  # no action id to replace: only "lose" plays on
            raise refusal(self.env_id, refused(), help_=self.illegal_action == "raise")
        played = int(action) if whole and 0 <= int(action) < self.game.num_actions else -1  # -1: illegal
        if self.illegal_action == "raise" and not (played >= 0 and self._venv.action_masks()[0, played]):
            raise refusal(self.env_id, refused())  # (in the learner's words, not a row's)
        # the engine's step of the batched view at one row, with its illegal_action mode: an illegal
        # action is forfeited or replaced by a random legal one (an opponent's is an error, its own)
        obs, rewards, terminated, truncated, info = self._venv.step(np.array([played], np.int64))
        self._over = bool(terminated[0] or truncated[0])
        self._take(obs, info, ended=self._over)
        if info["illegal_action"][0]:
            self._info["illegal_action"] = True
        if self.render_mode == "human":
            self.render()
        return self._obs, float(rewards[0]), bool(terminated[0]), bool(truncated[0]), self._info

    def action_masks(self) -> np.ndarray:
        """The learner's mask (all zeros once the episode is over), as bools."""
        if self._obs is None or self._over:
            return np.zeros(self.game.num_actions, np.bool_)
        return self._venv.action_masks()[0].copy()

    def render(self):
        if self.render_mode is None or self._obs is None:
            return None
        from ..render import frame_for  # the board with legend, turn, last move, result

        state = np.array(self._venv.vec.states[0])
        out, self._window = frame_for(
            self.render_mode, self.game, state, None, self._window, self.metadata["render_fps"]
        )
        return out

    def close(self):
        """Release the human mode's window (if one was opened)."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def position(self):
        """A Position snapshot of the game."""
        self._require_reset("position")
        return self._venv.position(0)

    def _require_reset(self, what: str) -> None:
        if self._obs is None:
            raise ResetNeededError(f"{self.env_id}: {what}() before reset(): call reset() first")

    # -- inside ----------------------------------------------------------------------
    def _take(self, obs, info, ended: bool) -> None:
        """The batched view's row 0 as this env's observation and info."""
        venv = self._venv
        self._obs = obs[0]
        self.seat = int(info["seat"][0])
        self.opponent = venv.opponent_of(0)
        self._info = {
            "action_mask": self.action_masks(),
            "seat": self.seat,
            "opponent": self.opponent.name,
            "illegal_action": False,
            "end_reason": str(info["end_reason"][0]) if ended else "",
            "length": int(info["length"][0]) if ended else 0,
            "learner_steps": int(info["learner_steps"][0]) if ended else 0,
        }
