"""The AEC env against the no-op ceiling of the same spaces, every game and
player count, interleaved in one process (the target: AEC >= 0.8x the no-op).

    python benchmarks/profile_aec.py [--seconds 1] [--repeats 5] [--profile quagmire_v0]

Each round times the no-op env (``benchmarks/lib/bench_pettingzoo.py``'s ``NoopEnv`` with
the game's action count, observation shape and number of agents, under
PettingZoo's order enforcing as in the bench) and then the game, with the
bench's loop (``aec_steps_per_second``); the ratio of each round is taken
before the median, so a busy moment of a shared machine hits both sides.
``--profile ENV_ID`` prints a cProfile of the game's loop instead;
``--startup N`` times N fresh interpreters doing what bench_footprint.py's
``startup_seconds`` does (import, make, reset, first step; numba's cache
warm), wall time inside the child and the child's whole CPU time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench.py, beside this one
sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))  # the library modules (hints)

from bench import NoopEnv, aec_stepper  # noqa: E402
from hints import bench_variants  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

import boardenvs  # noqa: E402
from boardenvs.aec_views import OrderEnforcing  # noqa: E402


def aec_steps_per_second(make_env, seconds: float) -> float:
    """AEC steps per second of the bench's loop (``bench.aec_stepper``) over ``seconds``."""
    step = aec_stepper(make_env)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += step()
    return steps / (time.perf_counter() - t0)


# every package game and player count the benchmark times (hints.bench_variants)
CASES = tuple((env_id, dict(v)) for env_id in boardenvs.ENV_IDS for v in bench_variants(env_id))


def noop_maker(env_id, options, wrapper=wrappers.OrderEnforcingWrapper):
    game = boardenvs.make_game(env_id, **options)
    return lambda: wrapper(NoopEnv(game.num_actions, 120, game.obs_shape, game.num_players))


def startup(env_id: str, runs: int) -> None:
    code = (
        f"import time; t=time.perf_counter(); import boardenvs; e=boardenvs.make('{env_id}'); e.reset(seed=0);"
        "m=e.observe(e.agent_selection)['action_mask']; e.step(int(m.nonzero()[0][0]));"
        "print(time.perf_counter()-t)"
    )
    walls, cpus = [], []
    for _ in range(runs + 1):  # the first run fills numba's cache if it is cold
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(float(out.stdout.strip().splitlines()[-1]))
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    walls, cpus = walls[1:], cpus[1:]
    print(
        f"{env_id} start-up: wall {statistics.median(walls):.2f} s median (min {min(walls):.2f}), "
        f"CPU {statistics.median(cpus):.2f} s median (min {min(cpus):.2f}) over {runs} fresh interpreters"
    )


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--games", nargs="*", default=None)
    ap.add_argument("--profile", default=None, help="cProfile this env id's loop instead")
    ap.add_argument(
        "--noop-wrapper",
        choices=["pettingzoo", "ours"],
        default="pettingzoo",
        help="the no-op under PettingZoo's OrderEnforcingWrapper (as bench.py) or under "
        "boardenvs.aec_views.OrderEnforcing (the same wrapper as the games: the env alone compared)",
    )
    ap.add_argument("--startup", type=int, default=0, help="time this many fresh interpreters per game instead")
    args = ap.parse_args(argv)
    if args.startup:
        for env_id in args.games or ["quess_v0"]:
            startup(env_id, args.startup)
        return 0
    if args.profile:
        make = lambda: boardenvs.make(args.profile)  # noqa: E731
        aec_steps_per_second(make, 0.2)
        prof = cProfile.Profile()
        prof.enable()
        aec_steps_per_second(make, args.seconds)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return 0
    for env_id, options in CASES:
        if args.games and env_id not in args.games:
            continue
        wrapper = OrderEnforcing if args.noop_wrapper == "ours" else wrappers.OrderEnforcingWrapper
        noop, make = noop_maker(env_id, options, wrapper), (lambda e=env_id, o=options: boardenvs.make(e, **o))
        aec_steps_per_second(noop, 0.2)
        aec_steps_per_second(make, 0.2)
        ratios, ours, base = [], [], []
        for _ in range(args.repeats):
            n = aec_steps_per_second(noop, args.seconds)
            g = aec_steps_per_second(make, args.seconds)
            ratios.append(g / n)
            ours.append(g)
            base.append(n)
        label = env_id + "".join(f" {k}={v}" for k, v in options.items())
        print(
            f"{label:34s} ratio {statistics.median(ratios):.2f}  (game {statistics.median(ours) / 1e3:.1f}k/s, "
            f"no-op {statistics.median(base) / 1e3:.1f}k/s; ratios {' '.join(f'{r:.2f}' for r in ratios)})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
