"""What binds a recorded rating to its games, so that the leaderboard is
worth quoting: a rating file that cannot be edited, nor its games, without
:func:`boardenvs.baselines.ladder.check_rated` noticing.

Each agent's entry in ``v<version>.rated.json`` carries, besides its rating
(``binding`` version :data:`VERSION`):

* ``agent_sha256``: the content hash of the agent's files when it was rated
  (None for an agent of the package's code alone, such as ``mcts:20``);
* ``seats``: the seat(s) the agent held in each of its games, in the order
  of the trace file: its identity goes by seat, so relabelling the seats of
  a game (its losses read as wins) is caught;
* ``game_digests``: a digest of each game record (every field), and
  ``field_digests``: a digest of each field over all its games, so that an
  edit is named by game and by field.

The games themselves are replayed and their results recomputed on read
(:func:`boardenvs.traces.read_traces`), each game must belong to the ladder
(its game, options and ladder label), and every opponent in it must be a
ladder member with the file hash the ladder was built with.

A ladder's own file, ``v<version>.json``, carries the same digests of its
members' games (``trace_digests``: :func:`digests` of
``v<version>.jsonl.gz``), so an edit of the games that fixed the frozen
ratings is named by game and by field too
(:func:`boardenvs.baselines.ladder.check_ladder`).
"""

from __future__ import annotations

import hashlib
import json

VERSION = 1  # the "binding" an entry carries; an entry without one was recorded before ratings were bound


def _digest(value) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def seats_of(trace: dict, agent: str) -> str:
    """The seats ``agent`` holds in a game, as digits (``"0"``, ``"013"``)."""
    return "".join(str(s) for s, a in enumerate(trace["agents"]) if a["name"] == agent)


def _fields(traces: list[dict]) -> list[str]:
    return sorted({key for t in traces for key in t})


def digests(traces: list[dict]) -> dict:
    """``game_digests``, a digest of each game record (every field), and
    ``field_digests``, a digest of each field over all the games: what
    :func:`check_digests` compares a trace file with, to name an edit by game
    and by field."""
    return {
        "game_digests": [_digest(t) for t in traces],
        "field_digests": {f: _digest([t.get(f) for t in traces]) for f in _fields(traces)},
    }


def check_digests(bound: dict, traces: list[dict], lines, who: str, source: str) -> None:
    """ValueError unless ``traces`` (at ``lines`` of their file) are the
    games whose :func:`digests` are ``bound``: the message starts with
    ``who`` (whose games), names the changed games by line and the changed
    fields, and ends with what the games were (``source``: "it was rated
    on", "the ladder was built on")."""
    if len(bound["game_digests"]) != len(traces):
        raise ValueError(f"{who} trace file holds {len(traces)} games, {len(bound['game_digests'])} were digested")
    changed = [line for d, t, line in zip(bound["game_digests"], traces, lines) if _digest(t) != d]
    if changed:
        have = digests(traces)["field_digests"]
        rated = bound["field_digests"]
        fields = sorted(f for f in set(have) | set(rated) if have.get(f) != rated.get(f))
        raise ValueError(
            f"{who} game(s) at line(s) {changed[:5]} differ from the games {source}: "
            f"field(s) {fields or 'order'} changed"
        )


def bind(traces: list[dict], agent: str) -> dict:
    """The binding fields of ``agent``'s entry from its games (in file order)."""
    shas = {a["sha256"] for t in traces for a in t["agents"] if a["name"] == agent}
    if len(shas) != 1:
        raise ValueError(f"{agent}: its games name {len(shas)} different files for it; a rating is of one agent")
    return {
        "binding": VERSION,
        "agent_sha256": next(iter(shas)),
        "seats": [seats_of(t, agent) for t in traces],
        **digests(traces),
    }


def check_bound(entry: dict, traces: list[dict], lines: list[int], agent: str, ladder: dict, name: str) -> None:
    """ValueError, naming the game (its line in the trace file) and the
    field, unless ``agent``'s games (``traces``, at ``lines``) are the ones
    its ``entry`` was rated on, each a game of ``ladder`` against one of its
    members as the ladder was built."""
    label = f"{name} v{ladder['version']}"
    where = f"{label} (v{ladder['version']}.rated.jsonl.gz)"
    members = {m["name"]: m["sha256"] for m in ladder["members"]}
    for t, line in zip(traces, lines):
        at = f"{where}: {agent}'s game at line {line}"
        for field, want in (("env_id", ladder["env_id"]), ("options", ladder["options"])):
            if t.get(field) != want:
                raise ValueError(f"{at}: field {field!r} is {t.get(field)!r}, the ladder's is {want!r}")
        if t.get("ladder") != label:
            raise ValueError(f"{at}: field 'ladder' is {t.get('ladder')!r}, not a game of ladder {label}")
        for seat, a in enumerate(t["agents"]):
            if a["name"] == agent:
                continue
            if a["name"] not in members or a["sha256"] != members[a["name"]]:
                raise ValueError(
                    f"{at}: field 'agents' seat {seat}: {a['name']} ({a['sha256']}) is not a member of the "
                    "ladder as it was built (its name or its file's hash)"
                )
    if entry.get("binding") != VERSION:
        raise ValueError(
            f"{where}: {agent} was recorded without binding {VERSION} (no digest of its games): record it again"
        )
    if len(entry["game_digests"]) != len(traces):
        raise ValueError(
            f"{where}: {agent} was rated on {len(entry['game_digests'])} games, its traces hold {len(traces)}"
        )
    for k, (t, line) in enumerate(zip(traces, lines)):
        at = f"{where}: {agent}'s game at line {line}"
        if seats_of(t, agent) != entry["seats"][k]:
            raise ValueError(
                f"{at}: field 'agents': {agent} sits at seat(s) {seats_of(t, agent) or 'none'}, "
                f"it was rated at seat(s) {entry['seats'][k]}"
            )
        mine = {a["sha256"] for a in t["agents"] if a["name"] == agent}
        if mine != {entry["agent_sha256"]}:
            raise ValueError(f"{at}: field 'agents': {agent}'s file hash {sorted(mine)}, rated {entry['agent_sha256']}")
    check_digests(entry, traces, lines, f"{where}: {agent}'s", "it was rated on")
