"""Going on with a training run where it stopped: ``boardenvs train GAME --resume RUN``.

Beside its model (``<out>.pt`` / ``<out>.json``), a run of :mod:`.train`
keeps ``<out>.resume.pt``: everything it needs to go on as if it had never
stopped.  That is the network and the optimizer's state, SB3's counters and
last observations, the rows of every game in play with their generators and
opponents (:meth:`boardenvs.wrappers.vector.SingleAgentVectorEnv.get_state`),
the league's snapshots, the clock (the budget spent, the next check and
save, the history: :meth:`.budget.TrainingClock.state`), the self-play
callback's last snapshot step, torch's, numpy's and Python's generators,
and the run's own settings (the arguments of its :func:`~.train.train` call).

The state is taken at the start of every rollout (SB3's ``on_rollout_start``:
the last update done, nothing of the next rollout collected: the one point
where the run is a few plain values) and written with every checkpoint,
before the model's pair (a run killed between the files has a state to go
on from, its first checkpoint's included), through
:func:`boardenvs.files.write_atomically`;
a checkpoint falls inside a rollout, during which the network does not
change, so the checkpoint's ``.pt`` holds the weights the state holds.  A
resumed run goes on from that rollout's start, so it plays the part of the
rollout before the checkpoint again, exactly as it was played.  The final
checkpoint of a finished run removes the file: a finished run is not
resumed (``--init`` trains on from its model).

What it promises: a run by steps that is stopped (Ctrl-C, a crash, a
kill) and resumed from its last checkpoint reaches the same weights, bit
for bit, as the run that was never stopped (``tests/test_resume.py``).  A
run by minutes goes on with the minutes it had left, but where its checks
and its end fall depends on the clock, so it agrees with an unbroken run by
its budget, not bit for bit.

The file holds plain data only (tensors, numbers, strings, lists and
dicts): it is read with ``torch.load(weights_only=True)``, which runs no
code, and checked before anything is built; a missing or damaged file, a
run of another game, a finished run or settings that contradict the run's
are one-line ValueErrors, and nothing is written.
"""

from __future__ import annotations

import copy
import inspect
import json
import random
from collections import deque
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

SUFFIX = ".resume.pt"
FORMAT = 1
# what a resumed run may set for itself; every other setting is the run's
OWN = ("out", "threads", "progress_bar", "verbose", "resume")
KEYS = {
    "format": int,
    "args": dict,
    "config": str,
    "policy": dict,
    "optimizer": dict,
    "rng": dict,
    "sb3": dict,
    "view": dict,
    "shaping": (torch.Tensor, type(None)),
    "league": dict,
    "snapshots": list,
    "clock": dict,
    "selfplay": int,
}


def run_out(run) -> Path:
    """A run's ``<out>`` from how a user names it: ``<out>``, ``<out>.pt``,
    ``<out>.json`` or ``<out>.resume.pt``."""
    path = Path(run)
    for suffix in (SUFFIX, ".pt", ".json"):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return path.with_name(path.name[: -len(suffix)])
    return path


def state_path(out) -> Path:
    """Where the run ``<out>`` keeps its resume state: ``<out>.resume.pt``."""
    out = Path(out)
    return out.with_name(out.name + SUFFIX)


