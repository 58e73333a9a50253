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

from boardenvs.opponents import Batch, decide

from .networks import (
    check_extractor_kwargs,
    game_options,
    model_config,
    new_policy,
    policy_value,
    trainable_ids,
    training_defaults,
)
from .runs import default_out, save_model, start_from

# the most games one collect() plays: every decision's observation and mask stay in memory until
# the fit (a few hundred bytes to 2 KB each, tens to hundreds of decisions a game); more games are
# played as several --samples files (seeds) fitted together with --add-samples
MAX_GAMES = 100_000
TARGETS = ("visits", "action")  # what fit() fits the policy to: the search's visit shares, or the chosen action


def row_batch(vec, rows, rng) -> Batch:
    """The decisions of ``rows`` of ``vec`` (make_vec), as an opponent is asked for them."""
    return Batch(
        vec.game,
        vec.action_masks()[rows],
        rng,
        seats=vec.to_move[rows],
        rows=rows,
        observations=lambda: vec.observations()["observation"][rows],
        states=lambda: np.array(vec.states[rows]),
    )


def _teacher(opponent, vec, rows, rng) -> tuple[np.ndarray, np.ndarray | None]:
    """The teacher's actions for ``rows`` and, if it is a search with
    ``search_policy``, its policy at each (float16 as stored, rows x mask
    size)."""
    if hasattr(opponent, "search_policy"):
        actions, probs = opponent.search_policy(row_batch(vec, rows, rng))
        return np.asarray(actions, np.int64), np.asarray(probs, np.float16)
    return _actions(opponent, vec, rows, rng), None


def _label(opponent) -> str:
    """How the samples' settings name an opponent: its name as given, or the object's ``name``."""
    return opponent if isinstance(opponent, str) else getattr(opponent, "name", repr(opponent))


def _actions(opponent, vec, rows, rng) -> np.ndarray:
    return decide(opponent, row_batch(vec, rows, rng))


