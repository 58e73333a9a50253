"""The two commands' set-up (the Makefile): ``make test`` installs nothing
outside the clone and calls no ``apt-get`` or ``sudo``; ``make check`` runs
what needs other environments or system packages; a missing Python, one too
old, or one without its venv module gets one line naming what is missing,
before any environment is made."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import tomllib
from backstop import HANG_S
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent

if shutil.which("make") is None:  # (the README's commands need make: a machine that runs them has it)
    pytest.fail("make is not installed: the README's two commands need it", pytrace=False)


def _make(*args: str) -> subprocess.CompletedProcess:
    """``make ARGS`` in the clone, as a user's shell runs it (not as a sub-make of ``make test``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    return subprocess.run(["make", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=HANG_S, env=env)


def test_make_test_installs_no_system_package_and_make_check_runs_the_rest(tmp_path):
    venv = tmp_path / ".venv"  # (absent: the dry run prints the environment's set-up too)
    test = _make("-n", "test", f"VENV={venv}")
    assert test.returncode == 0, test.stderr
    # (the one apt-get it shows is in the line that names python3-venv where the venv module is missing)
    for word in ("apt-get update", "apt-get install -y", "sudo", "chromium", ".venv-rllib", ".venv-oldest"):
        assert word not in test.stdout, word
    assert ".venv-cuda" not in test.stdout
    assert "wheel_check" not in test.stdout
    assert "-m venv" in test.stdout and "pytest -q -n" in test.stdout and "--dist loadfile" in test.stdout
    check = _make("-n", "check", f"VENV={venv}")
    assert check.returncode == 0, check.stderr
    for part in (
        "claims_check.py",
        "wheel_check.py",
        "tests/test_rllib.py",
        "tests/test_pettingzoo_versions.py",
        "tests/test_engine_contract.py",
        "tests/test_numba_range.py",
        "tests/test_device_ptx.py",
        "BOARDENVS_BROWSER=required",
        "browser",
    ):
        assert part in check.stdout, part
    assert "make: *** " not in check.stdout + check.stderr and " -k " in check.stdout  # (every part, none stopped)
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert ci == ["make lint", "make test", "make check"], ci  # CI runs everything, and skips nothing


def test_make_checks_the_oldest_environment_at_the_floors_the_metadata_declares():
    """The floors pyproject.toml declares are what make check's oldest
    environment installs (a floor nobody runs is not a floor): PettingZoo,
    numba (boardenvs/numba_range.py) and numpy."""
    pins = re.search(r"^OLDEST_PINS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    pinned = dict(p.split("==") for p in pins)
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    floors = {r.name: r.specifier for r in map(Requirement, deps)}
    assert set(pinned) == {"pettingzoo", "numba", "numpy"}
    for name, version in pinned.items():  # inside the range, and below every release of the floor's next
        floor = Version(next(s.version for s in floors[name] if s.operator == ">="))
        assert Version(version) in floors[name] and Version(version).release[:2] == floor.release[:2], (name, version)


def _fake_python(path: Path, version: str, venv: bool) -> Path:
    """A stand-in interpreter: answers the Makefile's checks as a Python
    ``version`` (with or without its venv module) would."""
    path.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f"  *version_info*) exit {0 if tuple(map(int, version.split('.'))) >= (3, 10) else 1} ;;\n"
        f"  *python_version*) echo {version} ;;\n"
        f"  *ensurepip*) exit {0 if venv else 1} ;;\n"
        "  *) exit 3 ;;\n"
        "esac\n"
    )
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    "python, says",
    [
        (None, "no {p} on PATH: boardenvs needs Python >= 3.10"),
        (("3.8.18", True), "{p} is Python 3.8.18, boardenvs needs >= 3.10"),
        (("3.11.7", False), "{p} has no venv module with pip (Debian and Ubuntu: apt-get install python3-venv)"),
    ],
    ids=["missing", "too old", "no venv"],
)
def test_a_missing_python_or_venv_module_is_one_line_and_makes_nothing(tmp_path, python, says):
    p = tmp_path / "python3" if python is None else _fake_python(tmp_path / "python3", *python)
    venv = tmp_path / ".venv"
    done = _make("install", f"PYTHON={p}", f"VENV={venv}")
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\*", line)]  # (make's)
    assert len(lines) == 1 and lines[0].startswith(f"make: {says.format(p=p)}"), done.stderr
    assert not venv.exists()
