"""The maintainers' command line, ``python -m boardenvs.baselines.ladder``:
``build`` a ladder version, ``record`` an agent's rating on the leaderboard,
``check`` every committed game and rating.  (Users rate an agent with
``boardenvs rate``.)
"""

from __future__ import annotations

import argparse
import json
import sys

from .builder import build, record
from .checks import check_ladder, check_rated
from .store import ladder_names


def main(argv=None) -> int:
    from boardenvs.helptext import help_text

    overview = sys.modules[__package__].__doc__  # the package's: what a ladder is and how an agent is rated

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.ladder", description=help_text(overview))
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="play a new ladder version's games and fit its ratings (maintainers)")
    b.add_argument("name", help="a committed model's name (quess_v0, tryasina_v0_4p, ...)")
    b.add_argument("--games", type=int, default=64, help="games per pairing (default 64)")
    b.add_argument("--version", type=int, default=1)
    b.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("check", help="replay every committed ladder game and refit the ratings")
    c.add_argument("name", nargs="?", default=None)
    r = sub.add_parser("record", help="rate an agent on a ladder and keep it on the leaderboard (maintainers)")
    r.add_argument("name")
    r.add_argument("agent")
    r.add_argument("--precision", type=float, default=50)
    r.add_argument("--games", type=int, default=1000)
    r.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        if args.command == "build":
            print(
                json.dumps(
                    build(args.name, games=args.games, seed=args.seed, version=args.version)["members"], indent=1
                )
            )
        elif args.command == "record":
            result = record(args.name, args.agent, precision=args.precision, games=args.games, seed=args.seed)
            print(json.dumps(result, indent=1))
        else:
            for name in [args.name] if args.name else ladder_names():
                check_ladder(name)
                check_rated(name)
                print(f"{name}: every game replays to its result; the ratings are the games'")
    except ValueError as exc:
        ap.error(str(exc))
    return 0
