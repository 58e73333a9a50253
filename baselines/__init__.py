"""Baselines: trained masked-PPO agents, their training and evaluation.

>>> from boardenvs import baselines
>>> agent = baselines.load("quess_v0")            # a committed model
>>> action, _ = agent.predict(obs, action_masks=mask, deterministic=True)
>>> env = gymnasium.make("boardenvs/Quess-v0", opponent=agent)   # or opponent="baseline:quess_v0"

* ``python -m boardenvs.baselines.train GAME`` trains one (:mod:`.train`);
* ``python -m boardenvs.baselines.distill GAME --teacher greedy`` fits one to
  a reference opponent's decisions (:mod:`.distill`);
* ``python -m boardenvs.baselines.expert_iteration GAME --init MODEL``
  improves one by its own guided search (:mod:`.expert_iteration`);
* ``python -m boardenvs.baselines.tournament GAME`` plays the round-robin
  and writes the strength table (:mod:`.tournament`).

Importing this package registers its opponents with the core's registry
(:mod:`boardenvs.opponents`, which loads it by name on first need):
``"greedy"``, ``"mcts"``, ``"mcts:<simulations>"``, ``"baseline:<model>"``
``"search:<simulations>:<model>"`` (:mod:`.search`: PUCT guided by a
model), ``"search-greedy:<simulations>:<model>"`` (the same search, the
other seats played by ``greedy`` in its simulations) and the path of a saved model (a ``.pt`` from :mod:`.train`, an SB3 ``.zip``).

The committed models live in ``models/``: ``<name>.pt`` (the policy's
weights) beside ``<name>.json`` (game, options, network, budget, the
command that trained it).  Names are the env id, with ``_<P>p`` for a
player count other than 2 (``hex_quoridor_v0_4p``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..opponents import register_opponent, register_resolver
from ..wrappers.selfplay import ModelOpponent

__all__ = ["MODELS", "Baseline", "BaselineOpponent", "available", "load", "model_path", "opponent", "opponent_from_path"]

MODELS = Path(__file__).resolve().parent / "models"
"""The folder of the committed models (``<name>.pt`` beside ``<name>.json``)."""


def available() -> list[str]:
    """The names of the committed models."""
    return sorted(p.stem for p in MODELS.glob("*.json") if p.with_suffix(".pt").is_file())


def model_path(name: str | Path) -> Path:
    """Where the model ``name`` is, suffix aside: ``MODELS / name`` for a
    committed model's name (:func:`available`), else ``name`` as a path."""
    return MODELS / name if isinstance(name, str) and name in available() else Path(name)


class Baseline:
    """A trained policy: ``predict(obs, action_masks=..., deterministic=...)``
    like an SB3 model (a single observation or a batch), ``policy`` (SB3's
    ``MaskableActorCriticPolicy``, on the CPU, in eval mode) and ``config``.
    Pass it as ``opponent=`` to any single-agent view."""

    def __init__(self, policy, config: dict):
        self.policy = policy
        self.config = config
        self.name = config["name"]
        self.env_id = config["env_id"]
        self.options = dict(config["options"])

    def predict(self, observation, state=None, episode_start=None, deterministic: bool = False, action_masks=None):
        """SB3's ``predict``; flat observations (the gymnasium ids' default)
        are read as the planes the model was trained on."""
        shape = tuple(self.policy.observation_space.shape)
        obs = np.asarray(observation)
        size = int(np.prod(shape))
        if obs.shape[-1:] == (size,) and obs.shape != shape:
            obs = obs.reshape((*obs.shape[:-1], *shape))
        return self.policy.predict(obs, state, episode_start, deterministic, action_masks=action_masks)

    def __repr__(self) -> str:
        return f"<Baseline {self.name}: {self.env_id} {self.options or ''} after {self.config['budget']['steps']} steps>"


class BaselineOpponent(ModelOpponent):
    """A trained model as an opponent, playing its most likely legal action;
    refuses another game's observations with a message naming both."""

    def __init__(self, agent: Baseline, name: str):
        super().__init__(agent, deterministic=True, name=name)
        self.agent = agent

    def act_arrays(self, obs, masks, rng):
        agent = self.agent
        expected, actions = tuple(agent.policy.observation_space.shape), agent.policy.action_space.n
        # flat observations of the same planes are fine (ModelOpponent reshapes them)
        if int(np.prod(obs.shape[1:])) != int(np.prod(expected)) or masks.shape[1] != actions:
            raise ValueError(f"{self.name} plays {agent.env_id}{' ' + str(agent.options) if agent.options else ''} "
                             f"(observations {expected}, {actions} actions); this env gives observations "
                             f"{tuple(obs.shape[1:])} and {masks.shape[1]} actions")  # fmt: skip
        return super().act_arrays(obs, masks, rng)


