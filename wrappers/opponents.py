"""Opponents for the single-agent views, and the self-play pool.

Every opponent is **batched**: ``act(observations, action_masks, rng) ->
actions``, arrays in (a leading batch axis), an int array out.  The views
call it once per round on the rows where that opponent is to act (the
single env: batches of one).  What users pass as ``opponent=``:

* ``"random"``: a uniformly random legal action (in the vector view it is
  drawn inside the kernel, from each row's own generator);
* a callable ``policy(observations, action_masks) -> actions``;
* a trained SB3 model (``MaskablePPO`` or any SB3 policy model): actions
  sampled from its masked distribution with the env's generator, so a seeded
  env replays (``deterministic=True`` plays the most likely action);
* a :class:`SelfPlayPool`: frozen snapshots of the learner, one picked per
  episode (the latest with probability ``latest_prob``, else uniformly from
  the pool); :class:`SelfPlayCallback` adds a snapshot every ``every``
  steps, so self-play is::

      pool = SelfPlayPool()
      env = gymnasium.make("boardenvs/Quagmire-v0", opponent=pool)
      MaskablePPO("MlpPolicy", env).learn(100_000, callback=SelfPlayCallback(pool))

The pool is shared by reference: it works with the views and SB3's
``DummyVecEnv``, not across ``SubprocVecEnv`` processes (each would hold a
copy that never sees the new snapshots).
"""
from __future__ import annotations

import copy

import numpy as np


class Opponent:
    """The interface: batched ``act``; ``in_kernel`` opponents are drawn by
    the vector view's kernel instead (only ``"random"``)."""

    name = "opponent"
    in_kernel = False

    def act(self, obs, masks, rng) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomOpponent(Opponent):
    """A uniformly random legal action."""

    name = "random"
    in_kernel = True

    def act(self, obs, masks, rng) -> np.ndarray:
        masks = np.asarray(masks, bool)
        u = rng.random(masks.shape[0])
        counts = masks.sum(axis=1)
        pick = np.minimum((u * counts).astype(np.int64), np.maximum(counts - 1, 0))
        # the pick-th set entry of each row
        ranks = np.cumsum(masks, axis=1) - 1
        return np.argmax(masks & (ranks == pick[:, None]), axis=1).astype(np.int64)


class PolicyOpponent(Opponent):
    """A batched policy ``policy(observations, action_masks) -> actions``."""

    def __init__(self, policy, name: str | None = None):
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "policy")

    def act(self, obs, masks, rng) -> np.ndarray:
        out = np.asarray(self.policy(obs, masks)).reshape(-1)
        if out.shape != (masks.shape[0],):
            raise ValueError(f"opponent {self.name}: returned {out.shape[0]} actions for {masks.shape[0]} observations")
        return out


class ModelOpponent(Opponent):
    """An SB3 model (or its policy): actions drawn from the masked action
    distribution with the env's generator (reproducible), or its most
    likely legal action with ``deterministic=True``."""

    def __init__(self, model, deterministic: bool = False, name: str | None = None):
        if deterministic not in (True, False):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        self.policy = getattr(model, "policy", model)
        self.deterministic = deterministic
        self.name = name or type(model).__name__

    def act(self, obs, masks, rng) -> np.ndarray:
        import torch

        masks = np.asarray(masks, bool)
        policy = self.policy
        if not hasattr(policy, "get_distribution"):  # something with predict only
            actions, _ = policy.predict(obs, action_masks=masks, deterministic=self.deterministic)
            return np.asarray(actions).reshape(-1)
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(obs_t)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        probs = np.where(masks, probs, 0.0)  # masking after the softmax = renormalising the legal ones
        if self.deterministic:
            return np.argmax(np.where(masks, probs + 1.0, 0.0), axis=1).astype(np.int64)
        total = probs.sum(axis=1, keepdims=True)
        probs = np.where(total > 0, probs / np.where(total > 0, total, 1.0), masks / masks.sum(axis=1, keepdims=True))
        cdf = np.cumsum(probs, axis=1)
        u = rng.random((masks.shape[0], 1)) * cdf[:, -1:]
        picks = (cdf <= u).sum(axis=1)
        picks = np.minimum(picks, masks.shape[1] - 1)
        # guard the float edge: fall back to the last legal action
        bad = ~masks[np.arange(len(picks)), picks]
        if bad.any():
            picks[bad] = masks.shape[1] - 1 - np.argmax(masks[bad, ::-1], axis=1)
        return picks.astype(np.int64)


