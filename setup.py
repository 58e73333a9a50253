"""The packages, found rather than listed (the rest of the metadata is in
pyproject.toml): every package under ``boardenvs/`` (a new game's package
ships without a line here), and the repository's top-level ``wrappers/`` and
``baselines/`` installed as ``boardenvs.wrappers`` / ``boardenvs.baselines``
(pyproject.toml's ``package-dir``).  Folders of data only (``rules/``,
``baselines/models/``) are found too, as packages of no module: setuptools
ships their files (pyproject.toml's ``package-data``) without warning that
they are absent from ``packages``."""

from setuptools import find_namespace_packages, setup


def found(where: str, name: str) -> list[str]:
    """``name`` and every folder under ``where`` as ``name.<sub>`` (caches aside)."""
    return [name, *(f"{name}.{p}" for p in find_namespace_packages(where=where, exclude=["*__pycache__*"]))]


setup(
    packages=[
        *found("boardenvs", "boardenvs"),
        *found("wrappers", "boardenvs.wrappers"),
        *found("baselines", "boardenvs.baselines"),
    ]
)
