"""Face 3: ``make_vec`` — N games of one id stepped in one call.

>>> vec = boardenvs.make_vec("quess_v0", num_envs=4096)
>>> obs, infos = vec.reset(seed=0)
>>> obs, rewards, terminations, truncations, infos = vec.step(vec.random_actions())

The games are rows of one ``(N, state_size)`` int64 array, stepped by the
engine's drivers (:func:`boardenvs._drivers.batched`).  The env owns every
buffer; every input is checked before it changes a row (in Python; an
action's legality in the step's driver, as it reads the row's mask, except
in ``"raise"`` mode, where Python checks every action first).  Rows that
end are reset in place (auto-reset): the observation returned is the new
game's, the ended game's returns are that step's ``rewards`` (one column per
seat), its end reason and length are in ``infos``.  Chance nodes are resolved
inside, from each row's own seeded generator.

An action that is not legal in its row forfeits that row's game by default
(``illegal_action="lose"``, PettingZoo classic's and Pgx's convention; or
``"raise"`` / ``"random"``); ``infos`` per row: ``to_move``, ``end_reason``
(the name, None for rows that did not end; a read-only array), ``end_reason_code``,
``length`` (the ended game's turns) and ``illegal_action`` (the row's action was not legal).

Small batches run a serial driver, large ones spread the rows over numba's
threads (``num_threads``; by default numba's, which follows
``NUMBA_NUM_THREADS``).  The returned arrays are the env's output buffers,
overwritten by the next ``step``: copy what you keep.  Writing into them
changes nothing the engine relies on (actions are checked against its own
masks), and ``states`` is a read-only view.
"""

from __future__ import annotations

import threading

import gymnasium
import numba
import numpy as np
from numba import njit

from . import _drivers, _threads
from . import engine as E
from .errors import ILLEGAL_ACTION_HELP, IllegalActionError
from .game import GENERIC_REASONS, Game
from .position import Position
from .spec import ILLEGAL_ACTION_DEFAULT, check_choice, check_flag, check_illegal_action, check_seed, check_size, is_int

_INT64_MAX = np.iinfo(np.int64).max


@njit(cache=True)
def _count_illegal(actions, masks, num_actions):
    """How many rows' actions are out of range or masked out."""
    bad = 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions or masks[i, a] == 0:
            bad += 1
    return bad


@njit(cache=True)
def _count_illegal_rows(actions, rows, masks, num_actions, random_action, allow_random):
    """How many of the listed rows' actions the engine's masks refuse
    (``masks`` indexed by row, no copy of the rows' masks): out of range or
    masked out, or (with ``allow_random``) ``random_action`` in a row with
    no legal action."""
    bad = 0
    for k in range(actions.shape[0]):
        a = actions[k]
        r = rows[k]
        if allow_random and a == random_action:
            row = masks[r]
            words = row.shape[0] // 8
            wv = row[: words * 8].view(np.uint64)  # eight entries at a time: long masks, few legal
            any_legal = False
            for w in range(words):
                if wv[w] != 0:
                    any_legal = True
                    break
            for j in range(words * 8, row.shape[0]):
                if row[j] != 0:
                    any_legal = True
            if not any_legal:
                bad += 1
        elif a < 0 or a >= num_actions or masks[r, a] == 0:
            bad += 1
    return bad


@njit(cache=True)
def _rows_problem(rows, n, seen):
    """0 when ``rows`` are distinct indices ``0..n-1``, 1 when one is out of
    range, 2 when one comes twice (``seen``: n False entries, scratch)."""
    for k in range(rows.shape[0]):
        r = rows[k]
        if r < 0 or r >= n:
            return 1
        if seen[r]:
            return 2
        seen[r] = True
    return 0


@njit(cache=True)
def _learners_problem(states, seats, pending, num_players):
    """``play_learners``' seats in one pass: -1 when every seat is 0..n-1
    and, in each row not ``pending``, a live game's seat to act; else
    ``num_envs + k`` for a seat out of range in row ``k``, or ``k`` for row
    ``k`` where the learner is not to act."""
    n = seats.shape[0]
    for k in range(n):
        if seats[k] < 0 or seats[k] >= num_players:
            return n + k
    for k in range(n):
        if not pending[k] and (states[k, E.H_STATUS] != E.PLAYING or states[k, E.H_CURRENT] != seats[k]):
            return k
    return -1


@njit(cache=True)
def _stopped(stage, waiting, picking):
    """The rows where the learner loop stopped (one pass over ``stage``):
    those waiting for an opponent outside the engine into ``waiting``, for
    a pick into ``picking``; returns how many of each."""
    nw = npick = 0
    for i in range(stage.shape[0]):
        st = stage[i]
        if st == _drivers.PLAY or st == _drivers.DEAL:
            waiting[nw] = i
            nw += 1
        elif st == _drivers.PICK:
            picking[npick] = i
            npick += 1
    return nw, npick


def parallel_from() -> int:
    """The row count from which ``make_vec`` runs numba's threads by default
    (128 with TBB or OpenMP, 4096 with workqueue)."""
    return _threads.parallel_from()


def drivers_for(kernels) -> _drivers.Batched:
    return _drivers.batched(kernels)


MAX_NUM_ENVS = 1 << 20  # rows of one make_vec
MAX_BYTES = 4 << 30  # and the bytes of its buffers (2**20 Quess rows would need 8.6 GB: refused with a message)