class SelfPlayPool:
    """Frozen snapshots of a learner; one is picked per episode.

    ``pick`` returns the latest snapshot with probability ``latest_prob``,
    else one drawn uniformly from the pool (the latest included); while the
    pool is empty, ``initial`` plays (default ``"random"``).  The pool keeps
    the ``max_size`` most recent snapshots.  Snapshots are deep copies of the
    model's policy on the CPU, in eval mode: training the learner does not
    change them.
    """

    def __init__(self, max_size: int = 10, latest_prob: float = 0.5, initial="random", deterministic: bool = False):
        if not isinstance(max_size, (int, np.integer)) or isinstance(max_size, bool) or max_size < 1:
            raise ValueError(f"max_size must be a positive int, got {max_size!r}")
        if isinstance(latest_prob, bool) or not isinstance(latest_prob, (int, float, np.floating, np.integer)) or not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"latest_prob must be a number in [0, 1], got {latest_prob!r}")
        if deterministic not in (True, False):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        self.max_size = int(max_size)
        self.latest_prob = float(latest_prob)
        self.deterministic = deterministic
        self.initial = make_opponent(initial)
        self.snapshots: list[Opponent] = []
        self.added = 0  # snapshots ever added
        self.picks = 0  # episodes that drew an opponent from the pool

    def add(self, model) -> Opponent:
        """Freeze a copy of ``model``'s policy (without its optimizer state)
        and add it to the pool."""
        source = getattr(model, "policy", model)
        if not (hasattr(source, "get_distribution") or hasattr(source, "predict")):
            raise TypeError(f"SelfPlayPool.add takes an SB3 model or policy, got {model!r}")
        optimizer = getattr(source, "optimizer", None)
        if optimizer is not None:
            source.optimizer = None  # not copied: a snapshot never trains
        try:
            policy = copy.deepcopy(source)
        finally:
            if optimizer is not None:
                source.optimizer = optimizer
        if hasattr(policy, "set_training_mode"):
            policy.set_training_mode(False)
        if hasattr(policy, "to"):
            policy = policy.to("cpu")
        self.added += 1
        snap = ModelOpponent(policy, deterministic=self.deterministic, name=f"snapshot {self.added}")
        self.snapshots.append(snap)
        del self.snapshots[: -self.max_size]
        return snap

    def pick(self, rng) -> Opponent:
        """The opponent of one episode."""
        if not self.snapshots:
            return self.initial
        self.picks += 1
        if rng.random() < self.latest_prob:
            return self.snapshots[-1]
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    def __len__(self) -> int:
        return len(self.snapshots)

    def __repr__(self) -> str:
        return f"<SelfPlayPool {len(self)}/{self.max_size} snapshots, latest_prob={self.latest_prob}>"


class FixedOpponent:
    """The per-episode picker of a single opponent (what the views hold)."""

    def __init__(self, opponent: Opponent):
        self.opponent = opponent

    def pick(self, rng) -> Opponent:
        return self.opponent


def make_opponent(spec) -> Opponent:
    """An :class:`Opponent` from what a user passes as ``opponent=``."""
    if spec is None or (isinstance(spec, str) and spec == "random"):
        return RandomOpponent()
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        raise ValueError(f"unknown opponent {spec!r}: pass 'random', a policy(obs, masks) -> actions, an SB3 model or a SelfPlayPool")
    if hasattr(spec, "get_distribution") or hasattr(spec, "predict"):
        return ModelOpponent(spec)
    if callable(spec):
        return PolicyOpponent(spec)
    raise ValueError(f"opponent must be 'random', a policy(obs, masks) -> actions, an SB3 model or a SelfPlayPool; got {spec!r}")


def make_picker(spec):
    """What the views hold: something with ``pick(rng) -> Opponent`` per
    episode (a :class:`SelfPlayPool`, or one fixed opponent)."""
    if isinstance(spec, SelfPlayPool) or (hasattr(spec, "pick") and not callable(spec)):
        return spec
    return FixedOpponent(make_opponent(spec))


try:
    from stable_baselines3.common.callbacks import BaseCallback as _CallbackBase
except ImportError:  # pragma: no cover - the train extra is missing

    class _CallbackBase:
        def __init__(self, *args, **kwargs):
            raise ImportError("SelfPlayCallback needs stable-baselines3: pip install 'boardenvs[train]'")


class SelfPlayCallback(_CallbackBase):
    """SB3 callback: a snapshot of the learner enters ``pool`` at the start
    of training (if the pool is empty) and then every ``every`` environment
    steps."""

    def __init__(self, pool: SelfPlayPool, every: int = 10_000, verbose: int = 0):
        super().__init__(verbose)
        if not isinstance(pool, SelfPlayPool):
            raise TypeError(f"pool must be a SelfPlayPool, got {pool!r}")
        if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
            raise ValueError(f"every must be a positive int (steps), got {every!r}")
        self.pool = pool
        self.every = int(every)
        self._last = 0

    def _on_training_start(self) -> None:
        if not len(self.pool):  # the first snapshot; a later learn() call goes on with the pool
            self.pool.add(self.model)
        self._last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self.pool.add(self.model)
            self._last = self.num_timesteps
            self.logger.record("selfplay/snapshots", self.pool.added)
        return True
