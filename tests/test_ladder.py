"""The rating ladders and ``boardenvs rate`` (boardenvs.baselines.ladder):
the rating math, a ladder of the test's own, ratings and their traces, the
committed ladders and the leaderboard page (match traces themselves:
tests/test_traces.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from boardenvs.baselines import ladder

from boardenvs import cli
from boardenvs.traces import read_traces

ROOT = Path(__file__).resolve().parent.parent


# --- the rating math ---------------------------------------------------------------------------------


def test_rating_of_recovers_a_known_rating_and_orders_scores():
    opponents = np.array([0.0, 400.0, 800.0])
    games = np.array([1e6, 1e6, 1e6])
    for true in (-200.0, 300.0, 650.0, 1200.0):
        p = 1 / (1 + 10 ** ((opponents - true) / 400))
        assert ladder.rating_of(opponents, games * p, games)[0] == pytest.approx(true, abs=0.5)
    few = np.array([10.0, 10.0, 10.0])
    r = ladder.rating_of(opponents, np.array([[5, 3, 1], [6, 3, 1], [10, 10, 10]]), few)
    assert r[0] < r[1] < r[2] < 4000  # a clean sweep stays finite (the prior's draw against 0)


def test_fit_recovers_ratings_from_games():
    # synthetic games between three players rated 0, 200, 600: the fit finds them within its interval
    rng = np.random.default_rng(1)
    true = {"random": 0.0, "b": 200.0, "c": 600.0}
    traces = []
    for a, b in (("random", "b"), ("random", "c"), ("b", "c")):
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        for _ in range(400):
            win = rng.random() < p
            traces.append({"agents": [{"name": a}, {"name": b}], "returns": [1, -1] if win else [-1, 1]})
    fit = ladder.fit(["random", "b", "c"], traces, samples=300)
    for m, r in true.items():
        lo, hi = fit["interval"][m]
        assert lo <= r <= hi and lo <= fit["elo"][m] <= hi, (m, fit)
    assert fit["interval"]["random"] == [0.0, 0.0] and fit["games"]["b"] == 800


# --- a ladder and a rating, on a small ladder of this test's own ---------------------------------------


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Ladder v1 of quagmire_v0 with three cheap members, in a folder of its own."""
    folder = tmp_path_factory.mktemp("ladders")
    saved = ladder.LADDERS
    ladder.LADDERS = folder
    try:
        ladder.build("quagmire_v0", members=["random", "greedy", "baseline:quagmire_v0"], games=32, verbose=False)
    finally:
        ladder.LADDERS = saved  # (each test that uses it sets it again: on_toy)
    return folder


@pytest.fixture
def on_toy(toy, monkeypatch):
    monkeypatch.setattr(ladder, "LADDERS", toy)
    return toy


def test_a_built_ladder_replays_and_refits_and_never_changes(on_toy):
    doc = ladder.load_ladder("quagmire_v0")
    assert doc["version"] == 1 and [m["name"] for m in doc["members"]] == ["random", "greedy", "baseline:quagmire_v0"]
    assert doc["members"][2]["sha256"] == ladder.sha256_of(ladder.MODELS / "quagmire_v0.pt")
    refit = ladder.check_ladder("quagmire_v0")
    assert refit["games"] == {"random": 64, "greedy": 64, "baseline:quagmire_v0": 64}
    with pytest.raises(ValueError, match="never changes"):
        ladder.build("quagmire_v0", members=["random", "greedy"], games=32, verbose=False)


