"""Train a masked-PPO agent for one game, by the clock or by steps.

    boardenvs train quess_v0 --minutes 5                  # -> runs/quess_v0-<date>-<time>/quess_v0.pt
    boardenvs train quagmire_v0 --minutes 20 --out runs/q # -> runs/q.pt, runs/q.json (runs/q_tb: TensorBoard)
    boardenvs train hex_quoridor_v1 --players 4 --steps 400000
    boardenvs play quagmire_v0 -i --vs runs/q.pt          # play against it

sb3-contrib's ``MaskablePPO`` on :class:`boardenvs.wrappers.SB3VecEnv`
(``--num-envs`` games stepped per call by the engine), with what reached
strength fastest on 2 cores declared by each game (``TOOLS["training"]``,
:class:`.networks.TrainingDefaults`): its network (the board network of
:mod:`.boardnet`, every action's logit read off the cells it names; an MLP
on Tryasina's tracks), its opponents (``greedy`` for Quess, Quicksand,
Hex Quoridor and Tryasina; self-play with a share of ``greedy`` and
``random`` for Quagmire: ``--greedy-share``, ``--random-share``,
``--mcts-share``, the rest a :class:`~boardenvs.league.League` of
the learner's snapshots), a warm start (``--warm-start GAMES``: the policy
first fitted to ``greedy``'s decisions, Quagmire and Hex Quoridor) and PPO's
settings.

The budget is ``--minutes`` of training (the clock stops while the run
checks itself and saves: :mod:`.budget`), ``--steps``, or both; neither:
the game's.  Every ``--eval-seconds`` of training (or ``--eval-every``
steps) the run plays 400 seeded games against ``random`` and ``greedy``
with the seats split evenly and each game opened by a few random moves
(:mod:`.checkup`), shows the rates on its progress line and writes the
model: ``<out>.pt`` (the policy's weights) and ``<out>.json`` (everything
:func:`boardenvs.baselines.load` needs, the budget spent and every check),
both whole (:mod:`.runs`).  ``--stop-at greedy=0.9`` ends the run at the
first check that reaches it; Ctrl-C ends it keeping the last checkpoint,
and ``--resume <out>`` goes on with a stopped run from its last checkpoint
(``<out>.resume.pt``, :mod:`.resume`) as if it had never stopped.
Without ``--out``, a new run folder in the current directory:
``runs/<name>-<date>-<time>/<name>`` (the committed models in the
package's ``models/`` are never written by a run; copy a model there to
commit it).  The ``.pt`` is an opponent wherever one is named
(``boardenvs play GAME --vs PATH.pt``, ``opponent="PATH.pt"``).

``--network dense`` trains the dense network instead (a features extractor
of :mod:`.extractors`, ``--net-arch`` layers, a linear head over every
action: how the committed models were made); ``--shaping C`` adds
potential-based reward shaping with the game's own heuristic (the greedy
opponent's evaluation; :class:`ShapedRewards`): a denser signal that leaves
the optimal policies as they were (Ng, Harada & Russell, 1999).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .networks import (
    PPO_DEFAULTS,
    check_extractor_kwargs,
    model_config,
    model_name,
    new_policy,
    policy_class,
    policy_kwargs,
    trainable_ids,
    training_defaults,
)
from .opponent_mix import OpponentMix, learner_opponent, shares_of
from .runs import default_out, save_model, start_from
from .shaping import ShapedRewards

EVAL_OPPONENTS = ("random", "greedy")


def set_threads(threads: int | None) -> tuple[int, int]:
    """``(torch's, numba's)`` threads, ``threads`` together (default: the cores
    this process may use; :func:`boardenvs.threads.training_threads`)."""
    from boardenvs.threads import training_threads

    return training_threads(None if threads is None else int(threads))


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`: ``path`` (without suffix) holds the last
    checkpoint, ``last`` its history entry (None before the first)."""

    def __init__(self, path: Path, last: dict | None):
        super().__init__(f"interrupted; the last checkpoint is {path}.pt")
        self.path, self.last = path, last


def _warm_start(model, env_id: str, players, games: int, seed: int) -> dict:
    """Fit the policy to ``greedy``'s decisions in ``games`` games (a tenth
    with a random seat, each opened by up to 4 random decisions): the
    learner starts from a one-ply player instead of a random one."""
    from .imitation import collect, fit

    data = collect(
        env_id,
        teacher="greedy",
        games=games,
        num_envs=min(256, games),
        seed=seed,
        players=players,
        random_share=0.1,
        opening=4,
    )
    fitted = fit(model.policy, data, epochs=3, batch_size=512, lr=1e-3, seed=seed)
    model.policy.set_training_mode(False)
    last = fitted["history"][-1] if fitted.get("history") else {}
    return {"games": int(games), "samples": int(len(data["actions"])), "agreement": last.get("held_out_agreement")}


