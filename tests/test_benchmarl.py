"""docs/tutorials/benchmarl.md's python blocks, in order, in a fresh interpreter,
with the small budgets of their ``# tests:`` comments: run where BenchMARL is
installed, its own environment (``make check-trainers`` builds
.venv-benchmarl and runs this file there; CI does not, see the page).
conftest.py collects this file only there."""

from __future__ import annotations

import subprocess
import sys

from backstop import HANG_S
from test_docs import ROOT, code_of

PRINTED = "BenchMARL IPPO: 2000 frames"


def test_the_benchmarl_page_runs(tmp_path):
    code, blocks, budgets = code_of(ROOT / "docs/tutorials/benchmarl.md")
    assert blocks >= 1 and budgets >= 1
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-4000:]
    assert PRINTED in done.stdout, done.stdout[-2000:]
