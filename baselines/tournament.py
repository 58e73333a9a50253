"""How strong are the baselines?  A seeded round-robin with confidence
intervals and Elo.

    python -m boardenvs.baselines.tournament quess_v0
    python -m boardenvs.baselines.tournament hex_quoridor_v1 --players 4 --games 200
    python -m boardenvs.baselines.tournament tryasina_v0_4p --games 200 --games-vs random=2000
    python -m boardenvs.baselines.tournament all
    python -m boardenvs.baselines.tournament --rerate     # ratings again from results.json, no game played

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
``random`` = 0) with 95% intervals from a parametric bootstrap
(``--samples`` resamples, 1000 by default), each player's number of games,
and which differences are significant; games of more players report the
win rate against the chance level ``1 / players`` instead.  ``--rerate``
recomputes the ratings from the results already in ``results.json``.

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

from .ratings import anchor_prior, bradley_terry

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


def _wins_matrix(players: list[str], results: list[dict], anchor: str) -> tuple[np.ndarray, int]:
    """``wins[a, b]``: a's score against b over every game between them (a
    draw is half a win each), plus the prior of one draw against ``anchor``;
    and the anchor's index."""
    idx = {p: i for i, p in enumerate(players)}
    k = idx.get(anchor, 0)
    wins = anchor_prior(len(players), k)
    for r in results:
        a, b = idx[r["agent"]], idx[r["opponent"]]
        wins[a, b] += r["wins"] + 0.5 * r["draws"]
        wins[b, a] += r["losses"] + 0.5 * r["draws"]
    return wins, k


def elo(players: list[str], results: list[dict], anchor: str = "random", iterations: int = 2000) -> dict:
    """Bradley-Terry ratings on the Elo scale (400 log10 odds) from every
    game between two players (a draw is half a win each), ``anchor`` = 0.
    A prior of one draw against the anchor keeps a player who won or lost
    everything finite."""
    wins, k = _wins_matrix(players, results, anchor)
    ratings = bradley_terry(wins[None], k, iterations)[0]
    return {p: round(float(ratings[i]), 1) for i, p in enumerate(players)}


def elo_intervals(
    players: list[str],
    results: list[dict],
    anchor: str = "random",
    samples: int = 1000,
    seed: int = 0,
    iterations: int = 2000,
) -> dict:
    """:func:`elo` with 95% intervals from a parametric bootstrap: each of
    ``samples`` resamples draws every pair's games anew from its observed
    win/draw/loss shares, with half a win and half a loss added so that a
    clean sweep is not redrawn as a sweep every time (a multinomial of the same number of games), and
    refits the ratings (with the same prior, so they stay finite).  The
    interval of a rating is the 2.5th to 97.5th percentile of its
    resamples; a difference between two players is significant when the
    same interval of their resampled differences excludes 0.  The same
    ``seed`` gives the same intervals.

    Returns ``{"elo": {player: rating}, "interval": {player: [low, high]},
    "games": {player: games played}, "differences": [[a, b, low, high], ...]``
    (a's rating minus b's, a rated higher, every pair), ``"significant":
    [[stronger, weaker], ...]``, ``"samples"``, ``"seed"}``; the anchor's
    interval is ``[0, 0]``."""
    if samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    idx = {p: i for i, p in enumerate(players)}
    rng = np.random.default_rng(seed)
    draws = []  # per result: (samples, 3) resampled wins, draws, losses
    games = dict.fromkeys(players, 0)
    for r in results:
        counts = np.array([r["wins"], r["draws"], r["losses"]], dtype=np.int64)
        n = int(counts.sum())
        games[r["agent"]] += n
        games[r["opponent"]] += n
        # the shares with half a win and half a loss added: a sweep (100-0) is then redrawn as a sweep most of
        # the time but not always, so its interval says how few losses the games rule out (from the raw shares
        # every resample repeated the sweep and the interval on that side came from the prior alone)
        shares = (counts + np.array([0.5, 0.0, 0.5])) / (n + 1)
        draws.append(rng.multinomial(n, shares, size=samples) if n else np.zeros((samples, 3), np.int64))
    wins, k = _wins_matrix(players, [], anchor)  # the prior alone
    wins = np.repeat(wins[None], samples, axis=0)
    for r, d in zip(results, draws):
        a, b = idx[r["agent"]], idx[r["opponent"]]
        wins[:, a, b] += d[:, 0] + 0.5 * d[:, 1]
        wins[:, b, a] += d[:, 2] + 0.5 * d[:, 1]
    resampled = bradley_terry(wins, k, iterations)
    point = elo(players, results, anchor, iterations)
    low, high = np.percentile(resampled, [2.5, 97.5], axis=0)
    interval = {p: [round(float(low[i]), 1), round(float(high[i]), 1)] for i, p in enumerate(players)}
    order = sorted(players, key=lambda p: -point[p])
    differences, significant = [], []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            lo, hi = np.percentile(resampled[:, idx[a]] - resampled[:, idx[b]], [2.5, 97.5])
            differences.append([a, b, round(float(lo), 1), round(float(hi), 1)])
            if lo > 0 or hi < 0:
                significant.append([a, b] if lo > 0 else [b, a])
    return {
        "elo": point,
        "interval": interval,
        "games": games,
        "differences": differences,
        "significant": significant,
        "samples": samples,
        "seed": seed,
    }


