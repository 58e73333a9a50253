"""``make demo``: train a short baseline, measure it, watch it play.

    python -m boardenvs.baselines.demo [quess_v0] [--steps 100000] [--out runs/demo]

1. trains MaskablePPO on the game (default quess_v0) for ``--steps`` environment steps
   (:func:`boardenvs.baselines.train.train`: self-play plus a share of the
   random and greedy opponents, a progress bar, TensorBoard logs);
2. plays it against ``random`` and ``greedy`` (``--games`` games each, both
   seats, seeded) and prints a table: what each opponent is, the model's
   win/draw/loss with a 95% interval, and for comparison the shipped
   model's and a random agent's win rates against the same opponent;
3. records one game of it (the first seat) against ``greedy`` as a GIF
   (``<out>/<game>.gif``, the same picture as ``boardenvs watch``, the
   legend naming "your model").

About 13 CPU-minutes for the default 100k steps (some 7 minutes on 2
quiet cores); the committed, longer-trained models are
``boardenvs.baselines.load(name)``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path


def main(argv=None) -> int:
    from boardenvs.helptext import help_text

    from .tournament import play, wilson
    from .networks import trainable_ids
    from .train import train

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.demo", description=help_text(__doc__))
    ap.add_argument("game", nargs="?", default="quess_v0", choices=sorted(trainable_ids()), help="the env id (default quess_v0)")
    ap.add_argument("--game", dest="game_option", default=None, choices=sorted(trainable_ids()), help=argparse.SUPPRESS)  # (0.3's spelling)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--games", type=int, default=100, help="evaluation games per opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/demo", help="folder for the model, its logs and the GIF")
    args = ap.parse_args(argv)
    if args.game_option:
        args.game = args.game_option
    from boardenvs.wrappers.evaluation import MAX_GAMES

    if args.steps < 1 or args.games < 1:
        ap.error("--steps and --games must be positive ints")
    if args.games > MAX_GAMES:  # evaluate's bound: refused before the training, not after it
        ap.error(f"--games must be at most {MAX_GAMES:_}, got {args.games}")
    out = Path(args.out)
    stem = out / args.game
    t0 = time.perf_counter()
    print(f"== 1. training MaskablePPO on {args.game} for {args.steps:,} steps")
    config = train(args.game, steps=args.steps, seed=args.seed, out=stem, eval_every=0)
    print(f"== 2. {args.games} games against each reference opponent, both seats")
    shipped = shipped_results(args.game, config["options"])
    rows = ["| opponent | what it is | your model: W-D-L | win rate [95% CI] | the shipped model | a random agent |",
            "|---|---|---|---|---|---|"]  # fmt: skip
    for opponent in ("random", "greedy"):
        r = play(f"baseline:{stem}", opponent, args.game, config["options"], args.games, args.seed + 1)
        lo, hi = wilson(r["wins"], r["games"])
        ours, theirs = shipped.get(("model", opponent), "-"), shipped.get(("random", opponent), "-")
        rows.append(f"| {opponent} | {OPPONENTS[opponent]} | {r['wins']}-{r['draws']}-{r['losses']} of {r['games']} | "
                    f"{r['wins'] / r['games']:.1%} [{lo:.1%}, {hi:.1%}] | {ours} | {theirs} |")  # fmt: skip
    gif = stem.with_suffix(".gif")
    print(f"== 3. one game against greedy, recorded to {gif}")
    from boardenvs.opponents import make_opponent
    from boardenvs.records import new_game, play_game
    from boardenvs.wrappers.recording import record_game

    start, rng = new_game(args.game, config["options"], args.seed)
    seats = start.game.num_players
    players = [make_opponent(f"baseline:{stem}")] + [make_opponent("greedy")] * (seats - 1)
    names = ["your model"] + ["greedy"] * (seats - 1)
    played = list(play_game(start, rng, players))
    record_game(start, [move for _, move in played], gif, players=names)
    final = played[-1][0] if played else start
    print(final, f"\nyour model played {start.game.agents[0]}; returns: {dict(zip(start.game.agents, final.returns))}")
    print(f"\n{args.game}: your model after {config['budget']['steps']:,} steps ({config['budget']['wall_s']} s of "
          f"training), its win rate in {args.games} games against each opponent (half of them moving first); for "
          f"comparison, {shipped.get('about', 'no shipped model of these options')}:\n")  # fmt: skip
    print("\n".join(rows))
    print(f"\nmodel: {stem}.pt / .json, TensorBoard: tensorboard --logdir {stem}_tb, game: {gif}")
    print(f"demo done in {time.perf_counter() - t0:.0f} s")
    return 0


OPPONENTS = {"random": "a uniformly random legal move", "greedy": "the best move by a one-move heuristic (ties random)"}


def shipped_results(env_id: str, options: dict) -> dict:
    """The shipped model's measured win rates for this game and options
    (``baselines/results.json``): ``{("model", opponent): "91%", ("random",
    opponent): "0%", "about": "..."}``; empty where none was measured."""
    import json

    from . import MODELS

    path = MODELS.parent / "results.json"
    if not path.is_file():
        return {}
    for entry in json.loads(path.read_text()).values():
        if entry.get("env_id") != env_id or entry.get("options", {}) != {k: v for k, v in options.items() if k != "max_turns"}:
            continue
        out = {"about": f"the shipped model (baseline:{entry['name']}, {entry['budget']['steps']:,} steps) and a random "
                        f"agent over {entry['games']} games"}  # fmt: skip
        for r in entry["results"]:
            who = "model" if r["agent"] == f"baseline:{entry['name']}" else r["agent"]
            out[(who, r["opponent"])] = f"{r['wins'] / r['games']:.0%}"
        return out
    return {}


if __name__ == "__main__":
    raise SystemExit(main())
