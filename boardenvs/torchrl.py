"""TorchRL: every game as a batched ``EnvBase`` (the ``interop`` extra).

    pip install '.[interop]'   (in a clone; or the built wheel: dist/boardenvs-*.whl[interop])

    from boardenvs.torchrl import BoardEnv
    env = BoardEnv("quess_v0", num_envs=64, opponent="random")   # batch_size [64]
    td = env.rollout(100)            # random legal actions (the mask), ended rows reset

:class:`BoardEnv` is a TorchRL ``EnvBase`` with ``batch_size=[num_envs]``,
batch-locked, as TorchRL's own board games (``TicTacToeEnv``, ``ChessEnv``):
one game per row, stepped together by the engine.

* ``seat=0`` (or another seat) or ``"random"`` (drawn per episode): the
  learner plays that seat, ``opponent`` the others (``"random"``,
  ``"greedy"``, any :doc:`opponent name </guide/opponents>`, a batched
  policy, an SB3 model, a ``League``).  A step is the engine's learner
  loop (:meth:`boardenvs.vector.VectorEnv.play_learners`, through the
  gymnasium vector view ``SingleAgentVectorEnv``, as ``SB3VecEnv``): the
  learner's action in every row, the opponents' replies, the ends.
  ``"reward"`` is the learner's (+1 / -1 / 0 at the end, -1 when it is
  eliminated), ``"seat"`` its seat in the row.
* ``seat="all"``: self-play, every seat a learner.  A step is ``make_vec``'s
  ``step`` (the seat to act in each row plays the action); ``"turn"`` is
  the seat to act, and the rewards are per seat, ``(agent, "reward")`` for
  each of the game's agents (``"player_0"``, ...), as ``TicTacToeEnv``'s.

Specs (``N = num_envs``), from the game's declaration:

* ``"observation"``: ``Bounded`` int8, ``(N, obs_size)`` (``flatten=True``,
  default) or ``(N, *planes)``, the game's bounds; egocentric (the
  learner's view, or the seat to act's);
* ``"action_mask"``: ``Binary`` bool ``(N, num_actions)``, the legal actions
  of the seat to act (all False in a row whose episode just ended);
* ``"action"``: ``Categorical(num_actions)``, ``(N,)`` int64;
* ``"done"`` / ``"terminated"`` / ``"truncated"``: bool ``(N, 1)``
  (truncated: a game cut by ``max_turns``).

TorchRL's conventions: ``set_seed(seed)`` seeds the next full reset (every
row's game, seat and random opponent are drawn from it: the same seed and
actions replay the same games); ``reset()`` starts a game in every row; a
row whose episode ended is reset through ``"_reset"`` (what
``step_and_maybe_reset``, ``rollout`` and the collectors do).  The engine
starts that row's next game in the same step, so its ``("next",
"observation")`` is the ended game's last view (the learner's; in self-play,
zeros: the ended game's view is not kept, TorchRL's convention for envs that
reset by themselves) and the reset hands over the new one.  A partial reset
of rows whose episode goes on restarts them in self-play; against an
opponent it is refused (ValueError naming the rows: use ``reset()``).
``rand_action`` samples legal actions (the ``"action_mask"`` entry), so a
rollout without a policy plays legal games; a policy samples from
``MaskedCategorical`` over the same mask.

Buffers: the observation, mask and reward tensors share memory with the
arrays the engine's views hand out (``torch.from_numpy``, new arrays each
step: what a rollout keeps is never written again); on another ``device``
they are copied there.
"""

from __future__ import annotations

import threading

import numpy as np

try:
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
except ImportError as exc:  # pragma: no cover - the extra is missing
    from .errors import MissingExtraError, install_line

    raise MissingExtraError(f"boardenvs.torchrl needs TorchRL: {install_line('interop')}") from exc

from .errors import IllegalActionError, ResetNeededError, shown
from .fresh import FreshArrays
from .registry import env_id_of, game_class
from .spec import ILLEGAL_ACTION_DEFAULT, check_flag, check_seat, check_seed
from .vector import VectorEnv

ALL_SEATS = "all"  # seat="all": self-play, every seat a learner


