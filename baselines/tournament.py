"""How strong are the baselines?  A seeded round-robin with confidence
intervals and Elo.

    python -m boardenvs.baselines.tournament quess_v0
    python -m boardenvs.baselines.tournament hex_quoridor_v0 --players 4 --games 200
    python -m boardenvs.baselines.tournament tryasina_v0_4p --games 200 --games-vs random=2000
    python -m boardenvs.baselines.tournament all

Players: the committed model (``baseline:<name>``) and the reference
opponents ``random``, ``greedy`` and ``mcts`` (100 simulations per move),
or those given with ``--players-list``.  Every pair plays
``--games`` games (``--games-vs NAME=N``: N for the model against NAME)
through the batched single-agent view (two players: each
in each seat for half the games; more players: the model in one seat and
one opponent in all the others, every seat in turn, and each reference
opponent against three random ones).
Models play their most likely legal action
(``deterministic=True``).  Each result is the first player's win/draw/loss count with a 95% Wilson
interval on its win rate and its score (win 1, draw 1/2).  Two-player games
get Elo ratings fitted to every game of the round-robin (Bradley-Terry,
``random`` = 0); games of more players report the win rate against the
chance level ``1 / players`` instead.

Results go to ``baselines/results.json`` (one entry per model, with the
command, the machine, its load average and the date) and
``baselines/results.md`` (the tables); the documentation site's Baselines
page is built from those two files (``make docs``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
TABLE = HERE / "results.md"
REFERENCE = ("random", "greedy", "mcts")


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``k / n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(players: list[str], results: list[dict], anchor: str = "random", iterations: int = 2000) -> dict:
    """Bradley-Terry ratings on the Elo scale (400 log10 odds) from every
    game between two players (a draw is half a win each), ``anchor`` = 0.
    A prior of one draw against the anchor keeps a player who won or lost
    everything finite."""
    idx = {p: i for i, p in enumerate(players)}
    n = len(players)
    wins = np.zeros((n, n))
    for r in results:
        a, b = idx[r["agent"]], idx[r["opponent"]]
        wins[a, b] += r["wins"] + 0.5 * r["draws"]
        wins[b, a] += r["losses"] + 0.5 * r["draws"]
    k = idx.get(anchor, 0)
    for i in range(n):
        if i != k:
            wins[i, k] += 0.5
            wins[k, i] += 0.5
    games = wins + wins.T
    strength = np.ones(n)
    for _ in range(iterations):  # the minorisation-maximisation update of Bradley-Terry
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = wins.sum(axis=1) / np.maximum(denom, 1e-12)
        new = np.maximum(new, 1e-12)
        new /= new[k]
        if np.allclose(new, strength, rtol=1e-10):
            break
        strength = new
    return {p: round(400 * math.log10(strength[idx[p]]), 1) for p in players}


def play(agent: str, opponent: str, env_id: str, options: dict, games: int, seed: int) -> dict:
    """``games`` games of ``agent`` against ``opponent`` (in every other seat),
    seats split evenly; counts from the agent's side."""
    from boardenvs.registry import make_game
    from boardenvs.wrappers import evaluate
    from boardenvs.opponents import make_opponent

    # built once for every seat (a "baseline:<name>" loads its model here and
    # plays its most likely legal action)
    agent_player, opponent_player = make_opponent(agent), make_opponent(opponent)
    seats = make_game(env_id, **options).num_players
    total = {"wins": 0, "draws": 0, "losses": 0, "games": 0, "by_seat": {}}
    for seat in range(seats):
        n = games // seats + (1 if seat < games % seats else 0)
        if n == 0:
            continue
        res = evaluate(agent_player, env_id, games=n, opponent=opponent_player, seat=seat, seed=seed + 1000 * seat,
                       **options)  # fmt: skip
        for key in ("wins", "draws", "losses", "games"):
            total[key] += res[key]
        total["by_seat"][seat] = [res["wins"], res["draws"], res["losses"]]
    return total


