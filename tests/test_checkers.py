"""The checkers RL pipelines run, on **default options**, for every registered
id and every declared variant (player counts, teams, board sizes): PettingZoo's
``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
``max_cycles_test`` and ``render_test`` on the id's module, and gymnasium's
and SB3's ``check_env`` on its gymnasium id.

Several of them sample actions without the mask (``action_space.sample()``):
they pass because the defaults follow PettingZoo classic and Pgx (an illegal
action ends the game as the offender's loss, ``illegal_action="lose"``) and
because ``sample()`` draws a legal action for the agent to act
(:class:`boardenvs.spaces.LegalDiscrete`).  Nothing here passes an option a
user would not pass; the variant's options are the game's own.

RLlib's env checker is run by the rllib extra's tests (the "Scale-out on Ray
RLlib" work), not here: ``ray[rllib]`` pins another gymnasium.
"""

from __future__ import annotations

import functools
import types
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, parallel_seed_test, render_test, seed_test
from registry_cases import variant_cases
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import boardenvs
from boardenvs.registry import game_class, gym_id_of, registered_ids

CASES = variant_cases()


def _module(env_id, variant):
    """The id's PettingZoo module with the variant's own options bound (and nothing else)."""
    module = getattr(boardenvs, env_id)
    return types.SimpleNamespace(
        env=functools.partial(module.env, **variant),
        raw_env=functools.partial(module.raw_env, **variant),
        parallel_env=functools.partial(module.parallel_env, **variant),
    )


def _ours(message) -> bool:
    """The one warning a default env may give: its first illegal action (once per env)."""
    return "illegal_action='lose'" in str(message) and "shown once per env" in str(message)


@pytest.mark.parametrize("env_id, variant", CASES)
def test_pettingzoo_api_and_parallel_api_tests(env_id, variant):
    mod = _seeded_module(env_id, variant, 0)  # (seeded: the same random games on every run)
    api_test(mod.env(), num_cycles=200)
    api_test(mod.raw_env(), num_cycles=50)
    parallel_api_test(mod.parallel_env(), num_cycles=200)


