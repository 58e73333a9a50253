"""numba pinned to what is tested (boardenvs/numba_range.py): the metadata's
range is the one the package checks, the installed numba is inside it (this
file runs at both ends: ``make test``'s environment and ``make check``'s
oldest, at the floor), and a numba outside it gets one line at import."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numba
import pytest
import tomllib
from backstop import HANG_S
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from boardenvs import numba_range

ROOT = Path(__file__).resolve().parent.parent


def _requirement(name: str) -> Requirement:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (found,) = [Requirement(d) for d in deps if Requirement(d).name == name]
    return found


def test_the_metadata_declares_the_range_the_package_checks_with_an_upper_bound():
    declared = _requirement("numba").specifier
    assert declared == Requirement(numba_range.declared()).specifier == SpecifierSet(">=0.60,<0.69")
    assert Version("0.59.1") not in declared and Version("0.69.0") not in declared


def test_the_installed_numba_is_inside_the_declared_range():
    assert Version(numba.__version__) in _requirement("numba").specifier, numba_range.declared()
    assert numba_range.outside(numba.__version__) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numba_range.check() is True


@pytest.mark.parametrize("version", ["0.60.0", "0.60", "0.64.0", "0.68.1", "0.68.2.dev0+g1"])
def test_a_numba_inside_the_range_says_nothing(version):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numba_range.check(version) is True


@pytest.mark.parametrize(
    "version, why",
    [
        ("0.59.1", "older than 0.60"),
        ("0.58", "older than 0.60"),
        ("0.69.0", "not tested"),
        ("0.69.0rc1", "not tested"),  # a pre-release of the ceiling is that release: untested
        ("1.0.0", "not tested"),
        ("unknown", "no release number"),
    ],
)
def test_a_numba_outside_the_range_gets_one_line_naming_the_range(version, why):
    with pytest.warns(numba_range.NumbaVersionWarning) as said:
        assert numba_range.check(version) is False
    (line,) = [str(w.message) for w in said]
    assert "\n" not in line and "numba>=0.60,<0.69" in line and why in line and version in line


def test_import_boardenvs_under_an_untested_numba_warns_once_and_still_imports():
    code = (
        "import numba; numba.__version__ = '0.70.0'\n"
        "import boardenvs\n"
        "import boardenvs.wrappers\n"  # (a second import of the package's parts says nothing more)
        "print(len(boardenvs.ENV_IDS))"
    )
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S, env=env)
    assert got.returncode == 0, got.stderr
    said = [line for line in got.stderr.splitlines() if "NumbaVersionWarning" in line]
    assert len(said) == 1 and "numba>=0.60,<0.69" in said[0] and "0.70.0" in said[0], got.stderr
    assert int(got.stdout) >= 5


def _numba_internals(path: Path) -> set:
    """The numba modules below its public surface (``numba.core.*``,
    ``numba.np.*``) that ``path`` imports."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[:2]
            in (
                ["numba", "core"],
                ["numba", "np"],
            )
        ):
            found |= {node.module} if node.module.count(".") >= 2 else {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[:2] in (["numba", "core"], ["numba", "np"])}
    return found


def test_every_numba_internal_the_package_imports_is_named_in_the_architecture_page():
    """docs/architecture.md's "numba's internals" says, for each, where, why
    and what breaks if numba changes it: a new one cannot slip in unnamed."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("## numba's internals", 1)[1].split("\n## ", 1)[0]
    files = [p for d in ("boardenvs", "wrappers", "baselines") for p in sorted((ROOT / d).rglob("*.py"))]
    used = {(m, f.relative_to(ROOT).as_posix()) for f in files for m in _numba_internals(f)}
    assert {"numba.core.cgutils", "numba.np.arrayobj"} <= {m for m, _ in used}  # (the walk sees them)
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    missing = sorted((m, f) for m, f in used if not any(f"`{m}" in r and f"`{f}`" in r for r in rows))
    assert not missing, f"numba internals not named (with their file) in docs/architecture.md: {missing}"
