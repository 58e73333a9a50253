"""The packages, found rather than listed (the rest of the metadata is in
pyproject.toml): every package under ``boardenvs/`` (a new game's package
ships without a line here), and the repository's top-level ``wrappers/`` and
``baselines/`` installed as ``boardenvs.wrappers`` / ``boardenvs.baselines``
(pyproject.toml's ``package-dir``)."""
from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["boardenvs", "boardenvs.*"]), "boardenvs.wrappers", "boardenvs.baselines"])
