"""Helpers of the kill tests (``test_killed.py``, ``test_rate_killed.py``;
issue 73, item 2): a real SIGKILL of a child at a named point
(:func:`kill_at` in the parent, :func:`wait_here` in the child: an event,
not a clock), and a kill simulated by a snapshot of a run's folder as the
disk holds it at an event (see
``test_a_run_killed_at_50_random_points_leaves_a_checkpoint_every_time``:
why a snapshot is what a SIGKILL leaves)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from backstop import HANG_S


def draw(counts: dict, groups: list[list[str]], k: int, seed: int) -> list[tuple[str, int]]:
    """``k`` distinct points (kind, occurrence) over a run's life: a group of
    ``groups``, then a kind in it, then an occurrence, each uniform (a seeded
    draw: the same points every time)."""
    rng = random.Random(seed)
    assert sum(counts[kind] for group in groups for kind in group) >= k, "fewer events than points"
    points: set = set()
    while len(points) < k:
        kind = rng.choice(rng.choice(groups))
        points.add((kind, rng.randrange(counts[kind])))
    return sorted(points, key=lambda p: (p[0], p[1]))


def dead_pid() -> int:
    """The pid of a process that has ended (a killed run's temporaries carry one)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def snapshot(folder: Path, dest: Path, dead: int, cut=None) -> None:
    """The files of ``folder`` as the disk holds them now, copied to
    ``dest``: what a SIGKILL now would leave.  ``cut``: ``(path, size)``, the
    file being written, cut to its first ``size`` bytes in the copy (the
    rest not yet written); every temporary file's name says it was
    ``dead``'s."""
    dest.mkdir(parents=True)
    for path in folder.iterdir():
        if not path.is_file():  # (a TensorBoard folder: no part of a checkpoint)
            continue
        name = path.name.replace(f".{os.getpid()}-", f".{dead}-") if ".tmp" in path.name else path.name
        shutil.copyfile(path, dest / name)
        if cut is not None and path == Path(cut[0]):
            with open(dest / name, "r+b") as f:
                f.truncate(cut[1])


def wait_here(point: str) -> None:
    """In a child: say that it is at ``point`` and wait there to be killed."""
    print(f"AT {point}", flush=True)
    sys.stdin.read()  # the parent kills the process here
    raise SystemExit(f"{point}: stdin closed, the process was not killed")


def kill_at(argv: list[str], point: str) -> int:
    """Run the child ``argv`` until it says it is at ``point``
    (:func:`wait_here`), SIGKILL it there and reap it; its pid."""
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    backstop = threading.Timer(HANG_S, child.kill)  # a hung child, not a slow one
    backstop.start()
    try:
        lines = []
        for line in child.stdout:
            lines.append(line)
            if line.strip() == f"AT {point}":
                child.send_signal(signal.SIGKILL)
                break
        assert child.wait() == -signal.SIGKILL, f"the child never reached {point}: {lines[-5:]}"
    finally:
        backstop.cancel()
        child.stdin.close()
        child.stdout.close()
    return child.pid