def test_a_changed_ladder_or_member_file_is_caught(on_toy, tmp_path, monkeypatch):
    path = on_toy / "quagmire_v0" / "v1.json"
    original = path.read_text()
    try:
        doc = json.loads(original)
        doc["members"][1]["elo"] += 10
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match="greedy is rated"):
            ladder.check_ladder("quagmire_v0")
        path.write_text(original)
        monkeypatch.setattr(ladder, "fingerprint", lambda spec: "0" * 64 if spec.startswith("baseline:") else None)
        with pytest.raises(ValueError, match="file changed since the ladder was built"):
            ladder.check_ladder("quagmire_v0")
    finally:
        path.write_text(original)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["members"][1].pop("elo"), "member 1: no field 'elo'"),
        (lambda d: d.pop("make_options"), "no field 'make_options'"),
        (lambda d: d.update(players="2"), "field 'players' must be an int in 2..6, got '2'"),
        (lambda d: d["members"][0].update(interval=[5, 1]), "member 0: field 'interval' must be [low, high]"),
        (lambda d: d["members"][2].update(elo=float("nan")), "member 2: field 'elo' must be a finite number"),
        (lambda d: d.update(members={"random": 0}), "field 'members' must be a non-empty list"),
        (lambda d: d.update(anchor="nobody"), "the anchor 'nobody' is no member"),
        (lambda d: d["members"].append(dict(d["members"][0])), "member 3: 'random' is a member twice"),
    ],
)
def test_a_ladder_file_out_of_its_schema_is_refused_naming_the_field(on_toy, change, field):
    """C-6: a ladder file whose member lacks ``elo``, that has no
    ``make_options`` or gives ``players`` as a string raised KeyError or
    TypeError from inside the loader; ``load_ladder`` and ``rate_traces``
    now check every field their readers use (:func:`check_ladder_doc`) and
    refuse with one ValueError naming it, and the file is left as it was."""
    path = on_toy / "quagmire_v0" / "v1.json"
    original = path.read_text()
    doc = json.loads(original)
    assert ladder.check_ladder_doc(doc) is doc  # the file as built passes
    change(doc)
    try:
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match="v1.json of the quagmire_v0 ladder: " + re.escape(field)):
            ladder.load_ladder("quagmire_v0")
        with pytest.raises(ValueError, match=re.escape(field)):
            ladder.rate_traces([], doc, "greedy")
        assert path.read_text() == json.dumps(doc)
        path.write_text("{not json")
        with pytest.raises(ValueError, match="v1.json of the quagmire_v0 ladder is no JSON"):
            ladder.load_ladder("quagmire_v0")
    finally:
        path.write_text(original)
    assert ladder.load_ladder("quagmire_v0") == json.loads(original)


def test_an_edited_ladder_game_fails_the_check_naming_the_game_and_the_field(on_toy):
    """The ladder's file carries a digest of each of its members' games and
    of each field over them (``trace_digests``), so an edit of the games the
    frozen ratings were fitted to, even one the ratings do not see (a seed,
    the package), fails ``check_ladder`` naming the game's line and the
    field.  The files are restored afterwards."""
    from boardenvs.traces import write_traces

    games_path, doc_path = on_toy / "quagmire_v0" / "v1.jsonl.gz", on_toy / "quagmire_v0" / "v1.json"
    honest_games, honest_doc = games_path.read_bytes(), doc_path.read_text()
    traces = read_traces(games_path, check=False)
    assert len(json.loads(honest_doc)["trace_digests"]["game_digests"]) == len(traces) == 96

    def forged(edit, words, doc_edit=None):
        copy = json.loads(json.dumps(traces))
        edit(copy)
        write_traces(copy, games_path)
        doc = json.loads(honest_doc)
        if doc_edit:
            doc_edit(doc)
        doc_path.write_text(json.dumps(doc))
        try:
            with pytest.raises(ValueError, match=words):
                ladder.check_ladder("quagmire_v0")
        finally:
            games_path.write_bytes(honest_games)
            doc_path.write_text(honest_doc)

    where = r"ladder quagmire_v0 v1 \(v1\.jsonl\.gz\): "
    built = "differ from the games the ladder was built on"
    forged(lambda ts: ts[6].update(seed=999), where + rf"game\(s\) at line\(s\) \[7\] {built}: field\(s\) \['seed'\]")
    forged(lambda ts: ts[40].update(package="9.9.9"), rf"line\(s\) \[41\] {built}: field\(s\) \['package'\] changed")
    forged(lambda ts: ts[70]["agents"].reverse(), rf"line\(s\) \[71\] {built}: field\(s\) \['agents'\] changed")
    forged(lambda ts: ts.insert(3, ts.pop(20)), rf"line\(s\) \[4, 5, .*\] {built}: field\(s\) \[.*'actions'")
    forged(lambda ts: ts.pop(), where + "trace file holds 95 games, 96 were digested")
    forged(lambda ts: None, where + r"built without a digest of its games", lambda doc: doc.pop("trace_digests"))
    flipped = [-r for r in traces[12]["returns"]]
    forged(lambda ts: ts[12].update(returns=flipped), "line 13: replayed, the game ends")
    assert ladder.check_ladder("quagmire_v0")  # restored: it passes again


