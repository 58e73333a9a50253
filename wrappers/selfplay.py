"""Trained models as opponents, and self-play.

* :class:`ModelOpponent`: an SB3 model (``MaskablePPO`` or any SB3 policy
  model) playing the core protocol (:class:`boardenvs.opponents.Opponent`):
  actions sampled from its masked distribution with the caller's generator,
  so a seeded env replays (``deterministic=True`` plays the most likely
  action); a model whose action count or observation size is not the
  game's is refused at its first move, naming both.  This module registers
  it with the core (:func:`boardenvs.opponents.register_adapter`), so an SB3
  model passed as ``opponent=`` is one.
* :class:`SelfPlayPool`: frozen snapshots of the learner, one picked per
  episode (the latest with probability ``latest_prob``, else uniformly from
  the pool); :class:`SelfPlayCallback` adds a snapshot every ``every``
  steps, so self-play is::

      pool = SelfPlayPool()
      env = gymnasium.make("boardenvs/Quagmire-v0", opponent=pool)
      MaskablePPO("MlpPolicy", env).learn(100_000, callback=SelfPlayCallback(pool))

  The pool is shared by reference: it works with the views and SB3's
  ``DummyVecEnv``, not across ``SubprocVecEnv`` processes (each would hold a
  copy that never sees the new snapshots).
* :func:`make_picker` (what the views hold: a pool, or one fixed opponent
  from :func:`boardenvs.opponents.make_opponent`) and :func:`make_player`
  (``evaluate``'s agent, distillation's student).
"""

from __future__ import annotations

import copy

import numpy as np

from ..opponents import Batch, Opponent, make_opponent, register_adapter


class ModelOpponent(Opponent):
    """An SB3 model (or its policy): actions drawn from the masked action
    distribution with the env's generator (reproducible), or its most
    likely legal action with ``deterministic=True``.  At each move the
    model's spaces are checked against the game's: another action count is
    a ValueError naming both; observations of the model's size in another
    shape (the flattened planes, ``flatten=True``) are reshaped to its
    space, another size is a ValueError naming both."""

    def __init__(self, model, deterministic: bool = False, name: str | None = None):
        if deterministic not in (True, False):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        self.policy = getattr(model, "policy", model)
        self.deterministic = deterministic
        self.name = name or type(model).__name__

    def _fitted(self, obs, masks):
        """``obs`` in the model's observation shape, after checking the
        model plays this game's actions and observations (ValueError naming
        the model's and the game's sizes otherwise)."""
        n = getattr(getattr(self.policy, "action_space", None), "n", None)
        if n is not None and int(n) != masks.shape[1]:
            raise ValueError(
                f"opponent {self.name}: the model chooses among {int(n)} actions, this game has "
                f"{masks.shape[1]}: a model of another game or game options"
            )
        shape = getattr(getattr(self.policy, "observation_space", None), "shape", None)
        if shape is not None and tuple(shape) != tuple(obs.shape[1:]):
            if int(np.prod(shape)) != int(np.prod(obs.shape[1:])):
                raise ValueError(
                    f"opponent {self.name}: the model takes observations of shape {tuple(shape)}, this "
                    f"game gives {tuple(obs.shape[1:])}: a model of another game or game options"
                )
            obs = obs.reshape((obs.shape[0], *shape))  # the same numbers, flattened or not
        return obs

    def act(self, batch: Batch) -> np.ndarray:
        """The model's actions for the batch (see :meth:`act_arrays`)."""
        return self.act_arrays(batch.observations, batch.masks, batch.rng)

    def act_arrays(self, obs, masks, rng) -> np.ndarray:
        """The actions for ``observations`` and ``masks`` (arrays with a leading batch axis)."""
        import torch

        masks = np.asarray(masks, bool)
        obs = self._fitted(np.asarray(obs), masks)
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
        if (
            isinstance(latest_prob, bool)
            or not isinstance(latest_prob, (int, float, np.floating, np.integer))
            or not 0.0 <= latest_prob <= 1.0
        ):
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


def make_player(agent, deterministic: bool = False) -> Opponent:
    """The player for an agent that is to be asked for actions (``evaluate``'s
    agent, distill's student): an Opponent as it is (a name's opponent, a pool
    snapshot), an SB3 model (or a baseline) playing its masked distribution,
    its most likely action if ``deterministic``, else :func:`make_opponent`."""
    if isinstance(agent, Opponent):
        return agent
    if hasattr(agent, "policy"):
        return ModelOpponent(agent, deterministic=deterministic)
    return make_opponent(agent)


def _sb3_model(obj):
    """The core's adapter for SB3 models (and policies) passed as opponents."""
    if hasattr(obj, "get_distribution") or hasattr(obj, "predict"):
        return ModelOpponent(obj)
    return None


register_adapter(_sb3_model)


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
