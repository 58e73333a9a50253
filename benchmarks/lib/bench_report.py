"""The bench's report: one run's results as markdown tables, the plot, and
the files they are written to.

:func:`render` makes the tables from the JSON of a run (``results.json``), so
a run measured now and one read back with ``--from-json`` give the same
text: the machine and the quiet verdict, the targets met, boardenvs' rows,
the anchors', memory and start-up, the scaling note, and the breakdown,
training-path and TorchRL tables when the run has them.  :func:`plot` draws
steps/s against N, log-log; :func:`write` prints the tables and writes
``results.md``, ``throughput.png`` and ``results.json`` into one folder.
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import numba
from bench_envpool import closest_envpool
from bench_harness import Row, api_label, find
from bench_machine import layer_started, quiet_lines
from bench_openspiel import closest
from bench_pgx import PGX_PAPER, pgx_steps_per_call
from bench_targets import TARGET_WARM_STARTUP, comparisons, target_text

from boardenvs.vector import parallel_from


# -- formatting -------------------------------------------------------------------------
def fmt(x: float) -> str:
    """A rate, shortened: 1.23M, 45.6k, 789."""
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def fmt_rate(row: Row) -> str:
    """A row's median steps/s, with the min-max of its repeats when it has more than one."""
    rates = [r for r, _ in row.samples]
    if len(rates) == 1:
        return fmt(rates[0])
    return f"{fmt(row.rate)} [{fmt(min(rates))}-{fmt(max(rates))}]"


def fmt_comparisons(comps: list[dict]) -> tuple[str, str]:
    """A row's ratios cell and targets cell."""
    ratios, targets = [], []
    for c in comps:
        ratios.append(f"{c['wall']:.2f}x / {c['cpu']:.2f}x {c['anchor']}")
        if c["target"] is not None:
            targets.append(f"{'met' if c['met'] else '**missed**'} ({target_text(c)})")
    return "; ".join(ratios) or "-", "; ".join(targets) or "-"


