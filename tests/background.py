"""Subprocess checks that start when the suite starts and run beside the
rest of it; their test waits for them.

In one pytest process, ``conftest.py`` starts every check whose test was
selected (:func:`start_for`); the test calls :func:`result`, which starts it
then if it was not started (a test run by itself).

Under pytest-xdist (``make test``) the controller starts the checks as the
session starts (:func:`start_shared`: it runs no test, and the workers have
not started yet), each writing its output to files in a folder the workers
are told of (``BOARDENVS_TESTS_BACKGROUND``), and holding a lock on a file
there until it ends.  The test, on whichever worker runs it, waits on that
lock (an event, not a clock) and reads the files.

Outcomes do not depend on the timing: a check's result is what its process
printed and returned."""

from __future__ import annotations

import fcntl
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from backstop import HANG_S

TESTS = Path(__file__).resolve().parent
SHARED = "BOARDENVS_TESTS_BACKGROUND"  # the folder of the controller's checks (pytest-xdist)
# name -> (the test that waits for it, the command, extra environment)
CHECKS = {
    "boundscheck": (
        "test_faces.py::test_boundscheck_probe",
        [sys.executable, str(TESTS / "boundscheck_probe.py")],
        # (NUMBA_OPT=0: the index checks are numba's, inserted before LLVM optimises; unoptimised code keeps
        # every one of them, and compiles in about two thirds of the time)
        {"NUMBA_BOUNDSCHECK": "1", "NUMBA_OPT": "0", "NUMBA_CACHE_DIR": str(TESTS / ".boundscheck_cache")},
    ),
}
_running: dict = {}
_started: list = []  # what start_locked started (stop_started)


def start(name: str) -> None:
    if name in _running:
        return
    _, command, extra = CHECKS[name]
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")  # (files: no pipe to fill up)
    proc = subprocess.Popen(command, stdout=out, stderr=err, text=True, env={**os.environ, **extra}, cwd=TESTS)
    _running[name] = (proc, out, err)


def start_for(nodeids) -> None:
    """Start the checks of the selected tests (``nodeids``)."""
    for name, (test, _, _) in CHECKS.items():
        if any(n.endswith(test) for n in nodeids):
            start(name)


def start_locked(folder: Path, name: str, command: list, extra: dict, nice: int = 0) -> None:
    """Run ``command`` in the background, in a session of its own:
    ``folder/NAME.lock`` stays locked while it runs; ``NAME.out``,
    ``NAME.err`` and ``NAME.rc`` hold what it printed and returned
    (:func:`wait` waits for it, from any process)."""
    lock = open(folder / f"{name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    # the shell holds the locked file (inherited) until the command has ended and its status is written
    files = [shlex.quote(str(folder / f"{name}.{kind}")) for kind in ("out", "err", "rc")]
    script = f'nice -n {nice} "$@" > {{}} 2> {{}}; echo $? > {{}}'.format(*files)
    _started.append(
        subprocess.Popen(
            ["sh", "-c", script, "sh", *command],
            cwd=TESTS,
            env={**os.environ, **extra},
            pass_fds=(lock.fileno(),),
            start_new_session=True,
        )
    )
    lock.close()  # (the lock is the shell's now: released when it exits)


def stop_started() -> None:
    """End what :func:`start_locked` started that still runs (a run cut
    short: Ctrl-C reaches pytest's session, not theirs)."""
    for proc in _started:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def wait(folder: Path, name: str) -> None:
    """Wait until what :func:`start_locked` started as ``name`` has ended
    (an event: the lock's release; :data:`HANG_S` is the backstop)."""
    with open(folder / f"{name}.lock") as lock:
        waiter = threading.Thread(target=fcntl.flock, args=(lock, fcntl.LOCK_SH), daemon=True)
        waiter.start()  # (flock returns when the command's shell has exited)
        waiter.join(HANG_S)
        assert not waiter.is_alive(), f"{name} (tests/background.py) ran past {HANG_S} s: hung"


def start_shared(folder: Path) -> None:
    """Start every check for the workers of a pytest-xdist run (see the
    module docstring) with :func:`start_locked`.  Call it before the workers
    start: they inherit the folder's name from the environment."""
    for name, (_, command, extra) in CHECKS.items():
        # (niced, in a session of its own: under the kernel's autogroup that still gets it about a core beside
        # the warm-up; in pytest's own session, where nice bites, a fresh make test measured 758 s against 655)
        start_locked(folder, name, command, extra, nice=10)
    os.environ[SHARED] = str(folder)


def result(name: str) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of check ``name``, waiting for it."""
    shared = os.environ.get(SHARED)
    if shared and (Path(shared) / f"{name}.lock").exists():
        folder = Path(shared)
        wait(folder, name)
        return (
            int((folder / f"{name}.rc").read_text()),
            (folder / f"{name}.out").read_text(),
            (folder / f"{name}.err").read_text(),
        )
    start(name)
    proc, out, err = _running[name]
    rc = proc.wait(timeout=HANG_S)
    out.seek(0)
    err.seek(0)
    return rc, out.read(), err.read()