def collect(
    env_id: str,
    teacher: str = "mcts:1600",
    games: int = 1000,
    num_envs: int = 64,
    seed: int = 0,
    players: int | None = None,
    random_share: float = 0.25,
    opening: int = 2,
    student=None,
    student_share: float = 0.0,
    against=None,
    against_share: float = 0.0,
    verbose: int = 0,
) -> dict:
    """Play ``games`` games and return the teacher's decisions: ``obs``
    (int8, the mover's view), ``masks`` (int8), ``actions``, ``policy``
    (float16, the search's policy; only from a teacher with
    ``search_policy``), ``returns`` (the mover's final reward), ``seat`` (the mover) and ``game`` (which game
    each sample is from, numbered from 0 in the order the games started);
    and per game: ``random_seat`` (-1: none), ``opening`` (its random
    decisions), ``student_game`` and, when ``against_share`` > 0,
    ``learner_seat`` (-1: none).  ``games`` is at most ``MAX_GAMES``
    (100,000: every decision stays in memory until the fit; play more as
    several samples files and fit them together).

    ``student`` (a model with ``predict``, or an opponent name such as
    ``"baseline:<name>"``) plays instead of the teacher in ``student_share``
    of the games, its most likely action; the teacher still labels every one
    of its decisions.  So the samples also hold the positions the student's
    own mistakes lead to, which the teacher's games never reach (DAgger,
    Ross, Gordon & Bagnell, 2011).

    ``against`` (an opponent name or object) plays every seat but one,
    drawn, in ``against_share`` of the games; its decisions are not
    recorded, and the one seat is the teacher's (or the student's).  So the
    samples hold the positions reached against the opponent a model is to
    beat: with ``against="greedy"`` and a search teacher, what the search
    plays against ``greedy`` where the student's own games go.  Those games
    have no random seat."""
    from boardenvs.wrappers.selfplay import make_player

    from boardenvs.api import make_vec
    from boardenvs.opponents import make_opponent

    from ..spec import is_int

    for label, value, low in (("games", games, 1), ("num_envs", num_envs, 1), ("opening", opening, 0)):
        if not is_int(value) or value < low:
            raise ValueError(f"{label} must be an int >= {low}, got {value!r}")
    if games > MAX_GAMES:
        raise ValueError(
            f"games must be at most {MAX_GAMES:_} (the samples are kept in memory: play more as "
            f"several samples files, other seeds, fitted together with add_samples), got {games!r}"
        )
    for label, value in (
        ("random_share", random_share),
        ("student_share", student_share),
        ("against_share", against_share),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{label} must be in [0, 1], got {value!r}")
    if student_share > 0 and student is None:
        raise ValueError("student_share > 0 needs a student (a model or an opponent name)")
    if against_share > 0 and against is None:
        raise ValueError("against_share > 0 needs an opponent to play against (against, e.g. 'greedy')")
    player = None if student is None else make_player(student, deterministic=True)
    rival = None if against_share == 0 else make_opponent(against)
    options = game_options(env_id, players)
    expert = make_opponent(teacher)
    num_envs = min(int(num_envs), int(games))
    vec = make_vec(env_id, num_envs=num_envs, **options)
    rng = np.random.default_rng(seed)
    vec.reset(seed=seed)
    n_players = vec.num_players

    # per row, the game on: its number, the seat random plays (-1: none), the random decisions it
    # still has to play (0..opening drawn), whether the student plays the teacher's seats
    game_ids = np.zeros(num_envs, np.int64)
    random_seat = np.zeros(num_envs, np.int64)
    opening_left = np.zeros(num_envs, np.int64)
    student_row = np.zeros(num_envs, bool)
    learner_seat = np.full(num_envs, -1, np.int64)  # the one seat `against` leaves, in its games (-1: not one)
    per_game = {"random_seat": [], "opening": [], "student_game": []}
    if rival is not None:
        per_game["learner_seat"] = []

    def new_game(i):
        game_ids[i] = len(per_game["opening"])
        # the draw only where there is an opponent: the games of a seed without one stay as they were
        learner_seat[i] = rng.integers(n_players) if rival is not None and rng.random() < against_share else -1
        random_seat[i] = rng.integers(n_players) if learner_seat[i] < 0 and rng.random() < random_share else -1
        opening_left[i] = rng.integers(opening + 1)
        student_row[i] = player is not None and rng.random() < student_share
        drawn = {
            "random_seat": random_seat[i],
            "opening": opening_left[i],
            "student_game": student_row[i],
            "learner_seat": learner_seat[i],
        }
        for key, values in per_game.items():  # learner_seat only where per_game keeps it (games with an opponent)
            values.append(drawn[key])

    for i in range(num_envs):
        new_game(i)
    pending: list[list] = [[] for _ in range(num_envs)]  # per row: (obs, mask, action, seat) of the game on
    out = {"obs": [], "masks": [], "actions": [], "policy": [], "returns": [], "seat": [], "game": []}
    finished = 0
    started = num_envs
    live = np.ones(num_envs, bool)  # rows still wanted (no new game after the last one started)
    t0 = time.perf_counter()
    while finished < games:
        movers = vec.to_move
        opposed = (learner_seat >= 0) & (movers != learner_seat)
        by_teacher = np.flatnonzero(live & (opening_left == 0) & (movers != random_seat) & ~opposed)
        actions = vec.random_actions()
        labels, probs = _teacher(expert, vec, by_teacher, rng)
        masks = vec.action_masks()
        if (
            labels.shape != by_teacher.shape
            or ((labels < 0) | (labels >= masks.shape[1])).any()
            or not masks[by_teacher, np.clip(labels, 0, masks.shape[1] - 1)].all()
        ):
            raise ValueError(f"teacher {getattr(expert, 'name', expert)} chose an illegal action")
        actions[by_teacher] = labels
        by_student = by_teacher[student_row[by_teacher]]
        if by_student.size:
            actions[by_student] = _actions(player, vec, by_student, rng)
        by_rival = np.flatnonzero(live & (opening_left == 0) & opposed)
        if by_rival.size:
            actions[by_rival] = _actions(rival, vec, by_rival, rng)
        obs = vec.observations()["observation"]
        for j, (i, label) in enumerate(zip(by_teacher, labels)):
            pending[i].append(
                (obs[i].copy(), masks[i].copy(), int(label), int(movers[i]), None if probs is None else probs[j])
            )
        opening_left[opening_left > 0] -= 1
        _, rewards, terminated, truncated, _ = vec.step(actions)
        for i in np.flatnonzero((terminated | truncated) & live):
            for o, m, a, seat, p in pending[i]:
                out["obs"].append(o), out["masks"].append(m), out["actions"].append(a), out["policy"].append(p)
                out["returns"].append(float(rewards[i, seat])), out["seat"].append(seat)
                out["game"].append(int(game_ids[i]))
            pending[i] = []
            finished += 1
            if started < games:
                new_game(i)
                started += 1
            else:
                live[i] = False
            if verbose and finished % max(1, games // 10) == 0:
                print(
                    f"[distill] {finished}/{games} games, {len(out['actions'])} samples, "
                    f"{time.perf_counter() - t0:.0f} s",
                    flush=True,
                )
    if not out["actions"]:
        raise ValueError(f"the teacher {teacher!r} made no decision in {games} games (opening {opening})")
    policy = {} if out["policy"][0] is None else {"policy": np.stack(out["policy"])}
    return {
        "obs": np.stack(out["obs"]),
        "masks": np.stack(out["masks"]),
        "actions": np.array(out["actions"], np.int64),
        **policy,
        "returns": np.array(out["returns"], np.float32),
        "seat": np.array(out["seat"], np.int64),
        "game": np.array(out["game"], np.int64),
        "random_seat": np.array(per_game["random_seat"], np.int64),
        "opening": np.array(per_game["opening"], np.int64),
        "student_game": np.array(per_game["student_game"], bool),
        **({"learner_seat": np.array(per_game["learner_seat"], np.int64)} if rival is not None else {}),
    }


def fit(
    policy,
    data: dict,
    epochs: int = 10,
    batch_size: int = 512,
    lr: float = 1e-3,
    vf_coef: float = 0.5,
    holdout: float = 0.1,
    seed: int = 0,
    targets: str | None = None,
    on_epoch=None,
    verbose: int = 0,
) -> dict:
    """Supervised fit of ``policy`` on :func:`collect`'s samples; returns
    the sample counts, the ``targets`` fitted and ``history``, the held-out
    games' teacher agreement (the policy's most likely action is the
    teacher's) and losses per epoch (also passed to ``on_epoch(result)``
    after each epoch).  ``targets``: ``"visits"`` (cross-entropy on the
    search's policy, ``data["policy"]``; the default when there is one) or
    ``"action"`` (on the teacher's action)."""
    import torch

    if targets is None:
        targets = "visits" if "policy" in data else "action"
    if targets not in TARGETS:
        raise ValueError(f"targets must be {' or '.join(map(repr, TARGETS))}, got {targets!r}")
    if targets == "visits" and "policy" not in data:
        raise ValueError("targets 'visits': these samples hold no search policy (the teacher has no search_policy)")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    ids = np.unique(data["game"])
    size = min(max(1, int(round(len(ids) * holdout))), len(ids) - 1) if holdout > 0 and len(ids) > 1 else 0
    held = rng.choice(ids, size=size, replace=False)  # at least one game when there are two
    test = np.isin(data["game"], held)
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    if len(train_rows) == 0:
        raise ValueError("no samples left to fit after the hold-out")
    keys = ("obs", "masks", "actions", "returns") + (("policy",) if targets == "visits" else ())
    tensors = {k: torch.as_tensor(data[k]) for k in keys}
    tensors["masks"] = tensors["masks"].bool()
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    def batch_loss(rows):
        log_p, values = policy_value(policy, tensors["obs"][rows].float(), tensors["masks"][rows])
        if targets == "visits":
            pi = -(tensors["policy"][rows].float() * log_p).sum(dim=1).mean()
        else:
            pi = -log_p.gather(1, tensors["actions"][rows][:, None]).mean()
        vf = torch.nn.functional.mse_loss(values, tensors["returns"][rows])
        return pi, vf, log_p

    def agreement(rows) -> dict:
        if len(rows) == 0:
            return {}
        policy.set_training_mode(False)
        hits, pi_sum, vf_sum = 0, 0.0, 0.0
        with torch.no_grad():
            for k in range(0, len(rows), 4096):
                part = rows[k : k + 4096]
                pi, vf, log_p = batch_loss(part)
                hits += int((log_p.argmax(dim=1) == tensors["actions"][part]).sum())
                pi_sum += float(pi) * len(part)
                vf_sum += float(vf) * len(part)
        return {
            "agreement": round(hits / len(rows), 4),
            "policy_loss": round(pi_sum / len(rows), 4),
            "value_loss": round(vf_sum / len(rows), 4),
        }

    history = []
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = rng.permutation(train_rows)
        for k in range(0, len(order), batch_size):
            pi, vf, _ = batch_loss(order[k : k + batch_size])
            loss = pi + vf_coef * vf
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
        schedule.step()
        row = {"epoch": epoch + 1, **{f"held_out_{k}": v for k, v in agreement(test_rows).items()}}
        history.append(row)
        if verbose:
            print(f"[distill] {row}", flush=True)
        if on_epoch is not None:
            policy.set_training_mode(False)
            on_epoch(
                {
                    "train_samples": int(len(train_rows)),
                    "held_out_samples": int(len(test_rows)),
                    "targets": targets,
                    "history": history,
                }
            )
    policy.set_training_mode(False)
    return {
        "train_samples": int(len(train_rows)),
        "held_out_samples": int(len(test_rows)),
        "targets": targets,
        "history": history,
    }


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
    teacher_name = _label(teacher)
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
        settings.update(against=_label(against), against_share=against_share)
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
            np.savez_compressed(samples, settings=json.dumps(settings), **data)
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
    from boardenvs.helptext import help_text

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.distill", description=help_text(__doc__))
    ap.add_argument("game", choices=sorted(trainable_ids()), help="the env id")
    ap.add_argument("--teacher", default="mcts:1600", help="the opponent name to imitate (default mcts:1600)")
    ap.add_argument("--games", type=int, default=1000, help="games the teacher plays (default 1000, at most 100,000)")
    ap.add_argument("--players", type=int, default=None, help="player count (Hex Quoridor, Tryasina)")
    ap.add_argument("--num-envs", type=int, default=64, help="games played at once (default 64)")
    ap.add_argument("--seed", type=int, default=0)
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
