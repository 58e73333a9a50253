"""Ray RLlib against SB3 on one game, in one run (the rllib extra's environment):

    .venv-rllib/bin/python benchmarks/rllib_bench.py [--game quess_v0] [--seconds 8] [--out OUT]

(``--out benchmarks/results/rllib_results`` writes the committed ``.md`` and ``.json``.)

For each env runner (``BoardEnvRunner``, boardenvs' runner over the
engine's learner loop, ``ppo_config``'s default; and RLlib's own
``SingleAgentEnvRunner``, step by step: ``env_runner="rllib"``), 0, 1 and 2
remote env runners (0: the driver's runner samples) and 64 / 1024 games per
runner (``boardenvs.rllib.ppo_config``, random opponent), two figures:
**env steps/s** (the runners sampling with the masked module, nothing
trained: ``EnvRunner.sample`` on every runner at once, the episodes sent to
the driver) and **trained steps/s** (``algo.train()``: sampling, the
learner's update and the weight sync, env steps per wall-second), each with
the machine's CPU-seconds per wall-second over the interval (from
/proc/stat: on a quiet machine, the run's).  Beside them, SB3 on the same
game, like for like: ``SB3VecEnv`` stepped with ``MaskablePPO.predict``
(sampling from the masked distribution) and ``MaskablePPO.learn``, with the
same network as RLlib's module (its encoder as SB3's features extractor,
linear policy and value heads: the same parameters), at 64 and 1024 games.
The load average before and after is printed with the table; publish only a
table taken on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import bench  # beside this script: the machine record and the CPU counters


def cpu_busy() -> float:
    """The machine's busy CPU-seconds so far (all cores), from /proc/stat."""
    return bench.cpu_counters()[0]