def train(
    env_id: str,
    steps: int | None = None,
    minutes: float | None = None,
    num_envs: int | None = None,
    seed: int = 0,
    players: int | None = None,
    out: str | Path | None = None,
    network: str | None = None,
    random_share: float | None = None,
    greedy_share: float | None = None,
    mcts_share: float = 0.0,
    mcts_simulations: int = 100,
    snapshot_every: int = 20_000,
    eval_every: int | None = None,
    eval_seconds: float | None = None,
    eval_games: int = 400,
    eval_opponents=EVAL_OPPONENTS,
    n_steps: int | None = None,
    batch_size: int | None = None,
    n_epochs: int | None = None,
    learning_rate: float | None = None,
    ent_coef: float | None = None,
    gamma: float | None = None,
    save_every: int | None = 25_000,
    init: str | Path | None = None,
    shaping: float | None = None,
    warm_start: int | None = None,
    threads: int | None = None,
    stop_at: dict | None = None,
    progress_bar: bool = True,
    extractor_kwargs: dict | None = None,
    net_arch: list[int] | None = None,
    verbose: int = 1,
    resume: str | Path | None = None,
) -> dict:
    """Train one model; returns its config (also written to ``<out>.json``).

    The budget: ``minutes`` of training (the clock paused while it
    evaluates and saves: :mod:`.budget`), ``steps``, or both (whichever
    comes first); neither: the game's declared minutes.  Every unset
    setting is the game's (:func:`.networks.training_defaults`: its network,
    PPO's settings, its opponents and warm start).  Evaluations: every
    ``eval_every`` steps, else every ``eval_seconds`` of training (default:
    a twentieth of a budget in minutes, at least 30 s; 0: none), each
    ``eval_games`` seeded games against each of ``eval_opponents`` with
    varied openings (:func:`.checkup.win_rates`); after each, and every
    ``save_every`` steps, the model is written.  ``network``: ``"board"``
    (the default where the game declares its action layout) or ``"dense"``;
    ``extractor_kwargs`` changes the network's options (the board trunk's
    ``channels`` / ``layers``, or the dense extractor's), ``net_arch`` the
    dense heads' layers.  ``warm_start``: games of ``greedy``'s decisions
    fitted before PPO (0: none).  ``threads``: torch's and numba's together
    (default: the cores this process may use; :func:`set_threads`).  ``stop_at``: ``{opponent:
    rate}``, stop at the first check that reaches every rate.  ``resume``: a
    stopped run (its ``<out>``, ``.pt`` or ``.json``) to go on with from its
    last checkpoint, with its own settings (:mod:`.resume`: a setting given
    here that is not the run's is a ValueError)."""
    from . import resume as R

    call = {k: v for k, v in locals().items() if k != "R"}
    if resume is not None and not isinstance(resume, R.Resumed):
        return train(**R.resumed_call(train, call))
    resumed = resume
    from boardenvs.wrappers import SB3SelfPlayCallback, SB3VecEnv
    from boardenvs.wrappers.evaluation import MAX_GAMES
    from sb3_contrib import MaskablePPO

    from boardenvs.files import remove_stale_temporaries
    from boardenvs.league import League
    from boardenvs.opponents import make_opponent
    from boardenvs.spec import is_int

    from .budget import TrainingClock, check_minutes
    from .checkup import win_rates

    defaults = training_defaults(env_id)  # ValueError naming the games for another id
    minutes = check_minutes(minutes)
    if steps is not None and (isinstance(steps, bool) or not is_int(steps) or steps < 1):
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    if steps is None and minutes is None:
        minutes = float(defaults.minutes)
    if shaping is None:
        shaping = defaults.shaping
    if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not shaping >= 0:
        raise ValueError(f"--shaping must be a number >= 0 (the potential's size), got {shaping!r}")
    if shaping and defaults.shaping_scale is None:  # before anything is built
        raise ValueError(f"--shaping: no shaping scale for {env_id} (its Game.training declares none)")
    for opponent in eval_opponents:  # a misspelt name fails now, not at the first evaluation
        make_opponent(opponent)
    if not (is_int(seed) and 0 <= seed <= 2**32 - 1):  # (SB3 seeds numpy's legacy generator with it: 32 bits)
        raise ValueError(f"seed must be an int in 0..2**32-1, got {seed!r}")
    if not (is_int(eval_games) and 1 <= eval_games <= MAX_GAMES):  # now, not at the first check
        raise ValueError(f"eval_games must be an int in 1..{MAX_GAMES:_} (evaluate's bound), got {eval_games!r}")
    if eval_seconds is not None and not (isinstance(eval_seconds, (int, float)) and eval_seconds >= 0):
        raise ValueError(f"eval_seconds must be a number of seconds >= 0, got {eval_seconds!r}")
    stop_at = dict(stop_at or {})
    for name, rate in stop_at.items():
        if name not in eval_opponents or not (isinstance(rate, (int, float)) and 0 < rate <= 1):
            raise ValueError(
                f"stop_at: {name}={rate!r}: a rate in (0, 1] against one of the checks' opponents "
                f"({', '.join(eval_opponents)})"
            )
    if warm_start is None:
        warm_start = 0 if init is not None or resumed else defaults.warm_start
    if not (is_int(warm_start) and 0 <= warm_start <= 100_000):
        raise ValueError(f"--warm-start must be a number of games in 0..100000, got {warm_start!r}")
    ppo = {**PPO_DEFAULTS, **defaults.ppo}
    given = {
        "num_envs": num_envs,
        "n_steps": n_steps,
        "batch_size": batch_size,
        "n_epochs": n_epochs,
        "learning_rate": learning_rate,
        "ent_coef": ent_coef,
        "gamma": gamma,
    }
    ppo |= {k: v for k, v in given.items() if v is not None}
    config = model_config(env_id, players, network)
    name, options = config["name"], config["options"]

    if init is not None and (extractor_kwargs or net_arch):
        raise ValueError(
            "the network comes from the --init model: extractor options (--extractor-kwargs) and "
            "net_arch (--net-arch) cannot change it"
        )
    config["extractor_kwargs"] = {**config["extractor_kwargs"], **check_extractor_kwargs(extractor_kwargs or {})}
    if net_arch is not None:
        if not all(is_int(n) and n >= 1 for n in net_arch) or (not net_arch and config["extractor"] != "board"):
            raise ValueError(f"net_arch must be layer sizes >= 1, got {net_arch!r}")
        if config["extractor"] == "board" and net_arch:
            raise ValueError("net_arch: the board network has no hidden layers before its heads (--network dense has)")
        config["net_arch"] = [int(n) for n in net_arch]
    if init is None:
        new_policy(config)  # a bad network option fails now (ValueError), before anything is built
    out = Path(out) if out is not None else default_out(name)
    if isinstance(mcts_simulations, bool) or not is_int(mcts_simulations) or mcts_simulations < 1:
        raise ValueError(
            f"mcts_simulations must be a positive int (simulations per decision), got {mcts_simulations!r}"
        )
    mcts_name = make_opponent(f"mcts:{int(mcts_simulations)}").name  # mcts' own bound and name ("mcts" at its default)
    shares = shares_of(defaults, random_share, greedy_share, mcts_name, mcts_share)
    pool = League(max_size=20, latest_prob=0.5)
    mix = OpponentMix(pool, shares)  # (checks the shares)
    budget = {"minutes": minutes, "steps": steps}
    config |= {
        "hyperparameters": {**ppo, "seed": seed},
        "opponents": shares | {"self-play": round(1.0 - sum(shares.values()), 4), "snapshot_every": snapshot_every},
        "budget_asked": {k: v for k, v in budget.items() if v is not None},
    }
    start = start_from(init, config) if init is not None and not resumed else None
    if resumed:  # its network, its --init model's record, its warm start: as the run has them
        resumed.adopt(config)
    torch_threads, numba_threads = set_threads(threads)
    # the board networks read the planes (flatten=False); seeded by MaskablePPO(seed=...)
    env = SB3VecEnv(env_id, num_envs=ppo["num_envs"], opponent=learner_opponent(mix), flatten=False, **options)
    view = env.venv
    if shaping:
        env = ShapedRewards(env, shaping, defaults.shaping_scale, ppo["gamma"])
        config["shaping"] = {
            "coef": shaping,
            "scale": defaults.shaping_scale,
            "potential": "coef * tanh(heuristic / scale)",
        }
    out.parent.mkdir(parents=True, exist_ok=True)  # once everything is checked: a refused run makes no folder
    model = MaskablePPO(
        policy_class(config),
        env,
        n_steps=ppo["n_steps"],
        batch_size=ppo["batch_size"],
        n_epochs=ppo["n_epochs"],
        learning_rate=ppo["learning_rate"],
        ent_coef=ppo["ent_coef"],
        gamma=ppo["gamma"],
        gae_lambda=ppo["gae_lambda"],
        seed=seed,
        policy_kwargs=policy_kwargs(config),
        tensorboard_log=str(out.parent / f"{out.name}_tb"),
        verbose=0,
        device="cpu",
    )
    if start is not None:  # go on from a saved policy (its budget is added to this run's)
        model.policy.load_state_dict(start.policy.state_dict())

    def evaluate() -> dict:
        model.policy.set_training_mode(False)
        return win_rates(model.policy, env_id, options, eval_opponents, games=eval_games, seed=seed + 7)

    def checkpoint(clock, final: bool = False) -> None:
        config["history"] = clock.history
        # the resume state first with every checkpoint but the last (a kill between the files leaves one to go
        # on from); a finished run keeps none (the module R)
        hooks = (
            {"after": lambda: R.state_path(out).unlink(missing_ok=True)}
            if final
            else {"before": lambda: run_state.write(out)}
        )
        save_model(model.policy, config, out, model.num_timesteps, clock.train_s, clock.cpu_s, final, "train", **hooks)

    if eval_every is None and eval_seconds is None:
        eval_seconds = max(30.0, 3.0 * minutes) if minutes is not None else None
        eval_every = None if minutes is not None else 50_000
    clock = TrainingClock(
        minutes,
        steps,
        evaluate,
        checkpoint,
        eval_seconds=eval_seconds or None,
        eval_steps=eval_every or None,
        save_every=save_every or None,
        label=name,
        progress=progress_bar,
        verbose=verbose,
        stop_at=stop_at,
    )
    selfplay = SB3SelfPlayCallback(pool, every=snapshot_every)
    run_state = R.RunState(env, view, pool, mix, clock, selfplay, R.settings(call), config, resumed)
    clock.start()
    if resumed:  # after the clock's start, the clock paused: it goes on as the run left it
        with clock.paused():
            resumed.restore(model, env, view, pool, mix, clock, selfplay)  # (ValueError before anything is written)
    remove_stale_temporaries(out.with_suffix(".pt"), out.with_suffix(".json"), R.state_path(out))
    if verbose:
        what = " and ".join(f"{v:,} {k}" if k == "steps" else f"{v:g} {k}" for k, v in budget.items() if v is not None)
        net = "board network" if config["extractor"] == "board" else f"dense network ({config['extractor']})"
        print(
            f"[{name}] MaskablePPO, {net} ({sum(p.numel() for p in model.policy.parameters()):,} parameters), "
            f"{ppo['num_envs']} games a step, against {mix!r}; threads: torch {torch_threads}, numba {numba_threads}; "
            f"budget {what} of training; "
            + (f"goes on from {model.num_timesteps:,} steps; " if resumed else "")
            + f"writes {out.with_suffix('.pt')}",
            flush=True,
        )
    if warm_start and not resumed:
        config["warm_start"] = _warm_start(model, env_id, players, warm_start, seed)
        if verbose:
            print(
                f"[{name}] warm start: fitted to greedy's decisions in {warm_start:,} games "
                f"({config['warm_start']['samples']:,} positions)",
                flush=True,
            )
    try:
        model.learn(
            (steps if minutes is None else 10**12) - model.num_timesteps,  # (a resumed run's steps go on)
            callback=[selfplay, clock, run_state],
            progress_bar=False,
            reset_num_timesteps=not resumed,
        )
    except KeyboardInterrupt:
        clock.close()
        raise TrainingInterrupted(out, clock.history[-1] if clock.history else None) from None
    config["stopped_by"] = clock.stopped_by
    checkpoint(clock, final=True)
    if verbose:
        b = config["budget"]
        print(
            f"[{name}] saved {out.with_suffix('.pt')} after {model.num_timesteps:,} steps, "
            f"{b['wall_s'] - (start.config['budget']['wall_s'] if start else 0)} s "
            f"of training ({clock.describe()})"
        )
    return config


