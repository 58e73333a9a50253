"""``make demo`` and ``boardenvs demo``: train a short baseline, measure it, watch it play.

    boardenvs demo [quess_v0] [--minutes 3] [--out runs/demo]   # or python -m boardenvs.baselines.demo

1. trains MaskablePPO on the game (default quess_v0) for ``--minutes`` of
   training (or ``--steps``), the route and defaults of ``boardenvs train
   GAME --minutes M`` (:func:`boardenvs.baselines.train.train`: the game's
   board network and opponents, win-rate checks on the way, TensorBoard logs);
2. plays it against ``random`` and ``greedy`` (``--games`` seeded games
   each, seats split evenly, each opened by a few random decisions:
   :mod:`boardenvs.baselines.checkup`) and prints a table: what each
   opponent is, the model's win/draw/loss with a 95% interval, and for
   comparison the shipped model's and a random agent's win rates against
   the same opponent;
3. records one game of it (the first seat) against ``greedy`` as a GIF
   (``<out>/<game>.gif``, the same picture as ``boardenvs watch``, the
   legend naming "your model").

The training takes the minutes asked for (its checks aside); the
committed, longer-trained models are ``boardenvs.baselines.load(name)``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path


def main(argv=None, prog: str = "python -m boardenvs.baselines.demo") -> int:
    from boardenvs.helptext import TRAINING_SEED, CommandParser, game_type, help_text

    from .budget import check_minutes
    from .checkup import results
    from .networks import trainable_ids
    from .tournament import wilson
    from .train import train

    ap = CommandParser(prog=prog, description=help_text(__doc__))
    ap.add_argument(
        "game",
        nargs="?",
        default="quess_v0",
        type=game_type(sorted(trainable_ids())),
        metavar="GAME",
        help="the game: an env id or its gymnasium id (default quess_v0)",
    )
    ap.add_argument("--minutes", type=float, default=3.0, help="minutes of training (default 3)")
    ap.add_argument("--steps", type=int, default=None, help="environment steps instead of minutes")
    ap.add_argument("--games", type=int, default=200, help="evaluation games per opponent (default 200)")
    ap.add_argument("--seed", type=TRAINING_SEED, default=0, help="the run's seed (default 0)")
    ap.add_argument("--out", default="runs/demo", help="folder for the model, its logs and the GIF (default runs/demo)")
    ap.add_argument(
        "--threads", type=int, default=None, help="torch's and numba's threads together (default: the cores available)"
    )
    args = ap.parse_args(argv)
    from boardenvs.wrappers.evaluation import MAX_GAMES

    if (args.steps is not None and args.steps < 1) or args.games < 1:
        ap.error("--steps and --games must be positive ints")
    if args.threads is not None and not 1 <= args.threads <= 1024:
        ap.error(f"--threads must be in 1..1024, got {args.threads}")
    try:
        minutes = None if args.steps is not None else check_minutes(args.minutes)
    except ValueError as exc:
        ap.error(str(exc))
    if args.games > MAX_GAMES:  # evaluate's bound: refused before the training, not after it
        ap.error(f"--games must be at most {MAX_GAMES:_}, got {args.games}")
    out = Path(args.out)
    stem = out / args.game
    try:  # the folder: now, not after the training
        from boardenvs.files import output_path

        out.mkdir(parents=True, exist_ok=True)
        output_path(stem.with_suffix(".pt"), "--out")
    except (ValueError, OSError) as exc:
        ap.error(str(exc) if isinstance(exc, ValueError) else f"--out {args.out!r}: {exc.strerror or exc}")
    t0 = time.perf_counter()
    budget = f"{args.steps:,} steps" if minutes is None else f"{minutes:g} minutes"
    print(f"== 1. training MaskablePPO on {args.game} for {budget}")
    config = train(args.game, steps=args.steps, minutes=minutes, seed=args.seed, out=stem, threads=args.threads)
    print(f"== 2. {args.games} games against each reference opponent, seats split, random openings")
    opponents = ("random", "greedy")
    ours = results(f"baseline:{stem}", args.game, config["options"], opponents, games=args.games, seed=args.seed + 1)
    shipped = shipped_model(args.game, config["options"])
    theirs = (
        {}
        if shipped is None
        else results(
            f"baseline:{shipped}", args.game, config["options"], opponents, games=args.games, seed=args.seed + 1
        )
    )
    chance = results("random", args.game, config["options"], opponents, games=args.games, seed=args.seed + 1)
    rows = [
        "| opponent | what it is | your model: W-D-L | win rate [95% CI] | the shipped model | a random agent |",
        "|---|---|---|---|---|---|",
    ]
    for opponent in opponents:
        r = ours[opponent]
        lo, hi = wilson(r["wins"], r["games"])
        model_rate = f"{theirs[opponent]['wins'] / args.games:.0%}" if theirs else "-"
        random_rate = f"{chance[opponent]['wins'] / args.games:.0%}"
        rows.append(
            f"| {opponent} | {OPPONENTS[opponent]} | {r['wins']}-{r['draws']}-{r['losses']} of {r['games']} | "
            f"{r['wins'] / r['games']:.1%} [{lo:.1%}, {hi:.1%}] | {model_rate} | {random_rate} |"
        )
    gif = stem.with_suffix(".gif")
    print(f"== 3. one game against greedy, recorded to {gif}")
    from boardenvs.wrappers.recording import record_game

    from boardenvs.opponents import make_opponent
    from boardenvs.records import new_game, play_game

    start, rng = new_game(args.game, config["options"], args.seed)
    seats = start.game.num_players
    players = [make_opponent(f"baseline:{stem}")] + [make_opponent("greedy")] * (seats - 1)
    names = ["your model"] + ["greedy"] * (seats - 1)
    played = list(play_game(start, rng, players))
    record_game(start, [move for _, move in played], gif, players=names)
    final = played[-1][0] if played else start
    print(final, f"\nyour model played {start.game.agents[0]}; returns: {dict(zip(start.game.agents, final.returns))}")
    about = (
        f"the shipped model (baseline:{shipped}) and a random agent in the same games"
        if shipped
        else "a random agent in the same games (no shipped model of these options)"
    )
    print(
        f"\n{args.game}: your model after {config['budget']['steps']:,} steps ({config['budget']['wall_s']} s of "
        f"training), its results in {args.games} games against each opponent (seats split evenly, each game "
        f"opened by a few random moves); for comparison, {about}:\n"
    )
    print("\n".join(rows))
    print(f"\nmodel: {stem}.pt / .json, TensorBoard: tensorboard --logdir {stem}_tb, game: {gif}")
    print(f"demo done in {time.perf_counter() - t0:.0f} s")
    return 0


OPPONENTS = {"random": "a uniformly random legal move", "greedy": "the best move by a one-move heuristic (ties random)"}


def shipped_model(env_id: str, options: dict) -> str | None:
    """The committed model of this game and options (its name), or None."""
    from . import available, model_path
    from .networks import same_game

    for name in available():
        config = json.loads(model_path(name).with_suffix(".json").read_text())
        if same_game(env_id, options, config["env_id"], config["options"]):
            return name
    return None


if __name__ == "__main__":
    raise SystemExit(main())
