"""Match traces (boardenvs.traces): games between opponents played in a
batch, written one JSON line each, replayed and checked on read; and
opponents named ``module:attribute``."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from boardenvs.errors import UntrustedFileError
from boardenvs.opponents import load_opponent, make_opponent
from boardenvs.traces import check_trace, play_matches, read_traces, score, write_traces


def _games(env_id, a, b, n, opening=0, seed0=0, options=None):
    agents = [make_opponent(a), make_opponent(b)]
    from boardenvs.registry import make_game

    P = make_game(env_id, **(options or {})).num_players
    lineups = [tuple(0 if s == k % P else 1 for s in range(P)) for k in range(n)]
    return play_matches(
        env_id,
        options or {},
        lineups,
        [seed0 + k // P for k in range(n)],
        agents,
        np.random.default_rng(0),
        opening=opening,
    )


# --- traces ------------------------------------------------------------------------------------------


def test_traces_replay_to_their_results_and_are_seeded():
    traces = _games("quagmire_v0", "greedy", "random", 8, opening=4)
    assert len(traces) == 8
    for t in traces:
        assert {
            "format",
            "env_id",
            "package",
            "options",
            "seed",
            "agents",
            "actions",
            "returns",
            "end_reason",
            "turns",
            "opening",
        } <= set(t)
        final = check_trace(t)
        assert final.is_terminal and list(final.returns) == t["returns"]
        assert [a["name"] for a in t["agents"]].count("greedy") == 1
    # games that share a seed share their opening (4 seeded random decisions) and differ by the seats
    assert traces[0]["seed"] == traces[1]["seed"] and traces[0]["actions"][:4] == traces[1]["actions"][:4]
    assert traces[0]["agents"] != traces[1]["agents"]
    assert traces[0]["actions"][:4] != traces[2]["actions"][:4]
    assert _games("quagmire_v0", "greedy", "random", 8, opening=4) == traces  # the same seeds, the same games
    # first_player="random" is resolved to seat 0 and recorded, so the trace replays
    quess = _games("quess_v0", "greedy", "random", 2, opening=4)
    assert all(t["options"]["first_player"] == 0 for t in quess)


def test_traces_record_chance_outcomes_and_several_players():
    traces = _games("tryasina_v0", "greedy", "random", 8, options={"num_players": 4})
    for t in traces:
        check_trace(t)
        assert len(t["agents"]) == 4 and [a["name"] for a in t["agents"]].count("greedy") == 1
    seats = [[a["name"] for a in t["agents"]].index("greedy") for t in traces]
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]  # every seat in turn


def test_a_trace_that_does_not_replay_to_its_result_is_an_error(tmp_path):
    (t,) = _games("quagmire_v0", "greedy", "random", 1, opening=2)
    bad = [
        ({**t, "returns": [-r for r in t["returns"]]}, "replayed, the game ends"),
        ({**t, "end_reason": "resigned"}, "replayed, the game ends"),
        ({**t, "actions": t["actions"][:-1]}, "not over"),
        ({**t, "actions": t["actions"] + [0]}, "over after"),
        ({**t, "actions": [10**6] + t["actions"][1:]}, "action 1"),
        ({**t, "actions": ["a"]}, "action ids"),
        ({**t, "format": "other"}, "not a boardenvs-trace/1"),
        ({k: v for k, v in t.items() if k != "seed"}, "needs seed"),
        ({**t, "agents": t["agents"][:1]}, "one"),
        ({**t, "options": {"radius": 99}}, "radius"),
    ]
    for trace, words in bad:
        with pytest.raises(ValueError, match=words):
            check_trace(trace)
    # a file is checked line by line on read, and the error names the line
    path = tmp_path / "t.jsonl"
    write_traces([t, t, {**t, "returns": [0.0, 0.0]}], path)
    with pytest.raises(ValueError, match=r"t\.jsonl, line 3: replayed"):
        read_traces(path)
    path.write_text(json.dumps(t) + "\n{not json\n")
    with pytest.raises(ValueError, match="line 2: not JSON"):
        read_traces(path)
    path.write_text("")
    with pytest.raises(ValueError, match="no trace"):
        read_traces(path)
    gz = tmp_path / "t.jsonl.gz"
    write_traces([t, t], gz)
    assert read_traces(gz) == [t, t]
    assert gzip.decompress(gz.read_bytes()).decode().count("\n") == 2
    gz.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="cannot read trace file"):
        read_traces(gz)


def test_score_compares_every_pair_of_seats():
    def trace(names, returns):
        return {"agents": [{"name": n} for n in names], "returns": returns}

    assert score(trace(["a", "b"], [1, -1]), "a", "b") == 1.0
    assert score(trace(["b", "a"], [1, -1]), "a", "b") == 0.0
    assert score(trace(["a", "b"], [0, 0]), "a", "b") == 0.5
    assert score(trace(["a", "b"], [0, 0]), "a", "c") is None
    # four players, a in one seat and b in three: a's win beats all three, b's win beats a and ties a's other
    # two comparisons (both lost): 1 and 1/3, so equals average 1/4 * 1 + 3/4 * 1/3 = 1/2
    assert score(trace(["b", "a", "b", "b"], [-1, 1, -1, -1]), "a", "b") == 1.0
    assert score(trace(["b", "a", "b", "b"], [1, -1, -1, -1]), "a", "b") == pytest.approx(1 / 3)
    assert 0.25 * 1 + 0.75 * (1 / 3) == pytest.approx(0.5)


# --- module:attribute agents ---------------------------------------------------------------------------


def test_a_module_attribute_agent_loads_only_with_trust(tmp_path, monkeypatch):
    (tmp_path / "my_agents_for_test.py").write_text(
        "import numpy as np\n"
        "def first_legal(observations, masks):\n"
        "    return np.argmax(masks, axis=1)\n"
        "NOT_AN_AGENT = 'text'\n"
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UntrustedFileError, match="imports my_agents_for_test"):
        load_opponent("my_agents_for_test:first_legal")
    agent = load_opponent("my_agents_for_test:first_legal", trust=True)
    assert agent.name == "my_agents_for_test:first_legal"
    from boardenvs.baselines.ladder import fingerprint, sha256_of

    assert fingerprint("my_agents_for_test:first_legal") == sha256_of(
        tmp_path / "my_agents_for_test.py"
    )  # its file, in traces
    assert fingerprint("greedy") is None and fingerprint("mcts:20") is None
    (t,) = play_matches("quagmire_v0", {}, [(0, 1)], [0], [agent, make_opponent("random")], np.random.default_rng(0))
    check_trace(t)
    with pytest.raises(ValueError, match="has no attribute 'missing'"):
        load_opponent("my_agents_for_test:missing", trust=True)
    with pytest.raises(ValueError, match="not an opponent"):
        load_opponent("my_agents_for_test:NOT_AN_AGENT", trust=True)
    with pytest.raises(ValueError, match="unknown opponent"):
        load_opponent("no_such_module_here:agent", trust=True)
