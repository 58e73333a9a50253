"""The row API of ``make_vec``: acting, observing, dealing and rolling a
given set of rows, no auto-reset (a mixin of :class:`boardenvs.vector.VectorEnv`).

The match runner (:mod:`boardenvs.matches`), the reference opponents'
searches and the tools that record games drive rows one decision at a time
through these methods; every action is checked against the engine's own
masks (in the kernel, or before it in ``"raise"`` mode), every array from
outside before a kernel reads it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _parts
from . import engine as E
from .spec import check_flag, check_illegal_action


@njit(cache=True)
def count_illegal(actions, masks, num_actions):
    """How many rows' actions are out of range or masked out."""
    bad = 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions or masks[i, a] == 0:
            bad += 1
    return bad


@njit(cache=True)
def count_illegal_rows(actions, rows, masks, num_actions, random_action, allow_random):
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
def rows_problem(rows, n, seen):
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


class RowAPI:
    """The row API (see the module docstring); :class:`~boardenvs.vector.VectorEnv` is one."""

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

    def reset_rows(self, rows, draw_seats: bool = False, settle: bool = True):
        """A new game in each of ``rows``, each from its row's generator (its
        first player too, where the option is ``"random"``), chance resolved
        (``settle=False``: the row stops at a chance node, for
        :meth:`roll_rows`).  With ``draw_seats``, also a seat per row drawn
        from the row's generator (a learner's seat), returned as an int64
        array."""
        with self._lock:
            self._require_reset("reset_rows")
            rows = self._check_rows(rows)
            seats = np.zeros(rows.shape[0], np.int64)
            draw, settle = check_flag("draw_seats", draw_seats), check_flag("settle", settle)
            self._run(self._drivers.reset_rows, _parts.DealPart(rows, seats), int(draw), int(settle))
            return seats if draw_seats else None

    def act_rows(
        self, rows, actions, illegal_action: str | None = None, allow_random: bool = True, settle: bool = True
    ) -> np.ndarray:
        """Row ``rows[k]`` plays ``actions[k]`` (:attr:`RANDOM`: a random legal
        action from the row's generator), then chance is resolved
        (``settle=False``: a row stops at a chance node, for
        :meth:`roll_rows`); no auto-reset (a row whose game ends stays over
        until :meth:`reset_rows`).  An action the row's seat to act may not
        play (or any action in a row that is over) is handled by
        ``illegal_action`` (default: the env's), in the engine's step:
        ``"lose"`` forfeits the mover, ``"random"`` plays a random legal
        action from the row's generator; ``"raise"`` raises
        IllegalActionError before any row changes.  ``allow_random=False``:
        :attr:`RANDOM` is an illegal action too (a learner's actions).
        Returns the rows' ``illegal`` flags."""
        with self._lock:
            self._require_reset("act_rows")
            rows = self._check_rows(rows)
            mode = self.illegal_action if illegal_action is None else check_illegal_action(illegal_action)
            where = f"{self.env_id} make_vec: "
            allow_random, settle = check_flag("allow_random", allow_random, where), check_flag("settle", settle, where)
            arr = self._typed_actions(actions, rows)
            if mode == "raise":
                self._refuse_illegal(arr, actions, rows, allow_random)
            illegal = np.zeros(rows.shape[0], np.bool_)
            code = E.ILLEGAL_RANDOM if mode == "random" else E.ILLEGAL_LOSE
            self._run(self._drivers.act_rows, _parts.ActPart(rows, arr, illegal), code, int(settle), int(allow_random))
            if illegal.any() and mode != "raise":
                self._said_illegal(illegal, actions, rows, mode)
            return illegal

    def set_rows(self, rows, states) -> None:
        """Put game states from outside into ``rows`` (``states``: one state
        row per listed row, e.g. Positions' ``state``): each checked as a
        Position's (ValueError, and no row changes, if one is no state of
        the game), the engine's masks computed from them; chance is not
        resolved (a row at a chance node stays there, for :meth:`roll_rows`)."""
        with self._lock:
            self._require_reset("set_rows")
            rows = self._check_rows(rows)
            states = np.array(states, np.int64, ndmin=2)
            if states.shape != (rows.shape[0], self._states.shape[1]):
                raise ValueError(
                    f"{self.env_id} make_vec: set_rows takes one state row ({self._states.shape[1]} int64) per "
                    f"listed row, got {describe_value(states)}"
                )
            for k, row in enumerate(states):
                self.game.check_row(row, f"make_vec.set_rows: the state for row {int(rows[k])}")
            settle = self.game.one_row().settle
            probs = np.zeros(max(self.game.num_chance_outcomes, 1), np.float64)
            for r, row in zip(rows, states):
                self._states[r] = row
                settle(self._states[r], self.game.params, False, probs, self._masks[r])  # the mask as the row is
                self._out_masks[r] = self._masks[r, : self.num_actions]
                self._to_move[r] = row[E.H_CURRENT]

    def roll_rows(self, rows) -> np.ndarray:
        """Row ``rows[k]``, at a chance node (after ``settle=False``), plays
        one outcome of the seeded die (drawn by its probability from the
        row's generator, the die every step rolls) and stops after it.
        Returns the outcomes (int64), -1 in rows not at a chance node (left
        as they are): for callers that record every outcome."""
        with self._lock:
            self._require_reset("roll_rows")
            rows = self._check_rows(rows)
            outcomes = np.zeros(rows.shape[0], np.int64)
            self._run(self._drivers.roll_rows, _parts.RollPart(rows, outcomes))
            return outcomes

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
                    f"got {describe_value(seats)}"
                )
            k = rows.shape[0]
            if out is None:
                obs = np.empty((k, self.game.obs_size), np.int8)
                masks = np.empty((k, self.num_actions), np.int8)
            else:
                obs, masks = self._check_out(out, k)
            part = _parts.ObservePart(
                rows, seats.astype(np.int64), obs.reshape(k, self.game.obs_size), masks.view(np.int8)
            )
            self._run(self._drivers.observe_rows, part)
            return obs.reshape((k, *self.game.obs_shape)), masks

    def reason_names(self, codes) -> np.ndarray:
        """The names of end-reason codes (an integer array), as an object
        array of the same shape (:meth:`reason_name`'s, one per code)."""
        arr = np.asarray(codes)
        table = self._name_table
        if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= len(table))):
            raise ValueError(
                f"{self.env_id}: end-reason codes are ints 0..{len(table) - 1}, got {describe_value(codes)}"
            )
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
                f"of shapes {shapes[0]} int8 and {shapes[1]} int8 or bool, got {describe_out(out)}"
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
            problem = rows_problem(arr, n, np.zeros(n, np.bool_))
        if problem == 1:
            raise ValueError(
                f"{self.env_id} make_vec: rows must be a 1-D integer array of rows 0..{n - 1}, "
                f"got {describe_value(rows)}"
            )
        if problem == 2:
            raise ValueError(f"{self.env_id} make_vec: rows must be distinct, got a row twice")
        return arr

    def _adopt_rows(self, rows, whose: str) -> None:
        """``rows`` from outside (an unpickled env's, a copied snapshot's)
        checked one by one as a Position's (ValueError, and no row changes,
        if one is no state of the game), then made the env's, with the
        engine's masks and the seats to act computed from them."""
        rows = np.array(rows, np.int64)
        if rows.shape != self._states.shape:
            raise ValueError(
                f"{self.env_id} make_vec: {whose} rows are {describe_value(rows)}, the env's {self._states.shape}"
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


def describe_out(out) -> str:
    if not isinstance(out, tuple):
        return type(out).__name__
    return (
        "("
        + ", ".join(f"shape {a.shape}, dtype {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__ for a in out)
        + ")"
    )


def describe_value(x) -> str:
    a = np.asarray(x) if not isinstance(x, (str, bytes)) else None
    if a is None or a.dtype == object:
        return repr(x)[:60]
    return f"shape {a.shape}, dtype {a.dtype}"
