"""quess_v0 through PettingZoo's own test suite, rendering and the registry."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import boardenvs
from boardenvs.games.quess import QuessGame


def test_env_ids_and_module_access():
    assert "quess_v0" in boardenvs.ENV_IDS
    raw = boardenvs.quess_v0.raw_env()
    assert raw.metadata["name"] == "quess_v0"
    assert raw.possible_agents == ["player_0", "player_1"]
    wrapped = boardenvs.make("quess_v0")
    assert isinstance(wrapped.unwrapped, type(raw))
    with pytest.raises(ValueError, match="unknown env id"):
        boardenvs.make("chess_v6")
    with pytest.raises(TypeError, match="unknown option"):
        boardenvs.make("quess_v0", board_size=7)


def test_pettingzoo_api_test():
    api_test(boardenvs.make("quess_v0"), num_cycles=300)


def test_pettingzoo_api_test_raw_env():
    api_test(boardenvs.quess_v0.raw_env(), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(lambda: boardenvs.make("quess_v0"), num_cycles=300)


def test_same_seed_same_trajectory_with_random_first_player():
    """C-2 / design: reset(seed) fixes the first player and everything after."""

    def trajectory(seed):
        env = boardenvs.make("quess_v0")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out = [env.agent_selection]
        for _ in range(40):
            mask = env.observe(env.agent_selection)["action_mask"]
            if not mask.any():
                break
            a = int(rng.choice(np.flatnonzero(mask)))
            out.append(env.unwrapped.action_to_move(a))
            env.step(a)
        return out

    assert trajectory(3) == trajectory(3)
    firsts = {trajectory(s)[0] for s in range(12)}
    assert firsts == {"player_0", "player_1"}


def test_spaces_match_the_card():
    env = boardenvs.make("quess_v0")
    env.reset(seed=0)
    obs = env.observe("player_0")
    space = env.observation_space("player_0")
    assert obs["observation"].shape == (6, 6, 8) and obs["observation"].dtype == np.int8
    assert obs["action_mask"].shape == (1296,) and obs["action_mask"].dtype == np.int8
    assert space.contains(obs)
    assert env.action_space("player_1").n == 1296


def test_render_ansi_and_rgb():
    env = boardenvs.make("quess_v0", render_mode="ansi", first_player=0)
    env.reset(seed=0)
    text = env.render()
    assert "F S C T" in text and "A . . . t c s" in text and "player_0 (Light) to move" in text
    env.step(env.unwrapped.move_to_action("F3-E3"))
    assert "last move F3-E3" in env.render()
    rgb = boardenvs.make("quess_v0", render_mode="rgb_array", first_player=0)
    rgb.reset(seed=0)
    before = rgb.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    rgb.step(rgb.unwrapped.move_to_action("F3-E3"))
    after = rgb.render()
    assert after.shape == before.shape and (after != before).any()


def test_max_turns_default_is_the_documented_one():
    """QU-13: the default is documented in the module docstring."""
    import boardenvs.games.quess as quess

    default = QuessGame.defaults["max_turns"]
    assert f"default {default}" in quess.__doc__
