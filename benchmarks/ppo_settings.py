"""Which settings make MaskablePPO train fastest on CPU, measured:

    python benchmarks/ppo_settings.py [--game boardenvs/Quess-v0] [--out benchmarks/results/ppo_settings]

MaskablePPO (sb3-contrib, ``MlpPolicy``, 4 epochs) learns two rollouts on
``SB3VecEnv`` (and on SB3's ``DummyVecEnv`` of single-agent envs, the usual
alternative) for each setting: the number of games stepped per call
(``n_envs``) with ``n_steps`` keeping the rollout at 16,384 timesteps,
``batch_size``, and torch's intra-op threads.  Each row gives timesteps per
wall-second of ``learn`` and how the time splits between collecting the
rollout (env steps and the policy's forward passes) and the update.  The
load average and other processes' CPU are recorded with the table (publish
only a quiet run's): ``docs/guide/training.md`` shows the committed one.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROLLOUT = 16384  # timesteps per rollout, every row


@functools.cache
def _bench():
    """benchmarks/bench.py, loaded once (this script is also loaded by path, from the tests)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench", module)
    spec.loader.exec_module(module)
    return module


def learn_once(game: str, kind: str, n_envs: int, batch_size: int, threads: int, rollouts: int = 2) -> dict:
    """Timesteps/s of ``MaskablePPO.learn`` for ``rollouts`` rollouts, and
    the seconds spent collecting them."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class RolloutClock(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rollout_s = 0.0

        def _on_rollout_start(self):
            self._t = time.perf_counter()

        def _on_rollout_end(self):
            self.rollout_s += time.perf_counter() - self._t

        def _on_step(self):
            return True

    torch.set_num_threads(threads)
    env = _bench().sb3_env(kind, game, n_envs)
    n_steps = max(1, ROLLOUT // n_envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, n_epochs=4, seed=0, verbose=0)
    clock = RolloutClock()
    t0 = time.perf_counter()
    model.learn(rollouts * n_steps * n_envs, callback=clock)
    wall = time.perf_counter() - t0
    env.close()
    return {
        "vecenv": kind,
        "n_envs": n_envs,
        "n_steps": n_steps,
        "batch_size": batch_size,
        "threads": threads,
        "timesteps": model.num_timesteps,
        "wall_s": wall,
        "per_s": model.num_timesteps / wall,
        "rollout_s": clock.rollout_s,
    }


SETTINGS = [  # (vecenv, n_envs, batch_size, torch threads)
    ("DummyVecEnv", 64, 1024, 2),
    ("SB3VecEnv", 64, 1024, 2),
    ("SB3VecEnv", 256, 1024, 2),
    ("SB3VecEnv", 1024, 1024, 2),
    ("SB3VecEnv", 1024, 1024, 1),
    ("SB3VecEnv", 1024, 256, 2),
    ("SB3VecEnv", 1024, 4096, 2),
    ("SB3VecEnv", 1024, 4096, 1),
]


def table(rows: list[dict], game: str) -> str:
    best = max(rows, key=lambda r: r["per_s"])
    lines = [
        f"MaskablePPO on `{game}` (MlpPolicy, 4 epochs, rollouts of {ROLLOUT:,} timesteps = n_envs x "
        "n_steps, two per row):",
        "",
        "| VecEnv | n_envs | n_steps | batch_size | torch threads | timesteps/s | collecting | updating |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = r["rollout_s"] / r["wall_s"]
        mark = " **(fastest)**" if r is best else ""
        lines.append(
            f"| {r['vecenv']} | {r['n_envs']} | {r['n_steps']} | {r['batch_size']} | {r['threads']} | "
            f"{r['per_s']:,.0f}{mark} | {share:.0%} | {1 - share:.0%} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="boardenvs/Quess-v0")
    ap.add_argument("--out", default=None, help="write <out>.md and <out>.json")
    ap.add_argument("--settings", type=int, default=len(SETTINGS), help="run only the first K settings (a smoke run)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    bench = _bench()
    sections = bench.Sections(lambda msg: print(msg, file=sys.stderr))
    sections.probe()
    load_start = bench.loadavg()
    rows = []
    with sections("training"):
        for kind, n_envs, batch, threads in SETTINGS[: args.settings]:
            rows.append(learn_once(args.game, kind, n_envs, batch, threads))
            print(f"{rows[-1]}", file=sys.stderr)
    m = bench.machine()
    m["load"] = {"start": load_start, "end": bench.loadavg()}
    m["sections"], m["quiet"] = sections.records, sections.quiet()
    text = table(rows, args.game) + "\n" + bench.quiet_lines(m)[0] + "\n"
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
        Path(args.out).with_suffix(".json").write_text(
            json.dumps({"game": args.game, "rows": rows, "machine": m}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