def opponent(name: str) -> BaselineOpponent:
    """The opponent ``"baseline:<name>"`` stands for: the committed model
    ``name`` (or a saved model's path; the path alone is an opponent name
    too); ValueError naming the models if there is none, and at its first
    move if the env is another game than the model's."""
    return BaselineOpponent(load(name), name=f"baseline:{name}")


def load(name: str | Path) -> Baseline:
    """A committed model by name (:func:`available`), or the path of a
    ``.pt``/``.json`` pair written by :mod:`.train`."""
    import torch

    from .networks import new_policy

    path = model_path(name)
    config_file, weights = path.with_suffix(".json"), path.with_suffix(".pt")
    if not (config_file.is_file() and weights.is_file()):
        raise ValueError(f"no baseline {str(name)!r}: one of {', '.join(available()) or '(none committed)'}, "
                         f"or the path of a <name>.pt/<name>.json pair")  # fmt: skip
    config = json.loads(config_file.read_text())
    policy = new_policy(config)
    saved, wanted = torch.load(weights, map_location="cpu", weights_only=True), policy.state_dict()
    unfit = sorted(k for k in saved.keys() & wanted.keys() if saved[k].shape != wanted[k].shape)
    if unfit or saved.keys() != wanted.keys():  # e.g. saved before the game's observation changed shape
        raise ValueError(f"{weights} does not fit the network its config builds for {config['env_id']} "
                         f"(observations {tuple(policy.observation_space.shape)}): "
                         + (f"{unfit[0]} is {tuple(saved[unfit[0]].shape)}, the network's {tuple(wanted[unfit[0]].shape)}"
                            if unfit else f"missing {sorted(wanted.keys() - saved.keys())[:3]}, "
                                          f"unexpected {sorted(saved.keys() - wanted.keys())[:3]}")
                         + "; retrain it")  # fmt: skip
    policy.load_state_dict(saved)
    policy.set_training_mode(False)
    return Baseline(policy, config)


# --- the opponents this package registers (boardenvs.opponents) -----------------------


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
    from .greedy import GreedyOpponent

    return GreedyOpponent()


def _mcts(arg=None):
    from .mcts import DEFAULT_SIMULATIONS, MCTSOpponent

    if arg is None:
        return MCTSOpponent(DEFAULT_SIMULATIONS)
    if not (arg.isascii() and arg.isdigit()) or int(arg) < 1 or len(arg) > 9:
        raise ValueError(f"mcts:<simulations> takes a positive int (simulations per decision, e.g. mcts:400), got {arg!r}")
    return MCTSOpponent(int(arg))


def _search(arg, others=None):
    """The opponent of ``"search:<arg>"``: ``<simulations>:<model>`` or
    ``<model>`` (200 simulations), the model a committed baseline's name
    or a saved model's path (:mod:`.search`); ``others="greedy"``: the one
    of ``"search-greedy:<arg>"``, whose simulations play the other seats'
    decisions as ``greedy`` does."""
    from .search import DEFAULT_SIMULATIONS, MAX_SIMULATIONS, SearchOpponent

    prefix = "search" if others is None else f"search-{others}"
    sims, sep, model = arg.partition(":")
    if not (sep and sims.isascii() and sims.isdigit()):
        sims, model = str(DEFAULT_SIMULATIONS), arg
    if not model:
        raise ValueError(f"{prefix}:<simulations>:<model> needs a model (a committed baseline or a saved model's path)")
    if len(sims) > 9 or int(sims) < 1 or int(sims) > MAX_SIMULATIONS:
        raise ValueError(f"{prefix}:<simulations>:<model> takes 1..{MAX_SIMULATIONS:_} simulations, got {sims!r}")
    return SearchOpponent(load(model), int(sims), name=f"{prefix}:{int(sims)}:{model}", others=others)


def _search_greedy(arg):
    return _search(arg, others="greedy")


register_opponent("greedy", _greedy, help="one-ply greedy: immediate wins, no immediate losses, else the game's heuristic",
                  replace=True)  # fmt: skip
register_opponent("mcts", _mcts, help="UCT, random rollouts, 100 simulations per decision", replace=True)
register_opponent("mcts", _mcts, prefix=True, help="<simulations>", replace=True)
register_opponent("search", _search, prefix=True,
                  help="<simulations>:<model>: PUCT guided by a committed model or a saved model's path", replace=True)  # fmt: skip
register_opponent("search-greedy", _search_greedy, prefix=True,
                  help="<simulations>:<model>: that search with the other seats played by greedy in its simulations "
                       "(a best response to greedy)", replace=True)  # fmt: skip
register_opponent("baseline", opponent, prefix=True, help="<committed model, e.g. quess_v0>", replace=True)
register_resolver(opponent_from_path)
