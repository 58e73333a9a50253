"""Reliability (issue 73, item 1): ``boardenvs train GAME --resume RUN`` goes
on with a stopped run from its last checkpoint, and ends where the run that
never stopped ends, bit for bit.

The runs are small (Quicksand, 4 games a step, rollouts of 128 steps, a
checkpoint every 300 steps, self-play with snapshots every 200 steps next to
greedy and random opponents, one thread) and bounded by steps: a run by
minutes goes on with the minutes it had left, but where its checks fall
depends on the clock, so only a run by steps can be compared bit for bit.
A run is cut the way a user cuts one: Ctrl-C (a KeyboardInterrupt, which
:func:`train` answers by keeping the last checkpoint), raised right after a
checkpoint or at a step between two."""

from __future__ import annotations

import copy
import json
import shutil

import numpy as np
import pytest
import torch
from boardenvs.baselines import budget as B
from boardenvs.baselines import resume as R
from boardenvs.baselines import train as T
from boardenvs.wrappers.vector import SingleAgentVectorEnv

from boardenvs import baselines
from boardenvs.opponents import make_opponent

GAME = "quicksand_v0"
RUN = dict(
    steps=2048,
    num_envs=4,
    n_steps=32,
    batch_size=64,
    n_epochs=2,
    eval_every=0,
    eval_seconds=0,
    save_every=300,
    snapshot_every=200,
    greedy_share=0.25,
    random_share=0.25,
    seed=3,
)
QUIET = dict(threads=1, progress_bar=False, verbose=0)


def _finals(monkeypatch) -> dict:
    """What the final checkpoint of the next run saves, recorded: its
    weights and its optimizer's state (SB3 writes no optimizer to the .pt),
    and the steps of every checkpoint."""
    seen = {}
    real = T.save_model

    def save_model(policy, config, out, steps, wall, cpu, final, cli, **hooks):
        real(policy, config, out, steps, wall, cpu, final, cli, **hooks)
        seen.setdefault("checkpoints", []).append(steps)
        if final:
            seen["weights"] = copy.deepcopy(policy.state_dict())
            seen["optimizer"] = copy.deepcopy(policy.optimizer.state_dict())
            seen["steps"] = steps

    monkeypatch.setattr(T, "save_model", save_model)
    return seen


def _same_tensors(a, b) -> bool:
    """``a`` and ``b`` equal, every tensor bit for bit (torch.equal), everything else ==."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_tensors(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_tensors(x, y) for x, y in zip(a, b))
    return a == b


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory):
    """The run that never stopped: its final weights and optimizer state."""
    mp = pytest.MonkeyPatch()
    try:
        seen = _finals(mp)
        T.train(GAME, out=tmp_path_factory.mktemp("unbroken") / "q", **RUN, **QUIET)
    finally:
        mp.undo()
    assert seen["steps"] == RUN["steps"]
    return seen


def _cut_after_checkpoint(monkeypatch, k: int) -> None:
    """Ctrl-C right after the run's ``k``-th checkpoint is on disk."""
    real, written = T.save_model, []

    def save_then_stop(*args, **kwargs):
        real(*args, **kwargs)
        written.append(args[3])
        if len(written) == k:
            raise KeyboardInterrupt

    monkeypatch.setattr(T, "save_model", save_then_stop)


def _cut_at_step(monkeypatch, steps: int) -> None:
    """Ctrl-C at the first step at or past ``steps`` (between two checkpoints)."""
    real = B.TrainingClock._on_step

    def step_then_stop(self):
        if self.num_timesteps >= steps:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(B.TrainingClock, "_on_step", step_then_stop)


def _cut_run(out, monkeypatch, cut) -> dict:
    """The run cut by ``cut`` (one of the two above, patched in and out
    again): the last checkpoint's history entry and config."""
    with monkeypatch.context() as mp:
        cut(mp)
        with pytest.raises(T.TrainingInterrupted):
            T.train(GAME, out=out, **RUN, **QUIET)
    return json.loads(out.with_suffix(".json").read_text())


