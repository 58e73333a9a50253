"""The parametrisation the suites generated from the registry share: one
case per registered id and declared variant (player counts, teams, board
sizes), named ``<env id>[<option>=<value>-...]`` (``[default]`` for none)."""

from __future__ import annotations

import pytest

from boardenvs.registry import game_class, registered_ids


def variant_cases(ids=None) -> list:
    """``pytest.param(env_id, variant)`` for every variant of ``ids``
    (default: every registered id, the tests' toy games included)."""
    out = []
    for env_id in registered_ids() if ids is None else ids:
        for variant in game_class(env_id).variants:
            label = "-".join(f"{k}={v}" for k, v in variant.items()) or "default"
            out.append(pytest.param(env_id, variant, id=f"{env_id}[{label}]"))
    return out
