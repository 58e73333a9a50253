"""The front end of the engine's learner loop (a mixin of
:class:`boardenvs.vector.VectorEnv`): :meth:`LearnerLoop.play_learners`,
every single-agent view's step, checks its inputs, runs the loop's compiled
driver over every row and asks the opponents that decide outside the engine
round by round."""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _drivers, _parts
from . import engine as E
from .errors import IllegalActionError
from .rows import describe_value
from .spec import check_flag


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


class LearnerLoop:
    """The learner loop's front end (see the module docstring)."""

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
                    f"{where}seats must be a C-contiguous writeable int64 array of shape ({n},), "
                    f"got {describe_value(seats)}"
                )
            draw_seats, restart = check_flag("draw_seats", draw_seats, where), check_flag("restart", restart, where)
            pend = np.zeros(n, np.bool_) if pending is None else np.ascontiguousarray(pending)
            if pend.shape != (n,) or pend.dtype != np.bool_:
                raise ValueError(f"{where}pending must be {n} bools, got {describe_value(pending)}")
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
            playing = np.flatnonzero(~pend) if pend.any() else None
            if playing is not None:
                arr = np.asarray(actions)
                if arr.shape not in ((n,), playing.shape):
                    raise IllegalActionError(
                        f"{where}actions must have shape ({n},) (or ({playing.shape[0]},): the rows "
                        f"not pending), got {describe_value(actions)}"
                    )
                given = arr[playing] if arr.shape == (n,) else arr
                checked = np.zeros(n, np.int64)
                if playing.size:  # (every row pending, as a single-agent view's reset: no action to check)
                    checked[playing] = self._typed_actions(given, playing)
            else:
                given = actions
                checked = self._typed_actions(actions, None)
            if self.illegal_action == "raise" and (playing is None or playing.size):
                self._refuse_illegal(checked if playing is None else checked[playing], given, playing)
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
            illegal = np.zeros(n, np.bool_)
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
                    f"{where}outside must be a C-contiguous bool array of shape ({n},), got {describe_value(outside)}"
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
            loop = _parts.LoopPart(
                self._states,
                self._probs,
                self._masks,
                checked,
                seats,
                pend,
                outside,
                buf["stage"],
                buf["deals"],
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
                illegal,
            )
            # the flags: draw seats, the next episode at once, picks, the learners' illegal_action mode ("raise"
            # was checked above: nothing illegal is left to the kernel)
            flags = (
                draw_seats,
                restart,
                picks,
                E.ILLEGAL_RANDOM if self.illegal_action == "random" else E.ILLEGAL_LOSE,
            )
            self._run(drivers.agent_step, loop, *flags)
            if illegal.any() and self.illegal_action != "raise":
                self._said_illegal(illegal, checked, None, self.illegal_action)
            if ask is not None or picks:
                self._rounds(drivers.agent_resume, loop, flags, ask, pick)
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

    def _rounds(self, resume, loop, flags, ask, pick) -> None:
        """``play_learners``' rounds: while rows wait for an opponent outside
        the engine (``ask``) or for a new episode's opponent (``pick``), ask,
        check the answers, and go on in those rows (``agent_resume`` over
        the loop's arrays ``loop``, a :class:`~boardenvs._parts.LoopPart`,
        with its ``flags``)."""
        stage, wait_obs, wait_masks = loop.stage, loop.wait_obs, loop.wait_masks
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
                typed = self._typed_actions(answers, waiting)
                self._refuse_illegal(typed, answers, waiting, allow_random=True)  # an opponent's illegal answer: error
                actions[:k] = typed
            if picking.size:
                rows = np.concatenate([waiting, picking])
            self._run(resume, _parts.ResumePart(rows, actions), *flags, whole=loop)

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
