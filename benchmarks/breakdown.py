"""Where a ``make_vec`` step's time goes, per game: nanoseconds per row per
step on one core, split into the kernels' parts, and the bytes written.

    python benchmarks/breakdown.py [--games quess_v0 ...] [--n 4096]

(``make bench`` includes the table.)  For each game and player count, a
batch of ``n`` rows is played into the middle of its games (the game's
declared warm-up, random legal play), then each part of a step is timed on
those same rows, one thread, in a compiled loop over the rows:

* **legal**: the legal-move generation, writing the engine's mask;
* **sample**: a uniformly random legal action from the row's generator;
* **apply**: applying it (on copies of the rows; the copy time subtracted);
* **observe**: writing the observation planes of the seat to act;
* **mask copy**: the mask copied into the caller's buffer;
* **driver and the rest**: a whole ``make_vec`` step (one thread, same
  rows' kind of positions) minus the parts above: the loop, chance
  outcomes, ended games' resets and returns, Python's call.

Bytes written per step: the observation and the mask the caller gets, the
engine's mask, and the state bytes one move changes (measured on the rows:
the 8-byte slots that differ after ``apply``; the whole row is larger).  Beside
them, this machine's memory copy bandwidth (numpy, 64 MiB: past the caches), so the table can
say whether a game is bound by its rules' compute or by memory traffic.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

import boardenvs
from boardenvs import engine as E

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))  # the library modules, however this one is loaded
from hints import bench_hints, bench_variants  # noqa: E402

PARTS = ("legal", "sample", "apply", "observe", "mask copy", "driver and the rest")
STEPS_TIMED = 32  # consecutive make_vec steps per timed run of the whole step


def _timers(kernels):
    """Compiled loops over rows calling one game's kernels (compiled per game),
    each row taken as the drivers take it (``E.row_view``: no reference count)."""
    _init, legal, apply, observe, _chance = kernels
    row = E.row_view

    @njit
    def t_legal(states, params, masks):
        for i in range(states.shape[0]):
            legal(row(states, i), params, row(masks, i))

    @njit
    def t_sample(states, masks, out):
        for i in range(states.shape[0]):
            out[i] = E.sample_mask(row(states, i), row(masks, i))

    @njit
    def t_apply(states, params, actions):
        for i in range(states.shape[0]):
            apply(row(states, i), params, actions[i])

    @njit
    def t_observe(states, params, obs):
        for i in range(states.shape[0]):
            observe(row(states, i), params, states[i, E.H_CURRENT], row(obs, i))

    @njit
    def t_copy_rows(dst, src):
        for i in range(src.shape[0]):
            E.copy_row(row(dst, i), row(src, i))

    @njit
    def t_mask_copy(masks, out):  # as the drivers copy it
        for i in range(masks.shape[0]):
            E.copy_row(row(out, i), row(masks, i))

    return t_legal, t_sample, t_apply, t_observe, t_copy_rows, t_mask_copy


def _best(fn, reps: int) -> float:
    """The fastest of ``reps`` timed calls of ``fn`` (seconds): the least disturbed."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def copy_bandwidth(mib: int = 64) -> float:
    """Bytes per second numpy copies on this machine (one core, best of 5)."""
    src = np.ones(mib << 20, np.uint8)
    dst = np.empty_like(src)
    return 2 * src.nbytes / _best(lambda: np.copyto(dst, src), 5)  # read + write


