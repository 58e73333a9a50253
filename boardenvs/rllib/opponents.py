"""A trained RLlib policy (an Algorithm, a checkpoint with trust) as an opponent anywhere one is named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from ..errors import ModelFileError, first_line, shorten
from ..opponents import CHECKPOINT_FILES, Batch, Opponent, register_adapter, register_resolver, untrusted
from .module import MASK_KEY, OBS_KEY


class ModuleOpponent(Opponent):
    """An RLlib :class:`MaskedBoardModule` (its weights) as an opponent: its
    most likely legal action (``deterministic``), else a draw from its
    masked distribution with the batch's generator."""

    def __init__(self, module, deterministic: bool = True, name: str = "rllib"):
        self.module, self.deterministic, self.name = module, deterministic, name
        self.module.eval()

    def act(self, batch: Batch) -> np.ndarray:
        obs = np.asarray(batch.observations).reshape(len(batch), -1)
        with torch.no_grad():
            out = self.module.forward_inference(
                {Columns.OBS: {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(batch.masks.astype(np.int8))}}
            )
            logits = out[Columns.ACTION_DIST_INPUTS].double().numpy()
        logits = np.where(batch.masks, logits, -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        u = batch.rng.random((len(batch), 1))
        return np.minimum((np.cumsum(probs, axis=1) < u).sum(axis=1), batch.masks.shape[1] - 1).astype(np.int64)


def opponent(source, deterministic: bool = True, *, trust: bool = False) -> ModuleOpponent:
    """A trained RLlib policy as an opponent: ``source`` an Algorithm (its
    default module, with its learner's weights), an RLModule, or a checkpoint folder (of an Algorithm
    saved with ``algo.save(path)``, or of the module itself).  A checkpoint
    loads only with ``trust=True``: RLlib's loader unpickles its files, so
    a checkpoint runs code when loaded (:class:`~boardenvs.errors.UntrustedFileError`
    without it).  Accepted wherever an opponent is named:
    :func:`boardenvs.wrappers.evaluate`, ``gymnasium.make(...,
    opponent=...)``; ``boardenvs play --vs <folder> --trust-files``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    if hasattr(source, "get_module"):
        spec, state = _learned(source)
        module = spec.build()
        module.set_state(state)
        return ModuleOpponent(module, deterministic, name="rllib")
    if isinstance(source, RLModule):
        return ModuleOpponent(source, deterministic, name="rllib")
    if not isinstance(source, (str, Path)):
        raise ValueError(f"{shorten(repr(source))} is no RLlib Algorithm, RLModule or checkpoint folder")
    shown = shorten(repr(str(source)))
    path = Path(source)
    for candidate in (path / "learner_group" / "learner" / "rl_module" / "default_policy", path):
        try:
            found = (candidate / "module_state.pt").is_file() or (candidate / "class_and_ctor_args.pkl").is_file()
        except (OSError, ValueError):  # a name too long for the system, a NUL byte: nothing there
            found = False
        if not found:
            continue
        if trust is not True:
            raise untrusted(str(source), "an RLlib checkpoint folder")
        try:
            module = RLModule.from_checkpoint(str(candidate.resolve()))
        except Exception as exc:  # whatever a checkpoint that is not one makes RLlib raise
            raise ModelFileError(
                f"opponent {shown}: not an RLlib checkpoint RLlib can load ({first_line(exc)})"
            ) from None
        return ModuleOpponent(module, deterministic, name=str(source))
    raise ValueError(
        f"{shown} is no RLlib Algorithm, RLModule or checkpoint folder (of algo.save(path) or of a module)"
    )


def _learned(algorithm) -> tuple:
    """An Algorithm's default module: its spec and the learner's weights (an
    asynchronous algorithm, APPO or IMPALA, syncs only its remote runners:
    the driver's own module is stale there)."""
    local = algorithm.get_module()
    if local is None:
        raise ValueError(f"{algorithm!r} has no local module; build it with a local learner or load a checkpoint")
    state = local.get_state()
    group = getattr(algorithm, "learner_group", None)
    if group is not None:
        from ray.rllib.core import DEFAULT_MODULE_ID

        learned = group.get_weights(module_ids=[DEFAULT_MODULE_ID]).get(DEFAULT_MODULE_ID)
        if learned is not None:
            state = {k: learned[k] for k in state}  # (the learner's module may hold more: APPO's target network)
    return RLModuleSpec.from_module(local), {
        k: v.detach().cpu() if hasattr(v, "detach") else v for k, v in state.items()
    }


def _checkpoint(spec: str, trust: bool = False):
    """The core's resolver for RLlib checkpoint folders named as opponents
    (``boardenvs play GAME --vs <folder> --trust-files``): only with
    ``trust`` (else :func:`boardenvs.opponents.untrusted`'s error); None
    for anything else."""
    path = Path(spec)
    try:
        if not path.is_dir() or not any((path / f).exists() for f in CHECKPOINT_FILES):
            return None
    except (OSError, ValueError):
        return None
    if trust is not True:
        raise untrusted(spec, "an RLlib checkpoint folder")
    return opponent(path, trust=True)


def _module_adapter(obj):
    from ray.rllib.core.rl_module.rl_module import RLModule

    if isinstance(obj, RLModule) or (hasattr(obj, "get_module") and hasattr(obj, "train")):
        return opponent(obj)
    return None


register_adapter(_module_adapter)
register_resolver(_checkpoint)
