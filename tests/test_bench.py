"""The benchmark's code on tiny settings (one game, N = 4, a fraction of a
second), so it does not rot between `make bench` runs.  The anchors'
imports are made to fail here: their skip path is checked, and the test
needs neither the bench nor the pgx extra."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench", None)


def test_tiny_run_writes_table_json_and_names_skipped_anchors(bench, tmp_path, monkeypatch, capsys):
    def no_anchor(name):
        if name.startswith(("pyspiel", "pgx", "jax", "pettingzoo.classic")):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return importlib.import_module(name)

    monkeypatch.setattr(bench, "optional_import", no_anchor)
    readme_before = (ROOT / "README.md").read_text()
    argv = ["--games", "quagmire_v0", "--sizes", "1", "4", "--seconds", "0.02", "--repeats", "2", "--no-startup",
            "--no-memory", "--no-training-path", "--lengths", "0", "--qs-lengths", "0", "--out", str(tmp_path)]  # fmt: skip
    assert bench.main(argv) == 0
    out, err = capsys.readouterr()
    # every anchor says why it was skipped
    for name in ("PettingZoo classic anchors skipped", "OpenSpiel anchors skipped", "Pgx anchors skipped"):
        assert name in err
    assert "boardenvs[pgx]" in err and "boardenvs[bench]" in err
    results = json.loads((tmp_path / "results.json").read_text())
    assert {"machine", "settings", "rows", "targets", "comparisons"} <= set(results)
    assert results["machine"]["cores"] >= 1 and results["machine"]["versions"]["numba"]
    load = results["machine"]["load"]  # the load average the run had, at its start and its end (the docs show it)
    assert len(load["start"]) == 3 and len(load["end"]) == 3 and min(load["start"] + load["end"]) >= 0
    keys = {(r["system"], r["api"], r["n"], r["threads"]) for r in results["rows"]}
    assert keys == {("no-op", "AEC", 1, None), ("no-op", "AEC, boardenvs wrapper", 1, None), ("boardenvs", "AEC", 1, None),
                    ("boardenvs", "make_vec", 1, None),
                    ("boardenvs", "make_vec", 4, None), ("boardenvs", "SB3VecEnv", 4, None)}  # fmt: skip
    for row in results["rows"]:
        assert len(row["samples"]) == 2 and row["min"] <= row["median"] <= row["max"] and row["median"] > 0
        assert row["cpu_per_wall"] > 0
    # the AEC row is compared with its own no-op and marked against the 0.8x target
    (aec,) = [t for t in results["targets"] if t["row"].startswith("quagmire_v0 AEC")]
    assert aec["target"].startswith(">= 0.8x no-op") and aec["met"] == (aec["value"] >= 0.8)
    table = (tmp_path / "results.md").read_text()
    assert table.strip() in out
    assert "| quagmire_v0 | make_vec | 4 |" in table and "0.8x no-op AEC" in table
    assert "Scaling:" in table and "arXiv:2303.17503" in table
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
    assert ("hex_quoridor_v0", {"num_players": 6}) in module.CASES
    assert module.main(["--seconds", "0.05", "--repeats", "1", "--games", "quagmire_v0"]) == 0
    assert "quagmire_v0" in capsys.readouterr().out and module.aec_steps_per_second(lambda: boardenvs.make("quess_v0"), 0.05) > 0
