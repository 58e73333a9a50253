"""Distil a search opponent into a masked-PPO policy (imitation pretraining).

    python -m boardenvs.baselines.distill quagmire_v0 --teacher mcts:1600 --games 3000 --out runs/qd
    python -m boardenvs.baselines.train quagmire_v0 --init runs/qd --out runs/q   # then PPO from it

A strong search (by default ``mcts:1600``) plays games, mostly against
itself, some against ``random`` (``--random-share``: the positions a weak
opponent leaves behind), the first 0 to ``--opening`` decisions of every game
(drawn per game) random, so the games differ.  Every decision the teacher makes is a sample:
the mover's observation and mask, the teacher's action, the search's policy
(a teacher with ``search_policy``, such as ``mcts``: the root's visit
counts over the simulations) and the mover's final return.  Then the policy
the trainer builds for this game (same extractor, same heads: a
``MaskableActorCriticPolicy``) is fitted by supervised learning:
cross-entropy of the masked policy on the search's policy (``--targets
visits``, the default where there is one: close calls between moves stay
close, AlphaZero's policy target) or on the teacher's action (``--targets
action``), plus ``vf_coef`` times the squared error of the value head on
the return.  A
tenth of the games is held out and the teacher-agreement rate on it is
reported.

The result is saved like :mod:`.train`'s (``<out>.pt``/``<out>.json``, its
``distilled`` entry names the teacher, games and samples, and its budget the
teacher's decisions as steps): :func:`boardenvs.baselines.load` plays it,
``train --init`` goes on from it with PPO.  This is expert iteration's first
step (Anthony et al., 2017; AlphaZero's policy target is the search's
visits): the policy learns what the search finds, the search is not used to play.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from .imitation import MAX_GAMES, TARGETS, collect, fit, opponent_label
from .networks import (
    check_extractor_kwargs,
    model_config,
    new_policy,
    trainable_ids,
    training_defaults,
)
from .runs import default_out, save_model, start_from


def _read_samples(path: Path) -> tuple[dict, dict]:
    """The settings and samples of a file distill wrote (ValueError if it is not one)."""
    if not path.is_file():
        raise ValueError(f"no samples file {path}")
    with np.load(path) as f:
        if "settings" not in f.files:
            raise ValueError(f"{path} was not written by distill (no settings in it)")
        return json.loads(str(f["settings"])), {k: f[k] for k in f.files if k != "settings"}


def join_samples(*parts: dict) -> dict:
    """Sample sets as one (one copy): each set's games numbered after the
    previous sets'."""
    if len({"policy" in part for part in parts}) > 1:
        raise ValueError("samples with and without the search's policy cannot be fitted together")
    if any("learner_seat" in part for part in parts):  # games played without an opponent: -1, as collect writes
        parts = [
            part if "learner_seat" in part else {**part, "learner_seat": np.full(len(part["opening"]), -1, np.int64)}
            for part in parts
        ]
    shifts, offset = [], 0
    for part in parts:
        shifts.append(offset)
        offset += int(part["game"].max()) + 1 if len(part["game"]) else 0
    return {
        k: np.concatenate([part[k] + shift if k == "game" else part[k] for part, shift in zip(parts, shifts)])
        for k in parts[0]
    }


def _uncounted_decisions(init: dict | None, samples, own: int, added) -> int:
    """The budget's steps for a fit: its own ``own`` decisions (played now,
    or read back from ``samples``, which records the same ``init``: never a
    file a model before it fitted) and those of the ``added`` files
    (``(path, decisions)`` each) that no model along the ``init`` chain
    counted already.  So a DAgger round that refits the earlier rounds'
    files adds only its own games' decisions.  Files are known by the path
    the runs were given (normalised: ``./a.npz`` is ``a.npz``)."""
    key = os.path.normpath
    counted = set()
    while init:
        d = init.get("distilled") or {}
        if d.get("samples_file"):
            counted.add(key(d["samples_file"]))
        counted.update(key(a["file"]) for a in d.get("added_samples", ()))
        init = init.get("init")
    if samples is not None:
        counted.add(key(samples))
    steps = own
    for path, n in added:
        if key(path) not in counted:
            counted.add(key(path))
            steps += n
    return steps