def timed(fn, seconds: float) -> tuple[float, float]:
    """Steps per wall-second of ``fn() -> steps`` over about ``seconds``, and
    the machine's CPU-seconds per wall-second meanwhile."""
    steps, c0, t0 = 0, cpu_busy(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += fn()
    wall = time.perf_counter() - t0
    return steps / wall, (cpu_busy() - c0) / wall


RUNNERS = {"boardenvs": "RLlib PPO, BoardEnvRunner", "rllib": "RLlib PPO, RLlib's SingleAgentEnvRunner"}


def rllib_rows(game: str, runners_list, sizes, seconds: float, kinds=tuple(RUNNERS)) -> list[dict]:
    import boardenvs.rllib as brl

    rows = []
    for kind in kinds:
        for runners in runners_list:
            for n in sizes:
                batch = max(4096, n * max(runners, 1))
                algo = (
                    brl.ppo_config(game, opponent="random", num_env_runners=runners, envs_per_runner=n, env_runner=kind)
                    .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 1024), num_epochs=1)
                    .build_algo()
                )
                group = algo.env_runner_group
                per_call = 8 * n

                def sample():
                    if runners == 0:
                        return sum(len(e) for e in algo.env_runner.sample(num_timesteps=per_call))
                    return sum(
                        sum(len(e) for e in eps)
                        for eps in group.foreach_env_runner(
                            lambda r: r.sample(num_timesteps=per_call), local_env_runner=False
                        )
                    )

                sample()  # warm-up: compile, first resets
                env_rate, env_cpu = timed(sample, seconds)
                algo.train()  # warm-up
                lifetime = [algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]]

                def train():
                    lifetime.append(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
                    return lifetime[-1] - lifetime[-2]

                train_rate, train_cpu = timed(train, seconds)
                rows.append(
                    {
                        "system": RUNNERS[kind],
                        "runners": runners,
                        "n": n,
                        "env_steps_s": env_rate,
                        "env_cpu": env_cpu,
                        "trained_steps_s": train_rate,
                        "train_cpu": train_cpu,
                    }
                )
                print(
                    f"{kind} runners={runners} n={n}: env {env_rate:,.0f}/s (cpu {env_cpu:.2f}), "
                    f"trained {train_rate:,.0f}/s (cpu {train_cpu:.2f})",
                    flush=True,
                )
                algo.stop()
    return rows


def same_network(game: str):
    """SB3's policy_kwargs for RLlib's module's network: its encoder as the
    features extractor, linear policy and value heads (net_arch empty)."""
    import gymnasium
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    import boardenvs.rllib as brl

    class ModuleEncoder(BaseFeaturesExtractor):
        def __init__(self, observation_space):
            spec = brl.module_spec(game)
            view = gymnasium.make_vec(
                f"boardenvs:{brl.gym_id_of(brl.game_class(game))}",
                num_envs=1,
                action_mask_in_obs=True,
                vectorization_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
            )
            spec.observation_space, spec.action_space = view.single_observation_space, view.single_action_space
            module = spec.build()
            super().__init__(observation_space, module.pi.in_features)
            self.module = module
            del module.pi, module.vf  # SB3's own heads: the same shapes

        def forward(self, obs):  # the module's: the planes scaled to [0, 1], channels first, the encoder
            m = self.module
            x = obs.reshape(obs.shape[0], -1) * m.scale
            if len(m.plane_shape) == 3:
                x = x.reshape(obs.shape[0], *m.plane_shape).permute(0, 3, 1, 2)
            return m.encoder(x)

    return {"features_extractor_class": ModuleEncoder, "net_arch": {"pi": [], "vf": []}}


def sb3_rows(game: str, sizes, seconds: float) -> list[dict]:
    from boardenvs.wrappers import SB3VecEnv
    from sb3_contrib import MaskablePPO

    rows = []
    for n in sizes:
        env = SB3VecEnv(game, num_envs=n, opponent="random", flatten=True)
        model = MaskablePPO(
            "MlpPolicy",
            env,
            policy_kwargs=same_network(game),
            n_steps=max(8, 4096 // n),
            batch_size=1024,
            n_epochs=1,
            verbose=0,
        )
        obs = [env.reset()]

        def step():
            actions, _ = model.predict(obs[0], action_masks=env.action_masks(), deterministic=False)
            env.step_async(actions)
            obs[0] = env.step_wait()[0]
            return n

        env_rate, env_cpu = timed(step, seconds)
        model.learn(4096)  # warm-up
        done = [model.num_timesteps]

        def train():
            model.learn(8192, reset_num_timesteps=False)
            done.append(model.num_timesteps)
            return done[-1] - done[-2]

        train_rate, train_cpu = timed(train, seconds)
        rows.append(
            {
                "system": "SB3 MaskablePPO on SB3VecEnv",
                "runners": 0,
                "n": n,
                "env_steps_s": env_rate,
                "env_cpu": env_cpu,
                "trained_steps_s": train_rate,
                "train_cpu": train_cpu,
                "parameters": sum(p.numel() for p in model.policy.parameters()),
            }
        )
        print(
            f"sb3 n={n}: env {env_rate:,.0f}/s (cpu {env_cpu:.2f}), trained {train_rate:,.0f}/s (cpu {train_cpu:.2f})",
            flush=True,
        )
    return rows


def table(rows, game: str, load: tuple) -> str:
    base = {r["n"]: r for r in rows if r["system"].startswith("SB3")}
    out = [
        f"RLlib vs SB3 on `{game}`, the same network (random opponent; load average {load[0]:.2f} before, "
        f"{load[1]:.2f} after; {os.cpu_count()} cores). Env steps/s: sampling with the policy's forward (RLlib: "
        "`EnvRunner.sample` on every runner at once; SB3: `MaskablePPO.predict` + `SB3VecEnv.step`); trained steps/s: "
        "`algo.train()` / `model.learn()`. Ratios: against SB3 at the same games per runner.",
        "",
        "| system | remote env runners | games per runner | env steps/s (CPU-s per wall-s) | per runner | vs SB3 | "
        "trained steps/s (CPU-s per wall-s) | vs SB3 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ref = base.get(r["n"])
        sb3 = r["system"].startswith("SB3") or ref is None
        env_ratio = "-" if sb3 else f"{r['env_steps_s'] / ref['env_steps_s']:.2f}x"
        ratio = "-" if sb3 else f"{r['trained_steps_s'] / ref['trained_steps_s']:.2f}x"
        per = f"{r['env_steps_s'] / max(r['runners'], 1):,.0f}"
        out.append(
            f"| {r['system']} | {r['runners']} | {r['n']} | {r['env_steps_s']:,.0f} ({r['env_cpu']:.2f}) | {per} | "
            f"{env_ratio} | {r['trained_steps_s']:,.0f} ({r['train_cpu']:.2f}) | {ratio} |"
        )
    return "\n".join(out) + "\n"


def machine(load_start) -> dict:
    """The run's machine, date, command and load (what the docs page shows beside the table)."""
    m = bench.machine(("boardenvs", "ray", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "numba"))
    m["command"] = " ".join(["python", "benchmarks/rllib_bench.py", *sys.argv[1:]])
    m["load"] = {"start": load_start, "end": [round(x, 2) for x in os.getloadavg()]}
    return m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="quess_v0")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 1024])
    ap.add_argument("--env-runners", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    ap.add_argument("--out", default=None, help="write <out>.md and <out>.json")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import ray

    load_start = [round(x, 2) for x in os.getloadavg()]
    load_before = load_start[0]
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    try:
        rows = rllib_rows(args.game, args.runners, args.sizes, args.seconds, args.env_runners)
    finally:
        ray.shutdown()
    rows += sb3_rows(args.game, args.sizes, args.seconds)
    text = table(rows, args.game, (load_before, os.getloadavg()[0]))
    print(text)
    if args.out:
        Path(args.out).with_suffix(".md").write_text(text)
        Path(args.out).with_suffix(".json").write_text(
            json.dumps(
                {"game": args.game, "seconds": args.seconds, "rows": rows, "machine": machine(load_start)}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