@pytest.mark.parametrize("env_id", registered_ids())
def test_pettingzoos_registry_makes_every_game_by_its_gymnasium_id(env_id):
    """``pettingzoo.make("aec" / "parallel", "boardenvs/<Name>-v0")``
    (PettingZoo 1.27's registry, the ids gymnasium knows the games by) makes
    the game's env and parallel env, options and ``max_cycles`` passed
    through; each passes PettingZoo's API test, and nothing of ours warns
    that it is deprecated."""
    import pettingzoo

    gym_id = gym_id_of(game_class(env_id))
    variant = dict(game_class(env_id).variants[-1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = pettingzoo.make("aec", gym_id, **variant)
        assert env.unwrapped.game.env_id == env_id and variant.items() <= env.unwrapped.game.options.items()
        api_test(_seeded(env), num_cycles=100)
        parallel = pettingzoo.make("parallel", gym_id, max_cycles=7, **variant)
        assert (
            parallel.unwrapped.game.env_id == env_id and parallel.unwrapped.max_decisions == 7
        )  # (one parallel step a decision)
        parallel_api_test(_seeded(parallel), num_cycles=100)
    ours = [w for w in caught if issubclass(w.category, DeprecationWarning) and "boardenvs" in w.filename]
    assert not ours, [str(w.message) for w in ours]
    assert pettingzoo.spec("aec", gym_id).entry_point == f"boardenvs.{env_id}:env"


@pytest.mark.parametrize("env_id, variant", CASES)
def test_pettingzoo_seed_and_parallel_seed_tests(env_id, variant):
    mod = _module(env_id, variant)
    seed_test(mod.env, num_cycles=150)
    parallel_seed_test(mod.parallel_env, num_cycles=150)


# PettingZoo's max_cycles_test expects the median agent asked exactly
# max_cycles (4) times: it assumes every seat is asked once per turn and a
# game lasts longer than 4 cycles.  The package's games do both (Tryasina's
# unusable roll is the roller's "pass" decision, TR-7), so they are all
# here.  Two test-only games cannot: the contract race exists to exercise a
# seat passing its turn with no decision (CR-5, in team play, possible from
# the first cycles), and tic-tac-toe can be won in 5 moves.
# test_all_envs checks max_cycles on those another way.
SHORT_OR_SILENT = [
    c
    for c in CASES
    if (c.values[0] == "contract_race_v0" and c.values[1].get("teams")) or c.values[0] == "tictactoe_v0"
]
MAX_CYCLES_CASES = [c for c in CASES if c not in SHORT_OR_SILENT]


def _seeded_module(env_id, variant, seed):
    """``_module`` whose envs come seeded: the env's generator (``reset(seed)``,
    which max_cycles_test's own unseeded ``reset()`` goes on from) and every
    agent's action space (``sample()``), so the test's random games are the
    same games on every run (unseeded, about 1 in 300 of them ended within
    the 4 cycles the test assumes a game lasts: a flaky test)."""
    module = getattr(boardenvs, env_id)

    def seeded(make):
        def build(**kwargs):
            env = make(**variant, **kwargs)
            env.reset(seed=seed)
            for k, agent in enumerate(env.possible_agents):
                env.action_space(agent).seed(seed * 100 + k)
            return env

        return build

    return types.SimpleNamespace(
        env=seeded(module.env), raw_env=seeded(module.raw_env), parallel_env=seeded(module.parallel_env)
    )


def _seeded(env, seed: int = 0):
    """``env`` (AEC or parallel) with its generator and every agent's action
    space seeded: a checker's own random games are the same on every run."""
    env.reset(seed=seed)
    for k, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed * 100 + k)
    return env


@pytest.mark.parametrize("env_id, variant", MAX_CYCLES_CASES)
def test_pettingzoo_max_cycles_test(env_id, variant):
    for seed in range(3):  # a few seeded random games
        max_cycles_test(_seeded_module(env_id, variant, seed))


def test_every_package_variant_runs_max_cycles_test():
    assert {c.values[0] for c in MAX_CYCLES_CASES} >= set(boardenvs.ENV_IDS)
    assert all(c in MAX_CYCLES_CASES for c in CASES if c.values[0] in boardenvs.ENV_IDS)


@pytest.mark.parametrize("env_id, variant", CASES)
def test_pettingzoo_render_test(env_id, variant, monkeypatch):
    """Every declared render mode, "human" included (a headless pygame window)."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    module = getattr(boardenvs, env_id)

    def env_fn(render_mode=None):
        env = module.env(render_mode=render_mode, **variant)
        env.unwrapped.metadata["render_fps"] = 1000  # no frame-rate pause in tests
        return env

    assert "human" in env_fn().metadata["render_modes"]
    render_test(env_fn)


@pytest.mark.parametrize("env_id, variant", CASES)
def test_gymnasium_check_env(env_id, variant, monkeypatch):
    """gymnasium's checker passes, every declared render mode included (it
    makes a "human" env and renders it: a headless pygame window, with no
    frame-rate pause); its determinism check samples an action before
    ``reset``, which may be illegal after it: then the env's own
    illegal-action warning is the one thing said."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gymnasium.make(gym_id_of(game_class(env_id)), **variant)
    assert "human" in env.metadata["render_modes"]
    monkeypatch.setitem(type(env.unwrapped).metadata, "render_fps", 1000)  # (the checker makes its "human" env anew)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        gymnasium_check_env(env.unwrapped)
    assert all(_ours(w.message) for w in said), [str(w.message) for w in said]
    assert len(said) <= 1


@pytest.mark.parametrize("env_id, variant", CASES)
def test_sb3_check_env_is_quiet(env_id, variant):
    """SB3's checker passes without a single warning on the default
    observations (flat, SB3's convention for non-image boxes; see the
    single-agent view's docstring)."""
    env = gymnasium.make(gym_id_of(game_class(env_id)), **variant)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env.unwrapped)
    assert len(env.observation_space.shape) == 1


@pytest.mark.parametrize("env_id", registered_ids())
def test_sb3_check_env_on_the_planes_says_only_what_it_says_of_every_small_board(env_id):
    """``flatten=False`` gives the planes; SB3 then warns that a 3-D box looks
    like an image (not uint8, smaller than 36x36) and nothing else; 2-D planes
    (one row per seat) get its 'unconventional shape' note."""
    env = gymnasium.make(gym_id_of(game_class(env_id)), flatten=False)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        sb3_check_env(env.unwrapped)
    assert env.observation_space.shape == env.unwrapped.plane_shape
    for w in said:
        assert any(k in str(w.message) for k in ("is an image", "36x36", "unconventional shape")), str(w.message)
