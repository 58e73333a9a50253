"""quagmire_v0 through PettingZoo's own test suite, the parallel view,
max_cycles, rendering, the registry and C-6 bad input."""

from __future__ import annotations

import types

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test

import boardenvs
from boardenvs import IllegalActionError, quagmire_v0, quess_v0


def test_registered_with_module_access():
    assert "quagmire_v0" in boardenvs.ENV_IDS
    raw = quagmire_v0.raw_env()
    assert raw.metadata["name"] == "quagmire_v0"
    assert raw.possible_agents == ["player_0", "player_1"]
    assert isinstance(boardenvs.make("quagmire_v0").unwrapped, type(raw))
    with pytest.raises(TypeError, match="unknown option"):
        boardenvs.make("quagmire_v0", size=3)
    pos = boardenvs.position("quagmire_v0", radius=2)
    assert boardenvs.Position.from_text(pos.to_text()).game.options["radius"] == 2


@pytest.mark.parametrize("options", [{}, {"radius": 2}, {"radius": 4}, {"first_player": 1}, {"first_player": "random"}])
def test_pettingzoo_api_test(options):
    api_test(boardenvs.make("quagmire_v0", **options), num_cycles=200)


def test_pettingzoo_api_test_raw_env():
    api_test(quagmire_v0.raw_env(), num_cycles=200)


def test_pettingzoo_seed_test():
    seed_test(lambda: boardenvs.make("quagmire_v0", first_player="random"), num_cycles=200)


def _max_cycles_module(module):
    """``max_cycles_test`` plays ``action_space(agent).sample()``, ignoring the
    mask; ``illegal_action="random"`` swaps such actions for legal ones."""

    def seeded(make):  # the env's generator and each agent's space seeded: the same games on every run
        def build(**kwargs):
            env = make(illegal_action="random", **kwargs)
            env.reset(seed=0)
            for k, agent in enumerate(env.possible_agents):
                env.action_space(agent).seed(k)
            return env

        return build

    return types.SimpleNamespace(env=seeded(module.env), parallel_env=seeded(module.parallel_env))


@pytest.mark.parametrize("module", [quagmire_v0, quess_v0], ids=["quagmire_v0", "quess_v0"])
def test_pettingzoo_max_cycles_test(module):
    max_cycles_test(_max_cycles_module(module))


@pytest.mark.parametrize("module", [quagmire_v0, quess_v0], ids=["quagmire_v0", "quess_v0"])
def test_pettingzoo_parallel_api_test(module):
    parallel_api_test(module.parallel_env(illegal_action="random"), num_cycles=300)


def test_max_cycles_means_each_agent_asked_that_many_times():
    env = quagmire_v0.env(max_cycles=3, illegal_action="random")
    assert env.unwrapped.game.options["max_turns"] == 1000, "max_cycles is its own limit, not max_turns"
    env.reset(seed=0)
    for k, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(k)
    asked = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and info["end_reason"] == "max_cycles"
            env.step(None)
            continue
        asked[agent] += 1
        env.step(env.action_space(agent).sample())
    assert asked == {"player_0": 3, "player_1": 3}
    # the parallel view asks every agent every step: max_cycles steps = decisions
    par = quagmire_v0.parallel_env(max_cycles=5)
    assert par.unwrapped.max_decisions == 5
    # both limits at once: whichever comes first (here max_turns, after the 4 placements)
    both = quagmire_v0.env(max_cycles=3, max_turns=4)
    both.reset(seed=0)
    for _agent in both.agent_iter():
        obs, _, term, trunc, info = both.last()
        both.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert both.unwrapped.position().end_reason == "max_turns"
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="max_cycles"):
            quagmire_v0.env(max_cycles=bad)


def test_parallel_view_plays_only_the_active_agent():
    par = quagmire_v0.parallel_env()
    obs, infos = par.reset(seed=3)
    pos = par.unwrapped.position()
    assert pos.to_move == 0
    d4 = pos.move_to_action("@d4")
    # player_1's action is ignored: it is not its turn
    obs, rewards, terms, truncs, infos = par.step({"player_0": d4, "player_1": 5})
    after = par.unwrapped.position()
    assert after.game.cells(after.state).sum() == 2  # one piece (code 2) on d4
    assert infos["player_0"]["active_agent"] == "player_1"
    assert obs["player_1"]["action_mask"].sum() == 36


