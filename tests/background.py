"""Subprocess checks that start when the suite is collected and run on the
second core while the rest of the suite runs; their test waits for them.

``conftest.py`` starts every check whose test was selected
(:func:`start_for`); the test calls :func:`result`, which starts it then if
it was not started (a test run by itself).  Outcomes do not depend on the
timing: a check's result is what its process printed and returned."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from backstop import HANG_S

TESTS = Path(__file__).resolve().parent
# name -> (the test that waits for it, the command, extra environment)
CHECKS = {
    "boundscheck": (
        "test_faces.py::test_boundscheck_probe",
        [sys.executable, str(TESTS / "boundscheck_probe.py")],
        {"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(TESTS / ".boundscheck_cache")},
    ),
}
_running: dict = {}


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


def result(name: str) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of check ``name``, waiting for it."""
    start(name)
    proc, out, err = _running[name]
    rc = proc.wait(timeout=HANG_S)
    out.seek(0)
    err.seek(0)
    return rc, out.read(), err.read()
