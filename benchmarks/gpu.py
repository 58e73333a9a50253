"""The device benchmark: one prepared command for a machine with an NVIDIA GPU.

    python benchmarks/gpu.py --out benchmarks/results   # on the GPU machine: well inside 10 minutes
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu.py --smoke --out /tmp/gpu   # the flow, in numba's simulator

In one run, on one device:

* ``make_vec(id, N, device="cuda").step_random()`` steps/s for every game at
  N = 2**12 ... 2**20 (one random legal move in every row, observations and
  masks written, ended games dealt again), timed between device
  synchronisations, and the device memory in use at each N;
* Pgx on the same device (its JAX games: connect_four, othello, go_9x9 and
  hex) at the same batches, each at its best: a jitted scan of vmap-ed
  auto-reset steps, as ``bench_pgx`` runs it on the CPU;
* the 2-core CPU ``make_vec`` for Quess at N = 2**16 (two of numba's threads),
  the bar of the issue's "20x" target;
* a PPO update in torch on the device arrays: the observations and masks
  read with ``torch.as_tensor`` through ``__cuda_array_interface__`` (the
  same device pointer: no host copy), masked logits, the clipped loss and
  one optimiser step.

It writes ``gpu_results.json`` (every figure, the device's name, versions,
the command) and ``gpu_results.md`` (the tables) under ``--out`` (by default
``benchmarks/results/``).  Rows the time budget (``--budget``) leaves out say
so; nothing is estimated.
``--smoke`` runs the same flow at N = 8 for a moment (the simulator's
speed says nothing: the smoke run only shows the script works; its
figures are marked ``smoke``)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "lib"))  # the library modules (bench_pgx), however this one is loaded

GAMES = ("quess_v0", "quagmire_v0", "hex_quoridor_v1", "quicksand_v0", "tryasina_v0")
PGX_GAMES = ("connect_four", "othello", "go_9x9", "hex")
SIZES = tuple(1 << k for k in (12, 14, 16, 18, 20))


def _sync(cuda) -> None:
    cuda.synchronize()


def device_memory(cuda) -> int | None:
    """Bytes in use on the device (its total less its free memory), or None in the simulator."""
    try:
        free, total = cuda.current_context().get_memory_info()
        return int(total - free)
    except Exception:  # (the simulator has no context memory)
        return None


def time_steps(step, rows: int, seconds: float, sync) -> float:
    """Steps/s of ``step`` over ``rows`` rows: a warm-up, then calls until ``seconds`` have passed."""
    step()
    sync()
    calls, t0 = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        if calls % 8 == 0 or seconds < 0.5:
            sync()
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                return calls * rows / elapsed


def boardenvs_rows(sizes, seconds: float, budget_end: float, log) -> list[dict]:
    import boardenvs
    from boardenvs.device import cuda_module

    cuda = cuda_module()
    rows = []
    for env_id in GAMES:
        for n in sizes:
            row = {"what": "boardenvs make_vec(device='cuda')", "game": env_id, "N": n}
            if time.perf_counter() > budget_end:
                row["note"] = "not measured: the time budget ran out"
            else:
                try:
                    vec = boardenvs.make_vec(env_id, n, device="cuda")
                    vec.reset(seed=0)
                    row["steps_per_s"] = time_steps(vec.step_random, n, seconds, lambda: _sync(cuda))
                    row["device_bytes"] = device_memory(cuda)
                    del vec
                except Exception as exc:  # an N the device cannot hold: said, and the next game goes on
                    row["note"] = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
            log(row)
            rows.append(row)
    return rows


def cpu_anchor(seconds: float, n: int, log) -> dict:
    """Quess on two CPU threads (the 2-core machine the CPU tables come from)."""
    import boardenvs

    vec = boardenvs.make_vec("quess_v0", n, num_threads=min(2, _numba_threads()), parallel=True)
    vec.reset(seed=0)
    row = {"what": "boardenvs make_vec (CPU, 2 threads)", "game": "quess_v0", "N": n}
    row["steps_per_s"] = time_steps(vec.step_random, n, seconds, lambda: None)
    log(row)
    return row


def _numba_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def pgx_rows(sizes, seconds: float, budget_end: float, log) -> list[dict]:
    rows = []
    try:
        import jax
        from bench_pgx import pgx_stepper

        platform_name = jax.devices()[0].platform
    except Exception as exc:
        row = {"what": "Pgx", "note": f"not measured: {type(exc).__name__}: {exc}"}
        log(row)
        return [row]
    for name in PGX_GAMES:
        for n in sizes:
            row = {"what": f"Pgx ({platform_name})", "game": name, "N": n}
            if time.perf_counter() > budget_end:
                row["note"] = "not measured: the time budget ran out"
            else:
                try:
                    info: dict = {}
                    chunk = pgx_stepper(name, n, info)
                    steps = {"n": 0}

                    def step(chunk=chunk, steps=steps):
                        steps["n"] = chunk()

                    t0 = time.perf_counter()
                    step()
                    calls = 0
                    t0 = time.perf_counter()
                    while time.perf_counter() - t0 < seconds:
                        step()  # (each chunk blocks until its steps are done)
                        calls += 1
                    row["steps_per_s"] = calls * steps["n"] / (time.perf_counter() - t0)
                    row["compile_s"] = info.get("compile_s")
                except Exception as exc:
                    row["note"] = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
            log(row)
            rows.append(row)
    return rows


def ppo_update(n: int, smoke: bool, log) -> dict:
    """One PPO update on the device arrays, read in place by torch."""
    import torch

    import boardenvs

    vec = boardenvs.make_vec("quess_v0", n, device="cuda")
    obs, _ = vec.reset(seed=0)
    row = {"what": "PPO update (torch) on the device arrays", "game": "quess_v0", "N": n}
    if smoke:  # the simulator's arrays are host memory with no __cuda_array_interface__
        x = torch.as_tensor(obs["observation"].copy_to_host()).float().flatten(1)
        m = torch.as_tensor(obs["action_mask"].copy_to_host()).bool()
        row["no_host_copy"] = "not checked: simulator"
        device = "cpu"
    else:
        device = "cuda"
        raw = torch.as_tensor(obs["observation"], device=device)
        row["no_host_copy"] = raw.data_ptr() == obs["observation"].__cuda_array_interface__["data"][0]
        x = raw.float().flatten(1)
        m = torch.as_tensor(obs["action_mask"], device=device).bool()
    policy = torch.nn.Sequential(torch.nn.Linear(x.shape[1], 256), torch.nn.ReLU(), torch.nn.Linear(256, m.shape[1]))
    policy.to(device)
    opt = torch.optim.Adam(policy.parameters(), lr=3e-4)

    def update():
        logits = policy(x).masked_fill(~m, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        old = dist.log_prob(action).detach()
        advantage = torch.randn(len(action), device=device)
        ratio = torch.exp(dist.log_prob(action) - old)
        loss = -torch.min(ratio * advantage, ratio.clamp(0.8, 1.2) * advantage).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    update()
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        update()
    if device == "cuda":
        torch.cuda.synchronize()
    row["update_ms"] = (time.perf_counter() - t0) / 5 * 1000
    log(row)
    return row


def device_name() -> str:
    from boardenvs.device import cuda_module, simulated

    if simulated():
        return "numba CUDA simulator"
    dev = cuda_module().get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return f"{name} (compute capability {dev.compute_capability[0]}.{dev.compute_capability[1]})"


def markdown(result: dict) -> str:
    lines = [f"# Device benchmark: {result['device']}", "", f"{result['date']}, `{result['command']}`", ""]
    lines += ["| what | game | N | steps/s | device MB | note |", "|---|---|---:|---:|---:|---|"]
    for r in result["rows"]:
        sps = f"{r['steps_per_s']:,.0f}" if "steps_per_s" in r else ""
        mem = f"{r['device_bytes'] / 2**20:,.0f}" if r.get("device_bytes") else ""
        lines.append(f"| {r['what']} | {r.get('game', '')} | {r.get('N', '')} | {sps} | {mem} | {r.get('note', '')} |")
    p = result["ppo"]
    lines += ["", f"PPO update on N = {p['N']}: {p['update_ms']:.1f} ms, no host copy: {p['no_host_copy']}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE / "results",
        help="folder for gpu_results.json and gpu_results.md (default benchmarks/results/)",
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="timed seconds per row")
    parser.add_argument("--budget", type=float, default=420.0, help="seconds after which no new row starts")
    parser.add_argument("--smoke", action="store_true", help="N = 8, a moment per row: the flow only")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    budget_end = start + args.budget
    sizes, seconds = ((8,), 0.05) if args.smoke else (SIZES, args.seconds)

    def log(row):
        print(json.dumps(row), flush=True)

    from boardenvs.device import cuda_module

    cuda_module()  # (the one-line error naming the extra, before anything runs)
    rows = boardenvs_rows(sizes, seconds, budget_end, log)
    rows.append(cpu_anchor(seconds, 8 if args.smoke else 1 << 16, log))
    rows += pgx_rows(sizes, seconds, budget_end, log)
    result = {
        "device": device_name(),
        "smoke": args.smoke,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python", "benchmarks/gpu.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "rows": rows,
        "ppo": ppo_update(8 if args.smoke else 4096, args.smoke, log),
        "seconds": time.perf_counter() - start,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_results.json").write_text(json.dumps(result, indent=1))
    (args.out / "gpu_results.md").write_text(markdown(result))
    print(f"wrote {args.out / 'gpu_results.md'} in {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
