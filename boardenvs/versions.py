"""The versions this install runs with: ``python -m boardenvs.versions``
prints Python's, the platform's and each dependency's (what a bug report
needs; ``make test`` prints them for both of its environments, the tested
versions the install page states)."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

# the package and what it runs on, then the extras' packages
PACKAGES = (
    "boardenvs",
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "stable-baselines3",
    "sb3-contrib",
    "torch",
    "ray",
    "torchrl",
    "tianshou",
    "envpool",
)


def version(name: str) -> str | None:
    """The installed version of distribution ``name``, None if it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict:
    """``{distribution: version}``, None for one not installed."""
    return {name: version(name) for name in PACKAGES}


def main() -> int:
    print(f"Python {platform.python_version()} on {platform.platform()} ({sys.executable})")
    print(", ".join(f"{name} {v}" for name, v in versions().items() if v is not None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
