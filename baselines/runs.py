"""A training run's files: where they go, how they are written, what a run
goes on from.

A run writes ``<out>.pt`` (the policy's weights) and ``<out>.json`` (the
config: game, options, network, budget, history); without an ``--out``,
into a new run folder, ``runs/<name>-<date>-<time>/<name>``, never the
package's committed models.  :mod:`.train`, :mod:`.distill` and
:mod:`.expert_iteration` write through :func:`save_model` and go on from a
saved model through :func:`start_from`.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

from .networks import same_game


def start_from(init: str | Path, config: dict):
    """The saved model ``init`` (``<init>.pt``/``.json``, or a committed model's name) a run goes on from,
    loaded (:func:`boardenvs.baselines.load`), after checking it plays
    ``config``'s game; ``config`` takes its network and records it as
    ``config["init"]`` (whose budget :func:`save_model` adds)."""
    from . import load, model_path

    init = model_path(init)
    if not (init.with_suffix(".json").is_file() and init.with_suffix(".pt").is_file()):
        raise ValueError(f"--init {init}: no {init.with_suffix('.pt')} / {init.with_suffix('.json')} pair")
    start = load(init)
    env_id, options = config["env_id"], config["options"]
    if not same_game(env_id, options, start.env_id, start.options):
        raise ValueError(f"--init {init} plays {start.env_id} {start.options}, not {env_id} {options}")
    for key in ("extractor", "extractor_kwargs", "net_arch"):
        config[key] = start.config[key]
    config["init"] = start.config
    return start


def save_model(
    policy, config: dict, out: Path, steps: int, wall: float, cpu: float, final: bool, cli: str, before=None, after=None
) -> None:
    """Write ``<out>.pt`` (the policy's weights) and ``<out>.json``
    (``config`` with the budget: this run's steps and seconds plus those of
    the model it started from, ``config["init"]``; the command line when
    run as ``python -m boardenvs.baselines.<cli>``).  Each file is written
    whole through a temporary one (:func:`boardenvs.files.write_atomically`)
    and Ctrl-C waits until both are: the pair on disk is always a model.
    ``before()`` and ``after()``, if given, run before and after them inside
    the same wait (a training run writes its resume state before the pair,
    so a kill between the files leaves a state to go on from, and removes
    it after the last pair: :mod:`.resume`)."""
    import torch

    from boardenvs.files import write_atomically

    from .budget import deferred_interrupt

    prev = config.get("init", {}).get("budget", {"steps": 0, "wall_s": 0, "cpu_s": 0})
    config["budget"] = {
        "steps": prev["steps"] + int(steps),
        "wall_s": prev["wall_s"] + round(wall),
        "cpu_s": prev["cpu_s"] + round(cpu),
        "this_run_steps": int(steps),
        "finished": final,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }
    main = sys.modules.get("__main__")
    ran_as = getattr(getattr(main, "__spec__", None), "name", None) == f"boardenvs.baselines.{cli}"
    config["command"] = f"python -m boardenvs.baselines.{cli} " + " ".join(sys.argv[1:]) if ran_as else None
    config["date"] = time.strftime("%Y-%m-%d")
    weights = {k: v.detach().cpu() for k, v in policy.state_dict().items()}
    text = json.dumps(config, indent=2) + "\n"
    with deferred_interrupt():
        if before is not None:
            before()
        write_atomically(out.with_suffix(".pt"), lambda tmp: torch.save(weights, tmp), "model weights")
        write_atomically(out.with_suffix(".json"), lambda tmp: tmp.write_text(text), "model config")
        if after is not None:
            after()


def default_out(name: str) -> Path:
    """Where a run writes without ``--out``: ``runs/<name>-<date>-<time>/<name>``
    in the current directory (a new folder per run, never the package's
    committed models)."""
    return Path("runs") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}" / name
