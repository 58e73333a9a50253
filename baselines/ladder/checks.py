"""Checking the committed files: every game of a ladder, and of the agents
rated on it, replayed to its recorded result (:mod:`boardenvs.traces`
checks each on read), every member's file still the one the ladder was
built with, and every frozen rating what its games give when refitted.
The test suite runs these on every committed ladder.
"""

from __future__ import annotations

import json

from .binding import check_bound, check_digests
from .rating import fit, rate_traces
from .store import fingerprint, load_ladder, rated_path, rated_traces_path, traces_path


def check_ladder(name: str, version: int | None = None) -> dict:
    """Replay and check every committed game of a ladder
    (:func:`boardenvs.traces.read_traces`) and refit its ratings from them;
    ValueError if a game does not replay to its result, a member's file
    changed since (a new version is due), a game is not the one the ladder
    was built on (its digest, :mod:`.binding`: the message names the game's
    line and the field), or the frozen ratings are not what the games give.
    Returns the refit."""
    from boardenvs.traces import read_traces

    ladder = load_ladder(name, version)
    traces = read_traces(traces_path(name, ladder["version"]))
    members = [m["name"] for m in ladder["members"]]
    for m in ladder["members"]:
        now = fingerprint(m["name"])
        if now != m["sha256"]:
            raise ValueError(
                f"ladder {name} v{ladder['version']}: {m['name']}'s file changed since the ladder was built "
                f"({m['sha256']} then, {now} now): build a new version"
            )
    label = f"ladder {name} v{ladder['version']} (v{ladder['version']}.jsonl.gz):"
    if "trace_digests" not in ladder:
        raise ValueError(f"{label} built without a digest of its games (trace_digests): build a new version")
    check_digests(ladder["trace_digests"], traces, range(1, len(traces) + 1), label, "the ladder was built on")
    for t in traces:
        if (
            t.get("ladder") != f"{name} v{ladder['version']}"
            or t["env_id"] != ladder["env_id"]
            or t["options"] != ladder["options"]
        ):
            raise ValueError(
                f"ladder {name} v{ladder['version']}: a trace of another ladder or game ({t.get('ladder')}, "
                f"{t['env_id']})"
            )
        for a in t["agents"]:
            if a["name"] not in members or a["sha256"] != ladder["members"][members.index(a["name"])]["sha256"]:
                raise ValueError(f"ladder {name}: a trace's agent {a} is not one of the ladder's members")
    refit = fit(members, traces, seed=ladder["seed"])
    for m in ladder["members"]:
        if refit["elo"][m["name"]] != m["elo"] or refit["interval"][m["name"]] != m["interval"]:
            raise ValueError(
                f"ladder {name} v{ladder['version']}: {m['name']} is rated {m['elo']} {m['interval']}, "
                f"its games give {refit['elo'][m['name']]} {refit['interval'][m['name']]}"
            )
    return refit


def check_rated(name: str, version: int | None = None) -> dict:
    """The agents rated on a ladder (:func:`record`): each one's games
    replayed and checked, bound to its entry (:mod:`.binding`: the games of
    this ladder against its members as built, the agent at the seats it was
    rated at, every record as it was rated), and its rating refitted from
    them; ValueError naming the game and the field otherwise, or if a rating
    is not what its games give.  Returns ``{agent: refitted rating}``."""
    from boardenvs.traces import read_traces

    doc = load_ladder(name, version)
    path = rated_path(name, doc["version"])
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text())
    traces = read_traces(rated_traces_path(name, doc["version"]))  # each game replayed to its recorded result
    out = {}
    for agent, entry in entries.items():
        lines = [k + 1 for k, t in enumerate(traces) if agent in {a["name"] for a in t["agents"]}]
        mine = [traces[k - 1] for k in lines]
        check_bound(entry, mine, lines, agent, doc, name)  # the games it was rated on, by seat, of this ladder
        if len(mine) != entry["games"]:
            raise ValueError(
                f"{name} v{doc['version']}: {agent} is recorded with {entry['games']} games, its traces "
                f"hold {len(mine)}"
            )
        refit = rate_traces(mine, doc, agent)
        if abs(refit["rating"] - entry["rating"]) > 0.11 or refit["by_member"] != entry["by_member"]:
            raise ValueError(
                f"{name} v{doc['version']}: {agent} is recorded at {entry['rating']}, its games give {refit['rating']}"
            )
        out[agent] = refit["rating"]
    return out
