"""The learner loop against "greedy": what a learner step costs
against what its parts cost alone.

    python benchmarks/learner_loop.py                    # every game, 2 players, N = 1024
    python benchmarks/learner_loop.py --games quess_v0 --n 256 --seconds 1

For each game, one process, the same machine, quiet (load swings figures
3-5x: take the table with nothing else running):

* ``make_vec``: decisions per second of ``vec.step(vec.random_actions())``
  on one core (``parallel=False``), rows mid-game;
* ``greedy alone``: greedy's decisions per second on one core (its compiled
  driver, ``boardenvs.baselines.greedy.greedy_driver``) on states taken from
  the learner loop's own games;
* ``loop, engine``: learner steps per second of the gymnasium vector view
  against ``opponent="greedy"``, greedy played inside the engine's learner
  loop (``make_vec.play_learners(..., opponent=greedy)``), on one core and
  on numba's threads;
* ``loop, rounds``: the same view with greedy asked round by round from
  Python (its engine decision hidden: the protocol every other opponent
  uses), on numba's threads;
* ``cost / parts``: a learner step's time on one core over the time of its
  parts alone, ``(P - 1)`` greedy decisions and ``P`` engine steps (P seats):
  1.0 would be no overhead (the issue's target: at most 1.25).

A second table does the same against the game's committed model
(``opponent="baseline:<id>"``, asked from outside the engine once per round
for every row waiting on it: one torch forward): ``model alone`` is its
decisions per second through the opponents' protocol
(:func:`boardenvs.opponents.decide`) on batches of the loop's own waiting
rows, ``loop`` the view's learner steps per second (numba's threads for the
engine, torch's for the model, as a user runs it), and ``cost / parts`` as
above with the model's decisions, counted as the loop asks them (``d`` per
learner step: a Quicksand turn is two decisions, a new game may start with
the opponent's move) and ``1 + d`` engine steps: with the model's
decisions timed alone (on stored batches of the loop's rows: warm caches,
only full batches) and timed in the loop itself, on the same rows as the
loop asks them (the target, at most 1.25, is read on the latter: the
loop's own cost over the opponent's and the engine's).

The learner's actions are drawn by numpy from its masks (no policy),
outside the timed part: a loop's rate is of the view's ``step`` alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from boardenvs.baselines.greedy import GreedyOpponent, greedy_driver
from boardenvs.wrappers import SingleAgentVectorEnv

import boardenvs
from boardenvs.opponents import Opponent, decide, make_opponent


class RoundsOnlyGreedy(GreedyOpponent):
    """Greedy without its engine decision: asked round by round, from Python."""

    def engine_decision(self, game):
        return None


def _rate(fn, seconds: float, reps: int = 3) -> float:
    """The best of ``reps`` runs of ``fn`` (returns how many units it did) for ``seconds`` each."""
    best = 0.0
    for _ in range(reps):
        t, done = time.perf_counter(), 0
        while time.perf_counter() - t < seconds:
            done += fn()
        best = max(best, done / (time.perf_counter() - t))
    return best


def _loop_rate(env_id, n, seconds, parallel, opponent, pool=None, totals=None) -> float:
    """Learner steps per second of the view's ``step`` alone: the learner's
    actions (drawn by numpy from its masks) are drawn before the clock runs.
    ``totals``: a dict whose ``"steps"`` (learner steps) and ``"spent"``
    (seconds in ``step``) this adds every step to, warm-up included."""
    env = SingleAgentVectorEnv(env_id, num_envs=n, opponent=opponent, parallel=parallel)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"info": info}

    def step():
        masks = state["info"]["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(1)
        t = time.perf_counter()
        _, _, _, _, state["info"] = env.step(actions)
        spent = time.perf_counter() - t
        state["spent"] += spent
        if totals is not None:
            totals["steps"] += n
            totals["spent"] += spent
        if pool is not None and len(pool) < 8:
            pool.append(np.array(env.vec.states))
        return n

    state["spent"] = 0.0
    for _ in range(3):
        step()
    best = 0.0
    for _ in range(3):
        state["spent"], t, done = 0.0, time.perf_counter(), 0
        while time.perf_counter() - t < seconds:
            done += step()
        best = max(best, done / state["spent"])
    return best


def measure(env_id: str, n: int, seconds: float) -> dict:
    game = boardenvs.make_game(env_id)
    vec = boardenvs.make_vec(env_id, num_envs=n, parallel=False)
    vec.reset(seed=1)
    for _ in range(300):  # rows spread over their games' phases
        vec.step(vec.random_actions())
    make_vec = _rate(lambda: (vec.step(vec.random_actions()), n)[1], seconds)
    pool: list = []
    engine_one = _loop_rate(env_id, n, seconds, False, "greedy", pool)
    states = np.concatenate(pool)
    states = states[states[:, boardenvs.engine.H_STATUS] == boardenvs.engine.PLAYING][: 4 * n]
    drive, out = greedy_driver(type(game)), np.zeros(len(states), np.int64)
    seeds = np.arange(len(states), dtype=np.int64)
    alone = _rate(lambda: (drive(states.copy(), game.params, seeds, out, game.mask_size), len(states))[1], seconds)
    engine = _loop_rate(env_id, n, seconds, True, "greedy")
    rounds = _loop_rate(env_id, n, seconds, True, RoundsOnlyGreedy())
    p = game.num_players
    parts = (p - 1) / alone + p / make_vec  # seconds of one learner step's parts, one core
    return {
        "env_id": env_id,
        "make_vec": make_vec,
        "alone": alone,
        "engine_one": engine_one,
        "engine": engine,
        "rounds": rounds,
        "cost": (1.0 / engine_one) / parts,
    }


class Counted(Opponent):
    """``inner`` (an opponent asked from outside the engine) with the rows it
    is asked, the seconds its decisions take and its first batches kept."""

    def __init__(self, inner: Opponent, keep: int = 8):
        self.inner, self.name, self.keep = inner, inner.name, keep
        self.rows, self.seconds, self.batches = 0, 0.0, []

    def act(self, batch):
        t = time.perf_counter()
        out = self.inner.act(batch)
        self.seconds += time.perf_counter() - t
        self.rows += len(batch)
        if len(self.batches) < self.keep:
            self.batches.append(batch)
        return out


def measure_model(env_id: str, n: int, seconds: float) -> dict:
    """The committed model's row (see the module docstring)."""
    vec = boardenvs.make_vec(env_id, num_envs=n)
    vec.reset(seed=1)
    for _ in range(300):
        vec.step(vec.random_actions())
    make_vec = _rate(lambda: (vec.step(vec.random_actions()), n)[1], seconds)
    model = make_opponent(f"baseline:{env_id}")
    opponent, totals = Counted(model), {"steps": 0, "spent": 0.0}
    loop = _loop_rate(env_id, n, seconds, None, opponent, totals=totals)
    # the model alone, on the loop's own batches as it asked them (the full ones: warm caches, one forward each)
    full = [b for b in opponent.batches if len(b) >= n // 2] or opponent.batches
    model_alone = _rate(lambda: sum(len(decide(model, b)) for b in full), seconds)
    d = opponent.rows / totals["steps"]  # the model's decisions per learner step, as the loop asks them
    engine = (1 + d) / make_vec  # 1 + d engine steps per learner step
    in_loop = opponent.seconds / totals["spent"] / loop  # the decisions' share of a learner step, timed in it
    return {
        "env_id": env_id,
        "make_vec": make_vec,
        "alone": model_alone,
        "loop": loop,
        "per_step": d,
        "cost": (1.0 / loop) / (d / model_alone + engine),
        "cost_in_loop": (1.0 / loop) / (in_loop + engine),
    }


def model_table(rows, n: int) -> str:
    lines = [
        f"| N = {n}, vs the committed model | make_vec, threads | model alone | its decisions per learner step | "
        "loop | cost / parts, decisions alone | cost / parts, decisions in the loop (<= 1.25) |",
        "|" + "---|" * 7,
    ]
    for r in rows:
        met = "met" if r["cost_in_loop"] <= 1.25 else "missed"
        lines.append(
            f"| {r['env_id']} | {r['make_vec'] / 1e6:.2f}M | {r['alone'] / 1e3:.1f}k | {r['per_step']:.2f} | "
            f"{r['loop'] / 1e3:.1f}k | {r['cost']:.2f} | {r['cost_in_loop']:.2f} {met} |"
        )
    return "\n".join(lines)


def table(rows, n: int) -> str:
    head = (
        f"| N = {n} | make_vec, 1 core | greedy alone, 1 core | loop, engine, 1 core | loop, engine, threads | "
        "loop, rounds, threads | engine / rounds | cost / parts (<= 1.25) |"
    )
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        met = "met" if r["cost"] <= 1.25 else "missed"
        lines.append(
            f"| {r['env_id']} | {r['make_vec'] / 1e6:.2f}M | {r['alone'] / 1e3:.1f}k | {r['engine_one'] / 1e3:.1f}k | "
            f"{r['engine'] / 1e3:.1f}k | {r['rounds'] / 1e3:.1f}k | {r['engine'] / r['rounds']:.2f}x | "
            f"{r['cost']:.2f} {met} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=list(boardenvs.ENV_IDS))
    parser.add_argument("--n", type=int, default=1024, help="rows (default 1024)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per timed run (best of 3)")
    parser.add_argument("--no-model", action="store_true", help="skip the committed models' table")
    args = parser.parse_args(argv)
    rows = [measure(env_id, args.n, args.seconds) for env_id in args.games]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"learner steps/s against greedy (decisions/s for make_vec and greedy), load {load:.2f} at the end")
    print(table(rows, args.n))
    if not args.no_model:
        models = [measure_model(env_id, args.n, args.seconds) for env_id in args.games]
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"\nlearner steps/s against the committed model (decisions/s alone), load {load:.2f} at the end")
        print(model_table(models, args.n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
