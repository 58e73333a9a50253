"""Tryasina through its faces: seeded dice, replays, the chance agent, make_vec
soak invariants, pictures (TR-16, TR-17)."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test.render_test import collect_render_results

import boardenvs
from boardenvs import engine as E
from boardenvs.games.tryasina import LOC2CELL, LOC_O, LOC_Q, LOC_S, NUM_CELLS, T_CELLS, T_PAWNS
from boardenvs.position import Position


def _play_aec(env, seed, steps=300):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter(max_iter=steps):
        obs, reward, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, action, reward, obs["observation"].tobytes()))
        env.step(action)
    return trace


@pytest.mark.parametrize("n", [2, 4])
def test_tr17_a_seeded_env_rolls_the_same_dice(n):
    a = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=7)
    b = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=7)
    c = _play_aec(boardenvs.make("tryasina_v0", num_players=n), seed=8)
    assert a == b and a != c


def test_tr17_a_seeded_dice_replay_is_reproducible_through_position():
    """Record a game from the raw env's chance agent (rolled by a seeded die),
    replay every roll and move in Position: the same game, move for move."""
    env = boardenvs.tryasina_v0.raw_env(chance_agent=True, num_players=3)
    env.reset(seed=3)
    die = np.random.default_rng(3)
    record, texts = [], []
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent == "chance":
            assert obs["observation"] == pytest.approx([1 / 6] * 6) and obs["action_mask"].tolist() == [1] * 6
            action = int(die.integers(6))
        else:
            action = int(die.choice(np.flatnonzero(obs["action_mask"])))
        record.append(action)
        env.step(action)
        texts.append(env.unwrapped.position().to_text())
    assert any(a >= 6 for a in record)  # pawn moves, not only rolls
    pos = boardenvs.position("tryasina_v0", num_players=3)
    for action, text in zip(record, texts):
        pos = pos.play(action)
        assert pos.to_text() == text


def test_tr17_chance_agent_mode_needs_outcomes_and_refuses_a_wrong_roll():
    from boardenvs.errors import IllegalActionError

    env = boardenvs.tryasina_v0.raw_env(chance_agent=True)
    env.reset(seed=0)
    assert env.agent_selection == "chance" and env.possible_agents[-1] == "chance"
    before = env.position().to_text()
    with pytest.raises(IllegalActionError):
        env.step(6)  # outcomes are 0..5
    assert env.position().to_text() == before
    assert "chance" not in boardenvs.quess_v0.raw_env(chance_agent=True).possible_agents


def test_make_vec_seeded_dice_are_reproducible():
    runs = []
    for _ in range(2):
        vec = boardenvs.make_vec("tryasina_v0", num_envs=16, num_players=4)
        vec.reset(seed=5)
        for _ in range(50):
            vec.step(vec.random_actions())
        runs.append(vec.states.copy())
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_make_vec_soak_keeps_pawns_and_cells_consistent(n):
    """Random games through make_vec: four pawns per player, every pawn on the
    board on its own cell and no cell marked without a pawn, no pawn in
    another's home, every game ending by TR-15 with one winner."""
    vec = boardenvs.make_vec("tryasina_v0", num_envs=256, num_players=n)
    sides = vec.game.params[E.P_GAME : E.P_GAME + n]
    vec.reset(seed=n)
    wins = 0
    for step in range(1500):
        _, rewards, term, trunc, infos = vec.step(vec.random_actions())
        assert not trunc.any()
        if term.any():
            r = rewards[term]
            assert ((r == 1).sum(axis=1) == 1).all() and ((r == -1).sum(axis=1) == n - 1).all()
            wins += int(term.sum())
        if step % 100 == 0:
            states = vec.states
            pawns = states[:, T_PAWNS : T_PAWNS + 4 * n].reshape(-1, n, 4)
            cells = states[:, T_CELLS : T_CELLS + NUM_CELLS]
            expect = np.zeros_like(cells)
            for s in range(n):
                where = LOC2CELL[sides[s]][pawns[:, s, :]]
                rows = np.repeat(np.arange(len(states)), 4).reshape(-1, 4)
                on = where >= 0
                assert (expect[rows[on], where[on]] == 0).all()
                expect[rows[on], where[on]] = s + 1
                assert ((pawns[:, s, :] >= LOC_O) & (pawns[:, s, :] < LOC_S + 12)).all()
            np.testing.assert_array_equal(cells, expect)
            assert ((pawns == LOC_Q) | (pawns == LOC_O) | (pawns >= 2)).all()
            assert (np.sort(pawns, axis=2) == pawns).all()
    assert wins > 0


def test_pictures():
    env = boardenvs.make("tryasina_v0", num_players=4, render_mode="ansi")
    # PettingZoo's render_test wants a 'human' mode; its collection loop, per mode we have
    results = collect_render_results(boardenvs.make("tryasina_v0", num_players=4, render_mode="ansi"))
    assert all(isinstance(r, str) and r.count("\n") >= 18 for r in results)  # 13 board rows, pools, 4 seats, turn
    env.reset(seed=1)
    text = env.render()
    lines = text.splitlines()
    assert len(lines[0].split()) == 13 and "A: origin" in lines[13]
    assert "player_0 = A, bottom" in text and "player_3 = D, right" in text
    pos = env.unwrapped.position()
    assert f"roll {pos.state[boardenvs.games.tryasina.T_ROLL]}" in text and f"turn {pos.turn}: {pos.game.seat_name(pos.to_move)}" in text
    rgb = boardenvs.make("tryasina_v0", num_players=3, render_mode="rgb_array")
    rgb.reset(seed=1)
    img = rgb.render()
    assert img.dtype == np.uint8 and img.shape[0] > 560 and img.shape[1] >= 560 and img.shape[2] == 3  # board + legend
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 5


def test_gymnasium_id_and_card():
    import gymnasium

    env = gymnasium.make("boardenvs/Tryasina-v0", opponent="random", num_players=3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (3 * 91,) and info["action_mask"].any()  # flat by default
    assert env.unwrapped.plane_shape == (3, 91)
    assert gymnasium.make("boardenvs/Tryasina-v0", num_players=3, flatten=False).reset(seed=0)[0].shape == (3, 91)
    obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "Tryasina" in boardenvs.tryasina_v0.__doc__


def test_home_counts_and_roll_in_observation_bounds():
    game = boardenvs.make_game("tryasina_v0", num_players=2)
    pos = Position(game, game.new_state(0, rng_seed=1)).play("roll 6").play("O")
    obs = pos.observation(1)
    assert obs.shape == (2, 91)
    assert obs[1, 76] == 3 and obs[0, 76] == 4  # the observer (player_1) first, then player_0
    assert (obs <= game.info.obs_high).all()
    from test_tryasina_rules import tpos

    home = tpos({0: ["H4", "H2", "C5", "Q"], 1: ["S1.1", "O", "O", "O"]}, roll=1)
    obs = home.observation(0)
    assert obs[0, 76:79].tolist() == [0, 1, 2] and obs[1, 76:79].tolist() == [3, 0, 0]
    assert obs[0, 48 + 3] == 1 and obs[0, 48 + 1] == 1  # own H4 and H2, homes of the observer's side first
    assert obs[1, 64 + 2 * 3] == 1  # player_1's first swamp is the top-right one: the observer's third
