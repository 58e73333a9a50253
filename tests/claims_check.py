"""What the pages claim of training, checked at full size:
``make check-claims``, which CI runs after ``make test`` (.ci/run).

The suite runs every page's code with its ``# tests: N`` budgets (256 steps:
the code runs, it does not learn).  Here the training examples run as the
pages print them, full size, and their claim is checked against what
``evaluate`` printed: each claim below names the page, the python blocks that
make the example (counted from the page's first python block), and the least
win rate the page promises.

``python tests/claims_check.py [--jobs N]`` prints one line per claim that
holds, as it ends, and exits 1 naming every one that does not.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from backstop import HANG_S

ROOT = Path(__file__).resolve().parent.parent
# (page, the python blocks of the example, what the page says, the least win rate that says it)
CLAIMS = (
    ("README.md", (1,), "20k steps of MaskablePPO on Quess: nearly every game won against random", 0.9),
    (
        "docs/tutorials/gymnasium.md",
        (0, 1),
        "after these 20k steps the agent wins nearly every game against random",
        0.9,
    ),
    (
        "docs/tutorials/torchrl.md",
        (1,),
        "after these 20k frames of TorchRL's PPO the agent wins nearly every game against random",
        0.9,
    ),
    ("docs/tutorials/cleanrl.md", (0,), "after these 60k steps the agent won 199 of 200 games against random", 0.9),
    (
        "docs/tutorials/tianshou.md",
        (0,),
        "Tianshou's PettingZoo route: 54% against random, where random wins 41%",
        0.45,
    ),
    ("docs/tutorials/tianshou.md", (1,), "Tianshou's gymnasium route: 189 of 200 games against random", 0.8),
    ("docs/tutorials/skrl.md", (0,), "skrl's masked PPO: 195 of 200 games against random", 0.9),
    # (PuffeRL: pufferlib-core rebuilt from its sdist, which make check-claims does first)
    ("docs/tutorials/pufferlib.md", (2,), "PuffeRL with a masked policy: 196 of 200 games against random", 0.9),
)


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def check(name: str, blocks: tuple, claim: str, least: float) -> str | None:
    """Run one example as its page prints it; its line, or None where it held."""
    code = "\n".join(python_blocks(ROOT / name)[k] for k in blocks)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp, capture_output=True, text=True, timeout=HANG_S)
    if done.returncode != 0:
        return f"claims check: {name} blocks {blocks} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    rates = re.findall(r"'win_rate': ([0-9.]+)", done.stdout)
    if not rates:
        return f"claims check: {name} blocks {blocks} printed no evaluate() result:\n{done.stdout[-2000:]}"
    rate = float(rates[-1])
    if rate < least:
        return f"claims check: {name} says {claim!r}, but the example won {rate:.0%} (at least {least:.0%} says it)"
    print(
        f"claims check: {name}: {claim}: {rate:.0%} won (at least {least:.0%}), {time.perf_counter() - t0:.0f} s",
        flush=True,
    )
    return None


def main(argv: list[str]) -> int:
    """``--jobs N``: N examples at a time (each is one process, on about one
    core; ``make check`` runs two beside its other lane)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="examples run at once (default 1)")
    jobs = parser.parse_args(argv).jobs
    if jobs < 1:
        parser.error(f"--jobs must be at least 1, not {jobs}")
    with ThreadPoolExecutor(jobs) as pool:  # (each thread waits on its example's process)
        failures = [f for f in pool.map(lambda c: check(*c), CLAIMS) if f]
    if failures:
        sys.exit("\n".join(failures))
    print("claims check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