@pytest.mark.parametrize(
    "cut, last",
    [
        (lambda mp: _cut_after_checkpoint(mp, 1), 300),
        (lambda mp: _cut_after_checkpoint(mp, 3), 900),
        (lambda mp: _cut_at_step(mp, 1400), 1200),
    ],
    ids=["after-checkpoint-1", "after-checkpoint-3", "between-checkpoints"],
)
def test_a_resumed_run_ends_where_the_unbroken_one_ends_bit_for_bit(unbroken, tmp_path, monkeypatch, cut, last):
    """Reliability: resume.  A run cut after (or between) its checkpoints and
    resumed reaches the same weights and optimizer state, every tensor
    torch.equal, as the run of the same steps that never stopped; its files
    say the run finished, its budget is the whole run's and the resume
    state is gone (a finished run is not resumed)."""
    out = tmp_path / "q"
    saved = _cut_run(out, monkeypatch, cut)
    assert saved["budget"]["steps"] == last and saved["budget"]["finished"] is False
    taken = R.read(out).state["sb3"]["num_timesteps"]  # (the start of the rollout the checkpoint fell in)
    assert taken <= last and last - taken < RUN["num_envs"] * RUN["n_steps"]
    seen = _finals(monkeypatch)
    config = T.train(GAME, resume=out.with_suffix(".pt"), **QUIET)  # (the .pt spelling: what a user types)
    assert seen["steps"] == RUN["steps"] and config["budget"]["steps"] == RUN["steps"]
    assert seen["checkpoints"] == [c for c in unbroken["checkpoints"] if c > taken]  # (none twice, none missed)
    assert config["budget"]["finished"] is True and not R.state_path(out).exists()
    assert seen["weights"].keys() == unbroken["weights"].keys()
    different = [k for k in seen["weights"] if not torch.equal(seen["weights"][k], unbroken["weights"][k])]
    assert not different, f"weights differ from the unbroken run's: {different}"
    assert _same_tensors(seen["optimizer"], unbroken["optimizer"])
    assert all(torch.equal(v, unbroken["weights"][k]) for k, v in baselines.load(out).policy.state_dict().items())


def test_the_command_line_resumes_a_run(unbroken, tmp_path, monkeypatch, capsys):
    """Reliability: resume.  ``boardenvs train GAME --resume RUN`` (the run
    named by its stem) goes on with it, with its own settings, and says from
    which step; the files are the unbroken run's."""
    out = tmp_path / "q"
    _cut_run(out, monkeypatch, lambda mp: _cut_after_checkpoint(mp, 2))
    seen = _finals(monkeypatch)
    code = T.main([GAME, "--resume", str(out), "--threads", "1", "--no-progress"])
    assert code == 0 and "goes on from 512 steps" in capsys.readouterr().out
    assert all(torch.equal(v, unbroken["weights"][k]) for k, v in seen["weights"].items())