def round_robin(name: str, games: int = 200, players: list[str] | None = None, seed: int = 0, verbose: bool = True,
                games_vs: dict | None = None) -> dict:  # fmt: skip
    """Every pair of ``players`` (default: the model and the
    reference opponents) on the model's game; returns the entry written to
    results.json.  ``games_vs``: ``{opponent: games}`` for the first
    player's (the model's) games against that opponent instead of
    ``games`` (a tighter interval where a target is judged and games are
    cheap).  ``games`` and each of ``games_vs`` are ints in
    ``1..MAX_GAMES`` (10**7, :func:`boardenvs.wrappers.evaluate`'s bound;
    ValueError otherwise, before any game is played)."""
    from . import load

    baseline = load(name)
    env_id, options = baseline.env_id, baseline.options
    from boardenvs.registry import make_game

    num_players = make_game(env_id, **options).num_players
    players = players or [f"baseline:{name}", *REFERENCE]
    if num_players == 2:  # every unordered pair, both seats (a vs b is b vs a seen from the other side)
        pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1:]]
    else:  # the first player in one seat, the other in all the others: each against everyone, and against random
        pairs = [(players[0], b) for b in players[1:]] + [(a, "random") for a in players[1:] if a != "random"]
    from boardenvs.spec import is_int
    from boardenvs.wrappers.evaluation import MAX_GAMES

    if not is_int(games) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(f"games must be at most {MAX_GAMES:_} (evaluate's bound), got {games!r}")
    games_vs = dict(games_vs or {})
    if set(games_vs) - set(players[1:]):
        raise ValueError(f"games_vs names {sorted(set(games_vs) - set(players[1:]))}, not among the opponents {players[1:]}")
    for opponent, n in games_vs.items():
        if not is_int(n) or n < 1:
            raise ValueError(f"games_vs[{opponent!r}] must be a positive int, got {n!r}")
        if n > MAX_GAMES:
            raise ValueError(f"games_vs[{opponent!r}] must be at most {MAX_GAMES:_} (evaluate's bound), got {n!r}")
    results = []
    load_start = _loadavg()
    for a, b in pairs:
        t0 = time.perf_counter()
        r = play(a, b, env_id, options, games_vs.get(b, games) if a == players[0] else games, seed)
        r.update(agent=a, opponent=b, seconds=round(time.perf_counter() - t0, 1))
        results.append(r)
        if verbose:
            print(f"[{name}] {a} vs {b}: {r['wins']}-{r['draws']}-{r['losses']} ({r['seconds']} s)", flush=True)
    entry = {
        "name": name, "env_id": env_id, "options": options, "num_players": num_players, "games": games,
        **({"games_vs": games_vs} if games_vs else {}), "seed": seed,
        "budget": baseline.config.get("budget"), "method": method(baseline.config), "results": results,
        "command": "python -m boardenvs.baselines.tournament " + " ".join(sys.argv[1:]) if __name__ == "__main__" else None,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "load": {"start": load_start, "end": _loadavg()},
    }  # fmt: skip
    if num_players == 2:
        entry["elo"] = elo(players, results)
    return entry


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def markdown(entries: dict) -> str:
    """The strength table of every evaluated model."""
    lines = [
        "| model | opponent | games | W-D-L | win rate [95% CI] | score | target |",
        "|---|---|---|---|---|---|---|",
    ]
    elo_lines = []
    for name in sorted(entries):
        e = entries[name]
        chance = 1.0 / e["num_players"]
        for r in e["results"]:
            if r["agent"] != f"baseline:{name}":
                continue
            n = r["games"]
            lo, hi = wilson(r["wins"], n)
            score = (r["wins"] + 0.5 * r["draws"]) / n
            target = _target(e, r["opponent"], r["wins"] / n, lo, chance)
            opp = r["opponent"] if e["num_players"] == 2 else f"{e['num_players'] - 1} x {r['opponent']}"
            lines.append(f"| {name} | {opp} | {n} | {r['wins']}-{r['draws']}-{r['losses']} | "
                         f"{_pct(r['wins'] / n)} [{_pct(lo)}, {_pct(hi)}] | {score:.3f} | {target} |")  # fmt: skip
        if "elo" in e:
            ratings = ", ".join(f"{p.replace('baseline:', '')} {v:+.0f}" for p, v in sorted(e["elo"].items(), key=lambda kv: -kv[1]))
            elo_lines.append(f"| {name} | {ratings} |")
    out = "\n".join(lines)
    if elo_lines:
        out += "\n\nElo (Bradley-Terry over the whole round-robin, random = 0):\n\n| game | ratings |\n|---|---|\n" + "\n".join(elo_lines)
    budgets = [f"| {n} | {e.get('method', 'PPO')} | {e['budget']['steps']:,} | {e['budget']['wall_s']} s | {e['budget']['cpu_s']} s |"
               for n, e in sorted(entries.items()) if e.get("budget")]  # fmt: skip
    if budgets:
        out += ("\n\nTraining budgets (`python -m boardenvs.baselines.train GAME`, `... distill GAME`; steps count "
                "the teacher's labelled decisions too; this repository's 2-core machine):\n\n")  # fmt: skip
        out += "| model | how | steps | wall | CPU |\n|---|---|---|---|---|\n" + "\n".join(budgets)
    return out + "\n"