class Resumed:
    """A run's resume state, read and checked (:func:`read`): what
    :func:`~.train.train` gets as ``resume`` once the run's settings are
    back (:func:`resumed_call`)."""

    def __init__(self, out: Path, state: dict):
        self.out, self.state = out, state
        self.config = json.loads(state["config"])

    def adopt(self, config: dict) -> None:
        """``config`` becomes the run's (its network, its ``--init`` model's
        record and budget, its warm start): what the rebuilt config may
        lack, a resumed run having neither an ``--init`` nor a warm start
        of its own."""
        from .networks import check_config

        try:
            check_config(self.config)  # (the network's fields bounded, as a loaded model's)
        except ValueError as exc:
            raise ValueError(f"--resume {self.out}: {state_path(self.out).name} is damaged ({exc})") from None
        config.clear()
        config.update(copy.deepcopy(self.config))

    def restore(self, model, env, view, pool, mix, clock, selfplay) -> None:
        """Put the run back as the state has it (see the module docstring);
        ``selfplay``'s last snapshot step goes back at the start of
        training (:class:`RunState` does it: SB3 sets it then)."""
        from boardenvs.wrappers.selfplay import sb3_snapshot

        s = self.state
        what = f"--resume {self.out}: {state_path(self.out).name}"
        try:
            snapshots = []
            for entry in s["snapshots"]:
                snap = sb3_snapshot(model, bool(entry["deterministic"]), str(entry["name"]))
                snap.policy.load_state_dict(entry["weights"])
                snapshots.append(snap)
            pool.snapshots = [snapshots[int(k)] for k in s["league"]["snapshots"]]
            pool.added, pool.picks = int(s["league"]["added"]), int(s["league"]["picks"])
            view.set_state(_arrays(s["view"]), _opponent_of(pool, mix, snapshots))
            model.policy.load_state_dict(s["policy"])
            model.policy.optimizer.load_state_dict(s["optimizer"])
            sb3 = s["sb3"]
            model.num_timesteps, model._n_updates = int(sb3["num_timesteps"]), int(sb3["n_updates"])
            model._episode_num = int(sb3["episode_num"])
            model._last_obs = sb3["last_obs"].numpy().copy()
            model._last_episode_starts = sb3["last_episode_starts"].numpy().copy()
            window = int(sb3["stats_window"])  # (a deque SB3's learn() keeps: reset_num_timesteps=False)
            model.ep_info_buffer = deque(sb3["ep_info_buffer"], maxlen=window)
            model.ep_success_buffer = deque(sb3["ep_success_buffer"], maxlen=window)
            if s["shaping"] is not None:
                env.phi = s["shaping"].numpy().copy()
            clock.set_state(s["clock"])
            selfplay.last = int(s["selfplay"])
            rng = s["rng"]
            state = rng["numpy"]
            np.random.set_state((state[0], state[1].numpy().astype(np.uint32), *state[2:]))
            random.setstate(rng["python"])
            torch.set_rng_state(rng["torch"])
        except (KeyError, IndexError, TypeError, ValueError, RuntimeError) as exc:
            raise ValueError(f"{what} is damaged: it does not fit the run ({_first_line(exc)})") from None


def read(run) -> Resumed:
    """The resume state of the run ``run`` (see :func:`run_out`), checked:
    ValueError naming the file for one that is missing or damaged (cut
    short, not torch's, wrong keys), or a run that finished."""
    out = run_out(run)
    path, config_file = state_path(out), out.with_suffix(".json")
    shown = f"--resume {run}"
    if not path.is_file():
        raise ValueError(
            f"{shown}: no resume state {path} (a run of boardenvs train keeps one beside its model "
            "from its first checkpoint until it finishes)"
        )
    # (the state is written before the model's pair: a run killed inside its first checkpoint has no .json yet)
    saved = None
    if config_file.exists():
        try:
            saved = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{shown}: the run's config {config_file} is damaged ({_first_line(exc)})") from None
        if not isinstance(saved, dict) or not isinstance(saved.get("budget"), dict):
            raise ValueError(f"{shown}: the run's config {config_file} is no config boardenvs train wrote")
    if saved is not None and saved["budget"].get("finished") is True:
        raise ValueError(
            f"{shown}: the run finished ({saved['budget'].get('steps')} steps); "
            f"--init {out}.pt trains on from its model"
        )
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # what a cut or foreign file makes torch raise: RuntimeError, UnpicklingError, EOFError...
        raise ValueError(f"{shown}: {path.name} is damaged ({_first_line(exc)})") from None
    problem = _problem(state)
    if problem:
        raise ValueError(f"{shown}: {path.name} is damaged ({problem})")
    try:
        resumed = Resumed(out, state)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{shown}: {path.name} is damaged (its config: {exc.msg})") from None
    if (
        not isinstance(resumed.config, dict)
        or saved is not None
        and resumed.config.get("env_id") != saved.get("env_id")
    ):
        raise ValueError(f"{shown}: {path.name} and {config_file.name} are not of the same run")
    return resumed


