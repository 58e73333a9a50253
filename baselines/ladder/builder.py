"""Making the committed files: a ladder (:func:`build`: its members'
round-robin, every game a match trace, and the ratings fitted to them, a new
version each time, never overwriting one) and the leaderboard's entries
(:func:`record`: an agent rated on a ladder, its games kept beside it).
"""

from __future__ import annotations

import json
import os
import platform
import time

from boardenvs.files import write_atomically

from .binding import bind, digests
from .play import CHUNK, one_torch_thread, opening, play_chunk
from .rating import ANCHOR, SAMPLES, fit, rate_and_play
from .store import (
    fingerprint,
    ladder_path,
    load_ladder,
    model_config,
    rated_path,
    rated_traces_path,
    traces_path,
)


def default_members(name: str) -> list[str]:
    """Ladder v1's members for the committed model ``name`` (weakest first,
    roughly): random, greedy, mcts (100 simulations), the model and, with
    two players, its guided search of 100 simulations."""
    members = ["random", "greedy", "mcts", f"baseline:{name}"]
    if model_config(name)["options"].get("num_players", 2) == 2:
        members.append(f"search:100:{name}")
    return members


def build(
    name: str, members: list[str] | None = None, games: int = 64, seed: int = 0, version: int = 1, verbose: bool = True
) -> dict:
    """Play ladder ``version`` of the committed model ``name``: every pair of
    ``members`` (default :func:`default_members`) ``games`` games (two
    players: half in each seat; more: each of the pair in one seat against
    the other in the rest, ``games / 2`` each way, the seat rotating), write
    the traces and the ratings fitted to them.  Refuses to overwrite an
    existing version (a ladder never changes)."""
    from boardenvs.registry import make_game
    from boardenvs.traces import write_traces

    config = model_config(name)
    env_id = config["env_id"]
    game = make_game(env_id, **config["options"])
    P = game.num_players
    if games % (2 * P):
        raise ValueError(f"games must be a multiple of {2 * P} (every seat, both ways), got {games}")
    out = ladder_path(name, version)
    if out.exists():
        raise ValueError(f"{out} exists: a ladder never changes; build version {version + 1} instead")
    members = members or default_members(name)
    from boardenvs.opponents import make_opponent

    agents = [make_opponent(m) for m in members]
    names = [{"name": m, "sha256": fingerprint(m)} for m in members]
    options = dict(config["options"])
    open_k = opening(env_id)
    traces, seconds = [], {}
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            t0 = time.perf_counter()
            ways = [(i, j, games)] if P == 2 else [(i, j, games // 2), (j, i, games // 2)]
            new = []
            for one, other, n in ways:
                for c in range(0, n, CHUNK):
                    with one_torch_thread():
                        new += play_chunk(
                            env_id,
                            options,
                            agents,
                            names,
                            one,
                            other,
                            P,
                            seed,
                            (one, other, c // CHUNK),
                            min(CHUNK, n - c),
                            open_k,
                            {"ladder": f"{name} v{version}"},
                        )
            seconds[f"{members[i]}|{members[j]}"] = round(time.perf_counter() - t0, 1)
            traces += new
            if verbose:
                from boardenvs.traces import score

                s = sum(score(t, members[i], members[j]) for t in new)
                print(
                    f"[{name}] {members[i]} vs {members[j]}: {s:.1f} of {len(new)} "
                    f"({seconds[f'{members[i]}|{members[j]}']} s)",
                    flush=True,
                )
    rated = fit(members, traces, seed=seed)
    doc = {
        "ladder": name,
        "version": version,
        "env_id": env_id,
        "options": traces[0]["options"],
        "make_options": options,
        "players": P,
        "opening": open_k,
        "games_per_pair": games,
        "seed": seed,
        "chunk": CHUNK,
        "anchor": ANCHOR,
        "members": [
            {
                "name": m,
                "sha256": names[k]["sha256"],
                "elo": rated["elo"][m],
                "interval": rated["interval"][m],
                "games": rated["games"][m],
            }
            for k, m in enumerate(members)
        ],
        "pairs": rated["pairs"],
        "seconds": seconds,
        "samples": SAMPLES,
        "package": traces[0]["package"],
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "command": f"python -m boardenvs.baselines.ladder build {name}"
        + (f" --version {version}" if version != 1 else ""),
        "trace_digests": digests(traces),  # each game's and each field's: an edit is named (check_ladder)
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    write_traces(traces, traces_path(name, version))
    text = json.dumps(doc, indent=1) + "\n"
    write_atomically(out, lambda tmp: tmp.write_text(text), "ladder")
    return doc


def record(name: str, agent: str, precision: float = 50, games: int = 1000, seed: int = 0, progress=None) -> dict:
    """Rate ``agent`` on the newest ladder of ``name`` and keep the result on
    the leaderboard (:func:`rated_path`; the games appended to its traces,
    replacing that agent's earlier ones)."""
    from boardenvs.traces import read_traces, write_traces

    doc = load_ladder(name)
    env_id, version = doc["env_id"], doc["version"]
    games_path = rated_traces_path(name, version)
    result, new = rate_and_play(agent, env_id, doc["players"], games, precision, seed, version, False, None, progress)
    old = read_traces(games_path) if games_path.is_file() else []
    kept = [t for t in old if agent not in {a["name"] for a in t["agents"]}]
    write_traces(kept + new, games_path)
    path = rated_path(name, version)
    entries = json.loads(path.read_text()) if path.is_file() else {}
    result = {
        **result,
        "traces": games_path.name,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "command": f"python -m boardenvs.baselines.ladder record {name} {agent} --precision {precision:g} "
        f"--seed {seed}",
    }
    entries[agent] = {**result, **bind(new, agent)}  # the games it was rated on, by seat and by digest
    text = json.dumps(entries, indent=1) + "\n"
    write_atomically(path, lambda tmp: tmp.write_text(text), "leaderboard")
    return result
