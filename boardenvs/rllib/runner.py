"""RLlib's env runner over the engine's learner loop (``BoardEnvRunner``) and the samples it ships."""

from __future__ import annotations

import math
import time
import uuid

import gymnasium
import numpy as np
import torch
from ray.rllib.callbacks.utils import make_callback
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import ENV_STEP_TIMER, RLMODULE_INFERENCE_TIMER, WEIGHTS_SEQ_NO

from ..fresh import FreshArrays
from .module import MASK_KEY, OBS_KEY


class _Rollout:
    """One sample's arrays, a row's steps contiguous (``[row, step, ...]``,
    so an episode's columns are views, not copies): the learner's view
    before each step (``obs`` / ``masks``, one more step: the view after
    the last), its actions, rewards, the module's outputs, and how each
    step ended the row's episode (``ends``: 0 not, 1 terminated, 2
    truncated; that episode's last view and info in ``finals``)."""

    def __init__(self, n: int, obs_shape: tuple, num_actions: int, capacity: int, model_outputs: bool, pools: dict):
        def get(shape, dtype):  # an array no episode of an earlier sample still holds (boardenvs.fresh)
            key = (shape, dtype)
            if key not in pools:
                pools[key] = FreshArrays(shape, dtype, keep=2)
            return pools[key].get()

        self.n, self.t, self.capacity = n, 0, capacity
        self.obs = get((n, capacity + 1, *obs_shape), np.int8)
        self.masks = get((n, capacity + 1, num_actions), np.int8)
        self.actions = get((n, capacity), np.int64)
        self.rewards = get((n, capacity), np.float32)
        self.ends = get((n, capacity), np.int8)
        self.ends[:] = 0
        self.logp = get((n, capacity), np.float32) if model_outputs else None
        self.dist = get((n, capacity, num_actions), np.float32) if model_outputs else None
        self.finals: dict = {}

    def grow(self) -> None:
        """Twice the steps (sampling episodes, whose length is not known ahead)."""

        def wider(a, extra):
            return None if a is None else np.concatenate([a, np.empty_like(a[:, :extra])], axis=1)

        k = self.capacity
        self.obs, self.masks = wider(self.obs, k), wider(self.masks, k)
        self.actions, self.rewards, self.logp, self.dist = (
            wider(a, k) for a in (self.actions, self.rewards, self.logp, self.dist)
        )
        self.ends = np.concatenate([self.ends, np.zeros_like(self.ends)], axis=1)
        self.capacity = 2 * k