def breakdown(env_id: str, options: dict, n: int = 4096, reps: int = 7) -> dict:
    """ns per row per step on one core, by part, for ``env_id`` with ``options``."""
    game = boardenvs.make_game(env_id, **options)
    vec = boardenvs.make_vec(env_id, num_envs=n, num_threads=1, parallel=False, **options)
    vec.reset(seed=7)
    for _ in range(max(1, bench_hints(env_id).warmup)):
        vec.step(vec.random_actions())

    # whole steps first (the batch moves on; the parts below use a fixed sample of rows): runs of
    # STEPS_TIMED steps, the best of three (a single step's time swung 1.5-2x on a shared machine)
    def steps():
        for _ in range(STEPS_TIMED):
            vec.step(vec.random_actions())

    step_s = _best(steps, 3) / STEPS_TIMED
    states = np.array(vec.states)  # a writable copy of the rows
    playing = states[:, E.H_STATUS] == E.PLAYING
    states = np.ascontiguousarray(states[playing])
    rows = states.shape[0]
    params = game.params
    info = game.info
    t_legal, t_sample, t_apply, t_observe, t_copy_rows, t_mask_copy = _timers(game.kernels)
    masks = np.zeros((rows, info.mask_size), np.int8)
    obs = np.zeros((rows, info.obs_size), np.int8)
    out_masks = np.zeros((rows, info.num_actions), np.int8)
    actions = np.zeros(rows, np.int64)
    work = np.empty_like(states)
    # compile, and the masks/actions the later parts need
    t_legal(states, params, masks)
    t_sample(states.copy(), masks, actions)
    t_copy_rows(work, states)
    t_apply(work, params, actions)
    t_observe(states, params, obs)
    t_mask_copy(masks, out_masks)

    sample_states = states.copy()
    parts = {
        "legal": _best(lambda: t_legal(states, params, masks), reps),
        "sample": _best(lambda: (t_copy_rows(sample_states, states), t_sample(sample_states, masks, actions)), reps)
        - _best(lambda: t_copy_rows(sample_states, states), reps),
        "apply": _best(lambda: (t_copy_rows(work, states), t_apply(work, params, actions)), reps)
        - _best(lambda: t_copy_rows(work, states), reps),
        "observe": _best(lambda: t_observe(states, params, obs), reps),
        "mask copy": _best(lambda: t_mask_copy(masks, out_masks), reps),
    }
    ns = {k: max(v, 0.0) / rows * 1e9 for k, v in parts.items()}
    step_ns = step_s / n * 1e9
    ns["driver and the rest"] = max(step_ns - sum(ns.values()), 0.0)
    t_copy_rows(work, states)
    t_apply(work, params, actions)
    changed = float((work != states).sum(axis=1).mean()) * 8  # the state's bytes one move rewrites, measured
    written = info.obs_size + info.num_actions + info.mask_size + changed
    return {
        "env_id": env_id,
        "options": options,
        "rows": rows,
        "step_ns": step_ns,
        "ns": ns,
        "bytes_written": written,
        "state_bytes": changed,
        "state_row_bytes": info.state_size * 8,
        "caller_bytes": info.obs_size + info.num_actions,
    }


def bound_of(result: dict, bandwidth: float) -> str:
    """What bounds the game's step, in words."""
    ns, step = result["ns"], result["step_ns"]
    top = max(ns, key=ns.get)
    mem_ns = result["bytes_written"] * 2 / bandwidth * 1e9  # written and read once more
    share = ns[top] / step
    text = f"{top} ({share:.0%} of the step)"
    if mem_ns > 0.5 * step:
        text += f"; memory traffic alone ({result['bytes_written']:.0f} B) would take {mem_ns:.0f} ns: memory-bound"
    else:
        text += f"; compute-bound (its {result['bytes_written']:.0f} B at the copy bandwidth: {mem_ns:.0f} ns)"
    return text


def table(results: list[dict], bandwidth: float) -> list[str]:
    head = (
        "| game | step ns/row (1 core) | "
        + " | ".join(PARTS)
        + " | bytes written/step (caller's obs + mask; engine's mask; state changed, of the row's) | bound by |"
    )
    lines = [head, "|---|---:|" + "---:|" * len(PARTS) + "---|---|"]
    for r in results:
        label = r["env_id"] + "".join(f", {k}={v}" for k, v in r["options"].items())
        cells = " | ".join(f"{r['ns'][p]:.0f} ({r['ns'][p] / r['step_ns']:.0%})" for p in PARTS)
        lines.append(
            f"| {label} | {r['step_ns']:.0f} | {cells} | {r['bytes_written']:.0f} ({r['caller_bytes']}; "
            f"{r['bytes_written'] - r['caller_bytes'] - r['state_bytes']:.0f}; {r['state_bytes']:.0f} of "
            f"{r['state_row_bytes']}) | {bound_of(r, bandwidth)} |"
        )
    lines.append("")
    lines.append(f"Memory copy bandwidth here (numpy, one core, read + write): {bandwidth / 1e9:.1f} GB/s.")
    return lines


def run(env_ids=None, n: int = 4096) -> tuple[list[dict], float]:
    ids = [e for e in boardenvs.ENV_IDS if env_ids is None or e in env_ids]
    results = [breakdown(e, o, n) for e in ids for o in bench_variants(e)]
    return results, copy_bandwidth()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=None)
    ap.add_argument("--n", type=int, default=4096)
    args = ap.parse_args(argv)
    results, bandwidth = run(args.games, args.n)
    print("\n".join(table(results, bandwidth)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
