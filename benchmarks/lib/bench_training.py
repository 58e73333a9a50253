"""The training path's tables: boardenvs through the wrappers a learner
steps, against what a user would build without them.

``SB3VecEnv`` (the engine's batched single-agent path, random opponent)
against Stable-Baselines3's ``DummyVecEnv`` of single-agent envs, in env
steps/s and in MaskablePPO timesteps/s; and ``boardenvs.torchrl.BoardEnv``
against ``SB3VecEnv`` and TorchRL's ``SerialEnv`` / ``ParallelEnv`` of the
gymnasium env's ``GymWrapper`` at the same N.  Every learner step includes
the opponent's reply; the actions are random legal ones from the masks, by
the harness' compiled sampler.  Each table is skipped with the reason when
its extras (the ``train`` extra, the ``interop`` extra) are missing.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable

import bench_harness
import numpy as np
from bench_boardenvs import sb3_env, sb3_stepper
from bench_harness import Row, find, random_legal, run_interleaved
from bench_report import fmt, fmt_rate
from bench_targets import TARGET_SB3_VS_DUMMY


def training_path_table(seconds: float, repeats: int, log=print) -> tuple[list[str], list[dict]]:
    """SB3VecEnv vs DummyVecEnv env steps/s and MaskablePPO timesteps/s: the
    table's lines and the SB3VecEnv >= 20x DummyVecEnv targets."""
    try:
        bench_harness.optional_import("sb3_contrib")
    except Exception as exc:
        log(f"training-path rows skipped: {exc}; pip install '.[train]' (in a clone)")
        return [], []
    rows = []
    for gym_id in ("boardenvs/Quess-v0", "boardenvs/Quagmire-v0"):
        for n in (64, 1024):
            for kind in ("DummyVecEnv", "SB3VecEnv"):
                rows.append(Row(kind, gym_id, kind, n, setup=lambda k=kind, g=gym_id, n=n: sb3_stepper(k, g, n)))
    run_interleaved(rows, seconds, repeats, log=lambda *_: None)
    lines = [
        f"| id | N | DummyVecEnv steps/s | SB3VecEnv steps/s | ratio (target >= {TARGET_SB3_VS_DUMMY:g}x) | "
        "MaskablePPO timesteps/s Dummy / SB3VecEnv |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    targets = []
    for gym_id in ("boardenvs/Quess-v0", "boardenvs/Quagmire-v0"):
        for n in (64, 1024):
            dummy, ours = (
                find(rows, "DummyVecEnv", gym_id, "DummyVecEnv", n),
                find(rows, "SB3VecEnv", gym_id, "SB3VecEnv", n),
            )
            if not (dummy and ours and dummy.samples and ours.samples):
                continue
            ppo = "-"
            if n == 64:
                ppo_d, ppo_s = (ppo_steps_per_second(k, gym_id, n, 64 * 128) for k in ("DummyVecEnv", "SB3VecEnv"))
                ppo = f"{fmt(ppo_d)} / {fmt(ppo_s)} ({ppo_s / ppo_d:.2f}x)"
            met = ours.rate / dummy.rate >= TARGET_SB3_VS_DUMMY
            lines.append(
                f"| {gym_id} | {n} | {fmt_rate(dummy)} | {fmt_rate(ours)} | {ours.rate / dummy.rate:.1f}x "
                f"{'met' if met else '**missed**'} | {ppo} |"
            )
            targets.append(
                {
                    "row": f"{gym_id} SB3VecEnv N={n}",
                    "target": f">= {TARGET_SB3_VS_DUMMY:g}x DummyVecEnv N={n}",
                    "value": ours.rate / dummy.rate,
                    "met": met,
                }
            )
    return lines, targets


# -- TorchRL ------------------------------------------------------------------------------
TORCHRL_KINDS = ("BoardEnv", "SB3VecEnv", "SerialEnv", "ParallelEnv")
TORCHRL_SIZES = (8, 64, 1024)
TORCHRL_BATCHED_UP_TO = 64  # SerialEnv / ParallelEnv of one gymnasium env per row: 1024 of them take minutes to build


def torchrl_env(kind: str, gym_id: str, n: int):
    """The TorchRL envs of ``n`` rows against the random opponent: our
    ``BoardEnv`` (the engine's learner loop), or TorchRL's ``SerialEnv`` of
    ``n`` ``GymWrapper``-ed single-agent envs (the mask read from the infos,
    as the TorchRL tutorial's), or its ``ParallelEnv`` of such a
    ``SerialEnv`` per worker (one worker per core, ``n`` rows in all)."""
    if kind == "BoardEnv":
        from boardenvs.torchrl import BoardEnv

        return BoardEnv(gym_id, num_envs=n, opponent="random")
    torchrl_envs = bench_harness.optional_import("torchrl.envs")
    one = functools.partial(_gym_with_mask, gym_id)
    if kind == "SerialEnv":
        return torchrl_envs.SerialEnv(n, one)
    workers = torchrl_workers(n)
    return torchrl_envs.ParallelEnv(workers, _SerialOf(n // workers, one))


def torchrl_workers(n: int) -> int:
    """ParallelEnv's workers for ``n`` rows: one per core, as many as divide ``n``."""
    workers = max(1, min(os.cpu_count() or 1, n))
    while n % workers:
        workers -= 1
    return workers


def _gym_with_mask(gym_id: str):
    """TorchRL's ``GymWrapper`` of the single-agent env, the mask read from
    its infos (the TorchRL tutorial's)."""
    import gymnasium
    import torch
    from torchrl.data import Binary
    from torchrl.envs import GymWrapper
    from torchrl.envs.gym_like import default_info_dict_reader

    env = GymWrapper(gymnasium.make(gym_id), categorical_action_encoding=True)
    size = env.action_spec.space.n
    env.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(n=size, dtype=torch.bool)})
    )
    return env


