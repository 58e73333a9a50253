"""The benchmark's code on tiny settings (one game, N = 4, a fraction of a
second), so it does not rot between `make bench` runs.  The anchors'
imports are made to fail here: their skip path is checked, and the test
needs neither the bench nor the pgx extra."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # what the scripts it runs import (profile_aec.py: from bench import ...)
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench", None)


def test_tiny_run_writes_table_json_and_names_skipped_anchors(bench, tmp_path, monkeypatch, capsys):
    def no_anchor(name):
        if name.startswith(("pyspiel", "pgx", "jax", "pettingzoo.classic", "envpool")):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return importlib.import_module(name)

    monkeypatch.setattr(bench.bench_harness, "optional_import", no_anchor)  # every family imports through it
    readme_before = (ROOT / "README.md").read_text()
    argv = [
        "--games",
        "quagmire_v0",
        "--sizes",
        "1",
        "4",
        "--seconds",
        "0.02",
        "--repeats",
        "2",
        "--no-startup",
        "--no-memory",
        "--no-training-path",
        "--no-torchrl",
        "--lengths",
        "0",
        "--qs-lengths",
        "0",
        "--out",
        str(tmp_path),
    ]
    assert bench.main(argv) == 0
    out, err = capsys.readouterr()
    # every anchor says why it was skipped
    for name in (
        "PettingZoo classic anchors skipped",
        "OpenSpiel anchors skipped",
        "Pgx anchors skipped",
        "EnvPool anchors skipped",
    ):
        assert name in err
    assert "'.[pgx]'" in err and "'.[bench]'" in err  # (install lines from a clone)
    results = json.loads((tmp_path / "results.json").read_text())
    assert {"machine", "settings", "rows", "targets", "comparisons"} <= set(results)
    assert results["machine"]["cores"] >= 1 and results["machine"]["versions"]["numba"]
    load = results["machine"]["load"]  # the load average the run had, at its start and its end (the docs show it)
    assert len(load["start"]) == 3 and len(load["end"]) == 3 and min(load["start"] + load["end"]) >= 0
    keys = {(r["system"], r["api"], r["n"], r["threads"]) for r in results["rows"]}
    assert keys == {
        ("no-op", "AEC", 1, None),
        ("no-op", "AEC, boardenvs wrapper", 1, None),
        ("boardenvs", "AEC", 1, None),
        ("boardenvs", "make_vec", 1, None),
        ("boardenvs", "make_vec", 4, None),
        ("boardenvs", "make_vec, step_random()", 4, None),
        ("boardenvs", "SB3VecEnv", 4, None),
        ("boardenvs", "SB3VecEnv, masks by action_masks()", 4, None),
    }
    for row in results["rows"]:
        assert len(row["samples"]) == 2 and row["min"] <= row["median"] <= row["max"] and row["median"] > 0
        assert row["cpu_per_wall"] > 0
    # the AEC row is compared with its own no-op and marked against the 0.8x target
    (aec,) = [t for t in results["targets"] if t["row"].startswith("quagmire_v0 AEC")]
    assert aec["target"].startswith(">= 0.8x no-op") and aec["met"] == (aec["value"] >= 0.8)
    table = (tmp_path / "results.md").read_text()
    assert table.strip() in out
    assert "| quagmire_v0 | make_vec | 4 |" in table and "0.8x no-op AEC" in table
    # the fused row, beside make_vec's at the largest N: compared with it, no target of its own
    (fused,) = [
        c for c in results["comparisons"] if c["row"].startswith("boardenvs quagmire_v0 make_vec, step_random()")
    ]
    assert fused["anchor"] == "step(random_actions())" and fused["target"] is None and fused["wall"] > 0
    assert "Scaling:" in table and "arXiv:2303.17503" in table
    # the SB3VecEnv row is marked against make_vec at its N, over its seats (the target: >= 0.8 / P)
    (sb3,) = [
        t
        for t in results["targets"]
        if t["row"].startswith("quagmire_v0, radius=2 SB3VecEnv") or t["row"].startswith("quagmire_v0 SB3VecEnv")
    ]
    assert sb3["target"] == ">= 0.4x make_vec N=4 / 2 seats" and sb3["met"] == (sb3["value"] >= 0.4)
    # where a step's time goes, per part, and what bounds the game
    assert "What bounds each game" in table and "| legal | sample | apply | observe | mask copy |" in table
    (parts,) = results["breakdown"]["results"]
    assert parts["step_ns"] > 0 and set(parts["ns"]) == {
        "legal",
        "sample",
        "apply",
        "observe",
        "mask copy",
        "driver and the rest",
    }
    assert parts["bytes_written"] >= parts["caller_bytes"] > 0 and results["breakdown"]["bandwidth"] > 0
    # other processes' CPU before and after each section, and the verdict
    sections = results["machine"]["sections"]
    assert [r["section"] for r in sections][:2] == ["idle probe", "steps/s rows"] and "breakdown" in [
        r["section"] for r in sections
    ]
    assert all(r["others_cores"] >= 0 and len(r["load_start"]) == 3 for r in sections)
    assert results["machine"]["quiet"] == all(r["others_cores"] < bench.bench_machine.QUIET_OTHERS for r in sections)
    assert "Other processes' CPU" in table
    assert (ROOT / "README.md").read_text() == readme_before  # the README is never written
    # --from-json writes the same tables again without measuring
    again = tmp_path / "again"
    assert bench.main(["--from-json", str(tmp_path / "results.json"), "--out", str(again)]) == 0
    assert (again / "results.md").read_text().replace(str(again), str(tmp_path)) == table


def test_the_tables_go_to_the_results_files_only(bench, tmp_path):
    """The README no longer holds the tables (the docs site's Benchmarks page
    is built from results.md / results.json): no README flag, no README writer."""
    assert not hasattr(bench, "update_readme")
    with pytest.raises(SystemExit):
        bench.parse_args(["--update-readme"])
    assert "bench:begin" not in (ROOT / "README.md").read_text()


def test_pgx_steps_per_call_and_ratios(bench):
    assert [bench.pgx_steps_per_call(n) for n in (1, 64, 1024, 4096)] == [128, 128, 8, 2]
    row = bench.Row("boardenvs", "g", "make_vec", 4, setup=None, samples=[(100.0, 2.0), (300.0, 2.0)])
    anchor = bench.Row("OpenSpiel", "a", "pyspiel", 1, setup=None, samples=[(50.0, 1.0)])
    wall, cpu = bench.ratio(row, anchor)
    assert wall == pytest.approx(200 / 50) and cpu == pytest.approx((200 / 2) / 50)


def test_profile_aec_runs_on_the_declared_cases(bench, capsys):
    """benchmarks/profile_aec.py (it had gone stale: an import of a function
    the bench no longer has) times every declared game and player count."""
    spec = importlib.util.spec_from_file_location("profile_aec", ROOT / "benchmarks" / "profile_aec.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import boardenvs

    assert {e for e, _ in module.CASES} == set(boardenvs.ENV_IDS)
    assert ("hex_quoridor_v1", {"num_players": 6}) in module.CASES
    assert module.main(["--seconds", "0.05", "--repeats", "1", "--games", "quagmire_v0"]) == 0
    assert (
        "quagmire_v0" in capsys.readouterr().out
        and module.aec_steps_per_second(lambda: boardenvs.make("quess_v0"), 0.05) > 0
    )


def test_a_quick_or_busy_run_does_not_replace_the_published_tables(bench, tmp_path, monkeypatch, capsys):
    """Without ``--out``, a ``--quick`` run or one during which other
    processes used the cores goes to build/bench/ and says so; ``--force``
    publishes anyway."""
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(bench, "PUBLISHED", tmp_path / "published")
    tiny = [
        "--games",
        "quagmire_v0",
        "--sizes",
        "2",
        "--seconds",
        "0.01",
        "--repeats",
        "1",
        "--no-startup",
        "--no-memory",
        "--no-sb3",
        "--no-breakdown",
        "--no-torchrl",
        "--anchors",
        "--lengths",
        "0",
        "--qs-lengths",
        "0",
    ]
    assert bench.main([*tiny, "--quick"]) == 0
    assert "a --quick run" in capsys.readouterr().err
    assert (tmp_path / "build" / "bench" / "results.json").exists() and not (tmp_path / "published").exists()
    monkeypatch.setattr(bench.bench_machine, "QUIET_OTHERS", -1.0)  # every section reads as busy
    assert bench.main(tiny) == 0
    err = capsys.readouterr().err
    assert (
        "busy: other processes used" in err and "the machine was busy" in err and not (tmp_path / "published").exists()
    )
    assert "**busy**" in (tmp_path / "build" / "bench" / "results.md").read_text()
    assert bench.main([*tiny, "--force"]) == 0
    assert json.loads((tmp_path / "published" / "results.json").read_text())["machine"]["quiet"] is False


def test_other_processes_cpu_is_the_machines_less_our_own(bench, monkeypatch):
    """Deterministic (it asserted that the machine's other
    processes used < 1.5 cores while it ran, and failed on a busy machine):
    the counters are read from a fake /proc/stat, os.times and clock."""
    # (all processes' CPU-s, ours, wall)
    assert bench.others_cores((100.0, 10.0, 0.0), (103.0, 11.0, 2.0)) == pytest.approx(1.0)
    assert bench.others_cores((100.0, 10.0, 0.0), (101.0, 11.5, 1.0)) == 0.0  # clock granularity: never negative
    assert bench.others_cores(None, (1.0, 1.0, 1.0)) is None
    import io
    import os
    from types import SimpleNamespace

    # /proc/stat's cpu line: user nice system idle iowait irq softirq steal (ticks of 1/100 s)
    readings = iter(
        [("cpu  500 0 300 9000 700 100 100 0", 4.0, 10.0), ("cpu  700 0 400 9100 900 150 150 0", 5.0, 11.0)]
    )
    now = {}

    def fake_open(path, *args, **kwargs):
        assert path == "/proc/stat"
        line, now["ours"], now["wall"] = next(readings)
        return io.StringIO(line + "\n")

    monkeypatch.setattr(bench.bench_machine, "open", fake_open, raising=False)
    real_sysconf = os.sysconf
    monkeypatch.setattr(os, "sysconf", lambda name: 100 if name == "SC_CLK_TCK" else real_sysconf(name))
    monkeypatch.setattr(
        os, "times", lambda: SimpleNamespace(user=now["ours"], system=0.0, children_user=0.0, children_system=0.0)
    )
    monkeypatch.setattr(bench.bench_machine.time, "perf_counter", lambda: now["wall"])
    before, after = bench.cpu_counters(), bench.cpu_counters()
    assert before == (10.0, 4.0, 10.0)  # busy = all but idle and iowait: (500 + 300 + 100 + 100) / 100
    assert after == (14.0, 5.0, 11.0)
    assert bench.others_cores(before, after) == pytest.approx(3.0)  # 4 CPU-s in 1 s, 1 of them ours

    def no_proc(path, *args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(bench.bench_machine, "open", no_proc, raising=False)
    assert bench.cpu_counters() is None


class _FakeEnvPool:
    """EnvPool's gymnasium API on a game that ends every third step: its
    next step restarts it (the action ignored), as EnvPool does."""

    def make(self, task, env_type, num_envs, batch_size, num_threads, seed):
        assert env_type == "gymnasium" and batch_size == num_envs and 1 <= num_threads <= num_envs
        fake = self

        class Env:
            t = np.zeros(num_envs, np.int64)

            def reset(self):
                return None, {"legal_action_mask": np.tile([False, True, True], (num_envs, 1))}

            def step(self, actions):
                fake.actions.append(np.array(actions))
                self.t = np.where(self.t == 3, 0, self.t + 1)
                ended = self.t == 3
                return (
                    None,
                    None,
                    ended,
                    np.zeros(num_envs, bool),
                    {"legal_action_mask": np.tile([False, True, True], (num_envs, 1))},
                )

        self.actions = []
        return Env()


def test_envpool_rows_draw_legal_actions_and_skip_its_restart_steps(bench, monkeypatch):
    fake = _FakeEnvPool()
    harness = bench.bench_harness  # every family imports its extra through bench_harness.optional_import
    monkeypatch.setattr(
        harness, "optional_import", lambda name: fake if name == "envpool" else importlib.import_module(name)
    )
    for sampler in ("compiled", "numpy"):
        chunk = bench.envpool_stepper("Hex-v1", 512, sampler)  # 2 steps a chunk
        steps = [chunk() for _ in range(4)]  # games end on steps 3 and 7; steps 4 and 8 restart them
        assert steps == [2 * 512, 1 * 512, 2 * 512, 1 * 512]
        drawn = np.concatenate(fake.actions)
        assert set(drawn.tolist()) == {1, 2}  # uniform over the legal entries only


def test_ppo_settings_times_learn_and_splits_collecting_from_updating(monkeypatch, capsys, tmp_path):
    """benchmarks/ppo_settings.py (the training guide's table) on a tiny rollout."""
    spec = importlib.util.spec_from_file_location("ppo_settings", ROOT / "benchmarks" / "ppo_settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ROLLOUT", 128)
    monkeypatch.setattr(module, "SETTINGS", [("SB3VecEnv", 64, 64, 1), ("SB3VecEnv", 32, 128, 1)])
    assert module.main(["--game", "boardenvs/Quagmire-v0", "--out", str(tmp_path / "ppo")]) == 0
    rows = json.loads((tmp_path / "ppo.json").read_text())["rows"]
    assert [(r["n_envs"], r["n_steps"], r["timesteps"]) for r in rows] == [(64, 2, 256), (32, 4, 256)]
    assert all(0 < r["rollout_s"] < r["wall_s"] and r["per_s"] > 0 for r in rows)
    text = (tmp_path / "ppo.md").read_text()
    assert (
        text.count("**(fastest)**") == 1
        and "| SB3VecEnv | 32 | 4 | 128 | 1 |" in text
        and "Other processes' CPU" in text
    )


def test_the_game_length_lines_run(bench):
    """The lines under the tables (Quess's lengths for QU-13, Quicksand's
    turns, decisions and end reasons), on a few games: the full run's last
    section, which the tiny run skips."""
    lines = bench.length_lines(8, 8, ["quess_v0", "quicksand_v0"])
    quess, quicksand = lines[1], lines[3]
    assert quess.startswith("Quess random-vs-random game length over 8 games") and "median" in quess
    assert quicksand.startswith("Quicksand random-vs-random games over 8 games") and "ended by" in quicksand
    assert "%" in quicksand.split("ended by")[1]


def test_learner_loop_bench_runs(capsys):
    """benchmarks/learner_loop.py (the learner loop against greedy and
    against the committed model, and their parts alone) on a tiny budget:
    each table has a row with every column."""
    spec = importlib.util.spec_from_file_location("learner_loop", ROOT / "benchmarks" / "learner_loop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--games", "quagmire_v0", "--n", "16", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    greedy, model = [line for line in out.splitlines() if line.startswith("| quagmire_v0 |")]
    cells = [c.strip() for c in greedy.strip("|").split("|")]
    assert len(cells) == 8 and cells[-1].endswith(("met", "missed")) and float(cells[6].rstrip("x")) > 0
    cells = [c.strip() for c in model.strip("|").split("|")]  # the committed model's table
    assert len(cells) == 7 and cells[-1].endswith(("met", "missed")) and float(cells[-1].split()[0]) > 0
    assert float(cells[3]) > 0.5  # the model's decisions per learner step, as the loop asked them


def test_the_torchrl_table_runs_every_kind(bench):
    """boardenvs.torchrl.BoardEnv against SB3VecEnv and TorchRL's SerialEnv /
    ParallelEnv of the gymnasium env, at the same N (tiny: N = 2)."""
    lines, rows = bench.torchrl_table(0.02, 1, sizes=(2,), gym_ids=("boardenvs/Quagmire-v0",), log=lambda *_: None)
    assert {(r["api"], r["n"]) for r in rows} == {(kind, 2) for kind in bench.TORCHRL_KINDS}
    assert all(r["median"] > 0 for r in rows)
    (row,) = [line for line in lines if line.startswith("| boardenvs/Quagmire-v0 | 2 |")]
    assert row.count("x |") == 3 and " - " not in row  # every rate and ratio measured
    # every env it built is closed: ParallelEnv's worker processes left running keep the
    # interpreter from exiting (multiprocessing joins them at exit: a suite that never ends)
    import multiprocessing

    assert multiprocessing.active_children() == []


def test_the_benchmarks_folder_is_indexed_scripts_on_top_library_and_results_apart(bench):
    """benchmarks/: the scripts a user runs at the top, the modules they share in
    lib/, every committed result in results/, and README.md naming each script
    and module (the folder's index)."""
    folder = ROOT / "benchmarks"
    top = {p.name for p in folder.iterdir() if p.is_file()}
    assert top == {"README.md", *(p.name for p in folder.glob("*.py"))}, top  # no result file at the top
    assert all("__main__" in p.read_text() for p in folder.glob("*.py"))  # each one a command
    assert not any("__main__" in p.read_text() for p in (folder / "lib").glob("*.py"))
    assert bench.PUBLISHED == folder / "results" and (folder / "results" / "results.json").is_file()
    index = (folder / "README.md").read_text()
    missing = [p.name for p in (*folder.glob("*.py"), *(folder / "lib").glob("*.py")) if f"`{p.name}`" not in index]
    assert not missing, missing
    missing = [p.name for p in (folder / "results").iterdir() if f"`{p.name.split('.')[0]}." not in index]
    assert not missing, missing  # every result file, by its name without the suffix