def test_illegal_action_random_substitutes_a_legal_action_and_says_so():
    env = boardenvs.make("quagmire_v0", illegal_action="random")
    env.reset(seed=4)
    env.step(0)  # @a1, legal
    with pytest.warns(UserWarning, match="masked out"):  # said once per env, through gymnasium's logger
        env.step(0)  # a1 is taken now: replaced by a random legal placement
    info = env.infos["player_1"]
    assert info["illegal_action"] is True
    pos = env.unwrapped.position()
    assert pos.game.in_setup(pos.state) and (pos.game.cells(pos.state) >= 2).sum() == 2
    env.step(int(np.flatnonzero(env.observe("player_1")["action_mask"])[0]))  # legal: nothing to say
    assert env.infos["player_1"]["illegal_action"] is False
    with pytest.raises(IllegalActionError):
        env.step("d4")  # a wrong type is still an error


def test_illegal_action_random_is_seeded():
    def run(seed):
        env = boardenvs.make("quagmire_v0", illegal_action="random")
        env.reset(seed=seed)
        for _ in range(20):
            if not env.agents or env.terminations[env.agent_selection]:
                break
            env.step(0)  # almost always masked out
        return env.unwrapped.position().to_text()

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_c6_masked_out_moves_raise_and_change_nothing():
    env = boardenvs.make("quagmire_v0", illegal_action="raise")
    env.reset(seed=0)
    raw = env.unwrapped
    before = raw.position()
    with pytest.raises(IllegalActionError, match="player_0") as info:
        env.step(37)  # a move during the setup
    assert "not on the board yet" in str(info.value)
    assert raw.position() == before and env.agent_selection == "player_0"
    for move in ("@d4", "@d5", "@a1", "@g4"):
        env.step(raw.move_to_action(move))
    before = raw.position()
    for bad in (18, 36, 121, -1, 2.0, "d4-d5", None):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert raw.position() == before
    env.step(raw.move_to_action("d4-c4-c5"))
    assert env.agent_selection == "player_1"


def test_lose_on_illegal_action():
    env = boardenvs.make("quagmire_v0", illegal_action="lose")
    env.reset(seed=0)
    env.step(0)
    env.step(0)  # player_1 places on a taken cell
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_spaces_match_the_card():
    for radius, cells in ((3, 37), (2, 19)):
        env = boardenvs.make("quagmire_v0", radius=radius)
        env.reset(seed=0)
        obs = env.observe("player_0")
        side = 2 * radius + 1
        assert obs["observation"].shape == (side, side, 5) and obs["observation"].dtype == np.int8
        assert obs["action_mask"].shape == (cells + 84,) and obs["action_mask"].sum() == cells
        assert env.observation_space("player_0").contains(obs)
        assert env.action_space("player_1").n == cells + 84
        assert env.observe("player_1")["action_mask"].sum() == 0  # not its turn


def test_render_ansi_and_rgb():
    env = boardenvs.make("quagmire_v0", render_mode="ansi")
    env.reset(seed=0)
    for move in ("@d4", "@d5", "@a1", "@g4", "d4-c4-c5"):
        env.step(env.unwrapped.move_to_action(move))
    text = env.render()
    assert "d . . . ~ o . ." in text and "c  . . . ~ x ." in text
    assert "last move d4-c4-c5" in text and "player_1 (o) to move" in text
    rgb = boardenvs.make("quagmire_v0", render_mode="rgb_array")
    rgb.reset(seed=0)
    frames = [rgb.render()]
    for move in ("@d4", "@d5", "@a1", "@g4", "d4-c4-c5"):
        rgb.step(rgb.unwrapped.move_to_action(move))
        frames.append(rgb.render())
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 and f.shape == frames[0].shape for f in frames)
    assert all((a != b).any() for a, b in zip(frames, frames[1:]))
    # water is drawn in its own colour
    water = np.array([70, 130, 190], np.uint8)
    assert not (frames[4] == water).all(axis=2).any() and (frames[5] == water).all(axis=2).sum() > 100


def test_cli_play_prints_the_position(capsys):
    from boardenvs.cli import main

    assert main(["play", "quagmire_v0", "@d4", "@d5", "@a1", "@g4", "d4^b4"]) == 0
    out = capsys.readouterr().out
    assert "last move d4^b4" in out and "legal:" in out
    assert main(["play", "quagmire_v0", "@d4", "@d4"]) == 2
    assert "illegal" in capsys.readouterr().err


def test_cli_demo_plays_every_env(capsys):
    from boardenvs.cli import main

    assert main(["random-games", "quagmire_v0", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "results: 1 random-vs-random quagmire_v0 games" in out and "no_legal_move" in out
