"""Command line: ``boardenvs demo`` (the README's main job), ``boardenvs play``
and ``boardenvs rules``.

``demo`` plays a few seeded games of every env between random agents through
the public AEC env, prints each final board and a results line per env.  ``play`` replays moves
given in notation and prints the position, e.g.
``boardenvs play quess_v0 F3-E3 A4-B4``.  ``rules`` prints a game's rules
as shipped with the package, e.g. ``boardenvs rules quess_v0``.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from . import ENV_IDS
from .registry import game_class, make, position


def random_game(env_id: str, seed: int, **options) -> tuple[object, dict, int]:
    """One game between uniformly random legal agents; returns the final
    Position, the cumulative rewards per agent and the number of steps."""
    env = make(env_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    final = None
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            if final is None:
                final = env.unwrapped.position()
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
            steps += 1
        env.step(action)
    return final, totals, steps


def demo(args) -> int:
    summaries = []
    for env_id in [args.env] if args.env else ENV_IDS:
        wins = {}
        t0 = time.perf_counter()
        for k in range(args.games):
            seed = args.seed + k
            final, totals, steps = random_game(env_id, seed)
            print(f"--- {env_id} game {k + 1} (seed {seed}): {steps} moves, {final.end_reason}")
            print(final)
            winner = [a for a, r in totals.items() if r > 0]
            key = winner[0] if len(winner) == 1 else ("draw" if not final.is_truncated else "truncated")
            wins[key] = wins.get(key, 0) + 1
            print("returns:", {a: int(r) for a, r in totals.items()})
        elapsed = time.perf_counter() - t0
        summary = ", ".join(f"{k} {v}" for k, v in sorted(wins.items()))
        summaries.append(f"results: {args.games} random-vs-random {env_id} games: {summary} ({elapsed:.2f} s)")
    print("\n".join(summaries))
    return 0


def play(args) -> int:
    pos = position(args.env, first_player=0)
    for move in args.moves:
        pos = pos.play(move)
    print(pos)
    print("legal:", ", ".join(pos.legal_moves()))  # commas: a whole turn may hold spaces (Quicksand)
    return 0


def rules_text(env_id: str | None) -> str:
    """The rules file of ``env_id`` shipped in the package (or, for None, the
    common conventions and the list of games)."""
    from importlib import resources

    name = "README.md" if env_id is None else game_class(env_id).rules_file
    return resources.files("boardenvs").joinpath("rules", name).read_text(encoding="utf-8")


def rules(args) -> int:
    print(rules_text(args.env), end="")
    return 0


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {text!r}")
    return int(text)


def _games(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"the number of games is a positive integer, got {text!r}")
    return int(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="boardenvs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="seeded random-vs-random games, boards and a results line")
    d.add_argument("--env", default=None, choices=ENV_IDS, help="one env (default: every env)")
    d.add_argument("--games", type=_games, default=3)
    d.add_argument("--seed", type=_seed, default=0)
    d.set_defaults(func=demo)
    p = sub.add_parser("play", help="play moves in notation from the initial position and print it")
    p.add_argument("env", choices=ENV_IDS)
    p.add_argument("moves", nargs="*")
    p.set_defaults(func=play)
    r = sub.add_parser("rules", help="print a game's rules (no id: the common conventions)")
    r.add_argument("env", nargs="?", choices=ENV_IDS)
    r.set_defaults(func=rules)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