def main(argv=None, prog: str = "python -m boardenvs.baselines.train") -> int:
    from boardenvs.errors import install_line
    from boardenvs.helptext import TRAINING_SEED, CommandParser, game_type, help_text

    ap = CommandParser(prog=prog, description=help_text(__doc__))
    games = sorted(trainable_ids())
    ap.add_argument(
        "game",
        type=game_type(games),
        metavar="GAME",
        help="the game: an env id (quess_v0, ...) or its gymnasium id (boardenvs/Quess-v0)",
    )
    declared = {g: training_defaults(g).minutes for g in games}
    minutes = ", ".join(f"{g} {m:g}" for g, m in declared.items())
    minutes = f"{declared[games[0]]:g} for every game" if len(set(declared.values())) == 1 else minutes
    ap.add_argument(
        "--minutes",
        type=float,
        default=None,
        help=f"minutes of training, the clock paused while it evaluates (default, unless --steps is given: {minutes})",
    )
    ap.add_argument(
        "--steps",
        type=int,
        default=None,
        help="environment steps (default: none, the run is timed by --minutes; both: whichever comes first)",
    )
    ap.add_argument("--num-envs", type=int, default=None, help="games stepped per call (default: the game's)")
    ap.add_argument("--seed", type=TRAINING_SEED, default=0, help="the run's seed (default 0)")
    ap.add_argument("--players", type=int, default=None, help="the player count (default 2; Hex Quoridor, Tryasina)")
    ap.add_argument(
        "--out",
        default=None,
        help="where to write <out>.pt/.json and <out>_tb/ (default: a new run "
        "folder, runs/<name>-<date>-<time>/<name>; the package's committed models are never overwritten)",
    )
    ap.add_argument(
        "--network",
        choices=("board", "dense"),
        default=None,
        help="board: every action's logit read off the cells it names (the default where the game "
        "declares how); dense: a linear head over every action",
    )
    ap.add_argument(
        "--random-share", type=float, default=None, help="share of episodes against random (default: the game's)"
    )
    ap.add_argument(
        "--greedy-share", type=float, default=None, help="share of episodes against greedy (default: the game's)"
    )
    ap.add_argument("--mcts-share", type=float, default=0.0, help="share of episodes against mcts (default 0)")
    ap.add_argument(
        "--mcts-simulations", type=int, default=100, help="simulations per decision of that mcts opponent (default 100)"
    )
    ap.add_argument(
        "--snapshot-every", type=int, default=20_000, help="steps between self-play snapshots (default 20,000)"
    )
    ap.add_argument(
        "--warm-start",
        type=int,
        default=None,
        metavar="GAMES",
        help="fit the policy to greedy's decisions in this many games first (default: the game's; 0: none)",
    )
    ap.add_argument(
        "--eval-every",
        type=int,
        default=None,
        metavar="STEPS",
        help="steps between win-rate checks (default: by time, --eval-seconds)",
    )
    ap.add_argument(
        "--eval-seconds",
        type=float,
        default=None,
        help="seconds of training between win-rate checks (default: a twentieth of --minutes, at least 30; 0: none)",
    )
    ap.add_argument(
        "--eval-games",
        type=int,
        default=400,
        help="games per opponent in each win-rate check (default 400, at most 10,000,000)",
    )
    ap.add_argument(
        "--eval-vs",
        nargs="+",
        default=list(EVAL_OPPONENTS),
        metavar="NAME",
        help="the opponents of the win-rate checks (default: random greedy)",
    )
    ap.add_argument("--batch-size", type=int, default=None, help="PPO minibatch (default: the game's)")
    ap.add_argument("--epochs", type=int, default=None, help="PPO epochs per rollout (default: the game's)")
    ap.add_argument("--lr", type=float, default=None, help="learning rate (default: the game's)")
    ap.add_argument("--gamma", type=float, default=None, help="discount (default 0.99)")
    ap.add_argument("--ent-coef", type=float, default=None, help="entropy bonus (default: the game's)")
    ap.add_argument(
        "--shaping",
        type=float,
        default=None,
        help="potential-based reward shaping with the game's heuristic, this big at most (default: the "
        "game's; 0: none)",
    )
    ap.add_argument(
        "--init", default=None, help="start from this saved model (<path>.pt/.json) instead of from scratch"
    )
    ap.add_argument(
        "--resume",
        default=None,
        metavar="RUN",
        help="go on with a stopped run (its <out>, .pt or .json) from its last checkpoint, with its own "
        "settings and budget, writing its own files",
    )
    ap.add_argument(
        "--extractor-kwargs",
        default=None,
        metavar="JSON",
        help="the network's options changed, e.g. '{\"channels\": 64}' (board) or '{\"hidden\": 512}' (Tryasina)",
    )
    ap.add_argument(
        "--net-arch",
        type=int,
        nargs="+",
        default=None,
        metavar="N",
        help="the dense network's policy and value layers (default 128)",
    )
    ap.add_argument(
        "--stop-at",
        default=None,
        metavar="NAME=RATE",
        help="stop at the first win-rate check that reaches RATE against NAME, e.g. greedy=0.9",
    )
    threads = "torch's and numba's threads together (default: the cores this process may use)"
    ap.add_argument("--threads", type=int, default=None, help=threads)
    ap.add_argument("--no-progress", action="store_true", help="no progress bar (one line per win-rate check)")
    args = ap.parse_args(argv)
    for flag in ("steps", "num_envs", "snapshot_every", "batch_size", "epochs", "eval_games", "threads"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            ap.error(f"--{flag.replace('_', '-')} must be a positive int, got {value}")
    if args.gamma is not None and not 0.0 < args.gamma <= 1.0:
        ap.error(f"--gamma must be in (0, 1], got {args.gamma}")
    if args.ent_coef is not None and not args.ent_coef >= 0.0:
        ap.error(f"--ent-coef must be >= 0, got {args.ent_coef}")
    if args.threads is not None and args.threads > 1024:
        ap.error(f"--threads must be at most 1024, got {args.threads}")
    extractor_kwargs = None
    if args.extractor_kwargs is not None:
        try:
            extractor_kwargs = json.loads(args.extractor_kwargs)
        except json.JSONDecodeError as exc:
            ap.error(f"--extractor-kwargs must be a JSON object, got {args.extractor_kwargs!r} ({exc.msg})")
        if not isinstance(extractor_kwargs, dict):
            ap.error(f"--extractor-kwargs must be a JSON object, got {args.extractor_kwargs!r}")
    stop_at = None
    if args.stop_at is not None:
        name, _, rate = args.stop_at.partition("=")
        try:
            stop_at = {name: float(rate)}
        except ValueError:
            ap.error(f"--stop-at must be NAME=RATE (e.g. greedy=0.9), got {args.stop_at!r}")
    out = Path(args.out) if args.out is not None else None
    if out is None and args.resume is None:
        out = default_out(model_name(args.game, args.players))
    try:
        from .budget import check_minutes

        check_minutes(args.minutes)
        if args.out is not None and args.resume is None:  # a folder that cannot be made: now, not later
            from boardenvs.files import output_path

            out.parent.mkdir(parents=True, exist_ok=True)
            output_path(out.with_suffix(".pt"), "--out")
        train(
            args.game,
            steps=args.steps,
            minutes=args.minutes,
            num_envs=args.num_envs,
            seed=args.seed,
            players=args.players,
            out=out,
            network=args.network,
            random_share=args.random_share,
            greedy_share=args.greedy_share,
            mcts_share=args.mcts_share,
            mcts_simulations=args.mcts_simulations,
            snapshot_every=args.snapshot_every,
            warm_start=args.warm_start,
            eval_every=args.eval_every,
            eval_seconds=args.eval_seconds,
            eval_games=args.eval_games,
            eval_opponents=tuple(args.eval_vs),
            batch_size=args.batch_size,
            n_epochs=args.epochs,
            learning_rate=args.lr,
            gamma=args.gamma,
            ent_coef=args.ent_coef,
            init=args.init,
            shaping=args.shaping,
            threads=args.threads,
            stop_at=stop_at,
            progress_bar=not args.no_progress,
            extractor_kwargs=extractor_kwargs,
            net_arch=args.net_arch,
            resume=args.resume,
        )
    except ImportError as exc:  # an optional package the run needs (before ValueError: MissingExtraError is both)
        ap.error(f"{exc.name or exc} is not installed: {install_line('train')}" if exc.name else str(exc))
    except (ValueError, OSError) as exc:
        ap.error(str(exc) if isinstance(exc, ValueError) else f"--out {args.out!r}: {exc.strerror or exc}")
    except TrainingInterrupted as stop:
        if stop.last is None:
            print(f"\ninterrupted before the first checkpoint: nothing was written to {stop.path}.pt", file=sys.stderr)
        else:
            rates = ", ".join(f"{k} {v:.0%}" for k, v in stop.last.items() if k not in ("steps", "train_s", "cpu_s"))
            print(
                f"\ninterrupted: the last checkpoint, after {stop.last['steps']:,} steps ({rates}), is "
                f"{stop.path}.pt / .json (--resume {stop.path} goes on with the run)",
                file=sys.stderr,
            )
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