def distill(
    env_id: str,
    teacher: str = "mcts:1600",
    games: int = 1000,
    out: str | Path | None = None,
    players: int | None = None,
    num_envs: int = 64,
    seed: int = 0,
    random_share: float = 0.25,
    opening: int = 2,
    epochs: int = 10,
    batch_size: int = 512,
    lr: float = 1e-3,
    samples: str | Path | None = None,
    extractor_kwargs: dict | None = None,
    init: str | Path | None = None,
    student_share: float = 0.0,
    targets: str | None = None,
    add_samples=(),
    extractor: str | None = None,
    against=None,
    against_share: float = 0.0,
    verbose: int = 1,
) -> dict:
    """Collect the teacher's decisions, fit a fresh policy on them and save
    it (``<out>.pt``/``<out>.json``); returns its config.  ``samples``: an
    ``.npz`` file to keep the teacher's decisions in (``.npz`` added to a
    name without it): when it exists it is read back instead of playing,
    and refused (ValueError) if it was played with other settings.
    ``extractor_kwargs``: change the game's extractor options (e.g.
    ``{"layers": 6}``); ``extractor``: another of
    :data:`.extractors.EXTRACTORS` than the game's (e.g. ``"cnn"``; the
    game's options that it also takes, such as ``hex`` and ``layers``, are
    kept).  ``init``: a saved model (``<path>.pt/.json``) to start from
    (its network) instead of a fresh policy; it is also the student of
    :func:`collect` in ``student_share`` of the games.  ``against``,
    ``against_share``: an opponent that plays every seat but the teacher's
    (or student's) in that share of the games, :func:`collect`'s.
    ``targets``: what the policy is fitted to, :func:`fit`'s (default: the
    search's visits when the teacher is a search, else its action).
    ``add_samples``: more ``samples`` files (of other seeds or game counts;
    the same game, options and teacher, else ValueError) fitted with these.

    The value head is fitted to the undiscounted final return; PPO's critic
    (``gamma`` < 1, shaping) learns a discounted one, so its first updates
    after ``train --init`` move the value head before the policy settles."""
    from ..spec import is_int

    training_defaults(env_id)  # ValueError naming the games for another id
    for label, value in (("games", games), ("epochs", epochs), ("batch_size", batch_size)):
        if not is_int(value) or value < 1:
            raise ValueError(f"{label} must be a positive int, got {value!r}")
    if games > MAX_GAMES:  # collect's bound, before anything is built or written
        raise ValueError(
            f"games must be at most {MAX_GAMES:_} (the samples are kept in memory: play more as "
            f"several --samples files, other seeds, fitted together with --add-samples), got {games!r}"
        )
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr > 0:
        raise ValueError(f"lr must be a number > 0, got {lr!r}")
    if student_share and init is None:
        raise ValueError("student_share > 0: the student is the init model, give init (--init)")
    if targets is not None and targets not in TARGETS:
        raise ValueError(f"targets must be {' or '.join(map(repr, TARGETS))}, got {targets!r}")
    if targets == "visits" and isinstance(teacher, str):
        from boardenvs.opponents import make_opponent

        if not hasattr(make_opponent(teacher), "search_policy"):
            raise ValueError(
                f"targets 'visits': the teacher {teacher!r} is not a search (no search_policy); use 'action'"
            )
    # the game's network; another extractor named: the dense network with it
    config = model_config(env_id, players, None if extractor in (None, "board") else "dense")
    name, options = config["name"], config["options"]
    out = Path(out) if out is not None else default_out(name)  # runs/<name>-<date>-<time>/<name>
    if samples is not None:
        samples = Path(samples)
        samples = samples if samples.suffix == ".npz" else samples.with_name(samples.name + ".npz")
    if extractor not in (None, "board"):
        from .extractors import EXTRACTORS, option_names

        if extractor not in EXTRACTORS:
            raise ValueError(f"extractor must be one of {', '.join(sorted([*EXTRACTORS, 'board']))}, got {extractor!r}")
        if extractor != config["extractor"]:  # keep the game's options the other extractor also takes (hex, layers)
            kept = option_names(EXTRACTORS[extractor])
            config["extractor_kwargs"] = {k: v for k, v in config["extractor_kwargs"].items() if k in kept}
            config["extractor"] = extractor
    config["extractor_kwargs"] = {**config["extractor_kwargs"], **check_extractor_kwargs(extractor_kwargs or {})}
    student = None
    if init is not None:
        if extractor_kwargs or extractor is not None:
            raise ValueError("extractor options come from the init model's network: give one or the other")
        student = start_from(init, config)  # ValueError if there is none, or it plays another game
    policy = new_policy(config)  # before the games: a bad extractor option fails fast (ValueError)
    if student is not None:
        policy.load_state_dict(student.policy.state_dict())
    if samples is not None:
        samples.parent.mkdir(parents=True, exist_ok=True)
    teacher_name = opponent_label(teacher)
    more = []  # read before any game is played: a wrong file fails fast
    for path in add_samples:
        extra, extra_data = _read_samples(Path(path))
        if [extra.get(k) for k in ("env_id", "options", "teacher")] != [env_id, options, teacher_name]:
            raise ValueError(
                f"{path} holds samples of {extra.get('env_id')} {extra.get('options')} played by "
                f"{extra.get('teacher')}, not {env_id} {options} by {teacher_name}"
            )
        more.append((extra, extra_data))
    settings = {
        "env_id": env_id,
        "options": options,
        "teacher": teacher_name,
        "games": games,
        "seed": seed,
        "random_share": random_share,
        "opening": opening,
        "student": None if init is None else str(init),
        "student_share": student_share,
        "num_envs": num_envs,
    }
    if against_share:  # only then: the files played without one keep the settings they were written with
        settings.update(against=opponent_label(against), against_share=against_share)
    c0, t0 = time.process_time(), time.perf_counter()
    data = None
    read_back = samples is not None and samples.is_file()
    if read_back:
        played, data = _read_samples(samples)
        if played != settings:
            raise ValueError(f"{samples} holds samples played with {json.dumps(played)}, not {json.dumps(settings)}")
    if data is None:
        data = collect(
            env_id,
            teacher,
            games,
            num_envs=num_envs,
            seed=seed,
            players=players,
            random_share=random_share,
            opening=opening,
            student=student,
            student_share=student_share,
            against=against,
            against_share=against_share,
            verbose=verbose,
        )
        if samples is not None:
            from boardenvs.files import write_atomically

            def write(tmp):  # (a file object: numpy adds no .npz to its name)
                with open(tmp, "wb") as f:
                    np.savez_compressed(f, settings=json.dumps(settings), **data)

            write_atomically(samples, write, "samples file")
    collect_s = time.perf_counter() - t0
    total_games = games + sum(extra["games"] for extra, _ in more)
    new_decisions = _uncounted_decisions(
        config.get("init"),
        samples,
        len(data["actions"]),
        [(path, len(extra_data["actions"])) for path, (_, extra_data) in zip(add_samples, more)],
    )
    if more:
        data = join_samples(data, *(extra_data for _, extra_data in more))

    def save(result: dict, final: bool) -> None:  # after every epoch: a run stopped early keeps its last one
        config["distilled"] = {
            "teacher": teacher_name,
            "games": total_games,
            "samples": int(len(data["actions"])),
            "random_share": random_share,
            "opening": opening,
            "student_share": student_share,
            "epochs": epochs,
            **{k: settings[k] for k in ("against", "against_share") if k in settings},
            "batch_size": batch_size,
            "lr": lr,
            "collect_wall_s": round(collect_s),
            "samples_file": None if samples is None else str(samples),
            "samples_read_back": read_back,
            "added_samples": [
                {"file": str(path), "games": extra["games"], "seed": extra["seed"]}
                for path, (extra, _) in zip(add_samples, more)
            ],
            **result,
        }
        config["history"] = []
        save_model(
            policy, config, out, new_decisions, time.perf_counter() - t0, time.process_time() - c0, final, "distill"
        )

    out.parent.mkdir(parents=True, exist_ok=True)  # once the samples are in: a refused run makes no folder
    result = fit(
        policy,
        data,
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        seed=seed,
        targets=targets,
        verbose=verbose,
        on_epoch=lambda r: save(r, final=False),
    )
    save(result, final=True)
    wall = time.perf_counter() - t0
    if verbose:
        last = result["history"][-1] if result["history"] else {}
        print(
            f"[{name}] saved {out.with_suffix('.pt')}: {len(data['actions'])} samples from {total_games} games of "
            f"{teacher}, held-out agreement {last.get('held_out_agreement')}, {wall:.0f} s"
        )
    return config


