"""Trained models as opponents, and self-play.

* :class:`ModelOpponent`: an SB3 model (``MaskablePPO`` or any SB3 policy
  model) playing the core protocol (:class:`boardenvs.opponents.Opponent`):
  actions sampled from its masked distribution with the caller's generator,
  so a seeded env replays (``deterministic=True`` plays the most likely
  action); a model whose action count or observation size is not the
  game's is refused at its first move, naming both.  This module registers
  it with the core (:func:`boardenvs.opponents.register_adapter`), so an SB3
  model passed as ``opponent=`` is one.
* self-play in stable-baselines3: the league is the core's
  (:class:`boardenvs.league.League`, one for every framework);
  :func:`sb3_snapshot` turns an SB3 model into its snapshot and
  :class:`SB3SelfPlayCallback` adds one every ``every`` steps::

      league = League()
      env = gymnasium.make("boardenvs/Quagmire-v0", opponent=league)
      MaskablePPO("MlpPolicy", env).learn(100_000, callback=SB3SelfPlayCallback(league))

  The league is shared by reference: it works with the views and SB3's
  ``DummyVecEnv``, not across ``SubprocVecEnv`` processes (each would hold a
  copy that never sees the new snapshots).
* :func:`make_picker` (what the views hold: a league, or one fixed opponent
  from :func:`boardenvs.opponents.make_opponent`) and :func:`make_player`
  (``evaluate``'s agent, distillation's student).
"""

from __future__ import annotations

import copy

import numpy as np

from ..errors import install_line
from ..league import League
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


def sb3_snapshot(model, deterministic: bool = False, name: str = "snapshot") -> ModelOpponent:
    """SB3's snapshot factory for a :class:`boardenvs.league.League`: a
    frozen copy of ``model``'s policy (an SB3 model or policy; without its
    optimizer state, on the CPU, in eval mode: training the learner does not
    change it) playing as an opponent (its masked distribution, or its most
    likely action with ``deterministic``)."""
    source = getattr(model, "policy", model)
    if not (hasattr(source, "get_distribution") or hasattr(source, "predict")):
        raise TypeError(f"sb3_snapshot takes an SB3 model or policy, got {model!r}")
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
    return ModelOpponent(policy, deterministic=deterministic, name=name)


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
    episode (a :class:`boardenvs.league.League`, or one fixed opponent)."""
    if isinstance(spec, League) or (hasattr(spec, "pick") and not callable(spec)):
        return spec
    return FixedOpponent(make_opponent(spec))


try:
    from stable_baselines3.common.callbacks import BaseCallback as _CallbackBase
except ImportError:  # pragma: no cover - the train extra is missing

    class _CallbackBase:
        def __init__(self, *args, **kwargs):
            raise ImportError(f"SB3SelfPlayCallback needs stable-baselines3: {install_line('train')}")


class SB3SelfPlayCallback(_CallbackBase):
    """stable-baselines3's self-play callback: a snapshot of the learner
    (:func:`sb3_snapshot`) enters ``league`` at the start of training (if it
    has none) and then every ``every`` environment steps."""

    def __init__(self, league: League, every: int = 10_000, deterministic: bool = False, verbose: int = 0):
        super().__init__(verbose)
        if not isinstance(league, League):
            raise TypeError(f"league must be a boardenvs.league.League, got {league!r}")
        if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
            raise ValueError(f"every must be a positive int (steps), got {every!r}")
        if deterministic not in (True, False):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        self.league, self.every, self.deterministic = league, int(every), deterministic
        self.last = 0  # the steps at the last snapshot (or at the start of training)

    def _snapshot(self) -> None:
        self.league.add(sb3_snapshot(self.model, self.deterministic, f"snapshot {self.league.added + 1}"))

    def _on_training_start(self) -> None:
        if not len(self.league):  # the first snapshot; a later learn() call goes on with the league
            self._snapshot()
        self.last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.every:
            self._snapshot()
            self.last = self.num_timesteps
            self.logger.record("selfplay/snapshots", self.league.added)
        return True
