"""The numba releases this version is tested with, and one line at import
where another is installed.

The package leans on numba more than most users of it: a custom numba type
for a game's kernels (:mod:`.bind`), calls to compiled code by native
address, hand-written LLVM intrinsics (:mod:`.intrinsics`) and a patch of
numba's BLAS probe (:mod:`._blas_probe`) -- internals that a numba release
may change.  So the metadata bounds numba on both sides (pyproject.toml's
``numba>=FLOOR,<CEILING``, checked equal to :data:`FLOOR` and
:data:`CEILING` by the suite), and CI runs the engine, contract and
playthrough tests at both ends: the floor in ``make check``'s oldest
environment, the newest release below the ceiling in ``make test``'s.

pip keeps to the range, but a later ``pip install numba==...`` (or a
``--no-deps`` install) can step outside it.  Then :func:`check` warns once,
at ``import boardenvs``, in one line naming the range and the installed
release (:class:`NumbaVersionWarning`, so ``-W error`` makes it an error),
before any kernel is compiled.
"""

from __future__ import annotations

import re
import warnings

FLOOR = (0, 60)
"""The oldest numba release tested (``make check``'s oldest environment)."""
CEILING = (0, 69)
"""The first numba release not tested: the range is ``FLOOR <= numba < CEILING``."""


class NumbaVersionWarning(RuntimeWarning):
    """The installed numba is outside the range this version is tested with."""


def spelled(version: tuple) -> str:
    return ".".join(map(str, version))


def declared() -> str:
    """The range as pyproject.toml declares it: ``numba>=0.60,<0.69``."""
    return f"numba>={spelled(FLOOR)},<{spelled(CEILING)}"


def release(version: str) -> tuple[int, ...] | None:
    """The release numbers of a version string (``"0.68.1"`` -> ``(0, 68,
    1)``; a pre- or dev-release by its numbers, ``"0.69.0rc1"`` -> ``(0, 69,
    0)``, so it counts as the release it leads to); None if it has none."""
    found = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(version))
    return tuple(int(n) for n in found.group(1).split(".")) if found else None


def outside(version: str) -> str | None:
    """Why ``version`` is outside the tested range, or None if inside."""
    got = release(version)
    if got is None:
        return f"numba {version!r} has no release number"
    if got < FLOOR:
        return f"numba {version} is older than {spelled(FLOOR)}"
    if got >= CEILING:
        return f"numba {version} is not tested (the range ends below {spelled(CEILING)})"
    return None


def check(version: str | None = None) -> bool:
    """Warn once (one line) if ``version`` (default: the installed numba's)
    is outside the tested range; True if it is inside."""
    if version is None:
        import numba

        version = numba.__version__
    why = outside(version)
    if why is not None:
        warnings.warn(
            f"boardenvs is tested with {declared()}: {why}; compiled games may fail or differ "
            f'(pip install "{declared()}")',
            NumbaVersionWarning,
            stacklevel=3,
        )
    return why is None