def main(argv=None) -> int:
    from boardenvs.helptext import TRAINING_SEED, help_text

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.distill", description=help_text(__doc__))
    ap.add_argument("game", choices=sorted(trainable_ids()), help="the env id")
    ap.add_argument("--teacher", default="mcts:1600", help="the opponent name to imitate (default mcts:1600)")
    ap.add_argument("--games", type=int, default=1000, help="games the teacher plays (default 1000, at most 100,000)")
    ap.add_argument("--players", type=int, default=None, help="player count (Hex Quoridor, Tryasina)")
    ap.add_argument("--num-envs", type=int, default=64, help="games played at once (default 64)")
    ap.add_argument("--seed", type=TRAINING_SEED, default=0)
    ap.add_argument("--random-share", type=float, default=0.25, help="share of games with a random seat (default 0.25)")
    ap.add_argument(
        "--opening",
        type=int,
        default=2,
        help="at most this many random decisions at the start of each game (default 2)",
    )
    ap.add_argument("--epochs", type=int, default=10, help="passes over the samples (default 10)")
    ap.add_argument("--batch-size", type=int, default=512, help="minibatch (default 512)")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate, cosine to 0 (default 1e-3)")
    ap.add_argument(
        "--targets",
        choices=TARGETS,
        default=None,
        help="fit the search's visit distribution or the teacher's action (default: visits for a search)",
    )
    ap.add_argument(
        "--extractor",
        default=None,
        help="a dense network with this features extractor (cnn, hexpaths, mlp; the game's dense options it "
        "takes are kept) instead of the game's board network",
    )
    ap.add_argument(
        "--layers", type=int, default=None, help="convolutions in the board extractor (default: the game's)"
    )
    ap.add_argument("--channels", type=int, default=None, help="channels of those convolutions (default: the game's)")
    ap.add_argument(
        "--samples", default=None, help="an .npz to keep the teacher's samples in (read back when it exists)"
    )
    ap.add_argument(
        "--add-samples",
        nargs="+",
        default=[],
        metavar="NPZ",
        help="more --samples files (same game and teacher, other seeds) to fit with these",
    )
    ap.add_argument("--init", default=None, help="start from this saved model (<path>.pt/.json), also the student")
    ap.add_argument(
        "--student-share",
        type=float,
        default=0.0,
        help="share of games the --init model plays instead of the teacher, labelled by it (default 0)",
    )
    ap.add_argument(
        "--against",
        default=None,
        help="an opponent (e.g. greedy) that plays every seat but the teacher's in --against-share of the games",
    )
    ap.add_argument(
        "--against-share",
        type=float,
        default=0.0,
        help="share of games against --against, its moves not recorded (default 0)",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="where to write <out>.pt/.json (default: a new run folder, "
        "runs/<name>-<date>-<time>/<name>; the package's committed models are never overwritten)",
    )
    args = ap.parse_args(argv)
    for flag in ("layers", "channels"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            ap.error(f"--{flag} must be a positive int, got {getattr(args, flag)}")
    network = {k: getattr(args, k) for k in ("layers", "channels") if getattr(args, k) is not None}
    for flag in ("games", "num_envs", "epochs", "batch_size"):
        if getattr(args, flag) < 1:
            ap.error(f"--{flag.replace('_', '-')} must be a positive int, got {getattr(args, flag)}")
    if args.opening < 0:
        ap.error(f"--opening must be >= 0, got {args.opening}")
    if not args.lr > 0:
        ap.error(f"--lr must be > 0, got {args.lr}")
    if args.student_share and args.init is None:
        ap.error("--student-share: the student is the --init model, give --init")
    try:
        distill(
            args.game,
            teacher=args.teacher,
            games=args.games,
            out=args.out,
            players=args.players,
            num_envs=args.num_envs,
            seed=args.seed,
            random_share=args.random_share,
            opening=args.opening,
            epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            samples=args.samples,
            extractor_kwargs=network or None,
            init=args.init,
            student_share=args.student_share,
            targets=args.targets,
            add_samples=args.add_samples,
            extractor=args.extractor,
            against=args.against,
            against_share=args.against_share,
        )
    except ValueError as exc:
        ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
