"""MCTS speed: simulations per second, ours vs OpenSpiel's Python MCTSBot.

OpenSpiel: ``open_spiel.python.algorithms.mcts.MCTSBot`` with one
``RandomRolloutEvaluator`` rollout per simulation (``solve=False``) on
connect_four.  Ours: :class:`boardenvs.baselines.mcts.MCTSOpponent` (UCT,
one random rollout to the end per simulation, in compiled code over the
game's kernels), on every game: one position at a time (like the bot) and a
batch of positions per call (how the vector view and ``evaluate`` ask it).
Positions: a few random decisions into a game, with at least two legal
actions (a forced decision is answered without a search).  Each number is the median
of ``--runs`` timings.  Prints a markdown table.

    python benchmarks/mcts_speed.py [--sims 100] [--runs 5] [--batch 64]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))  # the library modules (hints)


def games() -> list:
    """Every package game, in its two-player form (its first declared bench variant)."""
    from hints import bench_variants

    import boardenvs

    return [(env_id, dict(bench_variants(env_id)[0])) for env_id in boardenvs.ENV_IDS]


def openspiel_rate(sims: int, runs: int, seed: int = 0) -> float:
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("connect_four")
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=sims,
        evaluator=mcts.RandomRolloutEvaluator(1, rng),
        solve=False,
        random_state=rng,
    )
    rates = []
    for _ in range(runs):
        state = game.new_initial_state()
        for _ in range(rng.randint(2, 8)):
            state.apply_action(rng.choice(state.legal_actions()))
        t = time.perf_counter()
        bot.step(state)
        rates.append(sims / (time.perf_counter() - t))
    return statistics.median(rates)


def positions(env_id, options, k, seed):
    """``k`` positions a few random decisions into games, each with a choice
    (a position with one legal action is answered without a search)."""
    import boardenvs

    vec = boardenvs.make_vec(env_id, num_envs=max(4 * k, 64), **options)
    vec.reset(seed=seed)
    for _ in range(int(np.random.default_rng(seed).integers(4, 10))):
        vec.step(vec.random_actions())
    for _ in range(200):  # dice games: until enough rows have a choice
        choice = vec.action_masks().sum(axis=1) >= 2
        if choice.sum() >= k:
            break
        vec.step(vec.random_actions())
    states = vec.states[choice][:k]
    assert states.shape[0] == k, "too few positions with a choice"
    return vec.game, states.copy()


def ours_rate(env_id, options, sims, runs, k, seed=0) -> float:
    from boardenvs.baselines.mcts import MCTSOpponent

    from boardenvs.opponents import Batch

    bot = MCTSOpponent(sims)
    rng = np.random.default_rng(seed)
    game, states = positions(env_id, options, max(k, 1), seed)
    bot.act(Batch.of_states(game, states[:k], rng))  # compile
    rates = []
    for r in range(runs):
        game, states = positions(env_id, options, k, seed + 1 + r)
        t = time.perf_counter()
        bot.act(Batch.of_states(game, states, rng))
        rates.append(k * sims / (time.perf_counter() - t))
    return statistics.median(rates)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=100, help="simulations per decision")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64, help="positions per call in the batched column")
    args = ap.parse_args(argv)
    print(f"| engine | game | simulations/s, one position | simulations/s, {args.batch} positions per call |")
    print("|---|---|---:|---:|")
    try:
        print(
            "| OpenSpiel MCTSBot (Python, random rollouts) | connect_four | "
            f"{openspiel_rate(args.sims, args.runs):,.0f} | - |",
            flush=True,
        )
    except ImportError:
        print("| OpenSpiel MCTSBot | connect_four | (pyspiel not installed: pip install '.[bench]' (in a clone)) | - |")
    for env_id, options in games():
        one = ours_rate(env_id, options, args.sims, args.runs, 1)
        many = ours_rate(env_id, options, args.sims, args.runs, args.batch)
        print(f"| boardenvs mcts | {env_id} | {one:,.0f} | {many:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