def method(config: dict) -> str:
    """How a model was made, oldest step first, from its config's ``init``
    chain: ``"PPO"``, ``"distilled from greedy, PPO"``, ..."""
    steps = []
    while config:
        d = config.get("distilled")
        step = "PPO" if not d else f"distilled from {d['teacher']}" + (" (DAgger)" if d.get("student_share") else "")
        if not steps or steps[-1] != step:
            steps.append(step)
        config = config.get("init")
    return ", ".join(reversed(steps))


def _target(entry: dict, opponent: str, rate: float, low: float, chance: float) -> str:
    """The issue's strength targets, met or missed (on the point estimate)."""
    deterministic = not entry["env_id"].startswith("tryasina")
    if entry["num_players"] > 2:
        goal = 2 * chance if opponent == "random" else None
    elif opponent == "random":
        goal = 0.95 if deterministic else 0.65
    elif opponent == "mcts" and deterministic:
        goal = 0.55
    else:
        goal = None
    if goal is None:
        return "-"
    return f"{'met' if rate >= goal else 'missed'} (>= {_pct(goal)})"


def _loadavg() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes (None where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def write(entry: dict | None = None, results: Path = RESULTS, table: Path = TABLE) -> str:
    """Add ``entry`` (one model's round-robin) to ``results`` (JSON, one entry
    per model) and write every entry's tables to ``table``, the Markdown the
    docs' Baselines page shows; returns the tables."""
    entries = json.loads(results.read_text()) if results.is_file() else {}
    if entry is not None:
        entries[entry["name"]] = entry
        results.write_text(json.dumps(entries, indent=1) + "\n")
    text = markdown(entries)
    table.write_text("# Baselines' strength\n\n" + text)
    return text


def main(argv=None) -> int:
    from boardenvs.helptext import help_text

    from . import available

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.tournament", description=help_text(__doc__))
    ap.add_argument("game", help="a committed model's name (quess_v0, hex_quoridor_v0_4p, ...), an env id, or 'all'")
    ap.add_argument("--players", type=int, default=None, help="player count, with an env id")
    ap.add_argument("--games", type=int, default=200, help="games per ordered pair (default 200, at most 10,000,000)")
    ap.add_argument("--games-vs", action="append", default=[], metavar="NAME=N",
                    help="the model's games against opponent NAME instead of --games (e.g. random=2000; repeat the flag for more)")
    ap.add_argument("--players-list", default=None, help="comma-separated players (default: the model, random, greedy, mcts)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from boardenvs.wrappers.evaluation import MAX_GAMES

    if args.games < 1:
        ap.error(f"--games must be a positive int, got {args.games}")
    if args.games > MAX_GAMES:
        ap.error(f"--games must be at most {MAX_GAMES:_}, got {args.games}")
    from .train import model_name

    names = available() if args.game == "all" else [model_name(args.game, args.players) if args.players else args.game]
    for name in names:
        if name not in available():
            ap.error(f"no committed model {name!r}; available: {', '.join(available()) or '(none)'}")
    players = args.players_list.split(",") if args.players_list else None
    opponents, games_vs = (players[1:] if players else list(REFERENCE)), {}
    for item in args.games_vs:
        opponent, _, n = item.partition("=")
        if not opponent or not (n.isascii() and n.isdecimal()) or int(n) < 1:
            ap.error(f"--games-vs takes NAME=N with N a positive int (e.g. random=2000), got {item!r}")
        if int(n) > MAX_GAMES:
            ap.error(f"--games-vs {item}: N must be at most {MAX_GAMES:_}")
        if opponent not in opponents:
            ap.error(f"--games-vs {item}: {opponent!r} is not an opponent here ({', '.join(opponents)})")
        if opponent in games_vs:
            ap.error(f"--games-vs names {opponent!r} twice")
        games_vs[opponent] = int(n)
    for name in names:
        try:
            entry = round_robin(name, games=args.games, players=players, seed=args.seed, games_vs=games_vs)
        except ValueError as exc:  # e.g. a model whose weights no longer fit its game
            ap.error(str(exc))
        table = write(entry)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
