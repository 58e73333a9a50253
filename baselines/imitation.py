"""Imitation: a teacher's decisions as samples, and a policy fitted to them.

:func:`collect` plays games through the match runner
(:func:`boardenvs.matches.play`) in which a teacher (a reference opponent or
a search) takes the seats it is given, and keeps every decision it makes or
would make (the student's positions labelled by the teacher: DAgger) with
the mover's view, mask and final return; :func:`fit` fits a policy to them
(cross-entropy on the teacher's action or the search's visits, the value
head on the return).  :mod:`.distill` saves the result as a model;
``boardenvs train``'s warm start fits the fresh policy to ``greedy`` first.
"""

from __future__ import annotations

import time

import numpy as np

from boardenvs import matches
from boardenvs.opponents import Opponent, decide
from boardenvs.registry import make_game

from .networks import game_options, policy_value

# the most games one collect() plays: every decision's observation and mask stay in memory until
# the fit (a few hundred bytes to 2 KB each, tens to hundreds of decisions a game); more games are
# played as several --samples files (seeds) fitted together with --add-samples
MAX_GAMES = 100_000
TARGETS = ("visits", "action")  # what fit() fits the policy to: the search's visit shares, or the chosen action


def _teacher(opponent, batch) -> tuple[np.ndarray, np.ndarray | None]:
    """The teacher's actions for ``batch`` and, if it is a search with
    ``search_policy``, its policy at each (float16 as stored, rows x mask
    size)."""
    if hasattr(opponent, "search_policy"):
        actions, probs = opponent.search_policy(batch)
        return np.asarray(actions, np.int64), np.asarray(probs, np.float16)
    return decide(opponent, batch), None


class _Labelled(Opponent):
    """The teacher as the match runner asks it: its actions, and the search
    policy behind them kept for the round's samples (``last``)."""

    def __init__(self, teacher):
        self.teacher, self.name, self.last = teacher, getattr(teacher, "name", "teacher"), None

    def act(self, batch):
        actions, self.last = _teacher(self.teacher, batch)
        return actions


def opponent_label(opponent) -> str:
    """How the samples' settings name an opponent: its name as given, or the object's ``name``."""
    return opponent if isinstance(opponent, str) else getattr(opponent, "name", repr(opponent))


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
    expert = _Labelled(make_opponent(teacher))
    n_players = make_game(env_id, **options).num_players
    rng = np.random.default_rng(seed)
    # per game: the seat the opponent leaves (-1: no opponent), the seat random plays (-1: none), the random
    # decisions it opens with (0..opening drawn), whether the student plays the teacher's seats
    learner_seat = np.full(games, -1, np.int64)
    random_seat = np.full(games, -1, np.int64)
    opening_drawn = np.zeros(games, np.int64)
    student_game = np.zeros(games, bool)
    for g in range(games):
        # the draw only where there is an opponent: the games of a seed without one stay as they were
        learner_seat[g] = rng.integers(n_players) if rival is not None and rng.random() < against_share else -1
        random_seat[g] = rng.integers(n_players) if learner_seat[g] < 0 and rng.random() < random_share else -1
        opening_drawn[g] = rng.integers(opening + 1)
        student_game[g] = player is not None and rng.random() < student_share
    # the agents: 0 the teacher, 1 the student, 2 random, 3 the opponent; a lineup per game
    agents = [expert, player or expert, make_opponent("random"), rival or expert]
    lineups = np.where(student_game[:, None], 1, 0) * np.ones((1, n_players), np.int64)
    seats = np.arange(n_players)[None, :]
    lineups = np.where(seats == random_seat[:, None], 2, lineups)
    lineups = np.where((learner_seat[:, None] >= 0) & (seats != learner_seat[:, None]), 3, lineups)
    out = {"obs": [], "masks": [], "actions": [], "policy": [], "seat": [], "game": []}
    t0 = time.perf_counter()
    for first in range(0, games, num_envs):
        chunk = slice(first, min(first + num_envs, games))

        def record(agent, rows, batch, actions, first=first):
            """The teacher's labels of every decision of the teacher's and the student's seats."""
            if agent == 0:
                labels, probs = actions, expert.last
            elif agent == 1 and player is not None:
                labels, probs = _teacher(expert.teacher, batch)
            else:
                return
            if labels.shape != rows.shape or not batch.masks[np.arange(len(rows)), np.clip(labels, 0, None)].all():
                raise ValueError(f"teacher {getattr(expert, 'name', expert)} chose an illegal action")
            for j, row in enumerate(rows):
                out["obs"].append(np.array(batch.observations[j]).reshape(-1)), out["masks"].append(batch.masks[j])
                out["actions"].append(int(labels[j])), out["seat"].append(int(batch.seats[j]))
                out["policy"].append(None if probs is None else probs[j]), out["game"].append(first + int(row))

        played = matches.play(
            env_id,
            options,
            lineups[chunk],
            agents,
            rng,
            seeds=[seed * 1_000_003 + g for g in range(first, chunk.stop)],
            opening=opening_drawn[chunk],
            on_decision=record,
        )
        for k, p in enumerate(played):
            out.setdefault("_returns", {})[first + k] = p.returns
        if verbose:
            print(
                f"[distill] {chunk.stop}/{games} games, {len(out['actions'])} samples, "
                f"{time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    if not out["actions"]:
        raise ValueError(f"the teacher {teacher!r} made no decision in {games} games (opening {opening})")
    game_ids = np.array(out["game"], np.int64)
    order = np.argsort(game_ids, kind="stable")  # grouped by game, in the order each game's decisions came
    returns = [float(out["_returns"][g][seat]) for g, seat in zip(out["game"], out["seat"])]
    policy = {} if out["policy"][0] is None else {"policy": np.stack(out["policy"])[order]}
    obs_shape = make_game(env_id, **options).obs_shape
    return {
        "obs": np.stack(out["obs"])[order].reshape(-1, *obs_shape).astype(np.int8),
        "masks": np.stack(out["masks"])[order].astype(np.int8),
        "actions": np.array(out["actions"], np.int64)[order],
        **policy,
        "returns": np.array(returns, np.float32)[order],
        "seat": np.array(out["seat"], np.int64)[order],
        "game": game_ids[order],
        "random_seat": random_seat,
        "opening": opening_drawn,
        "student_game": student_game,
        **({"learner_seat": learner_seat} if rival is not None else {}),
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
