"""Every game and player count against PettingZoo, OpenSpiel, EnvPool and Pgx, in one run.

Run with ``make bench`` (or ``python benchmarks/bench.py``; ``--quick`` for a
short development run).  Writes ``benchmarks/results/results.md`` (the tables),
``benchmarks/results/results.json`` (raw samples, medians, the machine) and
``benchmarks/results/throughput.png`` (steps/s against N, log-log); the
documentation site's Benchmarks page is built from those files (``make
docs``).

What is timed (every row: a random legal action, then observation and mask,
every step; ended games restart):

* boardenvs, for every game and player count (``hints.bench_variants``):
  AEC (PettingZoo's own loop, ``agent_iter``/``last``/``step``, dead steps
  counted), next to a no-op AEC env with the same spaces, agent count and
  wrapper (PettingZoo's ``OrderEnforcingWrapper``; the target), and under
  boardenvs' own ``OrderEnforcing`` (the env alone compared); ``make_vec`` at N = 1, 64, 1024, 4096 (``vec.step(
  vec.random_actions())``: the action drawn in the kernel, auto-reset in the
  kernel), and at N = 4096 with one numba thread; ``SB3VecEnv`` (the
  single-agent path, random opponent, actions from ``env_method
  ("action_masks")`` as MaskablePPO asks) at N = 1024, and once more with the
  masks from ``SB3VecEnv.action_masks()``.
* the TorchRL table: ``boardenvs.torchrl.BoardEnv`` env steps/s against
  ``SB3VecEnv`` and TorchRL's ``SerialEnv`` / ``ParallelEnv`` of the
  gymnasium id's ``GymWrapper`` at the same N (``--no-torchrl`` skips it).
* anchors, each skipped with a printed reason when its extra is absent:
  PettingZoo classic connect_four / chess / go 9x9 (the ``bench`` extra);
  OpenSpiel quoridor / amazons / breakthrough / backgammon / hex /
  connect_four through pyspiel, legal actions and observation tensor every
  decision, chance outcomes sampled outside the count (the ``bench`` extra);
  EnvPool's C++ board games (the ``bench`` extra, CPython 3.11 on x86-64
  Linux) with its thread pool, actions from its ``legal_action_mask`` by the
  compiled sampler, and by numpy at the largest N; Pgx on CPU (the ``pgx`` extra): ``jit`` of a ``lax.scan`` of K
  ``vmap``-ed steps per call (Pgx's best case on CPU: one dispatch per K
  steps, while ``make_vec`` makes one Python call per step), actions sampled
  with ``jax.random.categorical`` over the masked logits inside the jitted
  function, ``pgx.experimental.auto_reset``; compile time (first call)
  reported apart.

Timing is interleaved: every row is set up (and warmed up) first, then each
repeat times every row once, round-robin; rows report the median and min-max
of the repeats and CPU-seconds per wall-second (``time.process_time``, which
counts numba's and XLA's threads).  Ratios divide by anchors from the same
run, per wall-second and per CPU-second.  This machine is shared and noisy:
compare ratios, not absolute numbers across runs.  Each section records the
load average and other processes' CPU; a busy or ``--quick`` run does not
replace the published tables (``benchmarks/results/results.*``) unless ``--force``.
Then ``benchmarks/breakdown.py``'s table: where a step's time goes, per game.

The code, one idea a module in ``benchmarks/lib/``: ``bench_harness`` (rows, the
interleaved timing loop, the shared sampler), ``bench_machine`` (the
machine, its load and the quiet verdict), one module per family of rows
(``bench_boardenvs``; the anchors ``bench_pettingzoo`` with the no-op env,
``bench_openspiel``, ``bench_envpool``, ``bench_pgx``), ``bench_training``
(SB3 and TorchRL), ``bench_footprint`` (memory and start-up),
``bench_lengths``, ``bench_targets`` (ratios and targets) and
``bench_report`` (tables, plot, files).  This file parses the options and
runs the parts; it also re-exports the names other scripts import from
``bench``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import boardenvs
from boardenvs.registry import registered_ids

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))  # the library modules, however this one is loaded
# what the tests replace lives in its own module, reached as bench.bench_harness (optional_import: every
# family's import of its extra) and bench.bench_machine (QUIET_OTHERS, the /proc/stat reads)
import bench_harness  # noqa: E402, F401
import bench_machine  # noqa: E402, F401
from bench_boardenvs import boardenvs_rows, sb3_env, variant_label, variants, vec_stepper  # noqa: E402, F401 (sb3_env: ppo_settings.py)
from bench_envpool import envpool_rows, envpool_stepper  # noqa: E402
from bench_footprint import memory_of, startup_of  # noqa: E402
from bench_harness import Row, api_label, run_interleaved  # noqa: E402
from bench_lengths import length_lines  # noqa: E402
from bench_machine import Sections, cpu_counters, loadavg, machine, others_cores, quiet_lines  # noqa: E402
from bench_openspiel import closest, openspiel_rows  # noqa: E402
from bench_pettingzoo import NoopEnv, aec_stepper, pettingzoo_rows  # noqa: E402
from bench_pgx import pgx_rows, pgx_steps_per_call  # noqa: E402
from bench_report import write  # noqa: E402
from bench_targets import comparisons, ratio, targets_summary  # noqa: E402
from bench_training import TORCHRL_KINDS, TORCHRL_SIZES, torchrl_table, training_path_table  # noqa: E402

# the names other scripts and the tests take from ``bench`` (time_to_strength.py, rllib_bench.py,
# ppo_settings.py, profile_aec.py; tests/test_bench.py, tests/test_sixth_game.py), besides main
__all__ = [
    "TORCHRL_KINDS",
    "NoopEnv",
    "Row",
    "Sections",
    "aec_stepper",
    "boardenvs_rows",
    "closest",
    "cpu_counters",
    "envpool_stepper",
    "length_lines",
    "loadavg",
    "machine",
    "main",
    "others_cores",
    "parse_args",
    "pgx_steps_per_call",
    "quiet_lines",
    "ratio",
    "torchrl_table",
    "variants",
    "vec_stepper",
]

ROOT = Path(__file__).resolve().parent.parent
# results.md / .json / throughput.png of the published run (the docs' Benchmarks page)
PUBLISHED = ROOT / "benchmarks" / "results"

SIZES = (1, 64, 1024, 4096)
QUICK_SIZES = (1, 4096)
# each anchor family's rows, in the order they are timed and tabled (--anchors picks among them)
ANCHOR_ROWS = {"pettingzoo": pettingzoo_rows, "openspiel": openspiel_rows, "envpool": envpool_rows, "pgx": pgx_rows}
ANCHORS = tuple(ANCHOR_ROWS)


def anchor_rows(which, sizes, env_ids, log=print) -> list[Row]:
    """The anchors whose extras are installed (a printed reason for the others)."""
    rows = []
    for name, rows_of in ANCHOR_ROWS.items():
        if name in which:
            rows += rows_of(sizes, env_ids, log=log)
    return rows


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Default: every game and player count, every anchor installed, N = 1 64 1024 4096, "
        "3 interleaved repeats of 1 s (11 minutes on a quiet 2-core machine).",
    )
    ap.add_argument(
        "--seconds", type=float, default=None, help="length of one timed run per row (default 1.0; --quick 0.3)"
    )
    ap.add_argument(
        "--repeats", type=int, default=None, help="interleaved repeats per row, median reported (default 3; --quick 1)"
    )
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=None,
        help=f"make_vec / Pgx batch sizes (default {' '.join(map(str, SIZES))})",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="development run (about 2 minutes): 0.3 s, 1 repeat, N = 1 and 4096, no length, training, "
        "breakdown or memory tables, no cold start-up",
    )
    ap.add_argument(
        "--games",
        nargs="*",
        default=None,
        help="env ids to time (default: all); the anchors are cut to their closest games",
    )
    ap.add_argument(
        "--anchors",
        nargs="*",
        default=list(ANCHORS),
        choices=ANCHORS,
        help="which anchors to run (default: all whose extras are installed)",
    )
    ap.add_argument("--no-sb3", dest="sb3", action="store_false", help="skip the SB3VecEnv rows")
    ap.add_argument(
        "--no-training-path",
        dest="training_path",
        action="store_false",
        help="skip the SB3VecEnv / DummyVecEnv / MaskablePPO table",
    )
    ap.add_argument(
        "--no-torchrl",
        dest="torchrl",
        action="store_false",
        help="skip the TorchRL table (boardenvs.torchrl.BoardEnv against SB3VecEnv, SerialEnv, ParallelEnv)",
    )
    ap.add_argument(
        "--torchrl-sizes",
        type=int,
        nargs="+",
        default=list(TORCHRL_SIZES),
        help=f"N of the TorchRL table (default {' '.join(map(str, TORCHRL_SIZES))})",
    )
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip the peak-RSS subprocesses")
    ap.add_argument("--no-startup", dest="startup", action="store_false", help="skip the start-up subprocesses")
    ap.add_argument(
        "--no-breakdown",
        dest="breakdown",
        action="store_false",
        help="skip the table of where a make_vec step's time goes (benchmarks/breakdown.py)",
    )
    ap.add_argument(
        "--force",
        action="store_true",
        help="write benchmarks/results/results.* even from a --quick run or a busy machine "
        "(by default such a run goes to build/bench/, so the published tables stay a quiet full run's)",
    )
    ap.add_argument(
        "--lengths",
        type=int,
        default=None,
        help="random Quess games for the length line (default 20000, as QU-13 cites; 0: skip)",
    )
    ap.add_argument(
        "--qs-lengths",
        type=int,
        default=None,
        help="random Quicksand games for its length line (default 4096; 0: skip)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for results.md, results.json, throughput.png (default benchmarks/results/, the published run)",
    )
    ap.add_argument(
        "--from-json",
        type=Path,
        default=None,
        metavar="RESULTS_JSON",
        help="measure nothing: write the tables and plot again from an earlier run's results.json",
    )
    args = ap.parse_args(argv)
    quick = args.quick
    defaults = {
        "seconds": 0.3 if quick else 1.0,
        "repeats": 1 if quick else 3,
        "sizes": list(QUICK_SIZES if quick else SIZES),
        "lengths": 0 if quick else 20000,
        "qs_lengths": 0 if quick else 4096,
    }
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    args.sizes = sorted(set(args.sizes))
    if quick:  # about 2 minutes
        args.training_path = False
        args.torchrl = False
        args.breakdown = False
        args.memory = False
    known = registered_ids()
    unknown = [g for g in args.games or () if g not in known]
    if unknown:
        ap.error(f"unknown env ids {unknown}; choose from {', '.join(known)}")
    return args


def measure_all(args, log) -> dict:
    """Every measurement of one run, as the JSON written to results.json."""
    load_start = loadavg()
    sections = Sections(log)
    sections.probe()
    env_ids = [
        g for g in registered_ids() if (args.games is None and g in boardenvs.ENV_IDS) or g in (args.games or ())
    ]
    big = max(args.sizes)
    rows = boardenvs_rows(env_ids, args.sizes, sb3=args.sb3)
    rows += anchor_rows(args.anchors, args.sizes, None if args.games is None else env_ids, log=log)
    log(f"{len(rows)} rows: setting up (compiling), then {args.repeats} interleaved repeat(s) of {args.seconds:g} s")
    t_start = time.perf_counter()
    with sections("steps/s rows"):
        rows = run_interleaved(rows, args.seconds, args.repeats, log=log)
    memory, startup, parts = {}, {}, None
    if args.breakdown:
        with sections("breakdown"):
            parts = breakdown_results(env_ids, big)
    if args.memory:
        with sections("memory"):
            for env_id in env_ids:
                for options in variants(env_id):
                    memory[variant_label(env_id, options)] = memory_of(env_id, options, big)
    if args.startup:
        with sections("start-up"):
            for env_id in env_ids:
                startup[env_id] = startup_of(env_id, warm_runs=1 if args.quick else 3, cold=not args.quick)
    training, training_targets = [], []
    if args.training_path:
        with sections("training path"):
            training, training_targets = training_path_table(args.seconds, args.repeats, log=log)
    torchrl_lines, torchrl_rows = [], []
    if args.torchrl:
        with sections("torchrl"):
            torchrl_lines, torchrl_rows = torchrl_table(
                args.seconds, args.repeats, sorted(set(args.torchrl_sizes)), log=log
            )
    with sections("game lengths"):
        lengths = length_lines(args.lengths, args.qs_lengths, env_ids)
    m = machine()
    m["load"] = {"start": load_start, "end": loadavg()}
    m["sections"] = sections.records
    m["quiet"] = sections.quiet()
    return {
        "machine": m,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "elapsed_s": time.perf_counter() - t_start,
        "rows": [r.to_json() for r in rows],
        "comparisons": [
            {"row": f"{r.system} {r.game} {api_label(r)} N={r.n}", **c} for r in rows for c in comparisons(r, rows, big)
        ],
        "targets": targets_summary(rows, big, startup) + training_targets,
        "memory": memory,
        "startup": startup,
        "training_path": training,
        "torchrl": {"table": torchrl_lines, "rows": torchrl_rows},
        "breakdown": parts,
        "lengths": lengths,
    }


def breakdown_results(env_ids, n: int) -> dict:
    """``benchmarks/breakdown.py``'s parts of a step for ``env_ids`` at N = ``n``."""
    spec = importlib.util.spec_from_file_location("breakdown", ROOT / "benchmarks" / "breakdown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results, bandwidth = module.run(env_ids, n)
    return {"results": results, "bandwidth": bandwidth, "table": module.table(results, bandwidth)}


def main(argv=None) -> int:
    args = parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        results = measure_all(args, log)
    out = args.out or PUBLISHED
    if args.out is None and not args.from_json and not args.force and (args.quick or not results["machine"]["quiet"]):
        out = ROOT / "build" / "bench"
        why = "a --quick run" if args.quick else "the machine was busy (see the sections' other-process CPU above)"
        log(
            f"not writing the published tables ({PUBLISHED}): {why}; writing to {out} instead (--force to "
            "publish anyway)"
        )
    png = write(results, out, ROOT, log=log, with_json=not args.from_json)
    log(
        f"done in {results['elapsed_s']:.0f} s: {out / 'results.md'}, {out / 'results.json'}"
        + (f", {png}" if png else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