def rate(entry: dict, samples: int = 1000) -> dict:
    """Set a two-player entry's ratings from its stored per-pair results
    (no game is played): ``elo`` ({player: rating}), ``elo_interval``,
    ``elo_games``, ``elo_differences``, ``elo_significant`` and
    ``elo_bootstrap`` (resamples and seed: the entry's seed) from
    :func:`elo_intervals`; returns the entry."""
    players = list(entry.get("elo") or [])
    for r in entry["results"]:
        players += [p for p in (r["agent"], r["opponent"]) if p not in players]
    fit = elo_intervals(players, entry["results"], samples=samples, seed=entry.get("seed", 0))
    entry["elo"] = fit["elo"]
    entry.update(
        elo_interval=fit["interval"],
        elo_games=fit["games"],
        elo_differences=fit["differences"],
        elo_significant=fit["significant"],
        elo_bootstrap={"samples": samples, "seed": fit["seed"]},
    )
    return entry


def rerate(
    results: Path | None = None, table: Path | None = None, names: list[str] | None = None, samples: int = 1000
) -> str:
    """Recompute the ratings of every two-player entry of ``results``
    (default: ``baselines/results.json``; or of ``names`` only) from its
    stored per-pair results, without playing, and rewrite ``results`` and
    ``table`` (``baselines/results.md``); returns the tables."""
    results, table = results or RESULTS, table or TABLE
    entries = json.loads(results.read_text())
    for name, entry in entries.items():
        if entry["num_players"] == 2 and (names is None or name in names):
            rate(entry, samples)
    _write_text(results, json.dumps(entries, indent=1) + "\n", "results")
    return write(results=results, table=table)


def play(agent: str, opponent: str, env_id: str, options: dict, games: int, seed: int) -> dict:
    """``games`` games of ``agent`` against ``opponent`` (in every other seat),
    seats split evenly; counts from the agent's side."""
    from boardenvs.wrappers import evaluate

    from boardenvs.opponents import make_opponent
    from boardenvs.registry import make_game

    # built once for every seat (a "baseline:<name>" loads its model here and
    # plays its most likely legal action)
    agent_player, opponent_player = make_opponent(agent), make_opponent(opponent)
    seats = make_game(env_id, **options).num_players
    total = {"wins": 0, "draws": 0, "losses": 0, "games": 0, "by_seat": {}}
    for seat in range(seats):
        n = games // seats + (1 if seat < games % seats else 0)
        if n == 0:
            continue
        res = evaluate(
            agent_player, env_id, games=n, opponent=opponent_player, seat=seat, seed=seed + 1000 * seat, **options
        )
        for key in ("wins", "draws", "losses", "games"):
            total[key] += res[key]
        total["by_seat"][seat] = [res["wins"], res["draws"], res["losses"]]
    return total


