"""Training by the clock (``boardenvs train GAME --minutes M``): the budget,
the checks on the way, checkpoints, Ctrl-C, and the checkup's games.

No test here depends on the machine's speed: the clock is driven by a fake
time source, and the runs are bounded by steps."""

from __future__ import annotations

import json

import numpy as np
import pytest
from boardenvs.baselines import budget as B
from boardenvs.baselines.checkup import opening, win_rates
from boardenvs.baselines.train import TrainingInterrupted, main, train

from boardenvs import baselines
from boardenvs.registry import make_game


class FakeTime:
    """perf_counter and process_time that move only when told."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def fake_time(monkeypatch):
    clock = FakeTime()
    monkeypatch.setattr(B.time, "perf_counter", clock)
    monkeypatch.setattr(B.time, "process_time", clock)
    return clock


class _Model:
    num_timesteps = 0
    logger = type("Logger", (), {"record": lambda *a: None})()


def _clock(fake_time, minutes=None, steps=None, eval_seconds=None, eval_steps=None, stop_at=None, cost=100.0):
    """A TrainingClock whose checks cost ``cost`` fake seconds each."""
    saved = []

    def evaluate():
        fake_time.now += cost  # a check that takes long: not training
        return {"greedy": 0.5 + 0.1 * len(saved)}

    clock = B.TrainingClock(
        minutes,
        steps,
        evaluate,
        lambda c: saved.append(len(c.history)),
        eval_seconds=eval_seconds,
        eval_steps=eval_steps,
        progress=False,
        verbose=0,
        stop_at=stop_at,
    )
    clock.model = _Model()
    clock.start()
    return clock, saved


def _run(clock, fake_time, seconds_per_step: float, max_steps: int = 10_000) -> int:
    for n in range(1, max_steps):
        fake_time.now += seconds_per_step
        clock.model.num_timesteps = n * 64
        if not clock.on_step():  # SB3's: counts the call, reads the model's steps, then _on_step
            return n
    return max_steps


def test_the_clock_counts_training_only(fake_time):
    """A 1-minute budget with checks every 10 s that cost 100 s each: 60 s
    of training, six checks, each followed by a checkpoint; the checks'
    time is not on the clock."""
    clock, saved = _clock(fake_time, minutes=1.0, eval_seconds=10.0)
    calls = _run(clock, fake_time, seconds_per_step=0.5)
    assert calls == 120 and clock.stopped_by == "minutes"
    assert clock.train_s == pytest.approx(60.0)
    assert [h["train_s"] for h in clock.history] == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    assert saved == [1, 2, 3, 4, 5, 6]  # a checkpoint after every check, with the history so far


def test_a_budget_in_steps_and_checks_by_steps(fake_time):
    clock, saved = _clock(fake_time, steps=64 * 50, eval_steps=64 * 20)
    calls = _run(clock, fake_time, seconds_per_step=1.0)
    assert calls == 50 and clock.stopped_by == "steps"
    assert [h["steps"] for h in clock.history] == [1280, 2560, 3200]  # every 20 steps, and at the end
    assert clock.history[-1]["train_s"] == pytest.approx(50.0)


def test_stop_at_ends_the_run_at_the_first_check_that_reaches_it(fake_time):
    clock, _ = _clock(fake_time, minutes=10.0, eval_seconds=5.0, stop_at={"greedy": 0.7})
    _run(clock, fake_time, seconds_per_step=1.0)
    assert clock.stopped_by == "stop_at" and [h["greedy"] for h in clock.history] == [0.5, 0.6, 0.7]


@pytest.mark.parametrize("minutes", [0, -1, float("nan"), float("inf"), 1e9, True, "5"])
def test_minutes_out_of_range_are_refused(minutes):
    with pytest.raises(ValueError, match="--minutes must be a number of minutes in \\(0, 10080\\]"):
        B.check_minutes(minutes)


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "1e9"])
def test_the_command_line_refuses_bad_minutes_in_one_line(value, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["quess_v0", "--minutes", value, "--out", str(tmp_path / "q")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1 and err[0].startswith("error: --minutes must be")
    assert "Traceback" not in "\n".join(err) and not (tmp_path / "q.pt").exists()


def test_out_under_a_regular_file_is_one_line(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit) as exit_:
        main(["quess_v0", "--steps", "64", "--out", str(tmp_path / "file" / "q")])
    assert exit_.value.code == 2 and "error: --out" in capsys.readouterr().err


def test_a_run_by_the_clock_writes_its_checks_and_loads(tmp_path):
    out = tmp_path / "q"
    config = train(
        "quess_v0",
        steps=512,
        num_envs=8,
        n_steps=32,
        batch_size=64,
        out=out,
        eval_every=256,
        eval_games=8,
        progress_bar=False,
        verbose=0,
    )
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved["extractor"] == "board" and saved["stopped_by"] == "steps"
    assert [h["steps"] for h in saved["history"]] == [256, 512]
    assert all({"random", "greedy", "train_s", "cpu_s"} <= set(h) for h in saved["history"])
    assert saved["opponents"]["greedy"] == config["opponents"]["greedy"] == 1.0  # Quess trains against greedy
    assert baselines.load(out).policy.action_space.n == 1296


def test_ctrl_c_keeps_the_last_checkpoint(tmp_path, monkeypatch, capsys):
    """An interrupt after the first check: the files on disk are that
    check's model (its history ends there and it loads), and the command
    line says where they are and returns 130."""
    real = B.TrainingClock.check

    def check_then_interrupt(self, steps):
        rates = real(self, steps)
        if len(self.history) == 2:
            raise KeyboardInterrupt
        return rates

    monkeypatch.setattr(B.TrainingClock, "check", check_then_interrupt)
    out = tmp_path / "q"
    code = main(
        [
            "quess_v0",
            "--steps",
            "4096",
            "--num-envs",
            "8",
            "--eval-every",
            "256",
            "--eval-games",
            "4",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 130 and "the last checkpoint, after 512 steps" in err and f"{out}.pt / .json" in err
    saved = json.loads(out.with_suffix(".json").read_text())
    assert [h["steps"] for h in saved["history"]] == [256, 512] and saved["budget"]["finished"] is False
    assert baselines.load(out).config["history"] == saved["history"]
    with pytest.raises(TrainingInterrupted) as stop:
        train(
            "quess_v0",
            steps=4096,
            num_envs=8,
            out=tmp_path / "r",
            eval_every=256,
            eval_games=4,
            progress_bar=False,
            verbose=0,
        )
    assert isinstance(stop.value, KeyboardInterrupt) and stop.value.last["steps"] == 512


def test_a_checkpoint_is_written_whole_even_when_ctrl_c_comes_in_between(tmp_path, monkeypatch):
    """SIGINT during the two writes is held until both are done."""
    import os
    import signal

    from boardenvs.baselines import train as T

    torch_save = T.__dict__.get("torch")
    out = tmp_path / "m"
    policy = baselines.load("quess_v0").policy
    config = {"name": "m", "budget": {}}
    import torch

    real_save = torch.save

    def save_and_interrupt(obj, f, *a, **k):
        real_save(obj, f, *a, **k)
        os.kill(os.getpid(), signal.SIGINT)  # arrives between the .pt and the .json

    monkeypatch.setattr(torch, "save", save_and_interrupt)
    with pytest.raises(KeyboardInterrupt):
        T.save_model(policy, {**baselines.load("quess_v0").config}, out, 1, 1.0, 1.0, False, "train")
    assert out.with_suffix(".pt").is_file() and out.with_suffix(".json").is_file()
    assert json.loads(out.with_suffix(".json").read_text())["budget"]["this_run_steps"] == 1
    del torch_save, config


def test_checkup_games_are_seeded_split_by_seat_and_opened_at_random():
    """The same seed, the same games; the seats alternate; the openings
    differ between games (two deterministic greedy players meet different
    positions), and a dice game opens with none."""
    from boardenvs.traces import play_matches  # noqa: F401 - what win_rates plays through

    assert opening(make_game("quess_v0")) == 4 and opening(make_game("tryasina_v0")) == 0
    a = win_rates("greedy", "quess_v0", opponents=("random", "greedy"), games=40, seed=3)
    b = win_rates("greedy", "quess_v0", opponents=("random", "greedy"), games=40, seed=3)
    assert a == b and a["random"] >= 0.9
    assert 0.2 <= a["greedy"] <= 0.8  # greedy against itself from varied openings: no seat or opening sweeps
    hq4 = win_rates(
        "greedy", "hex_quoridor_v1", {"num_players": 4, "radius": 2}, opponents=("random",), games=8, seed=0
    )
    assert set(hq4) == {"random"} and 0.0 <= hq4["random"] <= 1.0


def test_checkup_openings_vary_the_games(monkeypatch):
    import boardenvs.traces as traces

    seen = []
    real = traces.play_matches

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        seen.extend(tuple(t["actions"]) for t in out)
        return out

    monkeypatch.setattr(traces, "play_matches", spy)
    win_rates("greedy", "quess_v0", opponents=("greedy",), games=20, seed=0)
    assert len(set(seen)) == 20  # no two games alike
    openings = {actions[:4] for actions in seen}
    assert len(openings) == 10 and all(seen[2 * k][:4] == seen[2 * k + 1][:4] for k in range(10))  # pairs share one
    np.testing.assert_equal(len(seen), 20)


def test_the_warm_start_fits_greedys_decisions_before_ppo(tmp_path):
    """A warm start of 200 games: greedy's decisions fitted (the held-out
    agreement far above the ~4% of a uniform pick among Quagmire's legal
    moves), recorded in the config; a run from a saved model (--init) has
    none by default."""
    config = train(
        "quagmire_v0",
        steps=64,
        num_envs=4,
        n_steps=16,
        batch_size=64,
        out=tmp_path / "q",
        eval_every=0,
        warm_start=200,
        progress_bar=False,
        verbose=0,
    )
    warm = json.loads((tmp_path / "q.json").read_text())["warm_start"]
    assert warm == config["warm_start"] and warm["games"] == 200 and warm["samples"] > 2000
    assert warm["agreement"] >= 0.15
    again = train(
        "quagmire_v0",
        steps=64,
        num_envs=4,
        n_steps=16,
        batch_size=64,
        out=tmp_path / "r",
        eval_every=0,
        init=tmp_path / "q",
        progress_bar=False,
        verbose=0,
    )
    assert "warm_start" not in again
    with pytest.raises(ValueError, match="--warm-start must be a number of games in 0..100000"):
        train("quagmire_v0", steps=64, warm_start=-1, out=tmp_path / "s", progress_bar=False, verbose=0)