def resumed_call(train, call: dict) -> dict:
    """The arguments of ``train`` that go on with the run ``call["resume"]``:
    the run's own (its :func:`~.train.train` call, as saved), with the
    settings a resumed run may set for itself (:data:`OWN`) from ``call``.
    A setting of ``call`` that is not ``train``'s default and not the run's
    is a ValueError naming both: the run goes on as it was started (and
    ``init`` is refused outright: the run goes on from its checkpoint)."""
    from .networks import model_config, same_game

    resumed = read(call["resume"])
    args, config = resumed.state["args"], resumed.config
    shown = f"--resume {call['resume']}"
    defaults = {k: p.default for k, p in inspect.signature(train).parameters.items()}
    unknown = sorted(set(args) - set(defaults) | set(args) & set(OWN) | {"env_id"} - set(args))
    if unknown or not isinstance(config.get("options"), dict):
        raise ValueError(f"{shown}: {state_path(resumed.out).name} is damaged (its settings: {unknown or 'options'})")
    wanted = model_config(call["env_id"], call["players"] or args.get("players"))
    if not same_game(wanted["env_id"], wanted["options"], config["env_id"], config["options"]):
        raise ValueError(f"{shown} trains {config['env_id']} {config['options']}, not {call['env_id']}")
    if call["init"] is not None:
        raise ValueError(f"{shown}: the run goes on from its last checkpoint; --init starts from another model")
    if call["network"] is not None and model_config(config["env_id"], args.get("players"), call["network"])[
        "extractor"
    ] != config.get("extractor"):
        raise ValueError(
            f"{shown}: the run trains its {config.get('extractor')} network, not --network {call['network']}"
        )
    if call["out"] is not None and run_out(call["out"]) != resumed.out:
        raise ValueError(f"{shown} writes the run's own files ({resumed.out}.pt), not --out {call['out']}")
    for key, value in call.items():
        if key in OWN or key in ("env_id", "network") or value == defaults.get(key):
            continue
        if key not in args or _same(value) != _same(args[key]):
            raise ValueError(
                f"{shown}: the run goes on with its own settings: {key}={value!r} is not the run's {args.get(key)!r}"
            )
    return {**args, **{k: call[k] for k in OWN}, "out": resumed.out, "resume": resumed}


def settings(call: dict) -> dict:
    """A :func:`~.train.train` call's arguments as plain data (saved with the state)."""
    return {k: _same(v) for k, v in call.items() if k not in OWN}