class BoardEnvRunner(SingleAgentEnvRunner):
    """RLlib's env runner (new API stack) over the engine's learner loop,
    what :func:`ppo_config` and :func:`appo_config` use by default
    (``config.env_runners(env_runner_cls=BoardEnvRunner)``).

    Its env is the single-agent view batched
    (:class:`boardenvs.wrappers.vector.SingleAgentVectorEnv`, N =
    ``num_envs_per_env_runner`` rows, same-step auto-reset): one ``step``
    plays the learner's action in every row and every opponent until the
    learner is to act again (in the engine, or one batch per opponent:
    models, searches, a league's snapshots).  Each step of a
    sample runs the RLModule once over all N rows (``forward_exploration``
    or ``forward_inference``; the mask is applied in the module) and draws
    the actions from its action distribution class, as RLlib's default
    connectors do; the arrays of the whole sample are kept row by row and
    cut into :class:`SingleAgentEpisode` objects once, at the end, already
    numpy (what ``SingleAgentEnvRunner`` returns after ``to_numpy()``): an
    ended episode's last observation is its game's last view (the learner's
    mask all zeros), an episode still going is returned as a chunk whose
    last observation is the one the next sample starts from, and its next
    chunk keeps its id.  So RLlib's learner connectors (GAE, the value
    bootstrap of a cut chunk) see what the per-step runner gives them.

    Not per step: no env-to-module / module-to-env connector pipelines run
    (their custom pieces are RLlib's per-step route:
    ``env_runner="rllib"``), and of the episode callbacks only
    ``on_episode_end`` is called (for each finished episode, after the
    sample).  Metrics are RLlib's (episode return, length, steps sampled)
    and ``win_rate`` (the share of finished episodes the learner won) and
    ``illegal_actions`` (actions the engine refused, a sum)."""

    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        env_config = {**dict(self.config.env_config), "autoreset_mode": "same_step", "action_mask_in_obs": True}
        self.env = gymnasium.make_vec(
            self.config.env,
            num_envs=self.config.num_envs_per_env_runner,
            vectorization_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
            **env_config,
        )
        if not hasattr(self.env, "vec"):
            raise ValueError(f"BoardEnvRunner steps boardenvs' own batched view; {self.config.env!r} made {self.env!r}")
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
        make_callback(
            "on_environment_created",
            callbacks_objects=self._callbacks,
            callbacks_functions=self.config.callbacks_on_environment_created,
            kwargs=dict(env_runner=self, metrics_logger=self.metrics, env=self.env, env_context=self.config.env_config),
        )

    def _sample(
        self,
        *,
        num_timesteps=None,
        num_episodes=None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list:
        env, n = self.env, self.num_envs
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._start(self._seed if self._needs_initial_reset else None)
        if num_episodes is not None:
            self._needs_initial_reset = True  # (the next sample starts new games, as RLlib's runner)
        steps = -(-num_timesteps // n) if num_timesteps is not None else max(8, 2 * -(-num_episodes // n))
        space = env.single_observation_space
        ro = _Rollout(
            n,
            space[OBS_KEY].shape,
            env.single_action_space.n,
            max(steps, 1),
            not random_actions,
            self.__dict__.setdefault("_pools", {}),
        )
        new = self._obs
        obs, masks = new[OBS_KEY], new[MASK_KEY]
        ro.obs[:, 0], ro.masks[:, 0] = obs, masks
        ended_count, illegal = 0, 0
        rng = self._rng
        while (ro.t < steps) if num_timesteps is not None else (ended_count < num_episodes):
            t = ro.t
            if t == ro.capacity:
                ro.grow()
            if random_actions:
                actions = np.argmax(masks * rng.random(masks.shape), axis=1)
            else:
                actions = self._actions(obs, masks, explore, ro, t)
            with self.metrics.log_time(ENV_STEP_TIMER):
                new, rewards, terminated, truncated, infos = env.step(actions)
            obs, masks = new[OBS_KEY], new[MASK_KEY]
            ro.actions[:, t], ro.rewards[:, t] = actions, rewards
            ro.obs[:, t + 1], ro.masks[:, t + 1] = obs, masks
            if "_final_obs" in infos:
                ended = np.flatnonzero(infos["_final_obs"])
                ro.ends[ended, t] = np.where(truncated[ended], 2, 1)
                final, info = infos["final_obs"], infos["final_info"]
                for i in ended.tolist():
                    ro.finals[i, t] = (
                        final[i],
                        {k: info[k][i] for k in ("return", "end_reason", "length", "learner_steps")},
                    )
                ended_count += ended.size
            illegal += int(infos["illegal_action"].sum())
            ro.t = t + 1
        self._obs = new
        sample, finished = self._episodes(ro, keep_going=num_timesteps is not None)
        done = [e for e in sample if e.is_done]
        ts = ro.t * n
        if self._callbacks or self.config.callbacks_on_episode_end:
            for e in done:  # (the episode's earlier chunks are not kept: prev_episode_chunks is empty)
                make_callback(
                    "on_episode_end",
                    callbacks_objects=self._callbacks,
                    callbacks_functions=self.config.callbacks_on_episode_end,
                    kwargs=dict(
                        episode=e,
                        env_runner=self,
                        metrics_logger=self.metrics,
                        env=env,
                        rl_module=self.module,
                        env_index=-1,
                        prev_episode_chunks=[],
                    ),
                )
        win = max(1, math.ceil(self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1)))
        for length, ret, seconds in finished:
            self._log_episode_metrics(length, ret, seconds)
            self.metrics.log_value("win_rate", float(ret > 0), window=win)
        self.metrics.log_value("illegal_actions", illegal, reduce="sum")
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(done))
        return sample

    def _start(self, seed) -> None:
        """New games in every row (new episodes, their ids)."""
        self._obs, _ = self._try_env_reset(seed=seed, options=None)
        self._needs_initial_reset = False
        self._ids = [uuid.uuid4().hex for _ in range(self.num_envs)]
        self._t_started = np.zeros(self.num_envs, np.int64)
        self._returns = np.zeros(self.num_envs)  # the rewards of the episode's earlier chunks
        self._since = np.full(self.num_envs, time.perf_counter())  # when the row's episode started
        self._rng = np.random.default_rng(seed)

    def _actions(self, obs, masks, explore: bool, ro: _Rollout, t: int) -> np.ndarray:
        """The module's actions in every row (one forward), its distribution
        inputs and the actions' log-probabilities kept in ``ro`` at step ``t``."""
        module = self.module
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)}}
        with torch.no_grad(), self.metrics.log_time(RLMODULE_INFERENCE_TIMER):
            if explore:
                lifetime = (
                    self.num_env_steps_sampled_lifetime // (self.config.num_env_runners or 1) + t * self.num_envs
                ) * (self.config.num_env_runners or 1)
                out = module.forward_exploration(batch, t=lifetime)
                cls = module.get_exploration_action_dist_cls()
            else:
                out = module.forward_inference(batch)
                cls = module.get_inference_action_dist_cls()
            inputs = out[Columns.ACTION_DIST_INPUTS]
            if cls is TorchCategorical:  # the masked module's: drawn by its CDF (faster here than torch.multinomial)
                logp = torch.log_softmax(inputs, -1)
                if explore:
                    cdf = torch.cumsum(torch.softmax(inputs, -1), -1)
                    u = (1.0 - torch.rand((inputs.shape[0], 1))) * cdf[
                        :, -1:
                    ]  # in (0, total]: never a 0-probability action
                    actions = torch.searchsorted(cdf, u).squeeze(1).clamp_(max=inputs.shape[1] - 1)
                else:
                    actions = inputs.argmax(-1)
                ro.logp[:, t] = logp.gather(1, actions[:, None]).squeeze(1).numpy()
            else:
                dist = cls.from_logits(inputs)
                actions = (dist if explore else dist.to_deterministic()).sample()
                ro.logp[:, t] = dist.logp(actions).numpy()
        ro.dist[:, t] = inputs.numpy()
        return actions.numpy()

    def _episodes(self, ro: _Rollout, keep_going: bool) -> tuple[SampledEpisodes, list]:
        """The sample cut into episodes at every row's ends: the finished
        ones, and (``keep_going``) each row's unfinished chunk, whose
        episode goes on in the next sample under the same id; and the
        finished games' (length, return, seconds), RLlib's episode metrics."""
        T, seg, ids, finals, infos, finished = ro.t, [], [], [], [], []
        rows, steps = np.nonzero(ro.ends[:, :T])
        k, now = 0, time.perf_counter()
        for i in range(ro.n):
            a = 0
            while k < rows.shape[0] and rows[k] == i:
                b = int(steps[k]) + 1
                last, info = ro.finals[i, b - 1]
                seg.append((i, a, b, int(ro.ends[i, b - 1]), int(self._t_started[i])))
                ids.append(self._ids[i])
                finals.append(last)
                infos.append(info)
                finished.append(
                    (
                        int(self._t_started[i]) + b - a,
                        float(self._returns[i] + ro.rewards[i, a:b].sum()),
                        now - self._since[i],
                    )
                )
                self._ids[i], self._t_started[i], self._returns[i], self._since[i] = uuid.uuid4().hex, 0, 0.0, now
                a, k = b, k + 1
            if keep_going and a < T:
                seg.append((i, a, T, 0, int(self._t_started[i])))
                ids.append(self._ids[i])
                self._t_started[i] += T - a
                self._returns[i] += ro.rewards[i, a:T].sum()
        m = len(finals)
        space = self.env.single_observation_space
        parts = {
            "obs": ro.obs[:, : T + 1],
            "masks": ro.masks[:, : T + 1],
            "actions": ro.actions[:, :T],
            "rewards": ro.rewards[:, :T],
            "logp": None if ro.logp is None else ro.logp[:, :T],
            "dist": None if ro.dist is None else ro.dist[:, :T],
            "segments": np.array(seg, np.int64).reshape(-1, 5),
            "ids": ids,
            "infos": infos,
            "final_obs": np.array([f[OBS_KEY] for f in finals]).reshape(m, *space[OBS_KEY].shape),
            "final_masks": np.array([f[MASK_KEY] for f in finals]).reshape(m, *space[MASK_KEY].shape),
            "seq": self._weights_seq_no,
            "spaces": (space, self.env.single_action_space),
        }
        return SampledEpisodes(parts), finished


