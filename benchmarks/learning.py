"""Proof that the training path learns (the docs' "SB3VecEnv and self-play" tutorial).

    python benchmarks/learning.py --steps 150000
    python benchmarks/learning.py --steps 150000 --selfplay-steps 500000 --eval-every 100000

1. MaskablePPO on Quess against the random opponent, through SB3VecEnv (64
   games per call, the opponent's moves inside the kernel), then its win
   rate against random over 200 games (seats drawn per game);
2. MaskablePPO on Quagmire by self-play (a League + SB3SelfPlayCallback),
   then its win rate against random over 200 games from each seat (random
   Quagmire games are won by the first mover about 63% of the time).

Prints the results with the wall and CPU seconds of each run.
"""

from __future__ import annotations

import argparse
import time

from boardenvs.wrappers import SB3SelfPlayCallback, SB3VecEnv, evaluate
from sb3_contrib import MaskablePPO

from boardenvs.league import League


def timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=150_000)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--selfplay-steps", type=int, default=None, help="Quagmire self-play steps (default: --steps)")
    ap.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help="evaluate the self-play learner after every this many steps (default: once, at the end)",
    )
    args = ap.parse_args(argv)

    # -- the tutorial's first block, verbatim but for the step count and progress bar --
    env = SB3VecEnv("boardenvs/Quess-v0", num_envs=64, opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, seed=args.seed)
    _, wall, cpu = timed(lambda: model.learn(args.steps))
    before = evaluate("random", "boardenvs/Quess-v0", games=args.games, seed=args.seed + 1)
    after = evaluate(model, "boardenvs/Quess-v0", games=args.games, seed=args.seed + 1)
    print(f"Quess vs random, {args.steps} steps: {wall:.0f} s wall, {cpu:.0f} s CPU")
    print(f"  random agent: {before}")
    print(f"  trained:      {after}")

    # -- its second block: self-play on Quagmire ---------------------------------
    pool = League(max_size=10, latest_prob=0.5)
    env = SB3VecEnv("boardenvs/Quagmire-v0", num_envs=64, opponent=pool)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, seed=args.seed)
    total = args.selfplay_steps or args.steps
    chunk = args.eval_every or total
    c0, t0 = time.process_time(), time.perf_counter()
    while model.num_timesteps < total:
        model.learn(chunk, callback=SB3SelfPlayCallback(pool, every=10_000), reset_num_timesteps=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"Quagmire self-play, {model.num_timesteps} steps ({pool.added} snapshots): {wall:.0f} s wall, "
            f"{cpu:.0f} s CPU"
        )
        for label, first in (("moving first", 0), ("moving second", 1)):
            kw = dict(games=args.games, seat=0, first_player=first, seed=args.seed + 2)
            base = evaluate("random", "boardenvs/Quagmire-v0", **kw)
            res = evaluate(model, "boardenvs/Quagmire-v0", **kw)
            print(f"  {label}: trained {res['win_rate']:.1%} ({res}) vs a random agent {base['win_rate']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
