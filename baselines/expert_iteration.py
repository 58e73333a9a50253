"""Expert iteration: a policy-value network improved by its own guided search.

    python -m boardenvs.baselines.expert_iteration quess_v0 --init quess_v0 --iterations 6 --out runs/qx
    python -m boardenvs.baselines.expert_iteration hex_quoridor_v1 --players 4 --simulations 64 --games 256
    boardenvs play quess_v0 -i --vs search:200:runs/qx.pt                      # play its search

Each iteration (Anthony, Tian & Barber, 2017; AlphaZero's targets):

1. **self-play**: ``--games`` games of the guided search
   (:mod:`.search`, ``--simulations`` per decision, Dirichlet noise at the
   root) with the accepted network, on the batched engine, the first 0 to
   ``--opening`` decisions of each game random (:func:`.imitation.collect`);
   every search decision is a sample: the mover's observation and mask,
   the root's visit shares (the policy target) and the game's final return
   for the mover (the value target);
2. **fit**: the candidate network (the run's trainee: it starts as the
   accepted one and goes on learning whatever the gates decide, as in
   AlphaGo Zero) is fitted to the samples of the last ``--window``
   iterations (cross-entropy on the visit shares plus ``vf_coef`` times
   the value head's squared error, :func:`.imitation.fit`);
3. **gate**: the candidate's raw policy (its most likely legal action;
   ``--gate-search N``: its guided search, so a better value head counts too)
   plays the accepted one's, seats alternating, each game opened by 0 to
   ``--opening`` random decisions, in rounds of ``--gate-round`` games,
   until a sequential probability ratio test decides (:func:`sprt`:
   H0 elo <= ``--elo0``, H1 elo >= ``--elo1``, error rates ``--alpha`` and
   ``--beta``) or ``--gate-games`` are played (undecided: rejected).  An
   accepted candidate is copied to the accepted network, which the next
   self-play uses and the next gate tests against.

The accepted network is saved after every iteration (``<out>.pt``/``.json``,
loadable as a committed baseline: :func:`boardenvs.baselines.load`, and as
``search:<n>:<out>.pt``), its json recording every iteration (samples,
fit, gate) and the budget (decisions searched as steps, wall and CPU
seconds, the model it started from included); TensorBoard logs go to
``<out>_tb/`` and a progress bar shows the iterations.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from .networks import trainable_ids

# the gate's score per game, from the candidate's side: a win 1, a draw (or a truncation) 1/P, a loss 0
SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 30.0, "alpha": 0.05, "beta": 0.05}


def expected_score(elo: float, players: int = 2) -> float:
    """The candidate's expected share of wins against ``players - 1`` equal
    opponents when it is ``elo`` stronger than each (Bradley-Terry for two,
    its Plackett-Luce first place for more): ``10^(elo/400) / (10^(elo/400) + P - 1)``."""
    g = 10.0 ** (elo / 400.0)
    return g / (g + players - 1)


def sprt(
    scores, elo0: float = 0.0, elo1: float = 30.0, alpha: float = 0.05, beta: float = 0.05, players: int = 2
) -> dict:
    """Wald's sequential test of H0 (elo <= ``elo0``) against H1 (elo >=
    ``elo1``) on the per-game ``scores`` so far, in the generalised form
    chess engines gate with (the log-likelihood ratio of normal models of
    the mean score at the two hypotheses, the variance estimated from the
    games): ``LLR = n (s1 - s0)(2 mean - s0 - s1) / (2 var)``.  Returns the
    LLR, the bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``
    and the decision: ``"H1"`` (accept), ``"H0"`` (reject) or ``None`` (play on)."""
    if not elo1 > elo0:
        raise ValueError(f"sprt: elo1 must be above elo0, got elo0={elo0!r}, elo1={elo1!r}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"sprt: alpha and beta must be in (0, 1), got {alpha!r}, {beta!r}")
    x = np.asarray(scores, np.float64)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    s0, s1 = expected_score(elo0, players), expected_score(elo1, players)
    n = len(x)
    var = float(x.var()) if n > 1 else 0.0
    if var <= 0:  # no spread yet (every game the same result): no evidence of its size
        llr = 0.0
    else:
        llr = n * (s1 - s0) * (2 * float(x.mean()) - s0 - s1) / (2 * var)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return {
        "games": n,
        "mean": round(float(x.mean()), 4) if n else None,
        "llr": round(llr, 3),
        "bounds": [round(lower, 3), round(upper, 3)],
        "decision": decision,
    }


def match(candidate, incumbent, env_id: str, options: dict, games: int, seed: int, opening: int = 4) -> np.ndarray:
    """``games`` games of ``candidate`` against ``incumbent`` (opponents:
    names or Opponent objects), played at once by the match runner
    (:func:`boardenvs.matches.play`): the candidate plays seat ``g % P`` of
    game ``g`` and the incumbent every other seat; the first 0 to
    ``opening`` decisions of each game are random (drawn per game), so
    deterministic players still meet in many positions.  The candidate's
    score per game: 1 a win, 1/P a draw or a truncation, 0 a loss."""
    from boardenvs import matches
    from boardenvs.opponents import make_opponent
    from boardenvs.registry import make_game

    a, b = make_opponent(candidate), make_opponent(incumbent)
    players = make_game(env_id, **options).num_players
    rng = np.random.default_rng(seed)
    seat = np.arange(games) % players
    lineups = np.where(np.arange(players)[None, :] == seat[:, None], 0, 1)
    opening_drawn = rng.integers(0, opening + 1, size=games)
    played = matches.play(
        env_id, options, lineups, [a, b], rng, seeds=[seed * 1_000_003 + g for g in range(games)], opening=opening_drawn
    )
    r = np.array([p.returns[s] for p, s in zip(played, seat)])
    return np.where(r > 0, 1.0, np.where(r < 0, 0.0, 1.0 / players))


def gate(
    candidate,
    incumbent,
    env_id: str,
    options: dict,
    players: int,
    max_games: int = 800,
    round_games: int = 100,
    seed: int = 0,
    opening: int = 4,
    **test,
) -> dict:
    """Rounds of :func:`match` until :func:`sprt` decides or ``max_games``
    are played; the last test's result with ``accepted`` (H1)."""
    scores = np.zeros(0)
    result = sprt(scores, players=players, **test)  # no games: undecided
    k = 0
    while result["decision"] is None:
        n = min(round_games, max_games - len(scores))
        n -= n % players  # every seat equally often
        if n <= 0:
            break
        scores = np.concatenate([scores, match(candidate, incumbent, env_id, options, n, seed + 7919 * k, opening)])
        k += 1
        result = sprt(scores, players=players, **test)
    result["accepted"] = result["decision"] == "H1"
    return result


