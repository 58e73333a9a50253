"""Expert iteration: the sequential test's error rates
by simulation, the gate's matches, and a small run end to end (a model
that loads as a baseline and guides a search)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from boardenvs.baselines import expert_iteration as xi
from boardenvs.baselines.tournament import method
from boardenvs.wrappers import evaluate

from boardenvs import baselines
from boardenvs.opponents import make_opponent


def test_expected_score():
    assert xi.expected_score(0) == 0.5 and xi.expected_score(0, players=4) == 0.25
    assert xi.expected_score(400) == pytest.approx(10 / 11)
    assert xi.expected_score(-400, players=3) == pytest.approx(0.1 / 2.1)


def _decisions(true_elo, runs, elo0, elo1, seed, players=2, draws=0.2, max_games=4000):
    """The test's decision on ``runs`` simulated matches whose candidate is
    ``true_elo`` stronger: every game a win, a draw or a loss (draws a
    fixed share of the non-wins' mass), looked at every 50 games, as the
    gate looks after each round."""
    rng = np.random.default_rng(seed)
    p_win = xi.expected_score(true_elo, players)
    out = []
    for _ in range(runs):
        # a draw scores 1/P: keep the expected score at p_win with draws taking from both sides
        d = min(draws, 2 * min(p_win, 1 - p_win))
        u = rng.random(max_games)
        scores = np.where(u < p_win - d / players, 1.0, np.where(u < p_win - d / players + d, 1.0 / players, 0.0))
        decision = None
        for n in range(50, max_games + 1, 50):
            decision = xi.sprt(scores[:n], elo0, elo1, 0.05, 0.05, players)["decision"]
            if decision:
                break
        out.append(decision)
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_sprt_error_rates_hold(players):
    """At elo0 the test accepts H1 in about alpha (5%) of the matches, at
    elo1 it rejects in about beta (5%), and a clearly better candidate is
    accepted, a worse one rejected (200 simulated matches each).  The
    normal model of the score is an approximation: measured here, 4% and
    1% with two seats, 2% and 7.5% with four (a skewed score: a win 1, a
    loss 0, most games lost); the bound, 9%, allows that and the
    simulation's own noise (5% of 200 is 10 +- 3)."""
    at0 = _decisions(0, 200, 0, 40, seed=1, players=players)
    at1 = _decisions(40, 200, 0, 40, seed=2, players=players)
    assert at0.count("H1") <= 18 and at1.count("H0") <= 18, (at0.count("H1"), at1.count("H0"))
    assert _decisions(150, 40, 0, 40, seed=3, players=players).count("H1") == 40
    assert _decisions(-150, 40, 0, 40, seed=4, players=players).count("H0") == 40


def test_sprt_checks_its_settings():
    for kw, words in [({"elo0": 10, "elo1": 5}, "elo1 must be above"), ({"alpha": 0}, "alpha and beta")]:
        with pytest.raises(ValueError, match=words):
            xi.sprt([1, 0], **kw)
    undecided = xi.sprt([1.0] * 5)  # no spread: no evidence of its size yet
    assert undecided["decision"] is None and undecided["llr"] == 0.0


def test_match_alternates_seats_and_scores_from_the_candidate_side():
    scores = xi.match("greedy", "random", "quagmire_v0", {"radius": 2}, games=40, seed=3, opening=2)
    assert scores.shape == (40,) and set(np.unique(scores)) <= {0.0, 0.5, 1.0}
    assert scores.mean() > 0.7
    back = xi.match("random", "greedy", "quagmire_v0", {"radius": 2}, games=40, seed=3, opening=2)
    assert back.mean() < 0.3
    assert np.array_equal(
        scores, xi.match("greedy", "random", "quagmire_v0", {"radius": 2}, games=40, seed=3, opening=2)
    )
    four = xi.match("random", "random", "hex_quoridor_v1", {"num_players": 4}, games=8, seed=1, opening=0)
    assert set(np.unique(four)) <= {0.0, 0.25, 1.0}


def test_gate_accepts_the_stronger_and_rejects_the_weaker():
    kw = dict(env_id="quagmire_v0", options={"radius": 2}, players=2, max_games=400, round_games=40, seed=0)
    up = xi.gate("greedy", "random", **kw)
    down = xi.gate("random", "greedy", **kw)
    assert up["accepted"] and up["decision"] == "H1" and up["games"] <= 400
    assert not down["accepted"] and down["decision"] == "H0"


def test_a_small_run_end_to_end(tmp_path):
    out = tmp_path / "q"
    config = xi.expert_iteration(
        "quagmire_v0",
        out=out,
        iterations=2,
        games=8,
        simulations=4,
        num_envs=8,
        epochs=1,
        gate_games=20,
        gate_round=10,
        gate_search=2,
        progress=False,
        verbose=0,
    )
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved == config
    rows = saved["expert_iteration"]["iterations"]
    assert [r["iteration"] for r in rows] == [1, 2] and all(r["samples"] > 0 for r in rows)
    assert all(r["gate"]["games"] <= 20 and "llr" in r["gate"] for r in rows)
    assert saved["expert_iteration"]["gate"]["search"] == 2
    assert saved["budget"]["this_run_steps"] == sum(r["samples"] for r in rows) and saved["budget"]["finished"]
    assert (tmp_path / "q_tb").is_dir() and any((tmp_path / "q_tb").iterdir())
    assert method(saved).startswith("expert iteration (search:4, 2 iterations)")
    agent = baselines.load(out)
    assert agent.env_id == "quagmire_v0"
    res = evaluate(f"search:4:{out}.pt", "quagmire_v0", games=4, opponent="random", seed=0)
    assert res["games"] == 4
    assert make_opponent(f"search:4:{out}").name == f"search:4:{out}"


def test_settings_are_checked_before_any_game(tmp_path):
    for kw, words in [
        ({"iterations": 0}, "iterations"),
        ({"gate_search": -1}, "gate_search"),
        ({"lr": 0}, "lr"),
        ({"elo0": 5, "elo1": 0}, "elo1"),
        ({"init": "hex_quoridor_v1"}, "plays hex_quoridor_v1"),
    ]:
        with pytest.raises(ValueError, match=words):
            xi.expert_iteration("quagmire_v0", out=tmp_path / "x", progress=False, **kw)
    assert not (tmp_path / "x.json").exists()


def test_strength_targets_follow_the_issue():
    from boardenvs.baselines.strength import goal, markdown, pairs

    assert goal("quess_v0", 2, "baseline:quess_v0", "greedy") == (0.55, True)
    assert goal("quess_v0", 2, "search:200:quess_v0", "mcts:400") == (0.70, False)
    assert goal("tryasina_v0", 2, "baseline:tryasina_v0", "mcts:400") is None  # dice-bound: greedy only
    assert goal("tryasina_v0", 4, "baseline:tryasina_v0_4p", "greedy") == (0.40, False)
    assert goal("hex_quoridor_v1", 4, "greedy", "greedy") is None  # the scale rows have no target
    assert goal("hex_quoridor_v1", 4, "search-greedy:50:hex_quoridor_v1_4p", "greedy") == (0.50, False)
    assert pairs("hex_quoridor_v1_4p", 4, greedy_simulations=30)[:2] == [
        ("baseline:hex_quoridor_v1_4p", "greedy"),
        ("search-greedy:30:hex_quoridor_v1_4p", "greedy"),
    ]
    assert pairs("quess_v0", 2)[-1] == ("search:200:quess_v0", "mcts:400")
    row = {
        "model": "m",
        "agent": "a",
        "opponent": "b",
        "games": 10,
        "wins": 6,
        "draws": 0,
        "losses": 4,
        "rate": 0.6,
        "interval": [0.31, 0.83],
        "target": 0.55,
        "met": False,
    }
    assert "**missed** (>= 55%)" in markdown([row]) and "Targets met: 0 of 1" in markdown([row])


def test_strength_command_writes_its_table(tmp_path):
    from boardenvs.baselines import strength

    out = tmp_path / "s"
    assert (
        strength.main(
            [
                "quicksand_v0",
                "--games",
                "2",
                "--search-games",
                "4",
                "--simulations",
                "4",
                "--mcts",
                "8",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved["run"]["finished"] and len(saved["rows"]) == 4
    assert [r["games"] for r in saved["rows"]] == [2, 2, 4, 4]  # the search's rows play --search-games
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] for r in saved["rows"])
    assert out.with_suffix(".md").read_text().count("| quicksand_v0 |") == 4
    assert (
        strength.main(["tryasina_v0_4p", "--games", "4", "--greedy-simulations", "4", "--out", str(out), "--append"])
        == 0
    )
    both = json.loads(out.with_suffix(".json").read_text())
    assert [r["model"] for r in both["rows"]] == ["quicksand_v0"] * 4 + ["tryasina_v0_4p"] * 4
    assert both["rows"][5]["agent"] == "search-greedy:4:tryasina_v0_4p" and both["rows"][5]["target"] == 0.40
    assert both["run"]["command"].count("python -m boardenvs.baselines.strength") == 2
    with pytest.raises(SystemExit):
        strength.main(["no_such_model"])


def test_the_gate_plays_raw_policies_or_guided_searches():
    from boardenvs.baselines import BaselineOpponent
    from boardenvs.baselines.search_opponent import SearchOpponent

    agent = baselines.load("quagmire_v0")
    raw, searched = xi._player(agent.policy, agent.config, "c", 0), xi._player(agent.policy, agent.config, "c", 3)
    assert isinstance(raw, BaselineOpponent) and raw.name == "c"
    assert isinstance(searched, SearchOpponent) and searched.simulations == 3 and searched.name == "search:3:c"