class VectorEnv:
    """``num_envs`` games of one id (see the module docstring).

    Options: the game's own (``first_player``, ``max_turns``, ...), and

    * ``illegal_action``: what a masked-out or out-of-range action does in
      its row (C-6), the same on every face: ``"lose"`` (default, PettingZoo
      classic's and Pgx's convention: that row's mover forfeits, -1 for it
      and 0 for the others, the row's game ends and a new one starts; the
      other rows play on; a warning the first time), ``"raise"``
      (IllegalActionError naming the rows, and no row changes) or
      ``"random"`` (a uniformly random legal action is played in that row
      instead, drawn from the row's generator).  ``infos["illegal_action"]``
      marks the rows whose action was not legal;
    * ``num_threads``: threads for the parallel driver (default: numba's);
    * ``parallel``: ``None`` (default: threads from the row count where they
      pay, :func:`boardenvs._threads.parallel_from`: 128 with TBB or
      OpenMP, 4096 with workqueue), ``True`` or ``False``.

    ``num_envs`` is at most :data:`MAX_NUM_ENVS` (2**20), and the rows'
    buffers at most :data:`MAX_BYTES` (4 GiB: fewer rows of a game with long
    rows, such as Quess with its default superko memory).  After
    :meth:`close`, every call raises gymnasium's ``ClosedEnvironmentError``.

    **What the caller holds.**  The observation and mask arrays returned by
    ``reset`` / ``step`` / :meth:`action_masks` are the env's output buffers,
    overwritten by the next call (copy what you keep); writing into them
    changes nothing the engine relies on: actions are checked against the
    engine's own copy of the masks.  :attr:`states` is a read-only view of
    the rows.  Calls on one instance from several Python threads take turns
    (a lock); separate instances run side by side.  ``copy.deepcopy`` and
    ``pickle`` give an independent env in the same state (its rows, their
    generators and buffers), which given the same actions plays the same.
    """

    def __init__(
        self,
        game_cls: type[Game],
        num_envs: int,
        illegal_action: str = ILLEGAL_ACTION_DEFAULT,
        num_threads: int | None = None,
        parallel: bool | None = None,
        **options,
    ):
        where = f"{game_cls.env_id} make_vec: "
        n = check_size("num_envs", num_envs, MAX_NUM_ENVS, where)
        check_illegal_action(illegal_action, where)
        if num_threads is not None:
            top = numba.config.NUMBA_NUM_THREADS
            if not is_int(num_threads) or not 1 <= num_threads <= top:
                raise ValueError(f"{where}num_threads must be an int 1..{top} (NUMBA_NUM_THREADS), got {num_threads!r}")
        check_choice("parallel", parallel, (None, True, False), where)
        self.game = game = game_cls(**options)
        info = game.info
        per_row = (
            8 * info.state_size
            + info.obs_size
            + info.mask_size
            + game.num_actions
            + 4 * game.num_players
            + 8 * max(info.num_chance_outcomes, 1)
            + 36
        )  # the buffers below, per row
        if n * per_row > MAX_BYTES:
            raise ValueError(
                f"{where}num_envs={n:,} rows need {n * per_row / 2**30:.1f} GiB of buffers ({per_row:,} bytes "
                f"a row with these options); at most {MAX_BYTES >> 30} GiB: use at most "
                f"{MAX_BYTES // per_row:,} rows"
            )
        self.env_id = game.env_id
        self.num_envs = n
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.illegal_action = illegal_action
        self.num_threads = None if num_threads is None else int(num_threads)
        self.parallel = n >= _threads.parallel_from() if parallel is None else bool(parallel)
        self.possible_agents = game.agents
        # gymnasium's vector attributes: one row's spaces (the observation of the seat to act and
        # its mask), the batched ones built on first read (a Box of N rows' bounds is large)
        self.single_observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(info.obs_low, info.obs_high, info.obs_shape, np.int8),
                "action_mask": gymnasium.spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        self.single_action_space = gymnasium.spaces.Discrete(game.num_actions)
        self.metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}
        self._states = np.zeros((n, info.state_size), np.int64)
        self._obs = np.zeros((n, info.obs_size), np.int8)
        # the kernels' masks (the engine's own: actions are checked against
        # them) and the copy handed out (its first num_actions columns)
        self._masks = np.zeros((n, info.mask_size), np.int8)
        self._out_masks = np.zeros((n, game.num_actions), np.int8)
        self._probs = np.zeros((n, max(info.num_chance_outcomes, 1)), np.float64)
        self._rewards = np.zeros((n, game.num_players), np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._reasons = np.zeros(n, np.int64)
        self._lengths = np.zeros(n, np.int64)
        self._to_move = np.zeros(n, np.int64)  # the seat to act in every row, written by reset's and step's drivers
        self._actions = np.zeros(n, np.int64)
        self._illegal = np.zeros(n, np.bool_)
        self._has_reset = False
        self._warned_illegal = False
        self._closed = False
        self._setup()

    def _setup(self) -> None:
        """What is derived, not copied: the drivers, views, the lock, the
        table of end-reason names (rebuilt after ``copy`` / ``pickle``)."""
        game, n = self.game, self.num_envs
        self._batched = drivers_for(game.kernels)
        self._drivers = self._batched.parallel if self.parallel else self._batched.serial
        self._threads = self.num_threads if self.parallel else None
        self._obs_view = self._obs.reshape((n, *game.obs_shape))
        # read-only for good: a view of a read-only buffer over the rows, which no
        # one can make writeable again (a plain view's flag can be set back; issue 47)
        self._states_view = np.frombuffer(memoryview(self._states).toreadonly(), np.int64).reshape(self._states.shape)
        codes = {**GENERIC_REASONS, **game.reason_names}
        table = np.full(max(codes) + 1, None, dtype=object)
        for code, name in codes.items():
            table[code] = name
        self._name_table = table.copy()  # reason_names' ("-" for REASON_NONE: a learner out of a game that goes on)
        table[E.REASON_NONE] = None  # rows that did not end
        self._reason_table = table
        # infos["end_reason"]: None but in the rows that ended at the last step
        # (_named), handed out read-only (so no other row can hold a name)
        self._reason_names, self._named = np.full(n, None, dtype=object), np.zeros(0, np.intp)
        self._reason_names_out = self._reason_names.view()
        self._reason_names_out.flags.writeable = False
        self._lock = threading.RLock()

    def __getstate__(self):
        state = dict(self.__dict__)
        for key in (
            "_batched",
            "_drivers",
            "_threads",
            "_obs_view",
            "_states_view",
            "_reason_table",
            "_name_table",
            "_reason_names",
            "_named",
            "_reason_names_out",
            "_lock",
            "_engine_steps",
            "_observation_space",
            "_action_space",
        ):
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        """An unpickled env is built again from its configuration (the
        game's options, ``num_envs``, ...: checked as ``make_vec``'s), then
        takes the pickle's buffers of the same shapes and dtypes, its rows
        checked one by one as a Position's (C-6: a pickle is data from
        outside); the masks the engine trusts are computed again from the
        rows, never read from the pickle."""
        game = state.get("game")
        if not isinstance(game, Game):
            raise ValueError(f"an unpickled make_vec's game must be a boardenvs Game, got {type(game).__name__}")
        self.__init__(
            type(game),
            state.get("num_envs"),
            state.get("illegal_action"),
            state.get("num_threads"),
            state.get("parallel"),
            **game.options,
        )
        for key, fresh in self.__dict__.items():
            if isinstance(fresh, np.ndarray) and key in state and key != "_states":
                got = state[key]
                if not (isinstance(got, np.ndarray) and got.shape == fresh.shape and got.dtype == fresh.dtype):
                    raise ValueError(
                        f"{self.env_id}: an unpickled make_vec's {key} must be {fresh.dtype} of shape "
                        f"{fresh.shape}, got {_describe(got)}"
                    )
                fresh[...] = got
        self._has_reset = state.get("_has_reset") is True
        self._closed = state.get("_closed") is True
        self._warned_illegal = state.get("_warned_illegal") is True
        if self._has_reset:
            self._adopt_rows(state.get("_states"), "an unpickled make_vec's")
        elif np.any(state.get("_states")):  # (before reset() the rows are zeros)
            raise ValueError(f"{self.env_id}: an unpickled make_vec that was never reset holds rows that are not zeros")
        self._reasons[(self._reasons < 0) | (self._reasons >= len(self._reason_table))] = E.REASON_NONE

    def _adopt_rows(self, rows, whose: str) -> None:
        """``rows`` from outside (an unpickled env's, a copied snapshot's)
        checked one by one as a Position's (ValueError, and no row changes,
        if one is no state of the game), then made the env's, with the
        engine's masks and the seats to act computed from them."""
        rows = np.array(rows, np.int64)
        if rows.shape != self._states.shape:
            raise ValueError(
                f"{self.env_id} make_vec: {whose} rows are {_describe(rows)}, the env's {self._states.shape}"
            )
        game = self.game
        for i, row in enumerate(rows):
            game.check_row(row, f"{whose} row {i}")
        self._states[:] = rows
        settle = game.one_row().settle
        probs = np.zeros(max(game.num_chance_outcomes, 1), np.float64)
        for row, mask in zip(self._states, self._masks):
            settle(row, game.params, False, probs, mask)  # the mask of the row as it is
        self._out_masks[:] = self._masks[:, : self.num_actions]
        self._to_move[:] = self._states[:, E.H_CURRENT]

    # -- the API ---------------------------------------------------------------------
    @property
    def observation_space(self) -> gymnasium.spaces.Dict:
        """gymnasium's batched observation space: ``single_observation_space``
        for ``num_envs`` rows (built on first read)."""
        if "_observation_space" not in self.__dict__:
            from gymnasium.vector.utils import batch_space

            self._observation_space = batch_space(self.single_observation_space, self.num_envs)
        return self._observation_space

    @property
    def action_space(self) -> gymnasium.spaces.MultiDiscrete:
        """gymnasium's batched action space: one action id per row."""
        if "_action_space" not in self.__dict__:
            self._action_space = gymnasium.spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions))
        return self._action_space

    @property
    def states(self) -> np.ndarray:
        """The rows, ``(num_envs, state_size)`` int64: a read-only view (the
        rows change with every call; copy what you keep)."""
        return self._states_view

    def reset(self, seed=None):
        """Start a new game in every row.  ``seed``: an int (each row gets its
        own seed, derived from it), an array of ``num_envs`` non-negative
        ints (one per row), or None (fresh entropy)."""
        with self._lock:
            self._require_open("reset")
            seeds = self._row_seeds(seed)
            self._run(
                self._drivers.reset,
                self._states,
                self.game.params,
                seeds,
                self._probs,
                self._obs,
                self._masks,
                self._out_masks,
                self._to_move,
            )
            self._has_reset = True
            self._rewards[:] = 0
            self._terminated[:] = False
            self._truncated[:] = False
            self._reasons[:] = 0
            self._lengths[:] = 0
            self._illegal[:] = False
            return self._observations(), self._infos()

    def step(self, actions):
        """One action per row (an integer array of shape ``(num_envs,)``, each
        in the row's mask; see ``illegal_action``).  Returns ``obs, rewards,
        terminations, truncations, infos`` (see the module docstring)."""
        with self._lock:
            self._require_reset("step")
            out = self._step(self._check_actions(actions), 1 if self.illegal_action == "random" else 0)
            self._warn_illegal(actions)  # after the step, which is applied (a warning turned into an error included)
            return out

    def step_random(self):
        """``step(random_actions())`` in one pass of the rows: every row plays
        a uniformly random legal action, drawn in the step's driver from the
        row's generator.  The draws are :meth:`random_actions`' (the same
        generator state), so these are the same games, move for move, without
        the pass that hands the actions out (5-14% more steps/s at N = 4096):
        for random play where the actions themselves are not needed (game
        statistics, random-opponent data, benchmarks).  Returns what
        :meth:`step` returns."""
        with self._lock:
            self._require_reset("step_random")
            return self._step(self._actions, 2)  # the actions unread

    def _step(self, actions, draw: int):
        """The step's driver on every row (``draw``: its ``step_n``'s), then
        what :meth:`step` returns."""
        self._run(
            self._drivers.step,
            self._states,
            self.game.params,
            actions,
            self._probs,
            self._obs,
            self._masks,
            self._out_masks,
            self._rewards,
            self._terminated,
            self._truncated,
            self._reasons,
            self._lengths,
            self._to_move,
            self._illegal,
            draw,
        )
        return self._observations(), self._rewards, self._terminated, self._truncated, self._infos()

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per row, drawn in the kernel from
        each row's generator (so it is reproduced by the reset seed)."""
        with self._lock:
            self._require_reset("random_actions")
            out = np.empty(self.num_envs, np.int64)
            self._run(self._drivers.random_actions, self._states, self._masks, out)
            return out

    def position(self, i) -> Position:
        """A Position snapshot (a copy) of row ``i``."""
        with self._lock:
            self._require_reset("position")
            if not is_int(i) or not -self.num_envs <= i < self.num_envs:
                raise IndexError(f"row must be an int in 0..{self.num_envs - 1}, got {i!r}")
            return Position._own(self.game, self._states[int(i)].copy())

    def observations(self) -> dict:
        """``{"observation", "action_mask"}`` of the last ``reset`` / ``step``
        (the same buffers they returned)."""
        self._require_reset("observations")
        return self._observations()

    def action_masks(self) -> np.ndarray:
        """The masks of the seats to act, ``(num_envs, num_actions)`` int8 (the
        buffer ``obs["action_mask"]`` is: overwritten by the next step)."""
        return self._out_masks

    def reason_name(self, code) -> str:
        """The name of an end-reason code of ``infos["end_reason_code"]``."""
        if not is_int(code):
            raise ValueError(f"{self.env_id}: an end-reason code is an int, got {code!r}")
        return self.game.reason_name(int(code))

    @property
    def to_move(self) -> np.ndarray:
        return self._states[:, E.H_CURRENT].copy()

    # -- the row API: acting, observing and resetting a given set of rows ----------
    # What the single-agent vector view, distillation and the benchmarks
    # build on.  Rows are an integer array of distinct row indices; nothing
    # here resets a row by itself (``step`` does, these do not), and every
    # action is checked against the engine's own masks, as ``step``'s.

    RANDOM = E.RANDOM_ACTION  # an action for act_rows: a random legal one, drawn from the row's generator

    def seed_rows(self, seed=None) -> None:
        """Seed every row's generator as :meth:`reset` does (an int: each
        row's own seed derived from it; ``num_envs`` ints: one per row; None:
        fresh entropy), without starting games: :meth:`reset_rows` next."""
        with self._lock:
            self._require_open("seed_rows")
            self._states[:, E.H_RNG] = self._row_seeds(seed)
            self._has_reset = True

    def reset_rows(self, rows, draw_seats: bool = False):
        """A new game in each of ``rows``, each from its row's generator (its
        first player too, where the option is ``"random"``), chance resolved.
        With ``draw_seats``, also a seat per row drawn from the row's
        generator (a learner's seat), returned as an int64 array."""
        with self._lock:
            self._require_reset("reset_rows")
            rows = self._check_rows(rows)
            seats = np.zeros(rows.shape[0], np.int64)
            self._run(
                self._drivers.reset_rows,
                self._states,
                self.game.params,
                rows,
                self._probs,
                seats,
                check_flag("draw_seats", draw_seats),
                self._masks,
            )
            return seats if draw_seats else None

    def act_rows(self, rows, actions, illegal_action: str | None = None, allow_random: bool = True) -> np.ndarray:
        """Row ``rows[k]`` plays ``actions[k]`` (:attr:`RANDOM`: a random legal
        action from the row's generator), then chance is resolved; no
        auto-reset (a row whose game ends stays over until
        :meth:`reset_rows`).  An action the row's seat to act may not play
        (or any action in a row that is over) is handled by
        ``illegal_action`` (default: the env's): ``"lose"`` forfeits the
        mover, ``"raise"`` raises IllegalActionError before any row changes,
        ``"random"`` plays a random legal action.  ``allow_random=False``:
        :attr:`RANDOM` is an illegal action too (a learner's actions).
        Returns the rows' ``illegal`` flags."""
        with self._lock:
            self._require_reset("act_rows")
            rows = self._check_rows(rows)
            mode = self.illegal_action if illegal_action is None else check_illegal_action(illegal_action)
            allow_random = check_flag("allow_random", allow_random, f"{self.env_id} make_vec: ")
            actions, illegal = self._checked_actions(actions, rows, mode, allow_random)
            self._run(self._drivers.act_rows, self._states, self.game.params, rows, actions, self._probs, self._masks)
            return illegal

    def observe_rows(self, rows, seats, out=None):
        """Row ``rows[k]`` as seat ``seats[k]`` sees it: ``(observations,
        masks)``, ``(k, *obs_shape)`` int8 and ``(k, num_actions)`` int8, the
        mask all zeros unless that seat is to act in a live game (new arrays;
        or, as numpy's ``out=``, written into ``out = (observations, masks)``:
        C-contiguous writeable arrays of those shapes, int8, the masks int8
        or bool, and returned)."""
        with self._lock:
            self._require_reset("observe_rows")
            rows = self._check_rows(rows)
            seats = np.asarray(seats)
            if (
                seats.shape != rows.shape
                or seats.dtype.kind not in "iu"
                or ((seats < 0) | (seats >= self.num_players)).any()
            ):
                raise ValueError(
                    f"{self.env_id} make_vec: seats must be {rows.shape[0]} seats 0..{self.num_players - 1}, "
                    f"got {_describe(seats)}"
                )
            k = rows.shape[0]
            if out is None:
                obs = np.empty((k, self.game.obs_size), np.int8)
                masks = np.empty((k, self.num_actions), np.int8)
            else:
                obs, masks = self._check_out(out, k)
            self._run(
                self._drivers.observe_rows,
                self._states,
                self.game.params,
                rows,
                seats.astype(np.int64),
                obs.reshape(k, self.game.obs_size),
                self._masks,
                masks.view(np.int8),
            )
            return obs.reshape((k, *self.game.obs_shape)), masks

    def play_learners(
        self,
        actions,
        seats,
        draw_seats: bool = False,
        restart: bool = True,
        pending=None,
        out=None,
        opponent=None,
        ask=None,
        outside=None,
        pick=None,
    ) -> dict:
        """The learner loop, every single-agent view's step: one learner per
        row, its opponents random (each row drawing from its generator) and
        played in one call of the engine, or asked from outside it once per
        round (``ask``, below).  ``opponent``: an :class:`~boardenvs.opponents.Opponent` whose
        :meth:`~boardenvs.opponents.Opponent.engine_decision` plays the other
        seats inside the same call instead (e.g. ``"greedy"``); ValueError
        for one that has none.

        Row ``i``'s learner, in seat ``seats[i]`` and to act (as after
        the last call, for a row not pending), plays ``actions[i]``
        (checked as :meth:`step`'s, under the env's ``illegal_action``;
        :attr:`RANDOM` is no learner's action), then the opponents move
        until it is the learner's turn again or its episode is over (the
        game ended, or the learner is out of it).  With ``restart``
        (default) a row whose episode ended starts the next one at once: a
        new game up to the learner's first decision (a game that ends first
        is dealt again), its seat drawn from the row's generator into
        ``seats`` with ``draw_seats``.  ``pending`` (``num_envs`` bools):
        rows that start their next episode now instead of moving (their
        actions unused).  ``seats``: ``num_envs`` int64 seats, a
        C-contiguous writeable array (updated in place); ``out = (observations,
        masks)`` as :meth:`observe_rows`' (new arrays if None), written with
        every row's learner view.

        ``actions``: ``num_envs`` of them (with pending rows, also just the
        rows not pending), checked after every other input.

        Opponents outside the engine (models, searches, Python policies):
        ``outside`` (``num_envs`` bools, C-contiguous) marks the rows whose
        opponent decides outside; those rows stop where it is to act, and
        ``ask(rows, movers, observations, masks) -> actions`` is called once
        per round with every row waiting (ascending; the movers' seats, views
        and int8 masks), its answers checked (IllegalActionError) and played
        in the next round.  ``pick(rows)``: called where rows start a new
        episode (ascending, after the deal, before anyone moves in it) for the
        caller to choose their opponents and set ``outside[rows]`` (a pool).
        An ``ask`` or ``pick`` that raises leaves its rows part-way (no copy
        is kept to undo them): reset them.

        Returns ``{"observation", "action_mask", "illegal_action",
        "rewards"}`` (the learner's return in the rows that ended, else 0)
        and the env's buffers, overwritten by the next call: ``"ended"``
        (int8: 0, 1 terminated, 2 truncated), ``"end_reason_code"`` and
        ``"length"`` (the ended game's turns; 0 in the other rows), and with
        ``restart`` ``"final_observation"`` / ``"final_mask"`` (an ended
        row's last view, ``(num_envs, obs_size)`` int8 and ``(num_envs,
        num_actions)`` bool; only the ended rows' are this call's).

        RuntimeError when 64 new games in a row ended a learner's episode
        before its first decision: every other row is played (the call's
        result is the error's ``result``, those rows' ``ended`` -1, their
        seats the last deal's) and those rows are left as they are, their
        learner not to act, to be reset with :meth:`reset_rows`."""
        with self._lock:
            self._require_reset("play_learners")
            n, where = self.num_envs, f"{self.env_id} make_vec: "
            if not (
                type(seats) is np.ndarray
                and seats.shape == (n,)
                and seats.dtype == np.int64
                and seats.flags.c_contiguous
                and seats.flags.writeable
            ):
                raise ValueError(
                    f"{where}seats must be a C-contiguous writeable int64 array of shape ({n},), got {_describe(seats)}"
                )
            draw_seats, restart = check_flag("draw_seats", draw_seats, where), check_flag("restart", restart, where)
            pend = np.zeros(n, np.bool_) if pending is None else np.ascontiguousarray(pending)
            if pend.shape != (n,) or pend.dtype != np.bool_:
                raise ValueError(f"{where}pending must be {n} bools, got {_describe(pending)}")
            if out is None:
                obs, masks = np.empty((n, *self.game.obs_shape), np.int8), np.empty((n, self.num_actions), np.bool_)
            else:
                obs, masks = self._check_out(out, n)
                # the kernel writes out while it reads seats and pending, row by row
                if any(np.shares_memory(a, b) for a in (seats, pend) for b in (obs, masks)):
                    raise ValueError(f"{where}out must not share memory with seats or pending")
            problem = _learners_problem(self._states, seats, pend, self.num_players)
            if problem >= n:
                raise ValueError(
                    f"{where}seats must be 0..{self.num_players - 1}, got {int(seats[problem - n])} "
                    f"in row {problem - n}"
                )
            if problem >= 0:
                raise ValueError(
                    f"{where}the learner (seats[i]) must be to act in every row not pending; it is not in row {problem}"
                )
            if pend.any():
                playing = np.flatnonzero(~pend)
                arr = np.asarray(actions)
                if arr.shape not in ((n,), playing.shape):
                    raise IllegalActionError(
                        f"{where}actions must have shape ({n},) (or ({playing.shape[0]},): the rows "
                        f"not pending), got {_describe(actions)}"
                    )
                checked, illegal = np.zeros(n, np.int64), np.zeros(n, np.bool_)
                if playing.size:  # (every row pending, as a single-agent view's reset: no action to check)
                    part, flags = self._checked_actions(
                        arr[playing] if arr.shape == (n,) else arr, playing, self.illegal_action, allow_random=False
                    )
                    checked[playing], illegal[playing] = part, flags
            else:
                checked, illegal = self._checked_actions(actions, None, self.illegal_action)
            buf = self.__dict__.get("_learner_buffers")
            if buf is None:
                buf = self._learner_buffers = {
                    "final_observation": np.zeros((n, self.game.obs_size), np.int8),
                    "final_mask": np.zeros((n, self.num_actions), np.bool_),
                    "ended": np.zeros(n, np.int8),
                    "end_reason_code": np.zeros(n, np.int64),
                    "length": np.zeros(n, np.int64),
                }
                buf.update(
                    stage=np.zeros(n, np.int8),
                    deals=np.zeros(n, np.int64),
                    outside=np.zeros(n, np.bool_),
                    wait_observation=np.zeros((n, self.game.obs_size), np.int8),
                    wait_mask=np.zeros((n, self.num_actions), np.int8),
                )
            rewards = np.empty(n, np.float32)
            drivers = self._drivers if opponent is None else self._engine_step(opponent)
            picks = pick is not None
            if outside is None:
                outside = buf["outside"]
            elif not (
                type(outside) is np.ndarray
                and outside.shape == (n,)
                and outside.dtype == np.bool_
                and outside.flags.c_contiguous
            ):
                raise ValueError(
                    f"{where}outside must be a C-contiguous bool array of shape ({n},), got {_describe(outside)}"
                )
            if (
                (ask is None and outside.any())
                or not (ask is None or callable(ask))
                or not (pick is None or callable(pick))
            ):
                raise ValueError(
                    f"{where}rows with an opponent outside the engine need ask, a callable (and pick, if "
                    f"given, a callable); got ask={ask!r}, pick={pick!r}"
                )
            loop = (
                seats,
                draw_seats,
                restart,
                outside,
                picks,
                buf["stage"],
                buf["deals"],
                self._probs,
                self._masks,
                obs.reshape(n, self.game.obs_size),
                masks.view(np.int8),
                buf["final_observation"],
                buf["final_mask"].view(np.int8),
                rewards,
                buf["ended"],
                buf["end_reason_code"],
                buf["length"],
                buf["wait_observation"],
                buf["wait_mask"],
            )
            self._run(drivers.agent_step, self._states, self.game.params, checked, *loop[:3], pend, *loop[3:])
            if ask is not None or picks:
                self._rounds(drivers.agent_resume, loop, buf, ask, pick)
            result = {
                "observation": obs,
                "action_mask": masks,
                "illegal_action": illegal,
                "rewards": rewards,
                "ended": buf["ended"],
                "end_reason_code": buf["end_reason_code"],
                "length": buf["length"],
            }
            if restart:
                result.update(final_observation=buf["final_observation"], final_mask=buf["final_mask"])
            if (buf["ended"] < 0).any():
                rows = np.flatnonzero(buf["ended"] < 0)
                error = RuntimeError(
                    f"{where}64 new games in a row ended the learner's episode before its first "
                    f"decision in row(s) {rows[:5].tolist()}: reset_rows them (their learner is not "
                    "to act); the other rows were played (this call's result: the error's .result)"
                )
                error.result = result
                raise error
            return result

    def _rounds(self, resume, loop, buf, ask, pick) -> None:
        """``play_learners``' rounds: while rows wait for an opponent outside
        the engine (``ask``) or for a new episode's opponent (``pick``), ask,
        check the answers, and go on in those rows (``agent_resume`` with the
        loop's arguments ``loop``; ``buf``: its buffers by name)."""
        stage, wait_obs, wait_masks = buf["stage"], buf["wait_observation"], buf["wait_mask"]
        shape, rows_buf, pick_buf = (
            self.game.obs_shape,
            np.empty(stage.shape[0], np.int64),
            np.empty(stage.shape[0], np.int64),
        )
        while True:
            nw, npick = _stopped(stage, rows_buf, pick_buf)
            if nw == 0 and npick == 0:
                return
            waiting, picking = rows_buf[:nw].copy(), pick_buf[:npick].copy()
            if picking.size:
                pick(picking)  # (the caller sets outside[picking])
            rows, actions = waiting, np.zeros(waiting.shape[0] + picking.shape[0], np.int64)
            if waiting.size:
                k = waiting.shape[0]
                answers = ask(
                    waiting,
                    self._states[waiting, E.H_CURRENT],
                    wait_obs[waiting].reshape(k, *shape),
                    wait_masks[waiting],
                )
                actions[:k] = self._checked_actions(answers, waiting, "raise")[0]
            if picking.size:
                rows = np.concatenate([waiting, picking])
            self._run(resume, self._states, self.game.params, rows, actions, *loop)

    def _engine_step(self, opponent):
        """The learner loop's drivers with ``opponent``'s engine decision
        bound (asked of the opponent once per env: an opponent that gave new
        functions each time would compile a new driver each step)."""
        cache = self.__dict__.setdefault("_engine_steps", {})
        found = cache.get(id(opponent))
        if found is None or found[0] is not opponent:
            extras = opponent.engine_decision(self.game) if hasattr(opponent, "engine_decision") else None
            if not extras:
                raise ValueError(
                    f"{self.env_id} make_vec: opponent {getattr(opponent, 'name', opponent)!r} has no engine "
                    "decision (Opponent.engine_decision): ask it round by round instead"
                )
            drivers = _drivers.batched(self.game.kernels, tuple(extras), opponent=True)
            found = cache[id(opponent)] = (opponent, drivers.parallel if self.parallel else drivers.serial)
        return found[1]

    def reason_names(self, codes) -> np.ndarray:
        """The names of end-reason codes (an integer array), as an object
        array of the same shape (:meth:`reason_name`'s, one per code)."""
        arr = np.asarray(codes)
        table = self._name_table
        if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= len(table))):
            raise ValueError(f"{self.env_id}: end-reason codes are ints 0..{len(table) - 1}, got {_describe(codes)}")
        return table[arr]

    def _check_out(self, out, k):
        """``observe_rows``' ``out``: (observations, masks) to write into, or ValueError."""
        shapes = ((k, *self.game.obs_shape), (k, self.num_actions))
        ok = (
            isinstance(out, tuple)
            and len(out) == 2
            and all(
                type(a) is np.ndarray and a.shape == shape and a.flags.c_contiguous and a.flags.writeable
                for a, shape in zip(out, shapes)
            )
            and out[0].dtype == np.int8
            and out[1].dtype in (np.int8, np.bool_)
        )
        if not ok:
            raise ValueError(
                f"{self.env_id} make_vec: out must be (observations, masks): C-contiguous writeable arrays "
                f"of shapes {shapes[0]} int8 and {shapes[1]} int8 or bool, got {_describe_out(out)}"
            )
        return out

    def snapshot(self) -> RowsSnapshot:
        """Everything the rows hold (states, the engine's masks), to put back
        with :meth:`restore` (a caller's undo or branch point).  Its arrays
        are read-only for good."""
        with self._lock:
            self._require_open("snapshot")
            return RowsSnapshot(self, self._states, self._masks)

    def restore(self, snapshot: RowsSnapshot) -> None:
        """Put back what :meth:`snapshot` took of this env.  A snapshot that
        was copied or unpickled is data from outside: its rows are checked
        as a Position's and the masks computed again from them (ValueError,
        and no row changes, if one is no state of the game)."""
        if not isinstance(snapshot, RowsSnapshot) or snapshot.env is not self:
            raise ValueError(f"{self.env_id} make_vec: restore takes a snapshot() of this env, got {snapshot!r}")
        with self._lock:
            self._require_open("restore")
            if snapshot.taken_here:
                self._states[:] = snapshot.states
                self._masks[:] = snapshot.masks
                return
            self._adopt_rows(snapshot.states, "make_vec.restore: the copied snapshot's")

    def close(self) -> None:
        """Done with the env: every later call raises gymnasium's
        ``ClosedEnvironmentError`` (as its ``AsyncVectorEnv`` does); closing
        twice is fine."""
        self._closed = True

    def __repr__(self) -> str:
        return f"<VectorEnv {self.env_id} num_envs={self.num_envs} {'parallel' if self.parallel else 'serial'}>"

    # -- checks and views ------------------------------------------------------------
    def _require_open(self, what: str) -> None:
        if self._closed:
            from gymnasium.error import ClosedEnvironmentError

            raise ClosedEnvironmentError(f"{self.env_id} make_vec: {what}() after close(): make a new env")

    def _require_reset(self, what: str) -> None:
        self._require_open(what)
        if not self._has_reset:
            from .errors import ResetNeededError

            raise ResetNeededError(f"{self.env_id} make_vec: {what}() before reset(): call reset() first")

    def _row_seeds(self, seed) -> np.ndarray:
        n = self.num_envs
        if seed is None or is_int(seed):
            entropy = None if seed is None else check_seed(seed)
            words = np.random.SeedSequence(entropy).generate_state(n, np.uint64)
            return words.view(np.int64)
        seeds = np.asarray(seed)
        if seeds.shape != (n,) or not np.issubdtype(seeds.dtype, np.integer):
            raise ValueError(f"seed must be an int, None, or {n} integers (one per row), got {_describe(seed)}")
        if (seeds < 0).any():
            raise ValueError(f"seeds must be non-negative, got {int(seeds.min())} in row {int(np.argmin(seeds))}")
        # each row's seed goes through SeedSequence too, so nearby seeds give unrelated games
        return np.array(
            [np.random.SeedSequence(int(s)).generate_state(1, np.uint64)[0] for s in seeds], np.uint64
        ).view(np.int64)

    def _run(self, driver, *args):
        if not self.parallel:
            driver(*args)
            return
        with _threads.exclusive(), _threads.limit(self._threads):
            driver(*args)

    def _check_rows(self, rows) -> np.ndarray:
        """``rows`` as distinct int64 row indices (a copy: the kernels' own),
        or ValueError (one compiled pass: the row API's callers step small
        batches, where numpy's several passes cost more than the rows)."""
        arr = rows if type(rows) is np.ndarray else np.asarray(rows)
        n = self.num_envs
        problem = 1
        if arr.ndim == 1 and arr.dtype.kind in "iu":
            wide = arr.dtype.kind == "u" and arr.dtype.itemsize == 8
            arr = arr.astype(np.int64) if not wide else np.where(arr >= n, -1, arr).astype(np.int64)
            problem = _rows_problem(arr, n, np.zeros(n, np.bool_))
        if problem == 1:
            raise ValueError(
                f"{self.env_id} make_vec: rows must be a 1-D integer array of rows 0..{n - 1}, got {_describe(rows)}"
            )
        if problem == 2:
            raise ValueError(f"{self.env_id} make_vec: rows must be distinct, got a row twice")
        return arr

    def _check_actions(self, actions) -> np.ndarray:
        """``step``'s actions as the kernel takes them.  With ``"raise"``
        checked here (:meth:`_checked_actions`: nothing is stepped on an
        illegal one); else only their shape and dtype (:meth:`_typed_actions`),
        and the step's driver flags the illegal ones in ``_illegal`` and
        forfeits them or plays a random legal action (:meth:`_warn_illegal`
        then warns): the driver reads the row's mask anyway, while a check
        here, reading N masks a kernel had just written, took 5% of a step."""
        if self.illegal_action == "raise":
            return self._checked_actions(actions, None, "raise")[0]
        return self._typed_actions(actions, None)

    def _warn_illegal(self, actions) -> None:
        """After a step in ``"lose"`` / ``"random"`` mode: the warning, once per
        env, naming the rows the driver flagged (``actions``: the caller's)."""
        if self._warned_illegal or self.illegal_action == "raise" or not self._illegal.any():
            return
        self._warn_once(self._illegal_what(np.flatnonzero(self._illegal), actions, None), self.illegal_action)

    def _warn_once(self, what: str, mode: str) -> None:
        """The illegal-action warning (``what``: :meth:`_illegal_what`'s), once per env."""
        if not self._warned_illegal:
            self._warned_illegal = True
            gymnasium.logger.warn(
                f"{self.env_id} make_vec: {what}: illegal_action={mode!r} "
                + ("forfeits those rows' games" if mode == "lose" else "plays a random legal action")
                + ' (infos["illegal_action"] marks them; this warning is shown once per env)'
            )

    def _illegal_what(self, bad, actions, rows) -> str:
        """The illegal actions at positions ``bad``, in words (the first five)."""
        original = np.asarray(actions)
        where = (lambda k: f"row {k}") if rows is None else (lambda k: f"row {int(rows[k])}")
        shown = ", ".join(f"{where(k)}: {original[k]}" for k in bad[:5]) + (" ..." if len(bad) > 5 else "")
        return f"{len(bad)} action(s) outside 0..{self.num_actions - 1} or masked out ({shown})"

    def _typed_actions(self, actions, rows) -> np.ndarray:
        """``actions`` (one per row of ``rows``, all rows if None) as a
        C-contiguous int64 array: shape and integer dtype checked, converted
        without wrap-around (an unsigned value past int64's range becomes -1)."""
        n = self.num_envs if rows is None else rows.shape[0]
        arr = actions if type(actions) is np.ndarray else np.asarray(actions)
        if arr.shape != (n,):
            raise IllegalActionError(
                f"{self.env_id} make_vec: actions must have shape ({n},), got {_describe(actions)}"
            )
        if arr.dtype.kind not in "iu":
            raise IllegalActionError(f"{self.env_id} make_vec: actions must be integers, got dtype {arr.dtype}")
        if arr.dtype != np.int64:
            wide = arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.max(initial=0) > _INT64_MAX
            arr = (arr if not wide else np.where(arr > _INT64_MAX, -1, arr)).astype(np.int64)
            if rows is None:
                self._actions[:] = arr
                arr = self._actions
        if not arr.flags.c_contiguous:  # the threaded drivers take C-contiguous arrays
            arr = np.ascontiguousarray(arr)
        return arr

    def _checked_actions(self, actions, rows, mode, allow_random=None):
        """``actions`` (one per row of ``rows``, all rows if None) as int64
        (:meth:`_typed_actions`), checked against the engine's own masks:
        range and mask.  Returns the actions for the kernel and the rows'
        illegal flags: in ``"lose"`` mode an illegal action becomes -1 (the
        kernel forfeits it), in ``"random"`` mode ``RANDOM_ACTION`` (the
        kernel draws a legal one); ``"raise"`` raises IllegalActionError.
        ``RANDOM_ACTION`` itself is allowed only to the row API (``rows``
        given; ``allow_random=False``: not even there, a learner's actions)."""
        n = self.num_envs if rows is None else rows.shape[0]
        allow_random = rows is not None if allow_random is None else allow_random
        arr = self._typed_actions(actions, rows)
        if rows is None:
            if _count_illegal(arr, self._masks, self.num_actions) == 0:
                return arr, np.zeros(n, np.bool_)
        elif _count_illegal_rows(arr, rows, self._masks, self.num_actions, E.RANDOM_ACTION, allow_random) == 0:
            return arr, np.zeros(n, np.bool_)
        masks = self._masks if rows is None else self._masks[rows]
        drawn = np.zeros(n, np.bool_) if not allow_random else (arr == E.RANDOM_ACTION) & masks.any(axis=1)
        legal = (arr >= 0) & (arr < self.num_actions)
        legal[legal] = masks[np.flatnonzero(legal), arr[legal]] == 1
        legal |= drawn
        if legal.all():
            return arr, ~legal
        what = self._illegal_what(np.flatnonzero(~legal), actions, rows)
        if mode == "raise":
            raise IllegalActionError(f"{self.env_id} make_vec: {what}; no row was stepped. {ILLEGAL_ACTION_HELP}")
        self._warn_once(what, mode)
        return np.where(legal, arr, -1 if mode == "lose" else E.RANDOM_ACTION), ~legal

    def _observations(self) -> dict:
        return {"observation": self._obs_view, "action_mask": self._out_masks}

    def _infos(self) -> dict:
        """The last ``reset`` / ``step``'s infos, in the env's buffers (the
        module docstring).  ``to_move`` is the drivers' (the rows' column,
        read here, took 24 us at N = 4096), ``end_reason`` is rewritten in
        the rows that ended at the last step and this one only (all N names
        took 23 us; a fill with None and the new names, 15 us): 2-5% of a
        step at N = 4096 (Quess 1.2 ms, Quagmire 0.7 ms)."""
        names, codes = self._reason_names, self._reasons
        names[self._named] = None
        ended = self._named = np.flatnonzero(self._terminated | self._truncated)  # 8 KB to read, not codes' 32
        if ended.size:
            names[ended] = self._reason_table[codes[ended]]
        return {
            "to_move": self._to_move,
            "end_reason": self._reason_names_out,
            "end_reason_code": self._reasons,
            "length": self._lengths,
            "illegal_action": self._illegal,
        }


