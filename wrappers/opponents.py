"""Opponents for the single-agent views, and the self-play pool.

Every opponent is **batched**: ``act(observations, action_masks, rng) ->
actions``, arrays in (a leading batch axis), an int array out.  The views
call it once per round on the rows where that opponent is to act (the
single env: batches of one).  What users pass as ``opponent=``:

* ``"random"``: a uniformly random legal action (in the vector view it is
  drawn inside the kernel, from each row's own generator);
* ``"greedy"``, ``"mcts"``, ``"mcts:<simulations>"``: the reference
  opponents (:mod:`boardenvs.baselines.greedy`, :mod:`boardenvs.baselines.mcts`),
  which read the game's state (``needs_state``); any name registered with
  :func:`register_opponent`;
* a callable ``policy(observations, action_masks) -> actions``;
* a trained SB3 model (``MaskablePPO`` or any SB3 policy model): actions
  sampled from its masked distribution with the env's generator, so a seeded
  env replays (``deterministic=True`` plays the most likely action); a
  model whose action count or observation size is not the game's is refused
  at its first move, naming both;
* the path of a saved model: ``<name>.pt`` (with its ``<name>.json``
  beside it, what ``python -m boardenvs.baselines.train`` writes; the path
  without ``.pt`` too) or an SB3 ``.zip`` (``model.save(path)``), playing
  its most likely legal action (as ``"baseline:<name>"`` does);
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
    the vector view's kernel instead (only ``"random"``).

    An opponent that reads the game itself rather than the observation
    (search: ``"greedy"``, ``"mcts"``) sets ``needs_state = True`` and
    implements ``act_states(game, states, rng) -> actions`` instead of
    ``act``: ``game`` is the configured :class:`boardenvs.game.Game`,
    ``states`` a ``(k, state_size)`` int64 array of **copies** of the rows
    where it is to act (the opponent may scribble on them), ``rng`` the
    view's numpy generator.  Every place that asks opponents (the vector
    view, the single-agent env, ``evaluate``, ``boardenvs play``) passes the
    states to such opponents."""

    name = "opponent"
    in_kernel = False
    needs_state = False
    # the vector view also passes ``rows=`` (the row index of each state) to
    # an act_states that sets this (evaluate's wrapper: rows already counted)
    takes_rows = False

    def act(self, obs, masks, rng) -> np.ndarray:
        if self.needs_state:
            raise TypeError(f"opponent {self.name} reads the game's state: call act_states(game, states, rng)")
        raise NotImplementedError

    def act_states(self, game, states, rng) -> np.ndarray:
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
            raise ValueError(f"opponent {self.name}: the model chooses among {int(n)} actions, this game has "
                             f"{masks.shape[1]}: a model of another game or game options")  # fmt: skip
        shape = getattr(getattr(self.policy, "observation_space", None), "shape", None)
        if shape is not None and tuple(shape) != tuple(obs.shape[1:]):
            if int(np.prod(shape)) != int(np.prod(obs.shape[1:])):
                raise ValueError(f"opponent {self.name}: the model takes observations of shape {tuple(shape)}, this "
                                 f"game gives {tuple(obs.shape[1:])}: a model of another game or game options")  # fmt: skip
            obs = obs.reshape((obs.shape[0], *shape))  # the same numbers, flattened or not
        return obs

    def act(self, obs, masks, rng) -> np.ndarray:
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


# --- opponents by name --------------------------------------------------------
# The one registry of named opponents, used by ``opponent="..."`` everywhere
# (make_opponent) and by ``boardenvs play --vs ...`` (boardenvs.opponents).
# name -> factory() for plain names; prefix -> factory(argument) for
# "prefix:argument" names ("mcts:400"); each with a one-line description.
_NAMED: dict = {}
_PREFIXED: dict = {}