def round_robin(
    name: str,
    games: int = 200,
    players: list[str] | None = None,
    seed: int = 0,
    verbose: bool = True,
    games_vs: dict | None = None,
    samples: int = 1000,
) -> dict:
    """Every pair of ``players`` (default: the model and the
    reference opponents) on the model's game; returns the entry written to
    results.json.  ``games_vs``: ``{opponent: games}`` for the first
    player's (the model's) games against that opponent instead of
    ``games`` (a tighter interval where a target is judged and games are
    cheap).  ``games`` and each of ``games_vs`` are ints in
    ``1..MAX_GAMES`` (10**7, :func:`boardenvs.wrappers.evaluate`'s bound;
    ValueError otherwise, before any game is played).  Two-player games
    get :func:`rate`'s ratings (``samples`` bootstrap resamples)."""
    from . import load

    baseline = load(name)
    env_id, options = baseline.env_id, baseline.options
    from boardenvs.registry import make_game

    num_players = make_game(env_id, **options).num_players
    players = players or [f"baseline:{name}", *REFERENCE]
    if num_players == 2:  # every unordered pair, both seats (a vs b is b vs a seen from the other side)
        pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]
    else:  # the first player in one seat, the other in all the others: each against everyone, and against random
        pairs = [(players[0], b) for b in players[1:]] + [(a, "random") for a in players[1:] if a != "random"]
    from boardenvs.wrappers.evaluation import MAX_GAMES

    from boardenvs.spec import is_int

    if not is_int(games) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(f"games must be at most {MAX_GAMES:_} (evaluate's bound), got {games!r}")
    games_vs = dict(games_vs or {})
    if set(games_vs) - set(players[1:]):
        raise ValueError(
            f"games_vs names {sorted(set(games_vs) - set(players[1:]))}, not among the opponents {players[1:]}"
        )
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
        "name": name,
        "env_id": env_id,
        "options": options,
        "num_players": num_players,
        "games": games,
        **({"games_vs": games_vs} if games_vs else {}),
        "seed": seed,
        "budget": baseline.config.get("budget"),
        "method": method(baseline.config),
        "results": results,
        "command": "python -m boardenvs.baselines.tournament " + " ".join(sys.argv[1:])
        if __name__ == "__main__"
        else None,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "load": {"start": load_start, "end": _loadavg()},
    }
    if num_players == 2:
        entry["elo"] = dict.fromkeys(players)  # the players' order
        rate(entry, samples)
    return entry


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def markdown(entries: dict) -> str:
    """The strength table of every evaluated model."""
    lines = [
        "| model | opponent | games | W-D-L | win rate [95% CI] | score | target |",
        "|---|---|---|---|---|---|---|",
    ]
    elo_lines, orders, samples = [], [], set()
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
            lines.append(
                f"| {name} | {opp} | {n} | {r['wins']}-{r['draws']}-{r['losses']} | "
                f"{_pct(r['wins'] / n)} [{_pct(lo)}, {_pct(hi)}] | {score:.3f} | {target} |"
            )
        if "elo" in e:
            elo_lines.append(_elo_rows(name, e))
            orders.append(f"| {name} | {_order(e)} |")
            samples.add(e.get("elo_bootstrap", {}).get("samples"))
    out = "\n".join(lines)
    if elo_lines and samples == {None}:  # entries rated before the intervals (rerate adds them)
        out += (
            "\n\nElo (Bradley-Terry over the whole round-robin, random = 0):\n\n| game | ratings |\n|---|---|\n"
            + "\n".join(elo_lines)
        )
    elif elo_lines:
        n = ", ".join(f"{k:,}" for k in sorted(x for x in samples if x)) or "-"
        out += (
            f"\n\nElo (Bradley-Terry over the whole round-robin, random = 0). The 95% interval of a rating is the "
            f"middle 95% of its refits over {n} parametric bootstrap resamples (each pair's games redrawn from "
            "its observed win/draw/loss shares, with half a win and half a loss added); a difference is "
            "significant when the middle 95% of its resampled differences excludes 0.\n\n"
            "| game | player | Elo [95% interval] | games | significantly stronger than |\n|---|---|---|---|---|\n"
            + "\n".join(elo_lines)
            + "\n\n† won (or lost) every game against some opponent: the rating's distance to that opponent "
            "comes mostly from the prior (one draw against random), and its interval from the half win and "
            "half loss added to the shares: read it as a bound (at least this far apart), not a measurement.\n\n"
            "| game | order (`>` significantly stronger, `≈` not significantly different) |\n|---|---|\n"
            + "\n".join(orders)
        )
    budgets = [
        f"| {n} | {e.get('method', 'PPO')} | {e['budget']['steps']:,} | {e['budget']['wall_s']} s | "
        f"{e['budget']['cpu_s']} s |"
        for n, e in sorted(entries.items())
        if e.get("budget")
    ]
    if budgets:
        out += (
            "\n\nTraining budgets (`python -m boardenvs.baselines.train GAME`, `... distill GAME`; steps count "
            "the teacher's labelled decisions too; this repository's 2-core machine):\n\n"
        )
        out += "| model | how | steps | wall | CPU |\n|---|---|---|---|---|\n" + "\n".join(budgets)
    return out + "\n"


