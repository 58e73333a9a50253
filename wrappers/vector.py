"""The single-agent view, batched: N games stepped per call by the kernels.

``gymnasium.make_vec("boardenvs/Quess-v0", num_envs=N, opponent="random")``
builds a :class:`SingleAgentVectorEnv` (the ids' ``vector_entry_point``): a
``gymnasium.vector.VectorEnv`` over :func:`boardenvs.make_vec`'s rows.  Each
row is one game in which the learner plays a seat (``seat``: an int, or
``"random"``: drawn per episode from the row's generator) and opponents play
the others.  One ``step(actions)`` plays the learner's action in every row,
then every opponent move until it is the learner's turn again, in all rows:

* the step is the engine's learner loop (``make_vec``'s ``play_learners``:
  the learner's move, the opponents' replies, the ended episodes' ends and
  next starts, the observations), in numba's threads for large N;
* opponents that play inside the engine (``"random"``, drawn from each
  row's own generator; ``"greedy"``) play in that one call;
* policy, model and pool opponents are asked once per round on the batch
  of rows where that opponent is to act (with the mover's observation and
  mask), and the engine goes on in those rows with their answers; an
  opponent that fails (raises, or answers an illegal action) leaves its
  rows part-way (no copy of the rows is kept to undo the step): the next
  ``step`` asks for ``reset()``;
* chance is resolved in the kernel.

Rows whose episode ended (the game is over, or the learner was eliminated)
are reset in the same step (gymnasium's ``AutoresetMode.SAME_STEP``): the
returned observation is the new episode's, the ended one's last
observation is ``infos["final_obs"][i]`` (``infos["_final_obs"]`` marks the
rows), and ``infos["final_info"]`` holds its ``return``, ``end_reason`` (the
name; ``end_reason_code`` the code), ``length`` (the game's turns) and
``learner_steps`` (``"episode"`` is left to gymnasium's
``RecordEpisodeStatistics``).  ``infos["illegal_action"]`` marks the rows
whose action was not legal (``illegal_action``: ``"lose"`` by default, as
every face).  Rewards are the learner's: +1 / -1 / 0 at the end, also when the
game ends on an opponent's move, -1 when the learner is eliminated.

``action_masks()`` is the ``(N, A)`` bool mask of the learner in every row
(the name sb3-contrib calls); ``infos["action_mask"]`` holds it too.  For
stable-baselines3, wrap this env in :class:`boardenvs.wrappers.sb3.SB3VecEnv`.
"""

from __future__ import annotations

import threading

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ..errors import ResetNeededError, shorten
from ..fresh import FreshArrays
from ..opponents import Batch, decide
from ..registry import game_class
from ..spec import ILLEGAL_ACTION_DEFAULT, check_flag, check_render_mode, check_seat, check_seed
from ..vector import VectorEnv
from .selfplay import FixedOpponent, make_picker

# autoreset_mode's names (and gymnasium's AutoresetMode values) -> the mode
AUTORESET_MODES = {
    "same_step": AutoresetMode.SAME_STEP,
    "next_step": AutoresetMode.NEXT_STEP,
    AutoresetMode.SAME_STEP.value: AutoresetMode.SAME_STEP,
    AutoresetMode.NEXT_STEP.value: AutoresetMode.NEXT_STEP,
}


