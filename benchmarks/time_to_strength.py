"""Time to strength: from a fresh process to an agent that beats ``greedy``.

    python benchmarks/time_to_strength.py                      # every row, 20 minutes each at most
    python benchmarks/time_to_strength.py --games quess_v0 --minutes 5 --out /tmp/tts

Each row is one ``boardenvs train GAME --minutes M`` with the game's defaults,
run as a user runs it: a new Python process (imports, compilation and the
warm start counted), ``--eval-seconds`` between checks, each check 400 seeded
games against ``random`` and ``greedy`` with the seats split evenly and every
game opened by a few random decisions (:mod:`boardenvs.baselines.checkup`),
the training clock paused while it checks.  A run stops at its budget or at
the first check at its highest target against ``greedy`` (``--stop-at``:
90%, Tryasina 2p's 65%); the information rows run ``--info-minutes``.

Recorded per row, from the model's ``.json`` history: the training time and
CPU seconds at the first check at or above 60% and 90% against ``greedy``
(and the row's own targets), the best and last rates, trained steps a
second, and the process's wall time.  The rows the targets name are
Quess, Quagmire, Quicksand, Hex Quoridor and Tryasina with two players; Hex
Quoridor and Tryasina with four are information.  Writes ``<out>.json``
(every history, the machine, its load before and after each row),
``<out>.md`` (the table) and ``<out>.png`` (the curves), by default
``benchmarks/results/time_to_strength``.  A GPU machine runs the same script; the
device is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "time_to_strength"
# (label, env id, players, targets: {rate: minutes}); the targets (Tryasina's are 55% / 65%)
ROWS = (
    ("Quess", "quess_v0", None, {0.6: 5, 0.9: 20}),
    ("Quagmire", "quagmire_v0", None, {0.6: 5, 0.9: 20}),
    ("Quicksand", "quicksand_v0", None, {0.6: 5, 0.9: 20}),
    ("Hex Quoridor 2p", "hex_quoridor_v1", None, {0.6: 5, 0.9: 20}),
    ("Tryasina 2p", "tryasina_v0", None, {0.55: 5, 0.65: 20}),
    ("Hex Quoridor 4p", "hex_quoridor_v1", 4, {}),
    ("Tryasina 4p", "tryasina_v0", 4, {}),
)
THRESHOLDS = (0.6, 0.9)


def first_at(history: list[dict], rate: float, opponent: str = "greedy") -> dict | None:
    """The first check at or above ``rate`` against ``opponent`` (None: none)."""
    return next((h for h in history if h.get(opponent, 0.0) >= rate), None)


def device() -> str:
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    return "cpu"


def run_row(
    label: str, env_id: str, players, minutes: float, eval_seconds: float, seed: int, folder: Path, extra: list[str]
) -> dict:
    from bench import loadavg

    out = folder / (env_id + (f"_{players}p" if players else ""))
    stop = max(ROW_TARGETS[label], default=0.9)  # the row's highest target (information rows: 90%)
    cmd = [
        sys.executable,
        "-m",
        "boardenvs.baselines.train",
        env_id,
        "--minutes",
        str(minutes),
        "--eval-seconds",
        str(eval_seconds),
        "--stop-at",
        f"greedy={stop:g}",
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--no-progress",
        *extra,
    ]
    if players:
        cmd += ["--players", str(players)]
    load = loadavg()
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{label}: {' '.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    config = json.loads(out.with_suffix(".json").read_text())
    history = config["history"]
    row = {
        "label": label,
        "env_id": env_id,
        "players": players or 2,
        "command": " ".join(cmd[2:]),
        "process_wall_s": round(wall, 1),
        "load_start": load,
        "load_end": loadavg(),
        "history": history,
        "steps": config["budget"]["this_run_steps"],
        "stopped_by": config.get("stopped_by"),
        "network": config["extractor"],
        "parameters": None,
        "opponents": config["opponents"],
        "hyperparameters": config["hyperparameters"],
        "warm_start": config.get("warm_start"),
    }
    last = history[-1] if history else {}
    row["train_s"] = last.get("train_s")
    row["steps_per_s"] = round(last["steps"] / last["train_s"]) if last.get("train_s") else None
    row["best_greedy"] = max((h.get("greedy", 0.0) for h in history), default=None)
    row["last_greedy"] = last.get("greedy")
    for rate in sorted({*THRESHOLDS, *ROW_TARGETS[label]}):
        hit = first_at(history, rate)
        row[f"at_{rate:g}"] = (
            None if hit is None else {"train_s": hit["train_s"], "cpu_s": hit["cpu_s"], "steps": hit["steps"]}
        )
    return row


ROW_TARGETS = {label: targets for label, _, _, targets in ROWS}


def _time(hit) -> str:
    if hit is None:
        return "not reached"
    return f"{hit['train_s'] / 60:.1f} min ({hit['cpu_s']:.0f} CPU-s)"


def markdown(result: dict) -> str:
    m = result["machine"]
    lines = [
        f"Time to strength on {m['cpu']} ({m['cores']} cores), device {result['device']}, "
        f"{result['date']}: `boardenvs train GAME --minutes {result['minutes']:g}` with the game's defaults "
        f"(information rows: {result['info_minutes']:g} minutes), each in a new process, checked every "
        f"{result['eval_seconds']:g} s of training (400 seeded games against each opponent, seats split evenly, "
        "random openings; the clock paused while checking), stopped at the row's highest target against "
        "`greedy`.  Times are training time (CPU seconds in brackets) to the first check at or above the rate.",
        "",
        "| game | network | trained steps/s | >= 60% vs greedy | >= 90% vs greedy | target | met? | best / "
        "last vs greedy | process wall |",
        "|---|---|---:|---|---|---|---|---|---:|",
    ]
    for row in result["rows"]:
        targets = ROW_TARGETS[row["label"]]
        words, met = [], []
        for rate, minutes in sorted(targets.items()):
            hit = row.get(f"at_{rate:g}")
            words.append(f"{rate:.0%} in {minutes} min")
            met.append(hit is not None and hit["train_s"] <= 60 * minutes)
        target = ", ".join(words) or "(information)"
        verdict = "-" if not targets else ("yes" if all(met) else "partly" if any(met) else "no")
        if targets and any(r not in THRESHOLDS for r in targets):
            target += " (" + ", ".join(f"{r:.0%}: {_time(row.get(f'at_{r:g}'))}" for r in sorted(targets)) + ")"
        lines.append(
            f"| {row['label']} | {row['network']} | {row['steps_per_s']:,} | {_time(row['at_0.6'])} | "
            f"{_time(row['at_0.9'])} | {target} | {verdict} | {row['best_greedy']:.1%} / "
            f"{row['last_greedy']:.1%} | {row['process_wall_s'] / 60:.1f} min |"
        )
    loads = [row["load_start"] for row in result["rows"] if row["load_start"]]
    lines += [
        "",
        f"Load average (1 min) at each row's start: {', '.join(f'{x[0]:.2f}' for x in loads)}.",
        f"Command: `{result['command']}`.",
    ]
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for row in result["rows"]:
        h = row["history"]
        ax.plot([x["train_s"] / 60 for x in h], [x["greedy"] for x in h], marker=".", label=row["label"])
    ax.axhline(0.6, color="grey", lw=0.5, ls="--")
    ax.axhline(0.9, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("minutes of training (2 cores)" if result["device"] == "cpu" else f"minutes ({result['device']})")
    ax.set_ylabel("win rate against greedy (400 games)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("boardenvs train GAME --minutes M, defaults")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games", nargs="+", default=None, metavar="LABEL_OR_ID", help="rows by label or env id (default: every row)"
    )
    ap.add_argument("--minutes", type=float, default=20.0, help="each target row's budget (default 20)")
    ap.add_argument("--info-minutes", type=float, default=10.0, help="each information row's budget (default 10)")
    ap.add_argument("--eval-seconds", type=float, default=30.0, help="training seconds between checks (default 30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--out", default=str(OUT), help="<out>.json / .md / .png (default benchmarks/results/time_to_strength)"
    )
    ap.add_argument("--keep", default=None, help="keep the trained models in this folder (default: a temporary one)")
    args, extra = ap.parse_known_args(argv)
    sys.path.insert(0, str(HERE))
    from bench import machine

    rows = [r for r in ROWS if args.games is None or r[0] in args.games or r[1] in args.games]
    if not rows:
        ap.error(f"--games: none of {args.games} is a row ({', '.join(r[0] for r in ROWS)}) or its env id")
    result = {
        "machine": machine(("boardenvs", "numba", "torch", "stable-baselines3", "sb3-contrib")),
        "device": device(),
        "minutes": args.minutes,
        "info_minutes": args.info_minutes,
        "eval_seconds": args.eval_seconds,
        "seed": args.seed,
        "date": time.strftime("%Y-%m-%d"),
        "command": " ".join(["python benchmarks/time_to_strength.py", *(argv or sys.argv[1:])]),
        "rows": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for label, env_id, players, targets in rows:
            minutes = args.minutes if targets else args.info_minutes
            print(f"== {label}: {minutes:g} minutes at most", flush=True)
            row = run_row(label, env_id, players, minutes, args.eval_seconds, args.seed, folder, extra)
            result["rows"].append(row)
            print(
                f"   60%: {_time(row['at_0.6'])}, 90%: {_time(row['at_0.9'])}, {row['steps_per_s']:,} steps/s, "
                f"best {row['best_greedy']:.1%}",
                flush=True,
            )
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(result))
    plot(result, out.with_suffix(".png"))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