def _short(player: str) -> str:
    return player.replace("baseline:", "")


def _elo_rows(name: str, e: dict) -> str:
    """A game's Elo rows: one per player, strongest first (one row of
    ratings for an entry without intervals)."""
    ranked = sorted(e["elo"], key=lambda p: -e["elo"][p])
    if "elo_interval" not in e:
        return f"| {name} | " + ", ".join(f"{_short(p)} {e['elo'][p]:+.0f}" for p in ranked) + " |"
    swept = {
        p
        for r in e["results"]
        for p, won in ((r["agent"], r["wins"]), (r["opponent"], r["losses"]))
        if r["games"] and won in (0, r["games"])
    }
    rows = []
    for p in ranked:
        lo, hi = e["elo_interval"][p]
        rating = (
            f"{e['elo'][p]:+.0f} (anchor)"
            if lo == hi == e["elo"][p] == 0
            else f"{e['elo'][p]:+.0f} [{lo:+.0f}, {hi:+.0f}]"
        )
        weaker = ", ".join(_short(b) for a, b in e["elo_significant"] if a == p) or "-"
        mark = "†" if p in swept and lo != hi else ""
        rows.append(f"| {name} | {_short(p)} | {rating}{mark} | {e['elo_games'][p]:,} | {weaker} |")
    return "\n".join(rows)


def _order(e: dict) -> str:
    """The players strongest first, ``>`` between neighbours whose
    difference is significant, ``≈`` otherwise; then the pairs further apart
    that this chain would misread (a ``>`` between them but not
    significantly different, or only ``≈`` but significant)."""
    if "elo_significant" not in e:
        return "-"
    ranked = sorted(e["elo"], key=lambda p: -e["elo"][p])
    sig = {tuple(x) for x in e["elo_significant"]}
    apart = lambda a, b: (a, b) in sig or (b, a) in sig  # noqa: E731
    out = _short(ranked[0])
    for a, b in zip(ranked, ranked[1:]):
        out += f" {'>' if apart(a, b) else '≈'} {_short(b)}"
    notes = []
    for i, a in enumerate(ranked):
        for j in range(i + 2, len(ranked)):
            b = ranked[j]
            chain = any(apart(ranked[m], ranked[m + 1]) for m in range(i, j))
            if chain != apart(a, b):
                rel = ">" if (a, b) in sig else "<" if (b, a) in sig else "≈"
                notes.append(f"{_short(a)} {rel} {_short(b)}")
    return out + (f" (but {', '.join(notes)})" if notes else "")