class BoardEnv(EnvBase):
    """A game as a batched TorchRL env (see the module docstring).

    ``env_id``: an env id or its gymnasium id; ``num_envs``: the rows (the
    batch size); ``opponent``, ``seat`` (an int, ``"random"`` or
    ``"all"``), ``illegal_action`` (``"lose"``: the row's mover forfeits;
    ``"raise"``; ``"random"``), ``flatten``, ``num_threads`` / ``parallel``
    (as :func:`boardenvs.make_vec`), ``device`` (where the tensors go;
    the engine runs on the CPU), and the game's own options."""

    batch_locked = True

    def __init__(
        self,
        env_id: str,
        num_envs: int = 1,
        opponent=None,
        seat="random",
        *,
        illegal_action: str = ILLEGAL_ACTION_DEFAULT,
        flatten: bool = True,
        device=None,
        num_threads: int | None = None,
        parallel: bool | None = None,
        **options,
    ):
        env_id = env_id_of(env_id) if isinstance(env_id, str) else env_id
        where = f"{env_id} BoardEnv: "
        flatten = check_flag("flatten", flatten, where)
        self_play = isinstance(seat, str) and seat == ALL_SEATS
        if self_play:
            if opponent is not None:
                raise ValueError(
                    f"{where}seat='all' is self-play (every seat a learner): it takes no opponent, "
                    f"got opponent={shown(opponent)}"
                )
            vec = VectorEnv(
                game_class(env_id),
                num_envs,
                illegal_action=illegal_action,
                num_threads=num_threads,
                parallel=parallel,
                **options,
            )
            self._venv, self._vec = None, vec
        else:
            from .wrappers.vector import SingleAgentVectorEnv

            self._venv = SingleAgentVectorEnv(
                env_id,
                num_envs,
                opponent="random" if opponent is None else opponent,
                seat=seat,
                illegal_action=illegal_action,
                flatten=flatten,
                num_threads=num_threads,
                parallel=parallel,
                **options,
            )
            self._vec = vec = self._venv.vec
        super().__init__(device=device, batch_size=torch.Size([vec.num_envs]))
        self.env_id, self.num_envs, self.self_play, self.flatten = env_id, vec.num_envs, self_play, flatten
        self.seat_option = ALL_SEATS if self_play else check_seat(seat, vec.num_players, "seat", where)
        self.game = game = vec.game
        self.agents = tuple(game.agents)
        n, info = vec.num_envs, game.info
        shape = (info.obs_size,) if flatten else tuple(game.obs_shape)
        low, high = (info.obs_low.ravel(), info.obs_high.ravel()) if flatten else (info.obs_low, info.obs_high)
        self._obs_shape, self._num_actions = shape, game.num_actions
        dev = self.device
        batch = (n,)
        seat_key = "turn" if self_play else "seat"
        self._seat_key = seat_key
        self.full_observation_spec = Composite(
            observation=Bounded(
                low=torch.as_tensor(np.broadcast_to(low, (*batch, *shape)).copy()),
                high=torch.as_tensor(np.broadcast_to(high, (*batch, *shape)).copy()),
                shape=(*batch, *shape),
                dtype=torch.int8,
                device=dev,
            ),
            action_mask=Binary(n=game.num_actions, shape=(*batch, game.num_actions), dtype=torch.bool, device=dev),
            **{seat_key: Categorical(vec.num_players, shape=(*batch, 1), dtype=torch.int64, device=dev)},
            shape=batch,
            device=dev,
        )
        self.action_spec = Categorical(game.num_actions, shape=batch, dtype=torch.int64, device=dev)
        if self_play:
            self.reward_spec = Composite(
                {
                    (agent, "reward"): Unbounded(shape=(*batch, 1), dtype=torch.float32, device=dev)
                    for agent in self.agents
                },
                shape=batch,
                device=dev,
            )
        else:
            self.reward_spec = Unbounded(shape=(*batch, 1), dtype=torch.float32, device=dev)
        flag = Categorical(2, shape=(*batch, 1), dtype=torch.bool, device=dev)
        self.full_done_spec = Composite(
            done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=batch, device=dev
        )
        # the rows whose episode ended at a step and that were not reset since, and their next
        # episode's first view (dealt by the engine in that step), handed over by _reset
        self._awaiting = np.zeros(n, np.bool_)
        self._next_obs = np.zeros((n, *shape), np.int8)
        self._next_mask = np.zeros((n, game.num_actions), np.bool_)
        self._next_seat = np.zeros(n, np.int64)
        self._seat = np.zeros(n, np.int64)  # the seat of each row's last view (the learner's, or the seat to act)
        self._out_obs = FreshArrays((n, *shape), np.int8)
        self._out_mask = FreshArrays((n, game.num_actions), np.bool_)
        self._out_seat = FreshArrays((n,), np.int64)
        self._seed = None
        self._started = False
        self._lock = threading.RLock()

    # -- TorchRL's EnvBase -------------------------------------------------------------
    def _set_seed(self, seed: int | None) -> None:
        """The seed of the next full reset (TorchRL's ``set_seed``); every
        later full reset goes on with the rows' generators."""
        self._seed = None if seed is None else check_seed(seed)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs) -> TensorDictBase:
        with self._lock:
            reset = None if tensordict is None else tensordict.get("_reset", None)
            if reset is not None:
                reset = self._host(reset, "'_reset'", f"{self.num_envs} bools, one per row", ValueError)
                if reset.shape != (self.num_envs,) or reset.dtype != np.bool_:
                    raise ValueError(
                        f"{self.env_id} BoardEnv: '_reset' must be {self.num_envs} bools (one per row), got "
                        f"shape {tuple(reset.shape)} {reset.dtype}"
                    )
            if not self._started or reset is None or (reset.all() and not self._awaiting.all()):
                return self._full_reset()
            live = np.flatnonzero(reset & ~self._awaiting)
            if live.size:
                if not self.self_play:
                    raise ValueError(
                        f"{self.env_id} BoardEnv: a partial reset may name only rows whose episode ended "
                        f"(the engine deals their next game as they end); rows {live[:5].tolist()} are "
                        "mid-episode: reset every row (reset()) instead"
                    )
                self._restart_rows(live)
            rows = np.flatnonzero(reset)
            obs, mask, seat = self._out_obs.get(), self._out_mask.get(), self._out_seat.get()
            obs[rows], mask[rows], seat[rows] = self._next_obs[rows], self._next_mask[rows], self._next_seat[rows]
            self._seat[rows] = seat[rows]
            self._awaiting[rows] = False
            return self._output(obs, mask, seat)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        with self._lock:
            if not self._started:
                raise ResetNeededError(f"{self.env_id} BoardEnv: step() before reset(): call reset() first")
            if self._awaiting.any():
                rows = np.flatnonzero(self._awaiting)
                raise ValueError(
                    f"{self.env_id} BoardEnv: rows {rows[:5].tolist()} ended at an earlier step and were "
                    "not reset: reset them ('_reset', as step_and_maybe_reset and the collectors do) "
                    "before the next step"
                )
            action = tensordict.get("action", None)
            if action is None:
                raise ValueError(f"{self.env_id} BoardEnv: the tensordict holds no 'action' entry")
            if not isinstance(action, torch.Tensor):  # a str, a list, NonTensorData: refused before it is read
                raise IllegalActionError(
                    f"{self.env_id} BoardEnv: the 'action' entry must be a tensor of {self.batch_size.numel()} "
                    f"action ids (int64), got {type(action).__name__} {shown(action)}"
                )
            actions = self._host(action, "the 'action' entry", "int64 action ids", IllegalActionError)
            if self.self_play:
                return self._step_self_play(actions)
            obs, rewards, terminated, truncated, infos = self._venv.step(actions)
            mask, seat = infos["action_mask"], infos["seat"]  # (new arrays each step)
            done = terminated | truncated
            ended = np.flatnonzero(done)
            if ended.size:  # the engine dealt their next episode: kept for _reset; the step shows the ended one
                self._keep_next(ended, obs, mask, seat)
                obs[ended] = np.stack(list(infos["final_obs"][ended]))
                mask[ended] = False
                seat[ended] = self._seat[ended]
            self._seat[:] = seat
            return self._output(obs, mask, seat, rewards, terminated, truncated)

    def rand_action(self, tensordict: TensorDictBase | None = None) -> TensorDictBase:
        """A uniformly random legal action per row (from the ``"action_mask"``
        entry, when the tensordict holds it), as ``TicTacToeEnv``'s."""
        if tensordict is None:
            tensordict = TensorDict(batch_size=self.batch_size, device=self.device)
        mask = tensordict.get("action_mask", None)
        spec = self.action_spec.clone()
        if mask is not None:
            legal = mask.any(-1, keepdim=True)  # a row with no legal action (an ended one): anything
            spec.update_mask(mask | ~legal)
        tensordict.set(self.action_key, spec.rand())
        return tensordict

    def close(self, *, raise_if_closed: bool = True) -> None:
        (self._venv or self._vec).close()
        super().close(raise_if_closed=raise_if_closed)

    def __repr__(self) -> str:
        fixed = getattr(self._venv.opponents, "opponent", None) if self._venv is not None else None
        against = getattr(fixed, "name", None) or type(fixed or getattr(self._venv, "opponents", None)).__name__
        mode = "seat='all' (self-play)" if self.self_play else f"seat={self.seat_option!r}, opponent={against!r}"
        return f"BoardEnv({self.env_id!r}, num_envs={self.num_envs}, {mode})"

    # -- inside ------------------------------------------------------------------------
    def _host(self, value: torch.Tensor, what: str, kind: str, error) -> np.ndarray:
        """``value`` as a flat numpy array on the host, or ``error`` naming
        why it cannot be one (before anything is stepped, C-6): a sparse or
        other non-dense layout, the meta device (no data), or a dtype numpy
        has no counterpart for (bfloat16, complex32, float8, quantized)."""
        if value.layout != torch.strided:
            raise error(f"{self.env_id} BoardEnv: {what} must be a dense tensor of {kind}, got layout {value.layout}")
        if value.device.type == "meta":
            raise error(f"{self.env_id} BoardEnv: {what} is on the meta device, which holds no data ({kind} wanted)")
        value = value.detach().to("cpu").reshape(-1)
        try:
            return value.numpy()
        except (TypeError, RuntimeError):  # (numpy has no such dtype; or a complex tensor's conjugate bit)
            raise error(f"{self.env_id} BoardEnv: {what} must be {kind}, got dtype {value.dtype}") from None

    def _full_reset(self) -> TensorDictBase:
        """A new game in every row (seeded by ``set_seed``'s seed, else the
        rows' generators go on; the first reset without one: fresh entropy)."""
        seed, self._seed = self._seed, None
        if self.self_play and (seed is not None or not self._started):
            out, infos = self._vec.reset(seed=seed)  # (make_vec's buffers: copied)
            obs, mask = out["observation"].reshape((self.num_envs, *self._obs_shape)).copy(), out["action_mask"] != 0
            seat = infos["to_move"].copy()
        elif self.self_play:
            self._restart_rows(np.arange(self.num_envs))
            obs, mask, seat = self._next_obs.copy(), self._next_mask.copy(), self._next_seat.copy()
        else:
            obs, infos = self._venv.reset(seed=seed)
            mask, seat = infos["action_mask"], infos["seat"]
        self._started = True
        self._awaiting[:] = False
        self._seat[:] = seat
        return self._output(obs, mask, seat)

    def _restart_rows(self, rows) -> None:
        """Self-play: new games in ``rows`` (each from its row's generator),
        their first views into the next-episode buffers."""
        vec = self._vec
        vec.reset_rows(rows)
        seats = vec.to_move[rows]
        obs, mask = vec.observe_rows(rows, seats)
        self._next_obs[rows] = obs.reshape((rows.shape[0], *self._obs_shape))
        self._next_mask[rows] = mask.view(np.bool_)
        self._next_seat[rows] = seats
        self._awaiting[rows] = True

    def _step_self_play(self, actions) -> TensorDictBase:
        """``make_vec``'s step: the seat to act in each row plays; rewards per seat."""
        out, rewards, terminated, truncated, infos = self._vec.step(actions)  # the env's buffers: copied
        obs = self._out_obs.get()
        obs[...] = out["observation"].reshape(obs.shape)
        mask = self._out_mask.get()
        np.not_equal(out["action_mask"], 0, out=mask)
        seat = self._out_seat.get()
        seat[:] = infos["to_move"]
        terminated, truncated = terminated.copy(), truncated.copy()
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:  # the engine started their next game: kept for _reset
            self._keep_next(ended, obs, mask, seat)
            obs[ended], mask[ended], seat[ended] = 0, False, self._seat[ended]
        self._seat[:] = seat
        return self._output(obs, mask, seat, rewards.copy(), terminated, truncated)

    def _keep_next(self, rows, obs, mask, seat) -> None:
        self._next_obs[rows], self._next_mask[rows], self._next_seat[rows] = obs[rows], mask[rows], seat[rows]
        self._awaiting[rows] = True

    def _output(self, obs, mask, seat, rewards=None, terminated=None, truncated=None) -> TensorDictBase:
        """The tensordict of a reset (no rewards) or a step, over the arrays (``torch.from_numpy``)."""
        n = self.num_envs
        if terminated is None:
            terminated = truncated = np.zeros(n, np.bool_)
        term = torch.from_numpy(terminated).unsqueeze(-1)
        trunc = torch.from_numpy(truncated).unsqueeze(-1)
        data = {
            "observation": torch.from_numpy(obs.reshape((n, *self._obs_shape))),
            "action_mask": torch.from_numpy(mask),
            self._seat_key: torch.from_numpy(seat).unsqueeze(-1),
            "done": term | trunc,
            "terminated": term,
            "truncated": trunc,
        }
        if rewards is not None:
            if self.self_play:
                r = torch.from_numpy(rewards)
                for k, agent in enumerate(self.agents):
                    data[(agent, "reward")] = r[:, k : k + 1]
            else:
                data["reward"] = torch.from_numpy(rewards).unsqueeze(-1)
        td = TensorDict(data, batch_size=self.batch_size)
        return td if self.device is None or self.device == torch.device("cpu") else td.to(self.device)


__all__ = ["BoardEnv", "ALL_SEATS"]
