"""The round-robin's Elo intervals (boardenvs.baselines.tournament.elo_intervals):
a parametric bootstrap of every pair's games, the significant differences,
and ``--rerate``, which recomputes them from results.json without playing."""

from __future__ import annotations

import json
import shutil

import pytest
from boardenvs.baselines import tournament as ev


def pair(agent: str, opponent: str, wins: int, losses: int, draws: int = 0) -> dict:
    return {
        "agent": agent,
        "opponent": opponent,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "games": wins + draws + losses,
    }


MIXED = [
    pair("A", "random", 70, 25, 5),
    pair("B", "random", 55, 45),
    pair("A", "B", 60, 40),
    pair("C", "random", 20, 80),
]


def test_intervals_contain_the_point_estimate_and_match_elo():
    fit = ev.elo_intervals(["A", "B", "C", "random"], MIXED, samples=300, seed=0)
    assert fit["elo"] == ev.elo(["A", "B", "C", "random"], MIXED)
    for p in ("A", "B", "C"):
        lo, hi = fit["interval"][p]
        assert lo < fit["elo"][p] < hi, (p, lo, fit["elo"][p], hi)
    assert fit["interval"]["random"] == [0.0, 0.0]  # the anchor
    assert fit["games"] == {"A": 200, "B": 200, "C": 100, "random": 300}


def test_more_games_give_a_narrower_interval():
    few = ev.elo_intervals(["A", "random"], [pair("A", "random", 70, 30)], samples=300, seed=0)
    many = ev.elo_intervals(["A", "random"], [pair("A", "random", 1400, 600)], samples=300, seed=0)
    width = lambda fit: fit["interval"]["A"][1] - fit["interval"]["A"][0]  # noqa: E731
    assert width(many) < 0.5 * width(few)  # 20x the games: about 1/sqrt(20) of the width
    assert abs(few["elo"]["A"] - many["elo"]["A"]) < 10  # the same win rate (the prior weighs less with more games)


def test_identical_records_are_not_significantly_different_but_90_to_10_over_400_games_is():
    results = [
        pair("A", "random", 60, 40),
        pair("B", "random", 60, 40),
        pair("A", "B", 50, 50),
        pair("C", "D", 360, 40),
        pair("C", "random", 50, 50),
        pair("D", "random", 50, 50),
    ]
    fit = ev.elo_intervals(["A", "B", "C", "D", "random"], results, samples=400, seed=0)
    significant = [tuple(s) for s in fit["significant"]]
    assert ("A", "B") not in significant and ("B", "A") not in significant
    assert ("C", "D") in significant
    difference = {(a, b): (lo, hi) for a, b, lo, hi in fit["differences"]}
    lo, hi = difference.get(("A", "B")) or difference[("B", "A")]
    assert lo < 0 < hi
    assert difference[("C", "D")][0] > 0


def test_a_player_who_won_everything_stays_finite():
    fit = ev.elo_intervals(["A", "random"], [pair("A", "random", 100, 0)], samples=200, seed=0)
    lo, hi = fit["interval"]["A"]
    assert 500 < lo <= fit["elo"]["A"] <= hi < 1500


def test_the_same_seed_gives_the_same_intervals():
    players = ["A", "B", "C", "random"]
    first = ev.elo_intervals(players, MIXED, samples=200, seed=3)
    assert ev.elo_intervals(players, MIXED, samples=200, seed=3) == first
    assert ev.elo_intervals(players, MIXED, samples=200, seed=4)["interval"] != first["interval"]
    with pytest.raises(ValueError, match="samples"):
        ev.elo_intervals(players, MIXED, samples=0)


def test_the_order_says_which_differences_are_significant():
    entry = {"elo": {"A": 100.0, "B": 50.0, "C": 0.0}, "elo_significant": [["A", "C"]]}
    assert ev._order(entry) == "A ≈ B ≈ C (but A > C)"  # the chain alone would read A ≈ C
    entry["elo_significant"] = [["A", "B"], ["A", "C"], ["B", "C"]]
    assert ev._order(entry) == "A > B > C"
    entry["elo_significant"] = [["A", "B"]]
    assert ev._order(entry) == "A > B ≈ C (but A ≈ C)"  # a '>' between them, yet not significant


