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
  and writes the strength table (:mod:`.tournament`);
* :func:`rate` (``boardenvs rate GAME AGENT``) rates any agent against
  a game's versioned ladder (:mod:`.ladder`).

Importing this package registers its opponents with the core's registry
(:mod:`boardenvs.opponents`, which loads it by name on first need):
``"greedy"``, ``"mcts"``, ``"mcts:<simulations>"``, ``"baseline:<model>"``
``"search:<simulations>:<model>"`` (:mod:`.search`: PUCT guided by a
model), ``"search-greedy:<simulations>:<model>"`` (the same search, the
other seats played by ``greedy`` in its simulations) and the path of a saved model (a ``.pt`` from :mod:`.train`; an SB3
``.zip`` only with ``trust=True``: :func:`boardenvs.opponents.load_opponent`).

The committed models live in ``models/``: ``<name>.pt`` (the policy's
weights) beside ``<name>.json`` (game, options, network, budget, the
command that trained it).  :func:`load` reads a model's files as a user's:
the config is checked before anything is built
(:func:`.networks.check_config`: the network's fields typed and bounded),
the weights read with ``torch.load(weights_only=True)`` (no code runs)
after their size is checked against the network's; any failure is one
line, a :class:`~boardenvs.errors.ModelFileError`.  Names are the env id, with ``_<P>p`` for a
player count other than 2 (``hex_quoridor_v1_4p``).
"""

from __future__ import annotations

import json
import os
import pickle
import stat
import zipfile
from pathlib import Path

import numpy as np

from ..errors import MissingExtraError, ModelFileError, did_you_mean, first_line, install_line, shorten
from ..opponents import register_opponent, register_resolver, untrusted
from ..wrappers.selfplay import ModelOpponent

__all__ = [
    "MODELS",
    "Baseline",
    "BaselineOpponent",
    "available",
    "load",
    "model_path",
    "opponent",
    "opponent_from_path",
    "rate",
]

MODELS = Path(__file__).resolve().parent / "models"
"""The folder of the committed models (``<name>.pt`` beside ``<name>.json``)."""


def available() -> list[str]:
    """The names of the committed models."""
    return sorted(p.stem for p in MODELS.glob("*.json") if p.with_suffix(".pt").is_file())


def rate(agent, env_id: str, players: int | None = None, **kwargs) -> dict:
    """Rate ``agent`` (an opponent name or path: ``"baseline:quess_v0"``,
    ``"model.pt"``, ...) against ``env_id``'s ladder for ``players``: its
    Elo on the ladder's frozen scale (``random`` = 0) with a 95% interval,
    :func:`boardenvs.baselines.ladder.rate` (its keywords: ``games``,
    ``precision``, ``seed``, ``version``, ``trust``, ``traces``)."""
    from .ladder import rate as rate_on_ladder

    return rate_on_ladder(agent, env_id, players=players, **kwargs)


def model_path(name: str | Path) -> Path:
    """Where the model ``name`` is, suffix aside: ``MODELS / name`` for a
    committed model's name (:func:`available`), else ``name`` as a path."""
    return MODELS / name if isinstance(name, str) and name in available() else Path(name)


MAX_CONFIG_BYTES = 1 << 20  # a model's .json (the committed ones: 2-20 KB)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the system, a NUL byte: no such file
        return False


def _regular_size(path: Path, what: str, limit: int, fail) -> int:
    """The size of ``path``, a regular file of at most ``limit`` bytes (else ``fail(words)``)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        fail(f"cannot read its {what} ({exc.strerror or exc})")
    if not stat.S_ISREG(info.st_mode):
        fail(f"its {what} is not a regular file")
    if info.st_size > limit:
        fail(f"its {what} has {info.st_size:_} bytes, more than {limit:_}")
    return info.st_size


def _read_config(path: Path, fail) -> dict:
    """The JSON of a model's config file (at most :data:`MAX_CONFIG_BYTES`)."""
    _regular_size(path, "config", MAX_CONFIG_BYTES, fail)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:  # (grown since its size was read)
            fail(f"its config has more than {MAX_CONFIG_BYTES:_} bytes")
        return json.loads(data.decode("utf-8"))
    except OSError as exc:
        fail(f"cannot read its config ({exc.strerror or exc})")
    except UnicodeDecodeError:
        fail("its config is not UTF-8 text")
    except json.JSONDecodeError as exc:
        fail(f"its config is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})")
    except RecursionError:
        fail("its config is not JSON a model holds (nested too deeply)")


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
        steps = (self.config.get("budget") or {}).get("steps") if isinstance(self.config.get("budget"), dict) else None
        return f"<Baseline {self.name}: {self.env_id} {self.options or ''} after {steps} steps>"


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
            raise ValueError(
                f"{self.name} plays {agent.env_id}{' ' + str(agent.options) if agent.options else ''} "
                f"(observations {expected}, {actions} actions); this env gives observations "
                f"{tuple(obs.shape[1:])} and {masks.shape[1]} actions"
            )
        return super().act_arrays(obs, masks, rng)


def opponent(name: str) -> BaselineOpponent:
    """The opponent ``"baseline:<name>"`` stands for: the committed model
    ``name`` (or a saved model's path; the path alone is an opponent name
    too); ValueError naming the models if there is none, and at its first
    move if the env is another game than the model's."""
    return BaselineOpponent(load(name), name=f"baseline:{name}")


def load(name: str | Path) -> Baseline:
    """A committed model by name (:func:`available`), or the path of a
    ``.pt``/``.json`` pair written by :mod:`.train` (the path with or
    without either extension).  The config is checked before anything is
    built (:func:`.networks.check_config`), the weights' size before they
    are read (``torch.load(weights_only=True)``, which runs no code); a
    model whose files cannot be loaded is a one-line
    :class:`~boardenvs.errors.ModelFileError` (a ValueError) naming it and
    what is wrong, whatever failed underneath; no such model, a ValueError
    naming the committed ones."""
    try:
        import torch

        from .networks import check_config, new_policy
    except ImportError as exc:  # (the core installs without torch and SB3)
        raise MissingExtraError(
            f"loading the model {shorten(repr(str(name)), 120)} needs torch and SB3 (the train "
            f"extra; {exc.name or exc} is not installed): {install_line('train')}"
        ) from None

    if not isinstance(name, (str, os.PathLike)) or not str(name):
        raise ValueError(
            f"a model is a committed model's name or the path of a .pt/.json pair, got {shorten(repr(name))}"
        )
    shown = shorten(repr(str(name)), 120)

    def fail(words):
        raise ModelFileError(f"model {shown}: {words}")

    try:
        path = model_path(name)
        config_file, weights = path.with_suffix(".json"), path.with_suffix(".pt")
    except ValueError:  # a path with an empty name ("/", "..")
        config_file = weights = None
    if config_file is None or not (_is_file(config_file) and _is_file(weights)):
        text = str(name)
        if config_file is not None and (isinstance(name, os.PathLike) or "/" in text or os.sep in text or path.suffix):
            missing = [shorten(str(p), 120) for p in (weights, config_file) if not _is_file(p)]
            raise ValueError(
                f"no baseline {shown}: no such file ({' and '.join(missing)} "
                f"{'does' if len(missing) == 1 else 'do'} not exist; a saved model is a "
                "<name>.pt/<name>.json pair)"
            )
        raise ValueError(
            f"no baseline {shown}{did_you_mean(text, available())}: one of "
            f"{', '.join(available()) or '(none committed)'}, or the path of a <name>.pt/<name>.json pair"
        )
    config = _read_config(config_file, fail)
    try:
        count = check_config(config)  # the network's fields, before anything is built
        if not isinstance(config.get("name"), str):
            raise ValueError(f"the config's name must be a str, got {shorten(repr(config.get('name')))}")
        policy = new_policy(config)
    except ValueError as exc:
        fail(f"config {config_file.name!r}: {exc}")
    # the weights: torch's zip of at most 8 bytes per parameter (float64 at most) and the buffers' bytes
    limit = 8 * count + (1 << 22)
    _regular_size(weights, "weights file", limit, fail)
    try:
        with zipfile.ZipFile(weights) as archive:  # what torch.save writes; its sizes as declared, before reading
            declared = sum(info.file_size for info in archive.infolist())
        if declared > limit:
            fail(f"its weights file declares {declared:_} bytes, more than {limit:_} for this network")
        saved = torch.load(weights, map_location="cpu", weights_only=True)
    except ModelFileError:
        raise
    except zipfile.BadZipFile:
        fail(f"{weights.name!r} is not a weights file torch.save wrote (not a zip archive)")
    except pickle.UnpicklingError as exc:  # an object that is no tensor: refused by the weights-only reader, not run
        why = [
            line.split("WeightsUnpickler error:", 1)[1]
            for line in str(exc).splitlines()
            if "WeightsUnpickler error:" in line
        ]
        fail(
            f"{weights.name!r} is not a weights file torch can read ("
            + (shorten(f"UnpicklingError: {why[0].strip()}", 160) if why else first_line(exc))
            + ")"
        )
    except (
        Exception
    ) as exc:  # what a malformed file makes torch raise: UnpicklingError, RuntimeError, EOFError, KeyError, ...
        fail(f"{weights.name!r} is not a weights file torch can read ({first_line(exc)})")
    if not (isinstance(saved, dict) and all(isinstance(v, torch.Tensor) for v in saved.values())):
        fail(f"{weights.name!r} holds no network's weights (a dict of tensors)")
    wanted = policy.state_dict()
    unfit = sorted(k for k in saved.keys() & wanted.keys() if saved[k].shape != wanted[k].shape)
    if unfit or saved.keys() != wanted.keys():  # e.g. saved before the game's observation changed shape
        fail(
            f"{weights.name} does not fit the network its config builds for {config['env_id']} "
            f"(observations {tuple(policy.observation_space.shape)}): "
            + (
                f"{shorten(str(unfit[0]))} is {tuple(saved[unfit[0]].shape)}, the network's "
                f"{tuple(wanted[unfit[0]].shape)}"
                if unfit
                else f"missing {sorted(wanted.keys() - saved.keys())[:3]}, "
                f"unexpected {shorten(repr(sorted(map(str, saved.keys() - wanted.keys()))[:3]))}"
            )
            + "; retrain it"
        )
    try:
        policy.load_state_dict(saved)
    except (RuntimeError, TypeError, ValueError) as exc:  # a tensor of another kind (complex, ...)
        fail(f"{weights.name!r}: {first_line(exc)}")
    policy.set_training_mode(False)
    return Baseline(policy, config)


# --- the opponents this package registers (boardenvs.opponents) -----------------------


def _model_file(spec: str):
    """(kind, path) of the saved model ``spec`` names: ``("pt", <name>.pt)``
    for a ``.pt``/``.json`` pair (given as either file or without the
    extension), ``("zip", path)`` for an SB3 zip (``.zip`` may be left
    out); None if there is no such file.  ValueError for a ``.pt`` or
    ``.json`` whose other half is missing."""
    is_file = _is_file
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
            raise ModelFileError(
                f"opponent {shorten(repr(spec))}: a saved model is a .pt/.json pair (what "
                f"boardenvs.baselines.train writes); {shorten(repr(str(missing)))} is missing"
            )
        return "pt", pair[0]
    if suffix == ".zip":
        return ("zip", path) if is_file(path) else None
    pt, config, zipped = (path.with_name(path.name + ext) for ext in (".pt", ".json", ".zip"))
    if is_file(pt) and is_file(config):
        return "pt", pt
    if is_file(zipped):
        return "zip", zipped
    return None


def opponent_from_path(spec: str, trust: bool = False):
    """The opponent of a saved model's path, playing its most likely legal
    action: a ``.pt`` with its ``.json`` (:func:`boardenvs.baselines.load`)
    or, with ``trust=True`` only, an SB3 ``.zip`` (sb3-contrib's
    ``MaskablePPO``, else SB3's ``PPO``: their loader unpickles, so a zip
    runs code when loaded; :class:`~boardenvs.errors.UntrustedFileError`
    without trust); None if ``spec`` names no such file.  A
    :class:`~boardenvs.errors.ModelFileError` (one line) for a file that is
    no such model."""
    found = _model_file(spec)
    if found is None:
        return None
    kind, path = found
    shown = shorten(repr(spec))
    if kind == "pt":
        try:
            return BaselineOpponent(load(path), name=spec)
        except ModelFileError as exc:  # load's one line, naming the opponent too
            raise ModelFileError(f"opponent {shown}: {exc}") from None
    if trust is not True:
        raise untrusted(spec, "an SB3 .zip")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ModelFileError(f"loading the model {shown} needs sb3-contrib: {install_line('train')}") from exc
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # a zip that is no MaskablePPO: try plain PPO, then give up clearly
        try:
            from stable_baselines3 import PPO

            model = PPO.load(path, device="cpu")
        except Exception:
            raise ModelFileError(f"opponent {shown} is not a saved SB3 model ({first_line(exc)})") from None
    return ModelOpponent(model, deterministic=True, name=spec)


def _greedy():
    from .greedy import GreedyOpponent

    return GreedyOpponent()


def _mcts(arg=None):
    from .mcts import DEFAULT_SIMULATIONS, MCTSOpponent

    if arg is None:
        return MCTSOpponent(DEFAULT_SIMULATIONS)
    if not (arg.isascii() and arg.isdigit()) or int(arg) < 1 or len(arg) > 9:
        raise ValueError(
            f"mcts:<simulations> takes a positive int (simulations per decision, e.g. mcts:400), got {arg!r}"
        )
    return MCTSOpponent(int(arg))


def _search(arg, others=None):
    """The opponent of ``"search:<arg>"``: ``<simulations>:<model>`` or
    ``<model>`` (200 simulations), the model a committed baseline's name
    or a saved model's path (:mod:`.search`); ``others="greedy"``: the one
    of ``"search-greedy:<arg>"``, whose simulations play the other seats'
    decisions as ``greedy`` does."""
    from .search import DEFAULT_SIMULATIONS, MAX_SIMULATIONS
    from .search_opponent import SearchOpponent

    prefix = "search" if others is None else f"search-{others}"
    sims, sep, model = arg.partition(":")
    if sep and not (sims.isascii() and sims.isdigit()) and (_number_like(sims) or _model_name_like(model)):
        # "1e9:quess_v0", "-3:quess_v0", "x:quess_v0": a bad count before a model, not a model named "1e9:quess_v0"
        raise ValueError(
            f"{prefix}:<simulations>:<model> takes 1..{MAX_SIMULATIONS:_} simulations (digits), "
            f"got {shorten(repr(sims))}"
        )
    if not (sep and sims.isascii() and sims.isdigit()):
        sims, model = str(DEFAULT_SIMULATIONS), arg
    if not model:
        raise ValueError(f"{prefix}:<simulations>:<model> needs a model (a committed baseline or a saved model's path)")
    if len(sims) > 9 or int(sims) < 1 or int(sims) > MAX_SIMULATIONS:
        raise ValueError(
            f"{prefix}:<simulations>:<model> takes 1..{MAX_SIMULATIONS:_} simulations, got {shorten(repr(sims))}"
        )
    return SearchOpponent(load(model), int(sims), name=f"{prefix}:{int(sims)}:{model}", others=others)


def _number_like(text: str) -> bool:
    """Whether ``text`` reads as a number that is no count of simulations ("1e9", "-3", "2.5")."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _model_name_like(text: str) -> bool:
    """Whether ``text`` names a committed model or a saved model's files."""
    if text in available():
        return True
    try:
        return _model_file(text) is not None
    except ValueError:  # half a pair: a model's name all the same
        return True


def _search_greedy(arg):
    return _search(arg, others="greedy")


register_opponent(
    "greedy",
    _greedy,
    help="one-ply greedy: immediate wins, no immediate losses, else the game's heuristic",
    replace=True,
)
register_opponent("mcts", _mcts, help="UCT, random rollouts, 100 simulations per decision", replace=True)
register_opponent("mcts", _mcts, prefix=True, help="<simulations>", replace=True)
register_opponent(
    "search",
    _search,
    prefix=True,
    help="<simulations>:<model>: PUCT guided by a committed model or a saved model's path",
    replace=True,
)
register_opponent(
    "search-greedy",
    _search_greedy,
    prefix=True,
    help="<simulations>:<model>: that search with the other seats played by greedy in its simulations "
    "(a best response to greedy)",
    replace=True,
)
register_opponent("baseline", opponent, prefix=True, help="<committed model, e.g. quess_v0>", replace=True)
register_resolver(opponent_from_path)