def method(config: dict) -> str:
    """How a model was made, oldest step first, from its config's ``init``
    chain: ``"PPO"``, ``"distilled from greedy, PPO"``, ...; runs of expert
    iteration one after the other count as one step, their iterations
    added."""
    steps = []  # newest first: [kind, text, iterations]
    while config:
        d, x = config.get("distilled"), config.get("expert_iteration")
        if x:
            step = ["xi", f"search:{x['simulations']}", len(x["iterations"])]
        else:
            step = [
                "made",
                "PPO" if not d else f"distilled from {d['teacher']}" + (" (DAgger)" if d.get("student_share") else ""),
                0,
            ]
        if steps and steps[-1][:2] == step[:2]:
            steps[-1][2] += step[2]  # the same step again: one step (expert iteration's iterations added up)
        else:
            steps.append(step)
        config = config.get("init")
    return ", ".join(
        f"expert iteration ({text}, {n} iteration{'s' * (n != 1)})" if kind == "xi" else text
        for kind, text, n in reversed(steps)
    )


def _target(entry: dict, opponent: str, rate: float, low: float, chance: float) -> str:
    """The issue's strength targets, met or missed (on the point estimate)."""
    from boardenvs.registry import make_game

    deterministic = make_game(entry["env_id"]).num_chance_outcomes == 0  # no chance nodes (its declaration says)
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
        _write_text(results, json.dumps(entries, indent=1) + "\n", "results")
    text = markdown(entries)
    _write_text(table, "# Baselines' strength\n\n" + text, "results table")
    return text


def _write_text(path: Path, text: str, what: str) -> None:
    """``text`` to ``path``, whole or not at all (:func:`boardenvs.files.write_atomically`)."""
    from boardenvs.files import write_atomically

    write_atomically(path, lambda tmp: tmp.write_text(text), what)


def main(argv=None) -> int:
    from boardenvs.helptext import TRAINING_SEED, help_text

    from . import available

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.tournament", description=help_text(__doc__))
    ap.add_argument(
        "game",
        nargs="?",
        help="a committed model's name (quess_v0, hex_quoridor_v1_4p, ...), an env id, "
        "or 'all' (with --rerate: the default)",
    )
    ap.add_argument("--players", type=int, default=None, help="player count, with an env id")
    ap.add_argument("--games", type=int, default=200, help="games per ordered pair (default 200, at most 10,000,000)")
    ap.add_argument(
        "--games-vs",
        action="append",
        default=[],
        metavar="NAME=N",
        help="the model's games against opponent NAME instead of --games (e.g. random=2000; repeat the flag for more)",
    )
    ap.add_argument(
        "--players-list", default=None, help="comma-separated players (default: the model, random, greedy, mcts)"
    )
    ap.add_argument("--seed", type=TRAINING_SEED, default=0)
    ap.add_argument("--samples", type=int, default=1000, help="bootstrap resamples of the Elo intervals (default 1000)")
    ap.add_argument(
        "--rerate",
        action="store_true",
        help="play nothing: recompute the ratings of results.json's entries (GAME's, or every one) from "
        "their stored results and rewrite results.json and results.md",
    )
    args = ap.parse_args(argv)
    if args.samples < 1:
        ap.error(f"--samples must be a positive int, got {args.samples}")
    if args.rerate:
        entries = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
        names = None if args.game in (None, "all") else [args.game]
        if names and names[0] not in entries:
            ap.error(f"no entry {names[0]!r} in {RESULTS.name}; entries: {', '.join(sorted(entries)) or '(none)'}")
        print(rerate(names=names, samples=args.samples))
        return 0
    if args.game is None:
        ap.error("the following arguments are required: game (or --rerate)")
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
            entry = round_robin(
                name, games=args.games, players=players, seed=args.seed, games_vs=games_vs, samples=args.samples
            )
        except ValueError as exc:  # e.g. a model whose weights no longer fit its game
            ap.error(str(exc))
        table = write(entry)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