class RowsSnapshot:
    """What :meth:`VectorEnv.snapshot` took (the rows and the engine's
    masks), read-only for good.  ``taken_here``: made by ``snapshot()`` in
    this process, not copied or unpickled (``restore`` checks the rows of
    one that was)."""

    __slots__ = ("_env", "_states", "_masks", "_here")

    def __init__(self, env, states, masks):
        self._env, self._here = env, True
        self._states, self._masks = _frozen(states), _frozen(masks)

    env = property(lambda self: self._env)
    states = property(lambda self: self._states, doc="The rows, read-only.")
    masks = property(lambda self: self._masks, doc="The engine's masks, read-only.")
    taken_here = property(lambda self: self._here)

    def __getstate__(self):
        return self._env, np.array(self._states), np.array(self._masks)

    def __setstate__(self, state):
        env, states, masks = state
        self._env, self._here = env, False
        self._states, self._masks = _frozen(np.asarray(states)), _frozen(np.asarray(masks))

    def __repr__(self) -> str:
        return f"<RowsSnapshot of {self.env!r}>"


def _frozen(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` no one can write (over immutable bytes: its
    writeable flag cannot be set back)."""
    return np.frombuffer(np.ascontiguousarray(array).tobytes(), array.dtype).reshape(array.shape)


def _describe_out(out) -> str:
    if not isinstance(out, tuple):
        return type(out).__name__
    return (
        "("
        + ", ".join(f"shape {a.shape}, dtype {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__ for a in out)
        + ")"
    )


def _describe(x) -> str:
    a = np.asarray(x) if not isinstance(x, (str, bytes)) else None
    if a is None or a.dtype == object:
        return repr(x)[:60]
    return f"shape {a.shape}, dtype {a.dtype}"