def test_a_run_killed_inside_its_first_checkpoint_goes_on_from_its_resume_state(unbroken, tmp_path, monkeypatch):
    """Reliability: killed at any moment.  A checkpoint writes the resume
    state before the model's pair, so a run killed inside its first
    checkpoint, after the state and before the pair (no ``.pt``, no
    ``.json`` yet), goes on from it and ends with the unbroken run's
    weights; with the state alone, nothing else of the run is needed."""
    out = tmp_path / "q"
    _cut_run(out, monkeypatch, lambda mp: _cut_after_checkpoint(mp, 1))
    out.with_suffix(".pt").unlink()
    out.with_suffix(".json").unlink()
    assert {p.name for p in tmp_path.iterdir()} - {"q_tb"} == {"q.resume.pt"}  # (q_tb: TensorBoard's)
    seen = _finals(monkeypatch)
    T.train(GAME, resume=out, **QUIET)
    assert seen["steps"] == RUN["steps"]
    different = [k for k in seen["weights"] if not torch.equal(seen["weights"][k], unbroken["weights"][k])]
    assert not different and _same_tensors(seen["optimizer"], unbroken["optimizer"])


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A run cut after its second checkpoint (to copy: the refusals below change nothing in it)."""
    out = tmp_path_factory.mktemp("stopped") / "q"
    mp = pytest.MonkeyPatch()
    try:
        _cut_run(out, mp, lambda m: _cut_after_checkpoint(m, 2))
    finally:
        mp.undo()
    return out


def _files(folder) -> dict:
    return {p.relative_to(folder): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def _damage(out, how: str) -> None:
    state, config = R.state_path(out), out.with_suffix(".json")
    if how == "truncated":
        state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    elif how == "not-torch":
        state.write_text("not a checkpoint")
    elif how == "wrong-keys":
        torch.save({"format": 1, "policy": {}}, state)
    elif how == "bad-json":
        config.write_text(config.read_text()[:-20])
    elif how == "missing":
        state.unlink()
    elif how == "finished":
        saved = json.loads(config.read_text())
        saved["budget"]["finished"] = True
        config.write_text(json.dumps(saved))
    elif how == "unknown-setting":
        state_dict = torch.load(state, weights_only=True)
        state_dict["args"]["bogus"] = 1
        torch.save(state_dict, state)
    elif how == "foreign-weights":
        state_dict = torch.load(state, weights_only=True)
        state_dict["policy"].pop(sorted(state_dict["policy"])[0])  # (a network that is not the run's)
        torch.save(state_dict, state)


REFUSALS = [
    ("other-game", ["quess_v0", "--resume", "{out}"], "trains quicksand_v0"),
    ("other-network", [GAME, "--resume", "{out}", "--network", "dense"], "not --network dense"),
    ("init", [GAME, "--resume", "{out}", "--init", "{out}"], "--init starts from another model"),
    ("other-steps", [GAME, "--resume", "{out}", "--steps", "999"], "steps=999 is not the run's 2048"),
    ("other-out", [GAME, "--resume", "{out}", "--out", "{out}x"], "writes the run's own files"),
    ("no-run", [GAME, "--resume", "{out}-nothing"], "no resume state"),
]
DAMAGE = [
    "truncated",
    "not-torch",
    "wrong-keys",
    "bad-json",
    "missing",
    "finished",
    "foreign-weights",
    "unknown-setting",
]
WORDS = {
    "truncated": "is damaged",
    "not-torch": "is damaged",
    "wrong-keys": "is damaged (no ",
    "bad-json": "the run's config",
    "missing": "no resume state",
    "finished": "the run finished",
    "foreign-weights": "is damaged: it does not fit the run",
    "unknown-setting": "is damaged (its settings: ['bogus'])",
}


@pytest.mark.parametrize("case", [r[0] for r in REFUSALS] + DAMAGE)
def test_a_resume_that_cannot_go_on_is_one_error_line_and_changes_nothing(stopped, tmp_path, capsys, case):
    """Reliability: resume.  Another game, another network, ``--init``, a
    setting that is not the run's, another ``--out``, no run, a resume
    state cut short / not torch's / with the wrong keys / of another
    network / with a setting train has not, a damaged config, a finished
    run: one ``error:`` line, exit
    status 2, and every file of the run as it was (nothing written, no
    folder made)."""
    out = tmp_path / "q"
    for p in stopped.parent.iterdir():
        (shutil.copytree if p.is_dir() else shutil.copy)(p, tmp_path / p.name)
    argv, words = [GAME, "--resume", "{out}", "--threads", "1", "--no-progress"], WORDS.get(case)
    for name, given, expect in REFUSALS:
        if name == case:
            argv, words = [*given, "--threads", "1", "--no-progress"], expect
    if case in DAMAGE:
        _damage(out, case)
    before = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        T.main([a.format(out=out) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1 and err[0].startswith("error: --resume"), err
    assert words in err[0] and "Traceback" not in err[0]
    assert _files(tmp_path) == before


def test_a_resumed_run_gives_the_run_path_in_any_spelling(tmp_path):
    """Reliability: resume.  ``RUN`` is the run's ``<out>``, or its
    ``.pt``, ``.json`` or ``.resume.pt`` file."""
    out = tmp_path / "runs" / "q.v2"
    for spelling in (out, f"{out}.pt", f"{out}.json", f"{out}.resume.pt"):
        assert R.run_out(spelling) == out
    assert R.state_path(out).name == "q.v2.resume.pt"


def test_a_run_with_a_minutes_budget_goes_on_with_the_time_it_had_left(tmp_path, monkeypatch):
    """Reliability: resume.  A run by minutes cannot be compared bit for bit
    (where its budget ends depends on the clock), so this run has both
    budgets, an hour and 1,024 steps, and the steps end it: cut after its
    second checkpoint and resumed, it ends with the unbroken run's weights,
    and its clock went on from the training time it had spent (the budget
    left is the run's, not a new hour)."""
    run = {**RUN, "steps": 1024, "minutes": 60.0}
    seen = _finals(monkeypatch)
    T.train(GAME, out=tmp_path / "unbroken", **run, **QUIET)
    unbroken = seen["weights"]
    out = tmp_path / "q"
    with monkeypatch.context() as mp:
        _cut_after_checkpoint(mp, 2)
        with pytest.raises(T.TrainingInterrupted):
            T.train(GAME, out=out, **run, **QUIET)
    clock = R.read(out).state["clock"]
    assert clock["train_s"] > 0 and R.read(out).state["args"]["minutes"] == 60.0
    restored = []
    real = B.TrainingClock.set_state
    monkeypatch.setattr(B.TrainingClock, "set_state", lambda self, s: (real(self, s), restored.append(self.train_s)))
    seen = _finals(monkeypatch)
    config = T.train(GAME, resume=out, **QUIET)
    assert restored == [clock["train_s"]] and config["stopped_by"] == "steps"
    assert all(torch.equal(v, unbroken[k]) for k, v in seen["weights"].items())


def test_a_views_state_plays_on_the_same_in_a_new_view_and_bad_rows_are_refused():
    """Reliability: resume.  What a resume state keeps of the games in play
    (:meth:`SingleAgentVectorEnv.get_state`) put into a new view with the
    same options plays on exactly as the first (observations, rewards, ends,
    seats); a state whose rows are no states of the game is refused naming
    the row (the rows are data from a file: checked as a Position's), and
    the view is left as it was."""
    greedy = make_opponent("greedy")
    first = SingleAgentVectorEnv(GAME, num_envs=6, opponent=greedy, flatten=False)
    first.reset(seed=11)
    pick = np.random.default_rng(0)

    def actions(env):
        return np.array([pick.choice(np.flatnonzero(m)) for m in env.action_masks()])

    for _ in range(7):
        first.step(actions(first))
    state = first.get_state(lambda o: o.name)
    second = SingleAgentVectorEnv(GAME, num_envs=6, opponent=greedy, flatten=False)
    second.set_state(copy.deepcopy(state), lambda name: greedy)
    for _ in range(40):
        a = actions(first)
        one, two = first.step(a), second.step(a)
        for x, y in zip(one[:4], two[:4]):
            assert np.array_equal(x, y)
        assert np.array_equal(one[4]["seat"], two[4]["seat"])
    bad = copy.deepcopy(state)
    bad["vec"]["_states"][2, :] = 7
    third = SingleAgentVectorEnv(GAME, num_envs=6, opponent=greedy, flatten=False)
    with pytest.raises(ValueError, match="row 2"):
        third.set_state(bad, lambda name: greedy)
    with pytest.raises(Exception, match="reset"):  # (left as it was: never reset)
        third.step(actions(first))