class _SerialOf:
    """A ``SerialEnv`` of ``k`` envs made by ``make`` (picklable, for ParallelEnv's workers)."""

    def __init__(self, k, make):
        self.k, self.make = k, make

    def __call__(self):
        from torchrl.envs import SerialEnv

        return SerialEnv(self.k, self.make)


_OPEN_TORCHRL_ENVS: list = []


def torchrl_stepper(kind: str, gym_id: str, n: int) -> Callable[[], int]:
    """Learner steps (each with the opponent's reply) of ``n`` rows: a
    random legal action per row by the bench's compiled sampler (every row
    the same small cost), then ``step_and_maybe_reset`` (TorchRL's step and
    the reset of the rows that ended) or, for ``SB3VecEnv``, its step with
    the masks from ``action_masks()``."""
    import torch

    rng = np.random.default_rng(0)
    if kind == "SB3VecEnv":
        return sb3_stepper("SB3VecEnv", gym_id, n, direct=True)
    env = torchrl_env(kind, gym_id, n)
    _OPEN_TORCHRL_ENVS.append(
        env
    )  # closed by torchrl_table (ParallelEnv's workers would keep the process from exiting)
    env.set_seed(0)
    state = {"td": env.reset()}
    shape = env.batch_size

    def chunk():
        td = state["td"]
        masks = td["action_mask"].reshape(n, -1).numpy()
        td.set("action", torch.from_numpy(random_legal(masks, rng)).reshape(shape))
        _, state["td"] = env.step_and_maybe_reset(td)
        return n

    chunk()
    return chunk


def torchrl_table(
    seconds: float, repeats: int, sizes=TORCHRL_SIZES, gym_ids=("boardenvs/Quess-v0",), log=print
) -> tuple[list[str], list[dict]]:
    """``BoardEnv`` (boardenvs.torchrl) env steps/s against ``SB3VecEnv`` and
    TorchRL's ``SerialEnv`` / ``ParallelEnv`` of the gymnasium env at the
    same N, interleaved in one run: the table's lines and the rows (JSON)."""
    try:
        bench_harness.optional_import("torchrl")
        bench_harness.optional_import("sb3_contrib")
    except Exception as exc:
        log(f"TorchRL rows skipped: {exc}; pip install '.[interop,train]' (in a clone)")
        return [], []
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(
        1
    )  # as the tutorial: torch's threads and numba's fought over 2 cores (5x slower steps at N = 1024)
    rows = []
    for gym_id in gym_ids:
        for n in sizes:
            for kind in TORCHRL_KINDS:
                if kind in ("SerialEnv", "ParallelEnv") and n > TORCHRL_BATCHED_UP_TO:
                    continue
                rows.append(Row(kind, gym_id, kind, n, setup=lambda k=kind, g=gym_id, n=n: torchrl_stepper(k, g, n)))
    try:
        rows = run_interleaved(rows, seconds, repeats, log=log)
    finally:
        torch.set_num_threads(threads)
        while _OPEN_TORCHRL_ENVS:  # every env the rows built, ParallelEnv's worker processes included
            _OPEN_TORCHRL_ENVS.pop().close()
    lines = [
        "| id | N | BoardEnv steps/s | SB3VecEnv steps/s | SerialEnv steps/s | ParallelEnv steps/s | "
        "BoardEnv / SB3VecEnv "
        "| BoardEnv / SerialEnv | BoardEnv / ParallelEnv |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for gym_id in gym_ids:
        for n in sizes:
            got = {kind: find(rows, kind, gym_id, kind, n) for kind in TORCHRL_KINDS}
            ours = got["BoardEnv"]
            if not (ours and ours.samples):
                continue
            cells = [fmt_rate(got[k]) if got[k] and got[k].samples else "-" for k in TORCHRL_KINDS]
            ratios = [
                f"{ours.rate / got[k].rate:.1f}x" if got[k] and got[k].samples else "-" for k in TORCHRL_KINDS[1:]
            ]
            lines.append(f"| {gym_id} | {n} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    lines.append("")
    lines.append(
        f"(SerialEnv / ParallelEnv: TorchRL's, of `GymWrapper(gymnasium.make(id))` with the mask from the infos; "
        f"ParallelEnv: one worker process per core ({torchrl_workers(max(sizes))} here), each a SerialEnv of its "
        f"share of the N rows; built up to N = {TORCHRL_BATCHED_UP_TO}; torch on one thread, as the TorchRL tutorial "
        "sets it. At large N most of a BoardEnv step is TorchRL's partial reset of the ended rows: a "
        "`torch.where` over every row's observation and mask.)"
    )
    return lines, [r.to_json() for r in rows]


def ppo_steps_per_second(kind: str, gym_id: str, n: int, steps: int) -> float:
    """MaskablePPO ``learn`` timesteps/s (rollouts + updates, MlpPolicy,
    n_steps = 128 per env, one epoch; the bench runs one rollout) on an SB3 VecEnv."""
    from sb3_contrib import MaskablePPO

    env = sb3_env(kind, gym_id, n)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, n_epochs=1, seed=0, verbose=0)
    t0 = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t0)
