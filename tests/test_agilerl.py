"""docs/tutorials/agilerl.md's python blocks, in order, in a fresh interpreter,
with the small budgets of their ``# tests:`` comments: run where AgileRL is
installed, its own environment (``make check-trainers`` builds
.venv-agilerl and runs this file there; CI does not, see the page).
conftest.py collects this file only there."""

from __future__ import annotations

import subprocess
import sys

from backstop import HANG_S
from test_docs import ROOT, code_of

# what the page prints: DQN's results against random, before and after self-play, then IPPO's
PRINTED = ("against random: {'games': 4", "after self-play: {'games': 4", "IPPO: 64 steps", "player_0 against random: ")


def test_the_agilerl_page_runs(tmp_path):
    code, blocks, budgets = code_of(ROOT / "docs/tutorials/agilerl.md")
    assert blocks >= 1 and budgets >= 1
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-4000:]
    assert all(line in done.stdout for line in PRINTED), done.stdout[-2000:]
