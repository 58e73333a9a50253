"""The machine a benchmark ran on, and how busy it was while it ran.

This machine is shared, so a run's numbers mean little without the record
of where and under what load they were taken: :func:`machine` (CPU, cores,
RAM, OS, package versions, numba's threads, date and command) and, for each
part of a run, the load average and the cores other processes kept busy
(:class:`Sections`, from ``/proc/stat`` less this process's own CPU).  A run
is quiet when no part saw others use ``QUIET_OTHERS`` cores or more; the
bench only replaces the published tables with a quiet run's, and
:func:`quiet_lines` states the verdict under every table.  The other
benchmark scripts (``time_to_strength.py``, ``rllib_bench.py``,
``ppo_settings.py``) record their runs with these too, through ``bench``.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numba

# a run is "quiet" when other processes used less than this many cores on average while it timed
QUIET_OTHERS = 0.25

MACHINE_PACKAGES = (
    "boardenvs",
    "numba",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "open_spiel",
    "envpool",
    "jax",
    "jaxlib",
    "pgx",
    "stable-baselines3",
)


def machine(packages=MACHINE_PACKAGES) -> dict:
    """CPU, cores, RAM, OS, Python, ``packages``' versions, numba's threads,
    date and command of this run (rllib_bench.py and ppo_settings.py record theirs with it)."""
    from importlib.metadata import PackageNotFoundError, version

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = None
    versions = {}
    for pkg in packages:
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_bytes": ram,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.threading_layer() if layer_started() else None,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }


def cpu_counters() -> tuple[float, float, float] | None:
    """(CPU-seconds every process on the machine has used, this process's
    and its waited-for children's, wall clock), or None without /proc/stat."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    busy = (sum(ticks) - ticks[3] - ticks[4]) / hz  # all but idle and iowait
    t = os.times()
    return busy, t.user + t.system + t.children_user + t.children_system, time.perf_counter()


def others_cores(before, after) -> float | None:
    """Cores other processes kept busy, on average, between two :func:`cpu_counters`."""
    if before is None or after is None or after[2] <= before[2]:
        return None
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / (after[2] - before[2]))


class Sections:
    """The load average and other processes' CPU before and after each part
    of a run (``with sections("rows"): ...``), and whether the run was quiet."""

    def __init__(self, log=print):
        self.log = log
        self.records = []

    def probe(self, seconds: float = 1.0) -> None:
        """Other processes' CPU while this one sleeps: the machine before the run."""
        with self("idle probe"):
            time.sleep(seconds)

    def __call__(self, name: str):
        import contextlib

        @contextlib.contextmanager
        def section():
            before, load = cpu_counters(), loadavg()
            yield
            after = cpu_counters()
            rec = {
                "section": name,
                "wall_s": (after[2] - before[2]) if before and after else None,
                "load_start": load,
                "load_end": loadavg(),
                "others_cores": others_cores(before, after),
            }
            self.records.append(rec)
            if rec["others_cores"] is not None and rec["others_cores"] >= QUIET_OTHERS:
                self.log(f"busy: other processes used {rec['others_cores']:.2f} cores during {name}")

        return section()

    def quiet(self) -> bool | None:
        values = [r["others_cores"] for r in self.records if r["others_cores"] is not None]
        return None if not values else max(values) < QUIET_OTHERS


def loadavg() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes (None where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def layer_started() -> bool:
    """Whether numba's threading layer has started (asking for it before then raises)."""
    try:
        numba.threading_layer()
        return True
    except ValueError:
        return False


def quiet_lines(m: dict) -> list[str]:
    """Whether the run was quiet: other processes' CPU during each section."""
    sections = m.get("sections")
    if not sections:
        return ["Other processes' CPU during the run: not recorded."]
    parts = ", ".join(f"{r['section']} {r['others_cores']:.2f}" for r in sections if r["others_cores"] is not None)
    verdict = (
        "quiet"
        if m.get("quiet")
        else f"**busy** (a section at or above {QUIET_OTHERS:g} cores: compare ratios only, "
        "and re-run on a quiet machine before publishing)"
    )
    return [f"Other processes' CPU (cores in use on average, from /proc/stat less this run's own): {parts}: {verdict}."]
