"""The EnvPool anchors: its C++ board games behind its C++ thread pool.

EnvPool is the fastest batched CPU simulator a user can install: each task
(connect four, othello, hex, backgammon, go 9x9) runs at every N with its
thread pool on every core, actions drawn from its ``legal_action_mask`` by
the harness' compiled sampler (and, at the largest N, by the numpy a user
would write, so the sampler's share shows).  Each boardenvs game names its
closest EnvPool game (``TOOLS["bench"]``), and its ``make_vec`` rows are
read against that one per CPU-second.  Needs the ``bench`` extra (CPython
3.11, x86-64 Linux); skipped with the reason otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import bench_harness
import numpy as np
from bench_harness import Row, random_legal
from hints import bench_hints


def closest_envpool(env_id: str):
    """The game's closest EnvPool game and why, ``(task id, why)``, or None."""
    return bench_hints(env_id).envpool


ENVPOOL_GAMES = ("ConnectFour-v1", "Othello-v1", "Hex-v1", "Backgammon-v1", "Go9x9-v1")
ENVPOOL_API = "C++ thread pool"
ENVPOOL_NUMPY = "C++ thread pool, numpy sampler"


def _numpy_legal(masks, rng):
    """What a user would write in numpy: the argmax of uniform noise over
    the legal entries (a uniformly random legal action per row)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def envpool_stepper(task: str, n: int, sampler: str = "compiled", threads: int | None = None) -> Callable[[], int]:
    """EnvPool's C++ board games (``envpool.make(task, env_type="gymnasium")``,
    its thread pool with ``threads`` threads, default the cores): actions
    from ``info["legal_action_mask"]`` by the compiled sampler (or, with
    ``sampler="numpy"``, by :func:`_numpy_legal`).  EnvPool restarts an
    ended game on the next step, ignoring its action: those steps are not
    counted (make_vec restarts inside the step that ends)."""
    envpool = bench_harness.optional_import("envpool")
    threads = threads or os.cpu_count() or 1
    env = envpool.make(task, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=min(threads, n), seed=0)
    rng = np.random.default_rng(0)
    pick = random_legal if sampler == "compiled" else _numpy_legal
    _, info = env.reset()
    state = {"masks": info["legal_action_mask"], "ended": np.zeros(n, np.bool_)}
    k = max(1, 1024 // n)

    def chunk():
        steps = 0
        for _ in range(k):
            _, _, term, trunc, info = env.step(pick(state["masks"], rng))
            steps += n - int(state["ended"].sum())
            state["masks"], state["ended"] = info["legal_action_mask"], term | trunc
        return steps

    return chunk


def envpool_rows(sizes, env_ids, log=print) -> list[Row]:
    """EnvPool rows at every N and its numpy-sampler row at the largest (with ``env_ids``, only their closest
    games), or none with the reason logged."""
    rows = []
    try:
        bench_harness.optional_import("envpool")
    except Exception as exc:
        log(f"EnvPool anchors skipped: {exc}; pip install '.[bench]' (in a clone) (CPython 3.11, x86-64 Linux)")
    else:
        wanted = (
            ENVPOOL_GAMES
            if env_ids is None
            else [g for g in ENVPOOL_GAMES if g in {(closest_envpool(e) or (None,))[0] for e in env_ids}]
        )
        for task in wanted:
            for n in sizes:
                rows.append(Row("EnvPool", task, ENVPOOL_API, n, setup=lambda t=task, n=n: envpool_stepper(t, n)))
            big = max(sizes)
            rows.append(
                Row("EnvPool", task, ENVPOOL_NUMPY, big, setup=lambda t=task, n=big: envpool_stepper(t, n, "numpy"))
            )
    return rows