class SampledEpisodes(list):
    """What :class:`BoardEnvRunner` samples: a list of numpy
    :class:`SingleAgentEpisode` objects, the finished episodes then the
    chunks that go on, built in bulk from one sample's arrays (each
    episode's columns are views of them).  It travels compact: pickled (a
    remote runner's sample on its way to the driver, a learner, an
    aggregator) as those few arrays and where each episode lies in them,
    and rebuilt where it is unpickled, not as thousands of small objects.
    A list whose episodes were changed or replaced since (more steps, custom
    data, other items) pickles as a plain list."""

    def __init__(self, parts: dict):
        super().__init__(_cut(parts))
        self._parts = parts
        self._shape = [(e, len(e), e.is_done) for e in self]

    def __reduce__(self):
        if len(self) == len(self._shape) and all(
            x is e and len(e) == n and e.is_done == d and not e.custom_data for x, (e, n, d) in zip(self, self._shape)
        ):
            return (SampledEpisodes, (self._parts,))
        return (list, (list(self),))


def _cut(parts: dict) -> list:
    """The episodes of a sample's ``parts`` (see :meth:`BoardEnvRunner._episodes`)."""
    obs, masks, actions, rewards, logp, dist = (
        parts[k] for k in ("obs", "masks", "actions", "rewards", "logp", "dist")
    )
    space, action_space = parts["spaces"]
    out, f = [], 0
    for (i, a, b, kind, t_started), id_ in zip(parts["segments"].tolist(), parts["ids"]):
        length = b - a
        infos = [{} for _ in range(length + 1)]
        if kind:
            observations = {
                OBS_KEY: np.concatenate([obs[i, a:b], parts["final_obs"][f : f + 1]]),
                MASK_KEY: np.concatenate([masks[i, a:b], parts["final_masks"][f : f + 1]]),
            }
            infos[-1] = parts["infos"][f]
            f += 1
        else:
            observations = {OBS_KEY: obs[i, a : b + 1], MASK_KEY: masks[i, a : b + 1]}
        extra = {WEIGHTS_SEQ_NO: np.full(length, parts["seq"], np.int64)}
        if dist is not None:
            extra[Columns.ACTION_DIST_INPUTS], extra[Columns.ACTION_LOGP] = dist[i, a:b], logp[i, a:b]
        out.append(
            SingleAgentEpisode(
                id_=id_,
                observations=observations,
                observation_space=space,
                infos=infos,
                actions=actions[i, a:b],
                action_space=action_space,
                rewards=rewards[i, a:b],
                terminated=kind == 1,
                truncated=kind == 2,
                extra_model_outputs=extra,
                t_started=t_started,
                len_lookback_buffer=0,
            )
        )
    return out