def test_rate_is_seeded_stops_at_its_precision_and_writes_replayable_traces(on_toy, tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.jsonl.gz"
    r = ladder.rate("mcts:20", "quagmire_v0", games=96, seed=3, traces=out, progress=ladder.QUIET)
    assert r["games"] == 96 and r["stopped"] == "games" and r["ladder"] == "quagmire_v0" and r["version"] == 1
    lo, hi = r["interval"]
    assert lo < r["rating"] < hi and r["half_width"] == pytest.approx((hi - lo) / 2, abs=0.1)
    assert set(r["by_member"]) == {"random", "greedy", "baseline:quagmire_v0"}
    assert sum(n for n, _ in r["by_member"].values()) == 96
    traces = read_traces(out)
    assert len(traces) == 96 and all(t["ladder"] == "quagmire_v0 v1" for t in traces)
    assert ladder.rate_traces(traces, ladder.load_ladder("quagmire_v0"), "mcts:20")["rating"] == r["rating"]
    again = ladder.rate("mcts:20", "quagmire_v0", games=96, seed=3, progress=ladder.QUIET)
    assert {k: again[k] for k in ("rating", "interval", "by_member")} == {
        k: r[k] for k in ("rating", "interval", "by_member")
    }
    # every seat equally often against each member
    for m in r["by_member"]:
        seats = [
            [a["name"] for a in t["agents"]].index("mcts:20")
            for t in traces
            if t["agents"][0]["name"] == m or t["agents"][1]["name"] == m
        ]
        assert seats.count(0) == seats.count(1)
    # a loose precision stops after the first round (every member once)
    loose = ladder.rate("mcts:20", "quagmire_v0", games=400, precision=5000, progress=ladder.QUIET)
    assert loose["stopped"] == "precision" and loose["games"] == 3 * ladder.CHUNK
    # a member rated again plays the others only
    member = ladder.rate("greedy", "quagmire_v0", games=32, progress=ladder.QUIET)
    assert set(member["by_member"]) <= {"random", "baseline:quagmire_v0"}
    # the command line: the result, the traces, and replay of one of them
    code = cli.main(
        ["rate", "mcts:20", "--game", "quagmire_v0", "--games", "48", "--traces", str(tmp_path / "c.jsonl"), "--quiet"]
    )
    text = capsys.readouterr().out
    assert code == 0 and re.search(
        r"mcts:20 on the quagmire_v0 ladder v1 \(random = 0\): [+-]\d+ \[[+-]\d+, [+-]\d+\]", text
    )
    assert "vs greedy: 16 games" in text
    assert cli.main(["replay", str(tmp_path / "c.jsonl"), "--game", "3"]) == 0
    text = capsys.readouterr().out
    assert "48 games in" in text and "game 3:" in text and "replays to its recorded result" in text
    assert cli.main(["replay", str(tmp_path / "c.jsonl"), "--game", "49"]) == 2
    assert "holds 48 games" in capsys.readouterr().err
    assert cli.main(["rate", "mcts:20", "--game", "quagmire_v0", "--games", "16", "--json", "--no-traces"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 16
    # by default the traces go to runs/ in the current folder, named after the ladder, the agent and the seed
    monkeypatch.chdir(tmp_path)
    assert cli.main(["rate", "quagmire_v0", "mcts:20", "--games", "16", "--quiet", "--seed", "2"]) == 0
    assert len(read_traces(tmp_path / "runs" / "rating-quagmire_v0-mcts_20-seed2.jsonl.gz")) == 16


def test_with_more_players_the_agent_plays_both_ways_in_every_seat(tmp_path, monkeypatch):
    monkeypatch.setattr(ladder, "LADDERS", tmp_path)
    ladder.build("tryasina_v0_4p", members=["random", "greedy"], games=16, verbose=False)
    doc = ladder.load_ladder("tryasina_v0_4p")
    assert doc["players"] == 4 and doc["opening"] == 0 and doc["make_options"] == {"num_players": 4}
    ladder.check_ladder("tryasina_v0_4p")
    out = tmp_path / "r.jsonl"
    r = ladder.rate("mcts:4", "tryasina_v0", players=4, games=32, traces=out, progress=ladder.QUIET)
    assert r["ladder"] == "tryasina_v0_4p" and r["by_member"].keys() == {"random", "greedy"}
    for member in ("random", "greedy"):
        games = [
            [a["name"] for a in t["agents"]] for t in read_traces(out) if member in {a["name"] for a in t["agents"]}
        ]
        assert len(games) == 16
        single = [names.index("mcts:4") for names in games if names.count("mcts:4") == 1]
        three = [names.index(member) for names in games if names.count("mcts:4") == 3]
        assert sorted(single) == sorted(three) == [0, 0, 1, 1, 2, 2, 3, 3]  # both ways, every seat


def test_recorded_ratings_are_checked_against_their_games(on_toy):
    folder = on_toy / "quagmire_v0"
    try:
        first = ladder.record("quagmire_v0", "mcts:20", games=48, progress=ladder.QUIET)
        ladder.record("quagmire_v0", "mcts:10", games=32, progress=ladder.QUIET)
        again = ladder.record("quagmire_v0", "mcts:20", games=48, progress=ladder.QUIET)  # replaces its games
        assert again["rating"] == first["rating"]
        checked = ladder.check_rated("quagmire_v0")
        assert set(checked) == {"mcts:20", "mcts:10"} and checked["mcts:20"] == first["rating"]
        assert len(read_traces(folder / "v1.rated.jsonl.gz")) == 48 + 32
        page = ladder.markdown()
        assert (
            f"| `mcts:20` | {first['rating']:+.0f} [{first['interval'][0]:+.0f}, {first['interval'][1]:+.0f}] | 48 |"
            in page
        )
        _forgeries_fail_the_check(folder, "mcts:20")
        entries = json.loads((folder / "v1.rated.json").read_text())
        entries["mcts:20"]["rating"] += 5
        (folder / "v1.rated.json").write_text(json.dumps(entries))
        with pytest.raises(ValueError, match="mcts:20 is recorded at"):
            ladder.check_rated("quagmire_v0")
    finally:
        for f in ("v1.rated.json", "v1.rated.jsonl.gz"):
            (folder / f).unlink(missing_ok=True)


def _forgeries_fail_the_check(folder: Path, agent: str) -> None:
    """Each edit of a rated agent's games or entry fails ``check_rated``
    with a message naming the game (its line) and the field: a trace binds
    its rating.  The files are restored afterwards."""
    from boardenvs.traces import write_traces

    games_path, rated = folder / "v1.rated.jsonl.gz", folder / "v1.rated.json"
    honest_games, honest_entries = games_path.read_bytes(), rated.read_text()
    traces = read_traces(games_path, check=False)
    mine = [k for k, t in enumerate(traces) if agent in {a["name"] for a in t["agents"]}]
    seat = {k: [a["name"] for a in traces[k]["agents"]].index(agent) for k in mine}
    lost = next(k for k in mine if traces[k]["returns"][seat[k]] < max(traces[k]["returns"]))
    member_game = next(k for k in mine if any(a["sha256"] for a in traces[k]["agents"]))

    def forged(edit, words, entry_edit=None):
        copy = json.loads(json.dumps(traces))
        edit(copy)
        write_traces(copy, games_path)
        entries = json.loads(honest_entries)
        if entry_edit:
            entry_edit(entries[agent])
        rated.write_text(json.dumps(entries))
        try:
            with pytest.raises(ValueError, match=words):
                ladder.check_rated("quagmire_v0")
        finally:
            games_path.write_bytes(honest_games)
            rated.write_text(honest_entries)

    def swap(ts):  # the seat labels of a game it lost swapped: the loss would read as a win
        ts[lost]["agents"].reverse()

    forged(swap, rf"line {lost + 1}: field 'agents': {agent} sits at seat\(s\) {1 - seat[lost]}, it was rated at")
    forged(  # ... and its seat in the entry edited to match: the game's digest differs
        swap,
        rf"line\(s\) \[{lost + 1}\] differ from the games it was rated on: field\(s\) \['agents'\] changed",
        lambda e: e["seats"].__setitem__(mine.index(lost), str(1 - seat[lost])),
    )
    flipped = [-r for r in traces[lost]["returns"]]
    forged(lambda ts: ts[lost].update(returns=flipped), rf"line {lost + 1}: replayed, the game ends")
    forged(
        lambda ts: [a.update(sha256="0" * 64) for a in ts[member_game]["agents"] if a["name"] != agent],
        rf"line {member_game + 1}: field 'agents' seat {1 - seat[member_game]}: .* is not a member of the ladder",
    )
    forged(lambda ts: ts[mine[0]].update(ladder="quagmire_v0 v2"), rf"line {mine[0] + 1}: field 'ladder'")
    forged(lambda ts: ts[mine[1]].update(options={"radius": 3}), rf"line {mine[1] + 1}: field 'options'")
    forged(
        lambda ts: ts[mine[2]].update(package="9.9.9"),
        rf"line\(s\) \[{mine[2] + 1}\] differ .* field\(s\) \['package'\] changed",
    )
    forged(lambda ts: None, r"without binding 1 .* record it again", lambda e: e.pop("binding"))
    assert ladder.check_rated("quagmire_v0")  # restored: it passes again


def test_rate_refuses_bad_input_before_playing(on_toy, tmp_path):
    for kwargs, words in [
        ({"games": 5}, "at least 16"),
        ({"games": "many"}, "games must be"),
        ({"precision": -1}, "precision must be"),
        ({"precision": True}, "precision must be"),
        ({"seed": -1}, "seed must be"),
        ({"players": 4}, "no ladder for 'quagmire_v0_4p'"),
        ({"version": 7}, "no version 7"),
        ({"traces": tmp_path / "x.json"}, "must end in .jsonl"),
        ({"traces": tmp_path / "no" / "x.jsonl"}, "trace file"),
    ]:
        with pytest.raises(ValueError, match=words):
            ladder.rate("greedy", "quagmire_v0", progress=ladder.QUIET, **kwargs)
    with pytest.raises(ValueError, match="unknown opponent"):
        ladder.rate("nobody", "quagmire_v0", progress=ladder.QUIET)
    with pytest.raises(ValueError, match="no ladder for 'quess_v0'"):
        ladder.rate("greedy", "quess_v0", progress=ladder.QUIET)


def test_the_cli_refuses_a_bad_precision(capsys):
    with pytest.raises(SystemExit):
        cli.main(["rate", "greedy", "--game", "quagmire_v0", "--precision", "-3"])
    assert "a precision is a positive number" in capsys.readouterr().err


# --- the committed ladders and the leaderboard ------------------------------------------------------


@pytest.fixture(scope="module")
def refits():
    """Every committed ladder checked: each game replayed to its result, the member files' hashes, the ratings."""
    return {name: ladder.check_ladder(name) for name in ladder.ladder_names()}


def test_every_committed_model_has_a_ladder_and_every_ladder_replays_and_refits(refits):
    from boardenvs.baselines import available

    assert set(ladder.ladder_names()) == set(available())
    for name in ladder.ladder_names():
        doc = ladder.load_ladder(name)
        refit = refits[name]
        ladder.check_rated(name)  # the agents rated on it: each rating is what its committed games give
        assert {m["name"] for m in doc["members"]} >= {"random", "greedy", "mcts", f"baseline:{name}"}
        assert refit["elo"]["random"] == 0.0
        pairs = len(doc["members"]) * (len(doc["members"]) - 1) // 2
        assert sum(n for n, _ in refit["pairs"].values()) == pairs * doc["games_per_pair"]


def test_the_leaderboard_page_shows_the_ratings_the_committed_traces_give(refits):
    text = ladder.markdown()
    for name in ladder.ladder_names():
        refit = refits[name]
        section = text.split(f"## {name} (ladder v")[1].split("\n## ")[0]
        for member, elo in refit["elo"].items():
            lo, hi = refit["interval"][member]
            shown = "0 (anchor)" if member == "random" else f"{elo:+.0f} [{lo:+.0f}, {hi:+.0f}]"
            assert f"| `{member}` | {shown} |" in section, (name, member)
    page = (ROOT / "docs" / "leaderboard.md").read_text()
    assert "<!-- generated: leaderboard -->" in page
    # the page's example is the recorded rating of the Quess model (the same seed plays the same games)
    entry = json.loads((ladder.LADDERS / "quess_v0" / "v1.rated.json").read_text())["baseline:quess_v0"]
    lo, hi = entry["interval"]
    quoted = f"{entry['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}]"
    assert (
        f"--seed {entry['seed']}\n" in page
        and f"(random = 0): {quoted} (95%" in page
        and f"{entry['games']} games" in page
    )
    assert f"| `baseline:quess_v0` | {quoted} |" in text