def expert_iteration(
    env_id: str,
    init: str | Path | None = None,
    out: str | Path | None = None,
    players: int | None = None,
    iterations: int = 4,
    games: int = 256,
    simulations: int = 64,
    num_envs: int = 128,
    opening: int = 4,
    window: int = 2,
    epochs: int = 4,
    batch_size: int = 512,
    lr: float = 3e-4,
    noise: tuple[float, float] = (0.3, 0.25),
    gate_games: int = 800,
    gate_round: int = 100,
    gate_search: int = 0,
    seed: int = 0,
    progress: bool = True,
    verbose: int = 1,
    **test,
) -> dict:
    """Run the iterations (module docstring) and return the saved model's config."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm.auto import tqdm

    from boardenvs.spec import is_int

    from . import Baseline
    from .distill import join_samples
    from .imitation import collect, fit
    from .networks import model_config, new_policy
    from .runs import default_out, save_model, start_from
    from .search_opponent import SearchOpponent

    if not is_int(gate_search) or gate_search < 0:
        raise ValueError(f"gate_search must be an int >= 0 (0: the raw policies), got {gate_search!r}")
    for label, value, low in (
        ("iterations", iterations, 1),
        ("games", games, 1),
        ("simulations", simulations, 1),
        ("num_envs", num_envs, 1),
        ("opening", opening, 0),
        ("window", window, 1),
        ("epochs", epochs, 1),
        ("batch_size", batch_size, 1),
        ("gate_games", gate_games, 2),
        ("gate_round", gate_round, 2),
    ):
        if not is_int(value) or value < low:
            raise ValueError(f"{label} must be an int >= {low}, got {value!r}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr > 0:
        raise ValueError(f"lr must be a number > 0, got {lr!r}")
    test = {**SPRT_DEFAULTS, **test}
    sprt([], players=2, **test)  # bad elo0/elo1/alpha/beta fail before any game
    config = model_config(env_id, players)
    start = None if init is None else start_from(init, config)  # ValueError if there is none, or another game
    best = new_policy(config)
    if start is not None:
        best.load_state_dict(start.policy.state_dict())
    candidate = new_policy(config)  # trained on without a break; the accepted network is a copy of it
    candidate.load_state_dict(best.state_dict())
    options = config["options"]
    n_players = _num_players(env_id, options)
    out = Path(out) if out is not None else default_out(config["name"])
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = SummaryWriter(str(out.with_name(out.name + "_tb")))
    config["expert_iteration"] = {
        "simulations": simulations,
        "games_per_iteration": games,
        "opening": opening,
        "window": window,
        "epochs": epochs,
        "batch_size": batch_size,
        "lr": lr,
        "root_noise": list(noise),
        "gate": {"max_games": gate_games, "round": gate_round, "search": gate_search, **test},
        "iterations": [],
    }
    c0, t0 = time.process_time(), time.perf_counter()
    decisions, recent = 0, []
    bar = tqdm(range(1, iterations + 1), desc=f"expert iteration {config['name']}", disable=not progress)
    for it in bar:
        teacher = SearchOpponent(
            Baseline(best, config), simulations, root_noise=noise, name=f"search:{simulations}:accepted"
        )
        t_it = time.perf_counter()
        data = collect(
            env_id,
            teacher,
            games,
            num_envs=num_envs,
            seed=seed + it,
            players=players,
            random_share=0.0,
            opening=opening,
        )
        decisions += len(data["actions"])
        recent = (recent + [data])[-window:]
        fitted = fit(
            candidate,
            join_samples(*recent),
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            seed=seed + it,
            targets="visits",
        )
        result = gate(
            _player(candidate, config, "candidate", gate_search),
            _player(best, config, "accepted", gate_search),
            env_id,
            options,
            n_players,
            max_games=gate_games,
            round_games=gate_round,
            seed=seed + 1000 * it,
            opening=opening,
            **test,
        )
        if result["accepted"]:
            best = new_policy(config)
            best.load_state_dict(candidate.state_dict())
        last = fitted["history"][-1] if fitted["history"] else {}
        row = {
            "iteration": it,
            "games": games,
            "samples": int(len(data["actions"])),
            "fit": {k: v for k, v in last.items() if k != "epoch"},
            "gate": result,
            "wall_s": round(time.perf_counter() - t_it),
        }
        config["expert_iteration"]["iterations"].append(row)
        for key, value in row["fit"].items():
            writer.add_scalar(f"fit/{key}", value, it)
        writer.add_scalar("gate/score", result["mean"] or 0.0, it)
        writer.add_scalar("gate/llr", result["llr"], it)
        writer.add_scalar("gate/accepted", float(result["accepted"]), it)
        writer.add_scalar("selfplay/samples", row["samples"], it)
        bar.set_postfix(score=result["mean"], llr=result["llr"], accepted=result["accepted"])
        if verbose:
            print(
                f"[{config['name']}] iteration {it}: {row['samples']} samples, fit {row['fit']}, gate "
                f"{result['games']} games score {result['mean']} LLR {result['llr']} -> "
                f"{'accepted' if result['accepted'] else 'rejected'} ({row['wall_s']} s)",
                flush=True,
            )
        save_model(
            best,
            config,
            out,
            decisions,
            time.perf_counter() - t0,
            time.process_time() - c0,
            it == iterations,
            "expert_iteration",
        )
    writer.close()
    return config


def _player(policy, config: dict, name: str, simulations: int):
    """What a gate plays: the network's raw policy (its most likely legal
    action), or with ``simulations`` > 0 its guided search."""
    from . import Baseline, BaselineOpponent
    from .search_opponent import SearchOpponent

    model = Baseline(policy, config)
    if simulations:
        return SearchOpponent(model, simulations, name=f"search:{simulations}:{name}")
    return BaselineOpponent(model, name)


def _num_players(env_id: str, options: dict) -> int:
    from boardenvs.registry import make_game

    return make_game(env_id, **options).num_players


def main(argv=None) -> int:
    from boardenvs.helptext import TRAINING_SEED, help_text

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.expert_iteration", description=help_text(__doc__))
    ap.add_argument("game", choices=sorted(trainable_ids()), help="the env id")
    ap.add_argument("--init", default=None, help="start from this model (a committed baseline's name or <path>.pt)")
    ap.add_argument("--players", type=int, default=None, help="player count (Hex Quoridor, Tryasina)")
    ap.add_argument("--iterations", type=int, default=4, help="self-play, fit, gate rounds (default 4)")
    ap.add_argument("--games", type=int, default=256, help="self-play games per iteration (default 256)")
    ap.add_argument("--simulations", type=int, default=64, help="search simulations per decision (default 64)")
    ap.add_argument("--num-envs", type=int, default=128, help="self-play games played at once (default 128)")
    ap.add_argument(
        "--opening", type=int, default=4, help="at most this many random decisions opening each game (default 4)"
    )
    ap.add_argument("--window", type=int, default=2, help="fit on the samples of this many last iterations (default 2)")
    ap.add_argument("--epochs", type=int, default=4, help="passes over the samples per fit (default 4)")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate, cosine to 0 per fit (default 3e-4)")
    ap.add_argument(
        "--gate-games", type=int, default=800, help="most games of a gate (default 800; undecided: rejected)"
    )
    ap.add_argument("--gate-round", type=int, default=100, help="games between two looks of the test (default 100)")
    ap.add_argument(
        "--gate-search",
        type=int,
        default=0,
        metavar="N",
        help="gate the networks' guided searches (N simulations) instead of their raw policies (default 0: raw)",
    )
    ap.add_argument(
        "--elo0",
        type=float,
        default=SPRT_DEFAULTS["elo0"],
        help="H0: the candidate is at most this much stronger (default 0)",
    )
    ap.add_argument("--elo1", type=float, default=SPRT_DEFAULTS["elo1"], help="H1: at least this much (default 30)")
    ap.add_argument("--alpha", type=float, default=SPRT_DEFAULTS["alpha"], help="false acceptance rate (default 0.05)")
    ap.add_argument("--beta", type=float, default=SPRT_DEFAULTS["beta"], help="false rejection rate (default 0.05)")
    ap.add_argument("--seed", type=TRAINING_SEED, default=0)
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument(
        "--out",
        default=None,
        help="where to write <out>.pt/.json (default: a new run folder, runs/<name>-<date>-<time>/<name>)",
    )
    args = ap.parse_args(argv)
    try:
        expert_iteration(
            args.game,
            init=args.init,
            out=args.out,
            players=args.players,
            iterations=args.iterations,
            games=args.games,
            simulations=args.simulations,
            num_envs=args.num_envs,
            opening=args.opening,
            window=args.window,
            epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            gate_games=args.gate_games,
            gate_round=args.gate_round,
            gate_search=args.gate_search,
            seed=args.seed,
            progress=not args.no_progress,
            elo0=args.elo0,
            elo1=args.elo1,
            alpha=args.alpha,
            beta=args.beta,
        )
    except ValueError as exc:
        ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
