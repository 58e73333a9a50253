"""Reliability (issue 73, item 2): a training run killed at any moment loses
nothing but the work since its last checkpoint.

A small run (``tests/killed_run.py``, a subprocess) is sent SIGKILL at a
named point: during PPO's update, during a win-rate check, during the write
of a checkpoint's weights and during the write of its resume state.  The
child says where it is on its stdout and blocks there; the parent kills it
on that line (events, no sleeps).  Afterwards the run's folder holds a
complete checkpoint (``load`` reads the model, ``--resume`` its state), no
half-written temporary file is read as one, ``--resume`` goes on and ends
with the weights of the run that was never killed, bit for bit, and the
temporary file the kill left is gone.  The last test takes the run's folder
at 50 seeded-random points of its life instead (a snapshot of the disk, what
a SIGKILL there leaves: see its docstring)."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import sys
from pathlib import Path

import pytest
import torch
from boardenvs.baselines import resume as R
from boardenvs.baselines import train as T
from killing import dead_pid, draw, kill_at, snapshot

from boardenvs import baselines

CHILD = Path(__file__).resolve().parent / "killed_run.py"
GAME = "quicksand_v0"
RUN = dict(
    steps=1280,
    num_envs=4,
    n_steps=32,
    batch_size=64,
    n_epochs=2,
    eval_every=512,
    eval_games=4,
    save_every=300,
    snapshot_every=200,
    greedy_share=0.25,
    random_share=0.25,
    seed=5,
)
QUIET = dict(threads=1, progress_bar=False, verbose=0)


def _final_weights(monkeypatch) -> dict:
    seen = {}
    real = T.save_model

    def save_model(policy, config, out, steps, wall, cpu, final, cli, **hooks):
        real(policy, config, out, steps, wall, cpu, final, cli, **hooks)
        if final:
            seen["weights"] = copy.deepcopy(policy.state_dict())
            seen["history"] = [{k: v for k, v in h.items() if not k.endswith("_s")} for h in config["history"]]

    monkeypatch.setattr(T, "save_model", save_model)
    return seen


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        seen = _final_weights(mp)
        events = Events(mp)  # (counted only: where the random points of the last test fall)
        T.train(GAME, out=tmp_path_factory.mktemp("unbroken") / "q", **RUN, **QUIET)
    finally:
        mp.undo()
    seen["events"], seen["order"] = events.counts, events.order
    return seen


def _kill_at(point: str, out: Path) -> int:
    """The child run killed at ``point`` (:func:`killing.kill_at`); its pid."""
    settings = json.dumps({"game": GAME, **RUN, **QUIET})
    return kill_at([sys.executable, str(CHILD), point, str(out), settings], point)


@pytest.mark.parametrize("point", ["update", "check", "write-weights", "write-resume"])
def test_a_run_killed_at_any_point_goes_on_from_its_last_checkpoint(unbroken, tmp_path, point, capsys, monkeypatch):
    """Reliability: killed at any moment, nothing lost.  SIGKILL during the
    update, a check or a checkpoint's write: the model on disk loads, the
    resume state reads (never the temporary file the kill left), and
    ``--resume`` ends where the unbroken run ends, bit for bit, with no
    temporary file left behind."""
    out = tmp_path / "q"
    pid = _kill_at(point, out)
    left = sorted(p.name for p in tmp_path.iterdir() if ".tmp" in p.name)
    if point.startswith("write-"):  # the half-written file of the kill, under its temporary name only
        stem = "q.resume" if point == "write-resume" else "q"
        assert len(left) == 1 and left[0].startswith(f".{stem}.{pid}-") and left[0].endswith(".tmp.pt"), left
    else:
        assert left == []
    model = baselines.load(out)  # the last complete checkpoint's model
    saved = json.loads(out.with_suffix(".json").read_text())
    assert model.config["env_id"] == GAME and saved["budget"]["finished"] is False
    # (the state is written first: killed inside a checkpoint, it may be that checkpoint's, one ahead of the pair)
    assert R.read(out).state["sb3"]["num_timesteps"] <= saved["budget"]["steps"] + RUN["num_envs"] * RUN["n_steps"]
    seen = _final_weights(monkeypatch)
    assert T.main([GAME, "--resume", str(out), "--threads", "1", "--no-progress"]) == 0
    assert "goes on from" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []
    different = [k for k in unbroken["weights"] if not torch.equal(seen["weights"][k], unbroken["weights"][k])]
    assert seen["weights"].keys() == unbroken["weights"].keys() and not different, different
    assert seen["history"] == unbroken["history"] and len(seen["history"]) == 3  # the checks: steps and rates
    assert json.loads(out.with_suffix(".json").read_text())["budget"]["steps"] == RUN["steps"]


# -- 50 seeded-random points -------------------------------------------------------------------------------------------
KILLS, RESUMES, DRAW_SEED = 50, 6, 73
WHAT = ("model weights", "model config", "resume state")


class Events:
    """The events of a training run, each counted by kind: a rollout's step
    (SB3's callback, before the clock looks at it), a gradient step of an
    update, the end of a win-rate check (its games played, nothing yet
    recorded), and each file a checkpoint writes, at three moments: half of
    its temporary file written, all of it written but not renamed, renamed
    into place.  ``hook(kind, n, half)`` is called at each (``half``: the
    temporary file whose second half is not yet on disk, or None).  The
    wrappers are test code patched in from outside, as in ``killed_run.py``."""

    def __init__(self, monkeypatch, hook=None):
        from boardenvs.baselines import budget, checkup
        from sb3_contrib import MaskablePPO

        from boardenvs import files

        self.counts, self.order, self.hook = {}, [], hook
        real_step, real_train, real_rates, real_write = (
            budget.TrainingClock._on_step,
            MaskablePPO.train,
            checkup.win_rates,
            files.write_atomically,
        )
        events = self

        def on_step(clock):
            events.at("rollout")
            return real_step(clock)

        def train(model):
            optimizer = model.policy.optimizer
            if "step" not in vars(optimizer):  # (once: the optimizer lives as long as the run)
                step = optimizer.step

                def stepped(*args, **kwargs):
                    result = step(*args, **kwargs)
                    events.at("update")
                    return result

                optimizer.step = stepped
            return real_train(model)

        def win_rates(*args, **kwargs):
            rates = real_rates(*args, **kwargs)
            events.at("check")
            return rates

        def write_atomically(path, write, what="output file"):
            def watched(tmp):
                write(tmp)
                events.at(f"{what}: half", half=tmp)
                events.at(f"{what}: written")

            real_write(path, watched, what)
            events.at(f"{what}: renamed")

        monkeypatch.setattr(budget.TrainingClock, "_on_step", on_step)
        monkeypatch.setattr(MaskablePPO, "train", train)
        monkeypatch.setattr(checkup, "win_rates", win_rates)
        monkeypatch.setattr(files, "write_atomically", write_atomically)

    def at(self, kind: str, half=None) -> None:
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        self.order.append((kind, n))
        if self.hook is not None:
            self.hook(kind, n, half)


def _draw(counts: dict, k: int, seed: int) -> list[tuple[str, int]]:
    """``k`` distinct points (kind, occurrence) over the run's life: a group
    (rollout, update, check, checkpoint write), then a kind in it, then an
    occurrence, each uniform (a seeded draw: the same points every time)."""
    return draw(counts, [["rollout"], ["update"], ["check"], sorted(k for k in counts if ": " in k)], k, seed)


@pytest.fixture(scope="module")
def killed_anywhere(unbroken, tmp_path_factory):
    """The run of ``RUN`` again, a snapshot of its folder taken at each of
    :data:`KILLS` points drawn from the events the unbroken run went through."""
    points = _draw(unbroken["events"], KILLS, DRAW_SEED)
    wanted = {p: k for k, p in enumerate(points)}
    root = tmp_path_factory.mktemp("anywhere")
    out, dead, taken = root / "run" / "q", dead_pid(), {}
    out.parent.mkdir()

    def hook(kind, n, half):
        if (kind, n) in wanted:
            k = wanted[(kind, n)]
            snapshot(
                out.parent, root / f"snapshot_{k}", dead, None if half is None else (half, os.path.getsize(half) // 2)
            )
            taken[k] = (kind, n)

    mp = pytest.MonkeyPatch()
    try:
        events = Events(mp, hook)
        seen = _final_weights(mp)
        T.train(GAME, out=out, **RUN, **QUIET)
    finally:
        mp.undo()
    return {"points": points, "taken": taken, "root": root, "events": events.counts, "seen": seen, "dead": dead}


TEMPORARY = re.compile(r"\.q(\.resume)?\.\d+-[0-9a-f]{8}\.tmp\.(pt|json)")


def test_a_run_killed_at_50_random_points_leaves_a_checkpoint_every_time(unbroken, killed_anywhere, monkeypatch):
    """Reliability: killed at any moment, nothing lost: SIGKILL at 50
    random points of a small training run.

    Fifty points (kind, occurrence) are drawn, seeded, from the events the
    run goes through: a step of a rollout, a gradient step of an update, the
    end of a check, and every checkpoint file half-written, written but not
    renamed, and renamed. Fifty real kills would be fifty runs (a child
    costs some 6 s here: its imports, its compiles, the run up to the point;
    fifty, five minutes), so the kill is simulated: at each point the run's
    folder is copied as the disk holds it then (``snapshot_k/``) and the run
    goes on. That is what a SIGKILL leaves: the process dies between two of
    its instructions, the kernel keeps every byte already handed to it
    (``write`` returned) and nothing else, and no code of the run runs after
    it (no ``finally``, no cleanup). The copy reads the disk, not the run's
    objects; the files the package writes are closed (and synced) before the
    events that follow them, and a half-written file is a prefix of its
    bytes (the copy cut to half); its temporary file carries the pid of a
    process that is gone, as a killed run's does. The real SIGKILL tests
    above kill a child at four of these points.

    Every snapshot then holds either a resume state to go on from (a
    checkpoint writes it before the model's pair, so a kill between the
    files, the first checkpoint's included, leaves one; ``load`` reads the
    model wherever the pair is there) or, only before the run's first
    resume state is renamed into place, no file of the run at all (nothing
    to load or go on from: the run starts again, losing only its first
    steps), or, inside the
    last checkpoint once its model is written, the finished model, the
    unbroken run's weights (``--resume`` refuses: the run is done). No
    temporary file is taken for a checkpoint: the names ``load`` and
    ``--resume`` read are never a half-written file. ``--resume`` from a
    seeded sample of :data:`RESUMES` of the complete snapshots (a resumed
    run costs seconds; all fifty would take minutes) ends with the unbroken
    run's weights, bit for bit, and clears the killed run's temporary file."""
    got = killed_anywhere
    assert got["events"] == unbroken["events"]  # the snapshots did not change the run ...
    assert all(torch.equal(got["seen"]["weights"][k], w) for k, w in unbroken["weights"].items())  # ... nor its end
    assert sorted(got["taken"]) == list(range(KILLS)) and len({p[0] for p in got["points"]}) >= 6
    complete, before, finished = [], [], []
    for k, (kind, n) in enumerate(got["points"]):
        snap = got["root"] / f"snapshot_{k}"
        names = {p.name for p in snap.iterdir()}
        where = f"snapshot_{k} ({kind} #{n}): {sorted(names)}"
        temporaries = {x for x in names if TEMPORARY.fullmatch(x)}
        assert names - temporaries <= {"q.pt", "q.json", "q.resume.pt"}, where
        assert all(f".{got['dead']}-" in x for x in temporaries) and len(temporaries) <= 1, where
        if kind.endswith(": half"):  # the half-written file is a temporary one, never the checkpoint's
            assert len(temporaries) == 1, where
        saved = json.loads((snap / "q.json").read_text()) if "q.json" in names else {"budget": {}}
        if saved["budget"].get("finished"):  # inside the last checkpoint, its pair written: the run is done
            weights = baselines.load(snap / "q").policy.state_dict()
            assert all(torch.equal(weights[n], w) for n, w in unbroken["weights"].items()), where
            with pytest.raises(ValueError, match="the run finished"):
                R.read(snap / "q")
            finished.append(k)
        elif "q.resume.pt" in names:  # a state to go on from (inside the first checkpoint, perhaps nothing else)
            state = R.read(snap / "q").state
            assert state["format"] == R.FORMAT and saved["budget"].get("finished") in (False, None), where
            if {"q.pt", "q.json"} <= names:
                assert baselines.load(snap / "q").config["env_id"] == GAME, where
            complete.append(k)
        else:  # before the first checkpoint's state is in place: no file of the run at all
            assert names == temporaries, where
            with pytest.raises(ValueError, match="no resume state"):
                R.read(snap / "q")
            before.append(k)
    assert complete and len(complete) + len(before) + len(finished) == KILLS
    first = unbroken["order"].index(("resume state: renamed", 0))  # the first checkpoint complete
    late = [got["points"][k] for k in before if unbroken["order"].index(got["points"][k]) > first]
    assert not late, late  # no resume state only before (or inside) the first checkpoint
    for k in random.Random(DRAW_SEED).sample(complete, min(RESUMES, len(complete))):
        snap = got["root"] / f"snapshot_{k}"
        seen = _final_weights(monkeypatch)
        assert T.main([GAME, "--resume", str(snap / "q"), "--threads", "1", "--no-progress"]) == 0
        different = [n for n, w in unbroken["weights"].items() if not torch.equal(seen["weights"][n], w)]
        assert not different and seen["history"] == unbroken["history"], (k, got["points"][k], different)
        assert not any(TEMPORARY.fullmatch(p.name) for p in snap.iterdir()), k
