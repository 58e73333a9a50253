"""The package on every PettingZoo it declares (1.24 on), where trainers'
pins put users (AgileRL pins ``pettingzoo<1.27``).

``make test`` runs this file in the main environment (PettingZoo 1.27), ``make check``
in a small third one with the oldest supported releases (``.venv-oldest``:
PettingZoo 1.24.0, numba's and numpy's floors): ``import boardenvs`` works, every registered id and
variant passes PettingZoo's own API tests there, the registry is filled
exactly where PettingZoo has one, and the infos keep their keys.
"""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from packaging.version import Version
from pettingzoo.test import api_test, parallel_api_test
from registry_cases import variant_cases

import boardenvs
from boardenvs.registry import game_class, gym_id_of, registered_ids

OLDEST = Version("1.24.0")


def test_the_installed_pettingzoo_is_one_the_package_declares():
    from pathlib import Path

    import tomllib
    from packaging.requirements import Requirement

    meta = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    (line,) = [d for d in meta["dependencies"] if Requirement(d).name == "pettingzoo"]
    spec = Requirement(line).specifier
    assert OLDEST in spec and Version("1.23.1") not in spec  # the declared floor is the one tested
    assert Version(pettingzoo.__version__) in spec


@pytest.mark.parametrize("env_id, variant", variant_cases())
def test_every_env_passes_the_installed_pettingzoos_api_tests(env_id, variant):
    module = getattr(boardenvs, env_id)
    env = module.env(**variant)
    env.reset(seed=0)
    api_test(env, num_cycles=60)
    parallel_api_test(module.parallel_env(**variant), num_cycles=60)
    env.reset(seed=1)
    *_, info = env.last()
    assert info["end_reason"] == "" and info["action_mask"].any()


@pytest.mark.parametrize("env_id", registered_ids())
def test_the_registry_is_filled_where_pettingzoo_has_one(env_id):
    gym_id = gym_id_of(game_class(env_id))
    if hasattr(pettingzoo, "aec_registry"):
        env = pettingzoo.make("aec", gym_id)
        env.reset(seed=0)
        assert env.unwrapped.game.env_id == env_id
        assert gym_id in pettingzoo.parallel_registry
    else:
        assert Version(pettingzoo.__version__) < Version("1.27")
        env = boardenvs.make(env_id)  # the way on a PettingZoo without a registry
        env.reset(seed=0)
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