class SingleAgentVectorEnv(gymnasium.vector.VectorEnv):
    """See the module docstring.

    Options: ``opponent`` (a registered name: ``"random"``, ``"greedy"``,
    ``"mcts"``, ``"mcts:400"``, ...; a batched policy, an SB3 model or a
    :class:`~boardenvs.league.League`), ``seat``,
    ``illegal_action`` (``"lose"``, default: that row's learner forfeits;
    ``"raise"``: nothing changes and the rows are named; ``"random"``: a
    random legal action instead), ``flatten`` (default True: observations as
    vectors; False: the game's planes, ``plane_shape``), ``render_mode``,
    ``num_threads`` / ``parallel`` (as :func:`boardenvs.make_vec`), and the
    game's own options.  Copies and pickles (``copy.deepcopy``) play on
    independently, as every face.

    ``autoreset_mode``: ``"same_step"`` (default, gymnasium's
    ``AutoresetMode.SAME_STEP``: an ended row starts its next episode in the
    same step, the last observation in ``infos["final_obs"]``) or
    ``"next_step"`` (gymnasium's default ``NEXT_STEP``, what Ray RLlib's env
    runners assume: the step that ends an episode returns its last
    observation, with its return and end in ``infos``; the row's next
    ``step`` ignores its action and returns the new episode's first
    observation, reward 0, not done).  ``action_mask_in_obs``: observations
    are ``{"observations": ..., "action_mask": ...}`` dicts (the key names
    of :mod:`boardenvs.rllib`'s masked module), not arrays.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.SAME_STEP, "render_fps": 2}

    def __init__(
        self,
        env_id: str,
        num_envs: int = 1,
        opponent="random",
        seat="random",
        illegal_action=ILLEGAL_ACTION_DEFAULT,
        flatten=True,
        render_mode=None,
        num_threads=None,
        parallel=None,
        autoreset_mode="same_step",
        action_mask_in_obs=False,
        **options,
    ):
        self.vec = vec = VectorEnv(
            game_class(env_id),
            num_envs,
            illegal_action=illegal_action,
            num_threads=num_threads,
            parallel=parallel,
            **options,
        )
        self.game = game = vec.game
        where = f"{env_id}: "
        check_seat(seat, game.num_players, "seat", where)
        check_flag("flatten", flatten, where)
        check_render_mode(render_mode, game.render_modes, where)
        mode = AUTORESET_MODES.get(
            autoreset_mode if isinstance(autoreset_mode, str) else getattr(autoreset_mode, "value", None)
        )
        if mode is None:
            raise ValueError(
                f"{where}autoreset_mode must be 'same_step' or 'next_step' (or gymnasium's AutoresetMode "
                f"of those), got {autoreset_mode!r}"
            )
        self.autoreset_mode = mode
        self.action_mask_in_obs = check_flag("action_mask_in_obs", action_mask_in_obs, where)
        self.metadata = {**self.metadata, "render_modes": list(game.render_modes), "autoreset_mode": mode}
        self.env_id = env_id
        self.num_envs = N = vec.num_envs
        self.seat_option = seat
        self.flatten = bool(flatten)
        self.plane_shape = game.obs_shape  # the observation's planes (flatten=False)
        self.render_mode = render_mode
        self.opponents = make_picker(opponent)
        info = game.info
        low, high = (info.obs_low.ravel(), info.obs_high.ravel()) if flatten else (info.obs_low, info.obs_high)
        self.single_observation_space = spaces.Box(low, high, low.shape, np.int8)
        if self.action_mask_in_obs:
            self.single_observation_space = spaces.Dict(
                {
                    "observations": self.single_observation_space,
                    "action_mask": spaces.Box(0, 1, (info.num_actions,), np.int8),
                }
            )
        self.single_action_space = spaces.Discrete(info.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, N)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, N)
        self._obs_shape = (N, *low.shape)
        self._rows = np.arange(N, dtype=np.int64)
        self._seats = np.zeros(N, np.int64)  # the learner's seat per row
        self._lengths = np.zeros(N, np.int64)  # learner steps in the current episode
        # per-row opponents as small ints into _opp_list (one group per opponent)
        self._outside = np.zeros(N, np.bool_)  # rows whose opponent decides outside the engine
        self._failed = None  # why the last step stopped part-way (then step() asks for reset())
        self._call_lock = threading.RLock()  # reset / step / render take turns between threads
        # this step's observations and learner masks: new arrays each step, as
        # far as the caller can tell (recycled once nobody holds them: boardenvs.fresh)
        self._fresh_obs = FreshArrays((N, *self.plane_shape), np.int8)
        self._fresh_masks = FreshArrays((N, info.num_actions), np.bool_)
        self._bool_masks = self._fresh_masks.get()
        self._bool_masks[:] = False
        self._opp_ids = np.zeros(N, np.int64)
        self._opp_list: list = []
        self._opp_index: dict = {}
        self._rng = None
        self._illegal = np.zeros(N, np.bool_)
        self._pending = np.zeros(N, np.bool_)  # next_step: rows whose episode ended at the last step

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_opp_index")  # keyed by id(): rebuilt for the copy's own opponents
        state.pop("_call_lock")
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._opp_index = {id(o): k for k, o in enumerate(self._opp_list)}
        self._call_lock = threading.RLock()

    # -- where the view is, as plain data (a training run's resume state) ------------------
    _STATE_ARRAYS = ("_seats", "_lengths", "_outside", "_opp_ids", "_illegal", "_pending")

    def get_state(self, opponent_key) -> dict:
        """Everything that decides how the view plays on, as plain data
        (numpy arrays, ints, strings: what a training run's resume file
        keeps, :mod:`boardenvs.baselines.resume`): the rows and the
        engine's buffers (``make_vec``'s pickle state), the learner's seats
        and episode steps, the last observations and masks, the view's
        generator and each row's opponent as ``opponent_key(opponent)``
        (the opponents themselves are the caller's).  After ``reset``;
        ValueError after a step that stopped part-way."""
        with self._call_lock:
            if self._rng is None or self._failed:
                raise ValueError(f"{self.env_id}: get_state() needs a view that was reset and is not part-way")
            vec = self.vec.__getstate__()
            return {
                "vec": {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in vec.items() if _plain(k, v)},
                **{k[1:]: getattr(self, k).copy() for k in self._STATE_ARRAYS},
                "observations": self._obs_all.copy(),
                "masks": self._bool_masks.copy(),
                "rng": self._rng.bit_generator.state,
                "opponents": [opponent_key(o) for o in self._opp_list],
            }

    def set_state(self, state: dict, opponent_of) -> None:
        """Put back what :meth:`get_state` took, in a view built with the
        same options (``opponent_of(key)``: the opponent a key names).  The
        rows are data from outside: ``make_vec`` checks them as a
        Position's when it takes them (C-6); an array of another shape or
        dtype is a ValueError naming it, and the view is left as it was."""
        with self._call_lock:
            vec = self.vec.__getstate__()
            for key, value in state["vec"].items():
                if key not in vec or not _plain(key, value) or type(value) is not type(vec[key]):
                    raise ValueError(f"{self.env_id}: a saved view's make_vec has {key!r} of the wrong kind")
                vec[key] = value
            rows = type(self.vec).__new__(type(self.vec))
            rows.__setstate__(vec)  # (checks every array's shape and dtype, and every row)
            arrays = {k: state[k[1:]] for k in self._STATE_ARRAYS}
            arrays["_obs_all"], arrays["_bool_masks"] = state["observations"], state["masks"]
            fresh = {"_obs_all": self._fresh_obs.get(), "_bool_masks": self._fresh_masks.get()}
            for key, value in arrays.items():
                like = fresh[key] if key in fresh else getattr(self, key)
                if not (isinstance(value, np.ndarray) and value.shape == like.shape and value.dtype == like.dtype):
                    raise ValueError(
                        f"{self.env_id}: a saved view's {key[1:]} must be {like.dtype} of shape {like.shape}"
                    )
            opponents = [opponent_of(k) for k in state["opponents"]]
            if len(arrays["_opp_ids"]) and not 0 <= arrays["_opp_ids"].min() <= arrays["_opp_ids"].max() < max(
                len(opponents), 1
            ):
                raise ValueError(f"{self.env_id}: a saved view's rows name opponents it does not hold")
            rng = np.random.default_rng()
            rng.bit_generator.state = state["rng"]
            for key, value in arrays.items():
                target = fresh[key] if key in fresh else getattr(self, key)
                target[...] = value
                setattr(self, key, target)
            self.vec, self.game, self._rng, self._failed = rows, rows.game, rng, None
            self._opp_list, self._opp_index = opponents, {id(o): k for k, o in enumerate(opponents)}

    # -- gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """New games in every row.  ``seed``: an int (each row's game and the
        learner's seat drawn from it), or None."""
        with self._call_lock:
            return self._reset(seed, options)

    def step(self, actions):
        """The learner's action in every row, then the learner loop (see the
        module docstring).  Calls from two threads take turns."""
        with self._call_lock:
            return self._step(actions)

    def _reset(self, seed, options):
        if options:
            raise ValueError(f"options are not used by reset(); got {options!r}")
        vec = self.vec
        seed = None if seed is None else check_seed(seed)
        if seed is not None or self._rng is None:
            # a seed (or the first reset) seeds every row; a later reset without
            # one goes on with the rows' generators (gymnasium's convention)
            vec.seed_rows(seed)
            self._rng = np.random.default_rng(None if seed is None else np.random.SeedSequence(seed).spawn(1)[0])
        self._illegal = np.zeros(self.num_envs, np.bool_)
        self._pending[:] = False
        self._failed = None
        if self.seat_option != "random":
            self._seats[:] = int(self.seat_option)
        # every row pending: its first episode, up to the learner's first decision
        self._loop(np.zeros(0, np.int64), np.ones(self.num_envs, np.bool_), restart=True)
        self._lengths[:] = 0
        return self._observations(), self._infos()

    def _step(self, actions):
        if self._rng is None:
            raise ResetNeededError(f"{self.env_id} make_vec: step() before reset(): call reset() first")
        if self._failed:
            raise ResetNeededError(
                f"{self.env_id}: the last step() stopped part-way ({self._failed}): its rows are mid-move; call reset()"
            )
        next_step = self.autoreset_mode is AutoresetMode.NEXT_STEP
        pending = self._pending
        res = self._loop(actions, pending if next_step else None, restart=not next_step)
        self._illegal = res["illegal_action"]
        ends, rewards = res["ended"], res["rewards"]
        terminated, truncated = ends == 1, ends == 2
        ended = np.flatnonzero(ends)
        playing = np.flatnonzero(~pending) if next_step else self._rows
        infos = {}
        if ended.size:
            final = None if next_step else (res["final_observation"][ended], res["final_mask"][ended].view(np.int8))
            infos = self._ended_infos(ended, rewards, res["end_reason_code"][ended], res["length"][ended], final)
        self._count_steps(playing, pending, ended)
        infos.update(self._infos())
        return self._observations(), rewards, terminated, truncated, infos

    def _loop(self, actions, pending, restart: bool) -> dict:
        """One call of the engine's learner loop (``make_vec``'s
        :meth:`~boardenvs.vector.VectorEnv.play_learners`): the learner's
        actions, then the opponents (in the engine, or asked once per round:
        :meth:`_ask`; a pool's picks: :meth:`_pick`) until every row's
        learner is to act; the views in new arrays.  An opponent that fails
        leaves its rows part-way: the next step asks for reset()."""
        obs, masks = self._fresh_obs.get(), self._fresh_masks.get()
        fixed = self.opponents.opponent if isinstance(self.opponents, FixedOpponent) else None
        if fixed is not None and not self._opp_list:
            self._opp_id(fixed)
        outside = fixed is None or not (fixed.in_kernel or fixed.engine_decision(self.game) is not None)
        if fixed is not None:
            self._outside[:] = outside
        engine = None if fixed is None or fixed.in_kernel or outside else fixed
        self._asked = False
        try:
            res = self.vec.play_learners(
                actions,
                self._seats,
                draw_seats=self.seat_option == "random",
                restart=restart,
                pending=pending,
                out=(obs, masks),
                opponent=engine,
                ask=self._ask if outside else None,
                outside=self._outside,
                pick=None if fixed is not None else self._pick,
            )
        except BaseException as e:
            if isinstance(e, RuntimeError) and hasattr(e, "result"):
                self._rng = None  # rows whose new games all ended at once: the batch needs reset()
                raise RuntimeError(f"{self.env_id}: {e}; call reset()") from e
            if self._asked:  # an opponent failed: its rows are part-way
                self._failed = shorten(f"{type(e).__name__}: {e}", 300)
            raise
        self._obs_all, self._bool_masks = obs, masks
        return res

    def _ask(self, rows, movers, observations, masks) -> np.ndarray:
        """The answers of the opponents outside the engine in ``rows`` (one
        round), through the one protocol (:func:`boardenvs.opponents.decide`),
        one batch per opponent."""
        self._asked = True
        if self.flatten:
            observations = observations.reshape(rows.shape[0], -1)
        ids = self._opp_ids[rows]
        first = ids[0]
        if (ids == first).all():
            return self._decide(self._opp_list[int(first)], rows, movers, observations, masks)
        actions = np.empty(rows.shape[0], np.int64)
        for k in np.unique(ids):
            sel = np.flatnonzero(ids == k)
            actions[sel] = self._decide(self._opp_list[int(k)], rows[sel], movers[sel], observations[sel], masks[sel])
        return actions

    def _decide(self, opponent, rows, movers, observations, masks) -> np.ndarray:
        states = self.vec.states
        batch = Batch(
            self.game,
            masks,
            self._rng,
            seats=movers,
            rows=rows,
            observations=observations,
            states=lambda: np.array(states[rows]),
        )
        return decide(opponent, batch)

    def _pick(self, rows) -> None:
        """A pool's opponents for the new episodes in ``rows`` (one at a time:
        ``_opp_id`` may prune the list and renumber ``_opp_ids``, which must
        include the ids already given to these rows)."""
        self._asked = True
        for r in rows:
            opponent = self.opponents.pick(self._rng)
            self._opp_ids[r] = self._opp_id(opponent)
            self._outside[r] = not opponent.in_kernel

    def action_masks(self) -> np.ndarray:
        """The learner's mask in every row, ``(num_envs, num_actions)`` bool:
        the last ``reset`` / ``step``'s, the array ``infos["action_mask"]``
        holds (a new one each step; writing into it changes nothing the
        engine checks actions against)."""
        return self._bool_masks

    def opponent_of(self, i):
        """The opponent of row ``i``'s current episode (an
        :class:`~boardenvs.opponents.Opponent`: a pool's pick)."""
        if self._rng is None:
            raise ResetNeededError(f"{self.env_id}: opponent_of() before reset(): call reset() first")
        return self._opp_list[int(self._opp_ids[self._rows[i]])]

    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in every row (a copy)."""
        return self._seats.copy()

    def position(self, i):
        """A Position snapshot of row ``i``."""
        return self.vec.position(i)

    def render(self):
        """Every row's picture (gymnasium's convention: a tuple, one per row)."""
        if self.render_mode is None or self._rng is None:
            return None
        from ..render import ansi_frame, rgb_frame  # the board with legend, turn, last move, result

        draw = ansi_frame if self.render_mode == "ansi" else rgb_frame
        with self._call_lock:  # (the rows as one step left them)
            rows = np.array(self.vec.states)
        return tuple(draw(self.game, row) for row in rows)

    def close(self, **kwargs):
        """Done with the view: its rows' ``make_vec`` is closed too, so a later
        ``reset`` / ``step`` raises gymnasium's ``ClosedEnvironmentError``."""
        self.closed = True
        self.vec.close()

    def __repr__(self) -> str:
        return f"<SingleAgentVectorEnv {self.env_id} num_envs={self.num_envs}>"

    # -- inside ------------------------------------------------------------------------
    def _opp_id(self, opponent) -> int:
        key = id(opponent)
        if key not in self._opp_index and len(self._opp_list) >= 64:
            self._prune_opponents()
        if key not in self._opp_index:
            self._opp_index[key] = len(self._opp_list)
            self._opp_list.append(opponent)
        return self._opp_index[key]

    def _prune_opponents(self):
        """Forget the opponents no row plays any more (a pool's dropped snapshots)."""
        used = np.unique(self._opp_ids)
        keep = [self._opp_list[int(k)] for k in used]
        remap = np.zeros(len(self._opp_list), np.int64)
        remap[used] = np.arange(len(used))
        self._opp_ids[:] = remap[self._opp_ids]
        self._opp_list = keep
        self._opp_index = {id(o): k for k, o in enumerate(keep)}

    def _count_steps(self, playing, pending, ended) -> None:
        """The learner steps of this step: one more in the ``playing`` rows,
        none yet in the episodes that started (the ``pending`` rows'; the
        ``ended`` rows' under SAME_STEP), and under NEXT_STEP the ``ended``
        rows pending for the next step (``pending``: rows or a row mask)."""
        next_step = self.autoreset_mode is AutoresetMode.NEXT_STEP
        self._lengths[playing] += 1
        self._lengths[pending] = 0
        if not next_step:
            self._lengths[ended] = 0
        self._pending[:] = False
        if next_step:
            self._pending[ended] = True

    def _ended_infos(self, ended, rewards, codes, turns, final) -> dict:
        """The infos of the ``ended`` rows: :meth:`_end_infos` (NEXT_STEP,
        ``final`` None) or :meth:`_final_infos` with their last ``final =
        (observations, int8 masks)`` (SAME_STEP)."""
        lengths = self._lengths[ended] + 1
        if final is None:
            return self._end_infos(ended, rewards, lengths, codes, turns)
        return self._final_infos(ended, rewards, lengths, codes, turns, *final)

    def _end_infos(self, ended, rewards, lengths, codes, turns) -> dict:
        """The ended episodes' ``return``, ``end_reason`` (the name;
        ``end_reason_code`` the code), ``length`` (the game's turns) and
        ``learner_steps``, one entry per row with gymnasium's ``_key`` masks
        (NEXT_STEP's infos of the step that ended them)."""
        n = self.num_envs
        flags = np.zeros(n, np.bool_)
        flags[ended] = True
        info = {
            "return": np.zeros(n, np.float32),
            "end_reason": np.full(n, "", dtype=object),
            "end_reason_code": np.zeros(n, np.int64),
            "length": np.zeros(n, np.int64),
            "learner_steps": np.zeros(n, np.int64),
        }
        info["return"][ended] = rewards[ended]
        info["end_reason"][ended] = self.vec.reason_names(codes)
        info["end_reason_code"][ended] = codes
        info["length"][ended] = turns
        info["learner_steps"][ended] = lengths
        info.update({f"_{k}": flags for k in list(info)})
        return info

    def _final_infos(self, ended, rewards, lengths, codes, turns, obs, masks) -> dict:
        """SAME_STEP's ``final_obs`` / ``final_info`` of the ended rows: the
        learner's last observations and int8 masks ``obs`` / ``masks``, new
        arrays with one row per ended row (each row's final observation is
        a view of them, shared with no other), and :meth:`_end_infos`."""
        m, n = ended.shape[0], self.num_envs
        final_obs = np.empty(n, dtype=object)
        shaped = obs.reshape((m, *self._obs_shape[1:]))
        if self.action_mask_in_obs:
            for k, i in enumerate(ended.tolist()):
                final_obs[i] = {"observations": shaped[k], "action_mask": masks[k]}
        else:
            for k, i in enumerate(ended.tolist()):
                final_obs[i] = shaped[k]
        flags = np.zeros(n, np.bool_)
        flags[ended] = True
        return {
            "final_obs": final_obs,
            "_final_obs": flags,
            "final_info": self._end_infos(ended, rewards, lengths, codes, turns),
            "_final_info": flags.copy(),
        }

    def _observations(self):
        obs = self._obs_all.reshape(self._obs_shape)
        if self.action_mask_in_obs:
            # the step's mask array as int8 (no copy: a new array each step, as action_masks())
            return {"observations": obs, "action_mask": self._bool_masks.view(np.int8)}
        return obs

    def _infos(self) -> dict:
        return {"action_mask": self._bool_masks, "seat": self._seats.copy(), "illegal_action": self._illegal.copy()}


def _plain(key: str, value) -> bool:
    """Whether a ``make_vec`` pickle state entry is data (a buffer or a flag of its own), not configuration."""
    return key.startswith("_") and isinstance(value, (np.ndarray, bool))
