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

from . import _drivers, _parts, _threads
from . import engine as E
from .errors import IllegalActionError
from .game import GENERIC_REASONS, Game
from .illegal import refusal, reported, rows_in_words
from .learners import LearnerLoop
from .position import Position
from .rows import RowAPI, count_illegal, count_illegal_rows, describe_value
from .spec import ILLEGAL_ACTION_DEFAULT, check_choice, check_illegal_action, check_seed, check_size, is_int

MARKED = 'infos["illegal_action"]'  # where make_vec marks a row's illegal action

_INT64_MAX = np.iinfo(np.int64).max


def parallel_from() -> int:
    """The row count from which ``make_vec`` runs numba's threads by default
    (128 with TBB or OpenMP, 4096 with workqueue)."""
    return _threads.parallel_from()


def drivers_for(kernels) -> _drivers.Batched:
    return _drivers.batched(kernels)


MAX_NUM_ENVS = 1 << 20  # rows of one make_vec
MAX_BYTES = 4 << 30  # and the bytes of its buffers (2**20 Quess rows would need 8.6 GB: refused with a message)


class VectorEnv(RowAPI, LearnerLoop):
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
        # every driver's whole, and the step's buffers around its actions: plain tuples (boardenvs._parts)
        self._engine = tuple(_parts.Engine(self._states, self._probs, self._masks))
        before = (self._states, self._probs, self._masks)
        after = (self._obs, self._out_masks, self._rewards, self._terminated, self._truncated, self._reasons)
        self._step_buffers = before, (*after, self._lengths, self._to_move, self._illegal)
        self._threads = self.num_threads if self.parallel else None
        self._obs_view = self._obs.reshape((n, *game.obs_shape))
        # read-only for good: a view of a read-only buffer over the rows, which no
        # one can make writeable again (a plain view's flag can be set back)
        self._states_view = np.frombuffer(memoryview(self._states).toreadonly(), np.int64).reshape(self._states.shape)
        codes = {**GENERIC_REASONS, **game.reason_names}
        table = np.full(max(codes) + 1, None, dtype=object)
        for code, name in codes.items():
            table[code] = name
        self._name_table = table.copy()  # reason_names' ("-" for REASON_NONE: a learner out of a game that goes on)
        table[E.REASON_NONE] = ""  # rows that did not end
        self._reason_table = table
        # infos["end_reason"]: "" but in the rows that ended at the last step
        # (_named), handed out read-only (so no other row can hold a name)
        self._reason_names, self._named = np.full(n, "", dtype=object), np.zeros(0, np.intp)
        self._reason_names_out = self._reason_names.view()
        self._reason_names_out.flags.writeable = False
        self._lock = threading.RLock()

    def __getstate__(self):
        state = dict(self.__dict__)
        for key in (
            "_batched",
            "_drivers",
            "_engine",
            "_step_buffers",
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
                        f"{fresh.shape}, got {describe_value(got)}"
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
            part = _parts.ResetPart(
                self._states, self._probs, self._masks, seeds, self._obs, self._out_masks, self._to_move
            )
            self._run(self._drivers.reset, part, whole=())  # (reset_n reads no whole)
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
        the pass that hands the actions out: for random play where the actions themselves are not needed (game
        statistics, random-opponent data, benchmarks).  Returns what
        :meth:`step` returns."""
        with self._lock:
            self._require_reset("step_random")
            return self._step(self._actions, 2)  # the actions unread

    def _step(self, actions, draw: int):
        """The step's driver on every row (``draw``: its ``step_n``'s), then
        what :meth:`step` returns."""
        head, tail = (
            self._step_buffers
        )  # (a _parts.StepPart, as a plain tuple: built per step, a visible cost at N = 1)
        self._run(self._drivers.step, (*head, actions, *tail), draw, whole=())  # (step_n reads no whole)
        return self._observations(), self._rewards, self._terminated, self._truncated, self._infos()

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per row, drawn in the kernel from
        each row's generator (so it is reproduced by the reset seed)."""
        with self._lock:
            self._require_reset("random_actions")
            out = np.empty(self.num_envs, np.int64)
            self._run(self._drivers.random_actions, (self._states, self._masks, out), whole=())  # (a DrawPart)
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
            raise ValueError(f"seed must be an int, None, or {n} integers (one per row), got {describe_value(seed)}")
        if (seeds < 0).any():
            raise ValueError(f"seeds must be non-negative, got {int(seeds.min())} in row {int(np.argmin(seeds))}")
        # each row's seed goes through SeedSequence too, so nearby seeds give unrelated games
        return np.array(
            [np.random.SeedSequence(int(s)).generate_state(1, np.uint64)[0] for s in seeds], np.uint64
        ).view(np.int64)

    def _run(self, driver, part, a: int = 0, b: int = 0, c: int = 0, d: int = 0, whole=None):
        """``driver`` (one of :mod:`boardenvs._drivers`') on ``part`` (its
        rows' NamedTuple, or its fields as a plain tuple), ``whole``
        (default: the engine's arrays; ``()`` for a driver that reads none)
        and the flags ``a``..``d`` (its ``extra``: one tuple type for every
        driver), each handed over as a plain tuple (:mod:`boardenvs._parts`)."""
        whole = self._engine if whole is None else tuple(whole)  # (plain tuples: see boardenvs._parts)
        part, extra = tuple(part), (int(a), int(b), int(c), int(d))
        if not self.parallel:
            driver(whole, part, self.game.params, extra)
            return
        with _threads.exclusive(), _threads.limit(self._threads):
            driver(whole, part, self.game.params, extra)

    def _check_actions(self, actions) -> np.ndarray:
        """``step``'s actions as the kernel takes them.  With ``"raise"``
        checked here (:meth:`_refuse_illegal`: nothing is stepped on an
        illegal one); else only their shape and dtype (:meth:`_typed_actions`),
        and the step's driver flags the illegal ones in ``_illegal`` and
        forfeits them or plays a random legal action (:meth:`_warn_illegal`
        then warns): the driver reads the row's mask anyway, while a check
        here would read N masks a kernel had just written a second time."""
        arr = self._typed_actions(actions, None)
        if self.illegal_action == "raise":
            self._refuse_illegal(arr, actions, None)
        return arr

    def _warn_illegal(self, actions) -> None:
        """After a step in ``"lose"`` / ``"random"`` mode: the warning, once per
        env, naming the rows the driver flagged (``actions``: the caller's)."""
        if not self._warned_illegal and self.illegal_action != "raise" and self._illegal.any():
            self._said_illegal(self._illegal, actions, None, self.illegal_action)

    def _said_illegal(self, flags, actions, rows, mode: str) -> None:
        """The rows' illegal actions (``flags``: the driver's, one per row of
        ``rows``, all rows if None) said once per env, as every face says them."""
        bad = np.flatnonzero(flags)
        what = lambda: rows_in_words(bad, actions, self.num_actions, rows)  # noqa: E731 (said once at most)
        reported(self, E.STEP_ILLEGAL, f"{self.env_id} make_vec", what, mode, MARKED)

    def _typed_actions(self, actions, rows) -> np.ndarray:
        """``actions`` (one per row of ``rows``, all rows if None) as a
        C-contiguous int64 array: shape and integer dtype checked, converted
        without wrap-around (an unsigned value past int64's range becomes -1)."""
        n = self.num_envs if rows is None else rows.shape[0]
        arr = actions if type(actions) is np.ndarray else np.asarray(actions)
        if arr.shape != (n,):
            raise IllegalActionError(
                f"{self.env_id} make_vec: actions must have shape ({n},), got {describe_value(actions)}"
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

    def _refuse_illegal(self, arr, actions, rows, allow_random: bool = False) -> None:
        """The ``"raise"`` check: IllegalActionError naming the illegal ones
        among ``arr`` (typed actions, one per row of ``rows``, all rows if
        None; ``actions`` as the caller gave them, for the message) before
        any row changes: out of range or masked out in the engine's own
        masks; ``RANDOM_ACTION`` only with ``allow_random``, in a row with a
        legal action.  (The other modes are the engine's step's.)"""
        if rows is None:
            if count_illegal(arr, self._masks, self.num_actions) == 0:
                return
        elif count_illegal_rows(arr, rows, self._masks, self.num_actions, E.RANDOM_ACTION, allow_random) == 0:
            return
        masks = self._masks if rows is None else self._masks[rows]
        drawn = np.zeros(arr.shape[0], np.bool_) if not allow_random else (arr == E.RANDOM_ACTION) & masks.any(axis=1)
        legal = (arr >= 0) & (arr < self.num_actions)
        legal[legal] = masks[np.flatnonzero(legal), arr[legal]] == 1
        legal |= drawn
        what = rows_in_words(np.flatnonzero(~legal), actions, self.num_actions, rows)
        raise refusal(f"{self.env_id} make_vec", f"{what}; no row was stepped")

    def _observations(self) -> dict:
        return {"observation": self._obs_view, "action_mask": self._out_masks}

    def _infos(self) -> dict:
        """The last ``reset`` / ``step``'s infos, in the env's buffers (the
        module docstring).  ``to_move`` is the drivers' (cheaper than reading
        the rows' column here), and ``end_reason`` is rewritten only in the
        rows that ended at the last step and this one (cheaper than writing
        all N names): both are a visible part of a step at large N."""
        names, codes = self._reason_names, self._reasons
        names[self._named] = ""
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