def register_opponent(name: str, factory, prefix: bool = False, help: str = "", replace: bool = False) -> None:
    """Make ``name`` an opponent name.  ``factory()`` builds the opponent of
    the plain name; with ``prefix=True``, ``factory(argument)`` builds the
    one of ``"name:argument"`` (``argument`` a non-empty str the factory
    checks, raising ValueError with what it accepts).  A name can be both,
    registered twice (``"mcts"`` and ``"mcts:<simulations>"``)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"an opponent name is a non-empty str without ':', got {name!r}")
    table = _PREFIXED if prefix else _NAMED
    if name in table and not replace:
        raise ValueError(f"opponent name {name!r}{':...' if prefix else ''} is already registered")
    table[name] = (factory, help)


def opponent_names() -> list[str]:
    """What ``opponent=`` accepts by name: plain names and ``prefix:<...>`` forms."""
    names = list(_NAMED)
    for p, (_, help) in _PREFIXED.items():
        names.append(f"{p}:{help or '<argument>'}")
    return names


def _accepted() -> str:
    return ", ".join(repr(n) for n in opponent_names())


MODEL_FILES = "the path of a saved model (a .pt from python -m boardenvs.baselines.train, or an SB3 .zip)"


def opponent_from_name(spec: str) -> Opponent:
    """The opponent a registered name stands for, or the saved model at a
    path (:func:`opponent_from_path`); ValueError listing the accepted names
    otherwise."""
    if spec in _NAMED:
        return _NAMED[spec][0]()
    head, sep, arg = spec.partition(":")
    if sep and head in _PREFIXED:
        if not arg:
            raise ValueError(f"opponent {spec!r}: {head}: needs an argument ({head}:{_PREFIXED[head][1]}); accepted: {_accepted()}")
        try:
            return _PREFIXED[head][0](arg)
        except ValueError as exc:
            raise ValueError(f"opponent {spec!r}: {exc}; accepted: {_accepted()}") from None
    if sep and head in _NAMED:
        raise ValueError(f"opponent {spec!r}: {head!r} takes no ':' argument; accepted: {_accepted()}")
    model = opponent_from_path(spec)
    if model is not None:
        return model
    raise ValueError(f"unknown opponent {spec!r}: accepted names are {_accepted()}, or {MODEL_FILES}; or pass a "
                     "policy(obs, masks) -> actions, an SB3 model or a SelfPlayPool")  # fmt: skip


def _model_file(spec: str):
    """(kind, path) of the saved model ``spec`` names: ``("pt", <name>.pt)``
    for a ``.pt``/``.json`` pair (given as either file or without the
    extension), ``("zip", path)`` for an SB3 zip (``.zip`` may be left
    out); None if there is no such file.  ValueError for a ``.pt`` or
    ``.json`` whose other half is missing."""
    from pathlib import Path

    def is_file(p) -> bool:
        try:
            return p.is_file()
        except (OSError, ValueError):  # a name too long for the system, a NUL byte: no such file
            return False

    path = Path(spec)
    if not spec or not path.name:
        return None
    suffix = path.suffix.lower()
    if suffix in (".pt", ".json"):
        pair = path.with_suffix(".pt"), path.with_suffix(".json")
        if not is_file(path):
            return None
        if not all(is_file(p) for p in pair):
            missing = next(p for p in pair if not is_file(p))
            raise ValueError(f"opponent {spec!r}: a saved model is a .pt/.json pair (what boardenvs.baselines.train "
                             f"writes); {str(missing)!r} is missing")  # fmt: skip
        return "pt", pair[0]
    if suffix == ".zip":
        return ("zip", path) if is_file(path) else None
    pt, config, zipped = (path.with_name(path.name + ext) for ext in (".pt", ".json", ".zip"))
    if is_file(pt) and is_file(config):
        return "pt", pt
    if is_file(zipped):
        return "zip", zipped
    return None


def opponent_from_path(spec: str):
    """The opponent of a saved model's path, playing its most likely legal
    action: a ``.pt`` with its ``.json`` (:func:`boardenvs.baselines.load`)
    or an SB3 ``.zip`` (sb3-contrib's ``MaskablePPO``, else SB3's ``PPO``);
    None if ``spec`` names no such file.  ValueError for a file that is no
    such model."""
    found = _model_file(spec)
    if found is None:
        return None
    kind, path = found
    if kind == "pt":
        from boardenvs.baselines import BaselineOpponent, load

        try:
            return BaselineOpponent(load(path), name=spec)
        except ValueError:  # load's own words (weights that do not fit, ...)
            raise
        except Exception as exc:  # a file torch or the config cannot read
            raise ValueError(f"opponent {spec!r}: {str(path)!r} is not a model boardenvs.baselines.train wrote "
                             f"({type(exc).__name__}: {exc})") from None  # fmt: skip
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ValueError(f"loading the model {spec!r} needs sb3-contrib: pip install 'boardenvs[train]'") from exc
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # a zip that is no MaskablePPO: try plain PPO, then give up clearly
        try:
            from stable_baselines3 import PPO

            model = PPO.load(path, device="cpu")
        except Exception:
            raise ValueError(f"opponent {spec!r} is not a saved SB3 model ({exc})") from None
    return ModelOpponent(model, deterministic=True, name=spec)


def _greedy():
    from boardenvs.baselines.greedy import GreedyOpponent

    return GreedyOpponent()


def _mcts(arg=None):
    from boardenvs.baselines.mcts import DEFAULT_SIMULATIONS, MCTSOpponent

    if arg is None:
        return MCTSOpponent(DEFAULT_SIMULATIONS)
    if not (arg.isascii() and arg.isdigit()) or int(arg) < 1 or len(arg) > 9:
        raise ValueError(f"mcts:<simulations> takes a positive int (simulations per decision, e.g. mcts:400), got {arg!r}")
    return MCTSOpponent(int(arg))


def _baseline(arg):
    from boardenvs.baselines import opponent

    return opponent(arg)


register_opponent("random", RandomOpponent, help="a uniformly random legal action")
register_opponent("greedy", _greedy, help="one-ply greedy: immediate wins, no immediate losses, else the game's heuristic")
register_opponent("mcts", _mcts, help="UCT, random rollouts, 100 simulations per decision")
register_opponent("mcts", _mcts, prefix=True, help="<simulations>")
register_opponent("baseline", _baseline, prefix=True, help="<committed model, e.g. quess_v0>")


def make_opponent(spec) -> Opponent:
    """An :class:`Opponent` from what a user passes as ``opponent=``: a
    registered name (:func:`opponent_names`), the path of a saved model
    (``.pt`` from ``boardenvs.baselines.train``, SB3 ``.zip``), an
    Opponent, an SB3 model or a batched policy."""
    if spec is None:
        return RandomOpponent()
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        return opponent_from_name(spec)
    if hasattr(spec, "get_distribution") or hasattr(spec, "predict"):
        return ModelOpponent(spec)
    if callable(spec):
        return PolicyOpponent(spec)
    raise ValueError(f"opponent must be a name ({_accepted()}), a policy(obs, masks) -> actions, an SB3 model or a SelfPlayPool; got {spec!r}")


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