def test_rerate_recomputes_the_ratings_without_touching_the_results(tmp_path, monkeypatch, capsys):
    results, table = tmp_path / "results.json", tmp_path / "results.md"
    shutil.copy(ev.RESULTS, results)
    before = json.loads(results.read_text())
    for entry in before.values():  # as the entries were before the intervals
        for key in ("elo_interval", "elo_games", "elo_differences", "elo_significant", "elo_bootstrap"):
            entry.pop(key, None)
    results.write_text(json.dumps(before, indent=1) + "\n")
    monkeypatch.setattr(ev, "RESULTS", results)
    monkeypatch.setattr(ev, "TABLE", table)
    # the default 1,000 resamples: with 50, the 97.5th percentile of a rating that won every game (a † rating,
    # its resamples drawn with half a loss added) fell 10 Elo under its own fit (Hex Quoridor's greedy)
    assert ev.main(["--rerate", "--samples", "1000"]) == 0
    after = json.loads(results.read_text())
    assert after.keys() == before.keys()
    rated = 0
    for name, entry in after.items():
        assert entry["results"] == before[name]["results"]  # no game played, no count changed
        assert {k: v for k, v in entry.items() if not k.startswith("elo")} == {
            k: v for k, v in before[name].items() if not k.startswith("elo")
        }
        if entry["num_players"] == 2:
            rated += 1
            assert entry["elo"] == before[name]["elo"]  # the same fit of the same games
            assert entry["elo_bootstrap"] == {"samples": 1000, "seed": entry["seed"]}
            assert set(entry["elo_interval"]) == set(entry["elo_games"]) == set(entry["elo"])
            assert all(lo <= entry["elo"][p] <= hi for p, (lo, hi) in entry["elo_interval"].items())
        else:
            assert "elo" not in entry and "elo_interval" not in entry
    assert rated >= 1
    text = table.read_text()
    assert "1,000 parametric bootstrap resamples" in text and "significantly stronger" in text
    name = next(n for n, e in after.items() if e["num_players"] == 2)
    lo, hi = after[name]["elo_interval"]["greedy"]
    assert f"| {name} | greedy | {after[name]['elo']['greedy']:+.0f} [{lo:+.0f}, {hi:+.0f}]" in text
    assert capsys.readouterr().out.strip() == text.split("\n", 2)[2].strip()  # printed: the tables
    with pytest.raises(SystemExit):
        ev.main(["--rerate", "no_such_model"])
    assert "no entry 'no_such_model'" in capsys.readouterr().err


def test_markdown_shows_intervals_games_and_order():
    entry = {
        "name": "toy",
        "env_id": "quess_v0",
        "num_players": 2,
        "seed": 0,
        "results": [
            pair("baseline:toy", "random", 100, 0),
            pair("baseline:toy", "greedy", 55, 45),
            pair("random", "greedy", 10, 90),
        ],
    }
    entry["elo"] = dict.fromkeys(["baseline:toy", "random", "greedy"])
    ev.rate(entry, samples=200)
    text = ev.markdown({"toy": entry})
    lo, hi = entry["elo_interval"]["baseline:toy"]
    assert (
        f"| toy | toy | {entry['elo']['baseline:toy']:+.0f} [{lo:+.0f}, {hi:+.0f}]† | 200 |" in text
    )  # won all vs random
    assert "| toy | random | +0 (anchor) | 200 | - |" in text
    assert "| toy | toy ≈ greedy > random |" in text
    # an entry rated before the intervals keeps its one row of ratings
    old = {k: v for k, v in entry.items() if k in ("name", "env_id", "num_players", "results", "elo")}
    assert "| toy | toy +" in ev.markdown({"toy": old}) and "bootstrap" not in ev.markdown({"toy": old})


def test_a_sweep_is_not_redrawn_as_a_sweep_every_time():
    """A clean sweep is redrawn from its shares with half a win and half a
    loss added, so some resamples hold a loss and the interval has width
    below the point rating (from the raw shares every resample repeated the
    sweep: a zero-width interval that came from the prior alone)."""
    for n in (20, 400):
        fit = ev.elo_intervals(["a", "random"], [pair("a", "random", n, 0)], samples=400, seed=3)
        lo, hi = fit["interval"]["a"]
        assert hi == pytest.approx(fit["elo"]["a"], abs=0.2) and lo < fit["elo"]["a"] - 100