# -- the tables --------------------------------------------------------------------------
def boardenvs_table(rows: list[Row], big: int) -> list[str]:
    """boardenvs' rows and the no-op's, each with its ratios and targets."""
    lines = [
        "| game | API | N | steps/s median [min-max] | CPU-s per wall-s | ratio per wall-s / per CPU-s | target |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for row in rows:
        if row.system not in ("boardenvs", "no-op"):
            continue
        name = row.game if row.system == "boardenvs" else f"no-op, {row.game}'s spaces"
        text, target = fmt_comparisons(comparisons(row, rows, big))
        lines.append(f"| {name} | {api_label(row)} | {row.n} | {fmt_rate(row)} | {row.cpu:.2f} | {text} | {target} |")
    return lines


def anchors_table(rows: list[Row]) -> list[str]:
    """The anchors' rows, with Pgx's compile time and state bytes per row."""
    lines = [
        "| system | game | API | N | steps/s median [min-max] | CPU-s per wall-s | compile s | state "
        "bytes/row | ratio per wall-s / per CPU-s |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        if row.system in ("boardenvs", "no-op"):
            continue
        compile_s = f"{row.info['compile_s']:.1f}" if "compile_s" in row.info else "-"
        state = f"{row.info['state_bytes_per_row']:.0f}" if "state_bytes_per_row" in row.info else "-"
        text, _ = fmt_comparisons(comparisons(row, rows, 0))
        lines.append(
            f"| {row.system} | {row.game} | {row.api} | {row.n} | {fmt_rate(row)} | {row.cpu:.2f} | "
            f"{compile_s} | {state} | {text} |"
        )
    return lines


def memory_table(memory: dict, startup: dict) -> list[str]:
    """Memory per game and player count, with the game's start-up times (taken from ``startup``) on its first row."""
    lines = [
        "| game | state bytes/row | obs + mask bytes/row | N | the N rows' arrays | peak RSS | RSS over "
        "import | start-up warm (median) | cold | target warm <= 1 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, m in memory.items():
        env_id = label.split(",")[0]
        s = startup.pop(env_id, None)
        warm = f"{s['warm_median']:.2f} s" if s else "-"
        cold = f"{s['cold']:.1f} s" if s and "cold" in s else "-"
        target = ("met" if s["warm_median"] <= TARGET_WARM_STARTUP else "**missed**") if s else "-"
        lines.append(
            f"| {label} | {m['state_bytes_per_row']} | {m['buffer_bytes_per_row']} | {m['n']} | "
            f"{m['n'] * (m['state_bytes_per_row'] + m['buffer_bytes_per_row']) / 2**20:.1f} MiB | "
            f"{m['peak_rss'] / 2**20:.0f} MiB | "
            f"{m['rss_over_import'] / 2**20:.0f} MiB | {warm} | {cold} | {target} |"
        )
    return lines


def scaling_note(rows: list[Row], sizes) -> list[str]:
    """How make_vec grows with N and with threads, and the Pgx paper's GPU claim."""
    lines = []
    ours = [r for r in rows if r.system == "boardenvs" and r.api == "make_vec" and r.threads is None]
    games = sorted({r.game for r in ours}, key=[r.game for r in ours].index)
    steps = list(zip(sizes, sizes[1:]))
    growth = {(a, b): [] for a, b in steps}
    threads = []
    for game in games:
        for a, b in steps:
            ra, rb = find(rows, "boardenvs", game, "make_vec", a), find(rows, "boardenvs", game, "make_vec", b)
            if ra and rb:
                growth[(a, b)].append(rb.rate / ra.rate)
        one = find(rows, "boardenvs", game, "make_vec", max(sizes), threads=1)
        default = find(rows, "boardenvs", game, "make_vec", max(sizes))
        if one and default:
            threads.append((game, default.rate / one.rate, default.cpu, one.cpu))

    def span(xs):
        return f"median {statistics.median(xs):.2f}x (range {min(xs):.2f}-{max(xs):.2f}x)"

    parts = [f"N = {a} -> {b}: {span(v)}" for (a, b), v in growth.items() if v]
    if parts:
        lines.append("make_vec throughput against N, over the games above: " + "; ".join(parts) + ".")
        lines.append(
            f"Below N = {parallel_from()} make_vec runs a serial driver (one core); from there on numba's threads "
            f"({numba.get_num_threads()} here, threading layer "
            f"{numba.threading_layer() if layer_started() else 'not started'})."
        )
    if threads:
        ratios = [t[1] for t in threads]
        lines.append(
            f"With cores: make_vec N = {max(sizes)} with {numba.get_num_threads()} numba threads vs 1 "
            f"thread: {span(ratios)} "
            f"(CPU-s per wall-s {statistics.median(t[2] for t in threads):.2f} vs "
            f"{statistics.median(t[3] for t in threads):.2f}); "
            "per game: " + ", ".join(f"{g} {r:.2f}x" for g, r, _, _ in threads) + "."
        )
        busy = statistics.median(t[2] for t in threads)
        if busy < 0.75 * numba.get_num_threads():
            lines.append(
                f"In this run the threaded rows got {busy:.2f} CPU-s per wall-s of the "
                f"{numba.get_num_threads()} their threads "
                "could use: the other cores were busy with other jobs, so the thread ratio above (and the "
                "flat N = 64 -> "
                "4096 growth) measures that contention, not what another core gives; read both on an idle machine."
            )
    pgx = [r for r in rows if r.system == "Pgx (CPU)"]
    if pgx:
        best = {}
        for r in pgx:
            if r.game not in best or r.rate > best[r.game].rate:
                best[r.game] = r
        lines.append(
            "Pgx on this CPU peaks at: "
            + ", ".join(f"{g} {fmt(r.rate)} (N={r.n})" for g, r in best.items())
            + f"; XLA's CPU-s per wall-s: median {statistics.median(r.cpu for r in pgx):.2f}."
        )
    lines.append(
        "GPU (published, not measured here): " + PGX_PAPER + ". Those are ratios on A100 GPUs against "
        "PettingZoo and OpenSpiel, not steps/s on this CPU: next to ours they say that on a GPU Pgx grows "
        "with the batch far past its CPU rows above, while make_vec grows with CPU cores (numba's threads). "
        "We found no per-game steps/s number in the paper's text or the Pgx README to quote exactly "
        "(its throughput figures are plots), so none is given here."
    )
    return lines


def row_from_json(d: dict) -> Row:
    """A row back from its ``results.json`` entry (samples, no setup)."""
    return Row(
        d["system"],
        d["game"],
        d["api"],
        d["n"],
        setup=None,
        threads=d["threads"],
        env_id=d["env_id"],
        options=d["options"],
        info=d["info"],
        samples=[(s["steps_per_s"], s["cpu_per_wall"]) for s in d["samples"]],
    )


def render(results: dict) -> str:
    """The markdown tables of one run's results (measured now or read back from results.json)."""
    m, settings = results["machine"], results["settings"]
    rows = [row_from_json(d) for d in results["rows"]]
    sizes = sorted(set(settings["sizes"]))
    big = max(sizes)
    env_ids = list(dict.fromkeys(r.env_id for r in rows if r.env_id))
    memory, startup, targets = results["memory"], results["startup"], results["targets"]
    met = sum(t["met"] for t in targets)
    lines = [
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_bytes'] / 2**30 if m['ram_bytes'] else 0:.0f} "
        f"GiB, {m['os']}, "
        f"Python {m['python']}, numba {m['versions']['numba']} ({m['numba_threads']} threads, layer "
        f"{m['numba_threading_layer']}), "
        f"jax {m['versions']['jax']}, pgx {m['versions']['pgx']}, open_spiel {m['versions']['open_spiel']}, "
        f"envpool {m['versions'].get('envpool')}, pettingzoo {m['versions']['pettingzoo']}; {m['date']}; "
        f"`{m['command']}`.",
        f"Every row: {settings['repeats']} interleaved repeat(s) of {settings['seconds']:g} s, median [min-max]; "
        "ratios are against anchors of this same run, per wall-second and per CPU-second.",
        "",
        *quiet_lines(m),
        "",
        f"Targets: {met} of {len(targets)} met"
        + (
            ""
            if met == len(targets)
            else " (missed: "
            + "; ".join(f"{t['row']} {t['value']:.2f} vs {t['target']}" for t in targets if not t["met"])
            + ")"
        )
        + ".",
        "",
        "boardenvs, every game and player count (make_vec: one Python call per step; closest OpenSpiel game per game: "
        + "; ".join(f"{e} -> {closest(e)[0]} ({closest(e)[1]})" for e in env_ids if closest(e))
        + "):",
        "",
        *boardenvs_table(rows, big),
        "",
        f"Anchors (Pgx: K steps per jitted call, K = {', '.join(f'{pgx_steps_per_call(n)} at N={n}' for n in sizes)}; "
        "compile = the first call; EnvPool: its thread pool with as many threads as cores, actions from its "
        "`legal_action_mask` by a compiled sampler, or by numpy in the numpy-sampler rows; closest EnvPool "
        "game per game: "
        + "; ".join(f"{e} -> {closest_envpool(e)[0]} ({closest_envpool(e)[1]})" for e in env_ids if closest_envpool(e))
        + "):",
        "",
        *anchors_table(rows),
    ]
    if memory or startup:
        lines += [
            "",
            f"Memory (make_vec at N = {big}, fresh process) and start-up (import + make + first step, fresh "
            "interpreter; "
            "cold: an empty numba cache):",
            "",
            *memory_table(memory, dict(startup)),
        ]
    lines += ["", "Scaling:", "", *("- " + s for s in scaling_note(rows, sizes))]
    if results.get("breakdown"):
        lines += [
            "",
            f"What bounds each game: where a make_vec step's time goes at N = {big}, one core "
            "(`python benchmarks/breakdown.py`; nanoseconds per row per step, each part timed alone in a compiled "
            "loop over the same rows):",
            "",
            *results["breakdown"]["table"],
        ]
    if results.get("training_path"):
        lines += [
            "",
            "Training path (learner steps, each with the random opponent's reply; random legal actions from "
            '`env_method("action_masks")`, as MaskablePPO asks):',
            "",
            *results["training_path"],
        ]
    if (results.get("torchrl") or {}).get("table"):
        lines += [
            "",
            "TorchRL (`boardenvs.torchrl.BoardEnv`; env steps/s = learner steps, each with the random opponent's "
            "reply; a random legal action per row from the mask, then `step_and_maybe_reset`; SB3VecEnv stepped "
            "with the masks from `action_masks()`):",
            "",
            *results["torchrl"]["table"],
        ]
    lines += results.get("lengths", [])
    return "\n".join(lines)


# -- the plot and the files -------------------------------------------------------------
def plot(rows: list[Row], path: Path, m: dict, log=print) -> bool:
    """steps/s against N, log-log: a line per boardenvs game (make_vec) and
    per Pgx game, OpenSpiel and PettingZoo (one game at a time) as flat
    dotted lines at their N = 1 rate."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        log(f"plot skipped: {exc}; pip install '.[bench]' (in a clone)")
        return False
    series = {}
    for row in rows:
        if row.samples and (
            (row.system == "boardenvs" and row.api == "make_vec" and row.threads is None) or row.system == "Pgx (CPU)"
        ):
            series.setdefault((row.system, row.game), []).append((row.n, row.rate))
    sizes = sorted({n for s in series.values() for n, _ in s} | {1})
    fig, ax = plt.subplots(figsize=(11, 6.5))
    cmap = plt.get_cmap("tab20")
    for i, ((system, game), pts) in enumerate(series.items()):
        pts.sort()
        style = "-" if system == "boardenvs" else "--"
        marker = "o" if system == "boardenvs" else "s"
        label = f"boardenvs make_vec {game}" if system == "boardenvs" else f"Pgx CPU {game}"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=marker, color=cmap(i % 20), label=label)
    for row in rows:
        if row.samples and row.system in ("OpenSpiel", "PettingZoo"):
            ax.plot(
                [sizes[0], sizes[-1]], [row.rate, row.rate], ":", color="grey" if row.system == "OpenSpiel" else "tan"
            )
            ax.annotate(
                f"{row.system} {row.game}",
                (sizes[-1], row.rate),
                fontsize=7,
                color="dimgrey",
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (games stepped per call)")
    ax.set_ylabel("steps/s (median)")
    ax.set_title(
        f"Random legal play, observation + mask every step ({m['cores']} cores, {m['cpu']}; {m['date'][:10]})",
        fontsize=10,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.21, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write(results: dict, out: Path, root: Path, log=print, with_json: bool = True) -> Path | None:
    """Print the run's tables and write them to ``out/results.md``, the plot to
    ``out/throughput.png`` (linked under the tables, by its path from ``root``
    when it lies inside it) and, ``with_json``, the results to
    ``out/results.json``; the plot's path, or None when it was skipped."""
    table = render(results)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "throughput.png"
    has_plot = plot([row_from_json(d) for d in results["rows"]], png, results["machine"], log=log)
    if has_plot:
        rel = os.path.relpath(png, root) if png.resolve().is_relative_to(root) else str(png)
        table += f"\n\n![steps/s against N, log-log]({rel})"
    print(table)
    (out / "results.md").write_text(table + "\n")
    results["plot"] = str(png) if has_plot else None
    if with_json:
        (out / "results.json").write_text(json.dumps(results, indent=1, default=float) + "\n")
    return png if has_plot else None
