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
temporary file the kill left is gone."""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch
from backstop import HANG_S
from boardenvs.baselines import resume as R
from boardenvs.baselines import train as T

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

    def save_model(policy, config, out, steps, wall, cpu, final, cli, also=None):
        real(policy, config, out, steps, wall, cpu, final, cli, also)
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
        T.train(GAME, out=tmp_path_factory.mktemp("unbroken") / "q", **RUN, **QUIET)
    finally:
        mp.undo()
    return seen


def _kill_at(point: str, out: Path) -> int:
    """Run the child until it says it is at ``point``, SIGKILL it there and
    reap it; its pid."""
    settings = json.dumps({"game": GAME, **RUN, **QUIET})
    child = subprocess.Popen(
        [sys.executable, str(CHILD), point, str(out), settings],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    backstop = threading.Timer(HANG_S, child.kill)  # a hung child, not a slow one
    backstop.start()
    try:
        lines = []
        for line in child.stdout:
            lines.append(line)
            if line.strip() == f"AT {point}":
                child.send_signal(signal.SIGKILL)
                break
        assert child.wait() == -signal.SIGKILL, f"the child never reached {point}: {lines[-5:]}"
    finally:
        backstop.cancel()
        child.stdin.close()
        child.stdout.close()
    return child.pid


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
    assert R.read(out).state["sb3"]["num_timesteps"] <= saved["budget"]["steps"]
    seen = _final_weights(monkeypatch)
    assert T.main([GAME, "--resume", str(out), "--threads", "1", "--no-progress"]) == 0
    assert "goes on from" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []
    different = [k for k in unbroken["weights"] if not torch.equal(seen["weights"][k], unbroken["weights"][k])]
    assert seen["weights"].keys() == unbroken["weights"].keys() and not different, different
    assert seen["history"] == unbroken["history"] and len(seen["history"]) == 3  # the checks: steps and rates
    assert json.loads(out.with_suffix(".json").read_text())["budget"]["steps"] == RUN["steps"]