class RunState(BaseCallback):
    """SB3's callback that takes the run's state at the start of every
    rollout and writes it with a checkpoint (:meth:`write`); for a resumed
    run it puts the self-play callback's last snapshot step back when
    training starts (SB3's ``on_training_start`` sets it)."""

    def __init__(self, env, view, pool, mix, clock, selfplay, args: dict, config: dict, resumed: Resumed | None):
        super().__init__()
        self.env, self.view, self.pool, self.mix, self.clock, self.selfplay = env, view, pool, mix, clock, selfplay
        self.args, self.config = args, config
        self.last_step = None if resumed is None else int(resumed.state["selfplay"])
        self.taken = None

    def _on_training_start(self) -> None:
        if self.last_step is not None:
            self.selfplay.last, self.last_step = self.last_step, None

    def _on_rollout_start(self) -> None:
        self.taken = self.take()

    def _on_step(self) -> bool:
        return True

    def take(self) -> dict:
        """The run's state now (copies: training goes on); the snapshot
        opponents are kept as they are (frozen) and their weights read when
        written."""
        model, keys, snapshots = self.model, _fixed_keys(self.pool, self.mix), []

        def key(opponent) -> str:
            if id(opponent) in keys:
                return keys[id(opponent)]
            if not hasattr(opponent, "policy"):
                raise ValueError(f"opponent {opponent!r} cannot be saved in a resume state")
            if not any(s is opponent for s in snapshots):
                snapshots.append(opponent)
            return f"snapshot:{next(k for k, s in enumerate(snapshots) if s is opponent)}"

        view = self.view.get_state(key)
        league = [int(key(s).split(":")[1]) for s in self.pool.snapshots]
        state = np.random.get_state()
        return {
            "format": FORMAT,
            "args": self.args,
            "policy": {k: v.detach().clone() for k, v in model.policy.state_dict().items()},
            "optimizer": copy.deepcopy(model.policy.optimizer.state_dict()),
            "rng": {
                "torch": torch.get_rng_state(),
                "numpy": (state[0], torch.from_numpy(state[1].astype(np.int64)), *state[2:]),
                "python": random.getstate(),
            },
            "sb3": {
                "num_timesteps": int(model.num_timesteps),
                "n_updates": int(model._n_updates),
                "episode_num": int(model._episode_num),
                "last_obs": torch.from_numpy(np.array(model._last_obs)),
                "last_episode_starts": torch.from_numpy(np.array(model._last_episode_starts)),
                "ep_info_buffer": [dict(e) for e in model.ep_info_buffer],
                "ep_success_buffer": list(model.ep_success_buffer),
                "stats_window": int(model.ep_info_buffer.maxlen),
            },
            "view": _tensors(view),
            "shaping": torch.from_numpy(np.array(self.env.phi)) if hasattr(self.env, "phi") else None,
            "league": {"snapshots": league, "added": self.pool.added, "picks": self.pool.picks},
            "snapshots": snapshots,
            "clock": self.clock.state(),
            "selfplay": int(self.selfplay.last),
        }

    def write(self, out: Path) -> None:
        """Write the state taken at this rollout's start to ``<out>.resume.pt``
        (whole, :func:`boardenvs.files.write_atomically`), with the run's
        config as it is now."""
        from boardenvs.files import write_atomically

        if self.taken is None:  # (a checkpoint always falls inside a rollout)
            return
        config = {k: v for k, v in self.config.items() if k not in ("history", "budget", "command", "date")}
        state = {
            **self.taken,
            "config": json.dumps(config),
            "snapshots": [
                {
                    "name": s.name,
                    "deterministic": bool(s.deterministic),
                    "weights": {k: v.detach().clone() for k, v in s.policy.state_dict().items()},
                }
                for s in self.taken["snapshots"]
            ],
        }
        write_atomically(state_path(out), lambda tmp: torch.save(state, tmp), "resume state")


def _fixed_keys(pool, mix) -> dict:
    """The keys of the opponents a rebuilt run builds again (by ``id``): the
    mix's fixed ones, the league's others and its first."""
    keys = {id(o): f"fixed:{i}" for i, (o, _) in enumerate(mix.fixed)}
    keys |= {id(o): f"other:{i}" for i, o in enumerate(pool.others)}
    keys[id(pool.initial)] = "initial"
    return keys


def _opponent_of(pool, mix, snapshots):
    def opponent_of(key):
        kind, _, k = str(key).partition(":")
        if kind == "initial":
            return pool.initial
        table = {"fixed": [o for o, _ in mix.fixed], "other": pool.others, "snapshot": snapshots}[kind]
        return table[int(k)]

    return opponent_of


def _tensors(state: dict) -> dict:
    """A view's state with its arrays as tensors (what ``weights_only`` reads)."""
    return {
        k: _tensors(v)
        if isinstance(v, dict) and k == "vec"
        else torch.from_numpy(v)
        if isinstance(v, np.ndarray)
        else v
        for k, v in state.items()
    }


def _arrays(state: dict) -> dict:
    """:func:`_tensors` undone."""
    return {
        k: _arrays(v) if isinstance(v, dict) and k == "vec" else v.numpy().copy() if isinstance(v, torch.Tensor) else v
        for k, v in state.items()
    }


def _same(value):
    """A setting as saved (paths as strings, tuples as lists), to compare."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [_same(v) for v in value]
    if isinstance(value, dict):
        return {k: _same(v) for k, v in value.items()}
    return value


def _problem(state) -> str | None:
    """What is wrong with a loaded resume state's shape, or None."""
    if not isinstance(state, dict):
        return f"not a dict of the run's state but {type(state).__name__}"
    missing = sorted(set(KEYS) - set(state))
    if missing:
        return f"no {', '.join(missing)}"
    for key, kind in KEYS.items():
        if not isinstance(state[key], kind):
            return f"its {key} is {type(state[key]).__name__}"
    if state["format"] != FORMAT:
        return f"format {state['format']}, this version reads {FORMAT}"
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
