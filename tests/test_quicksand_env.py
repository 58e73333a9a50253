"""quicksand_v0 through the AEC env, the single-agent gymnasium view and
make_vec: a turn is a chain of decisions by the same agent, max_cycles
counts decisions and max_turns turns, C-6 bad input mid-turn."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import boardenvs
from boardenvs import IllegalActionError, quicksand_v0
from boardenvs.games import quicksand as Q
from boardenvs.games.quicksand import rules as QR


def test_registered_with_module_access_and_gymnasium_id():
    assert "quicksand_v0" in boardenvs.ENV_IDS
    raw = quicksand_v0.raw_env()
    assert raw.metadata["name"] == "quicksand_v0" and raw.possible_agents == ["player_0", "player_1"]
    assert raw.action_space("player_0").n == Q.NUM_ACTIONS == 181
    assert raw.observation_space("player_0")["observation"].shape == (6, 6, 19)
    env = gymnasium.make("boardenvs/Quicksand-v0", opponent="random")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (6 * 6 * 19,) and env.unwrapped.action_masks().shape == (181,)  # flat by default
    assert env.unwrapped.plane_shape == (6, 6, 19)


def test_the_same_agent_decides_until_its_turn_ends():
    env = boardenvs.make("quicksand_v0", first_player=0)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    runs = []  # (agent, decisions in a row)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if runs and runs[-1][0] == agent:
            runs[-1][1] += 1
        else:
            runs.append([agent, 1])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pos = env.unwrapped.position()
    # turns alternate; each is 2 decisions (place, rotate) or more (select, hops, stop, rotate)
    assert all(a != b for (a, _), (b, _) in zip(runs, runs[1:]))
    assert all(n >= 2 for _, n in runs[:-1]) and max(n for _, n in runs) >= 3
    assert len(runs) == pos.turn and sum(n for _, n in runs) == pos.decisions


def test_max_cycles_counts_decisions_and_max_turns_turns():
    env = quicksand_v0.env(max_cycles=5, first_player=0)
    env.reset(seed=0)
    asked = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and info["end_reason"] == "max_cycles" and info["scores"] == (0, 0)
            env.step(None)
            continue
        asked[agent] += 1
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # placements: 2 decisions a turn
    assert asked == {"player_0": 5, "player_1": 4}  # player_0 would be asked a 6th time
    env = quicksand_v0.env(max_turns=3, first_player=0)
    env.reset(seed=0)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert info["end_reason"] == "max_turns"
            env.step(None)
            continue
        decisions += 1
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert decisions == 6


def test_a_masked_out_decision_mid_turn_changes_nothing():
    env = boardenvs.make("quicksand_v0", first_player=0, illegal_action="raise")
    env.reset(seed=0)
    env.step(QR.cell_index("c3") + 36)  # M@c3: now the rotation is due
    before = env.unwrapped.position()
    for bad in (0, Q.SELECT0, QR.STOP, 181, -1, "Q1:90", 1.0):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert env.unwrapped.position() == before and env.agent_selection == "player_0"
    lose = boardenvs.make("quicksand_v0", first_player=0)  # "lose" is the default
    lose.reset(seed=0)
    lose.step(QR.cell_index("c3") + 36)
    lose.step(0)
    assert lose.rewards == {"player_0": -1.0, "player_1": 0.0}


def test_render_modes():
    for mode in ("ansi", "rgb_array"):
        env = boardenvs.make("quicksand_v0", render_mode=mode, first_player=0)
        env.reset(seed=0)
        env.step(72 + QR.cell_index("a1"))
        out = env.render()
        if mode == "ansi":
            assert "L . ." in out and "rotating a quadrant" in out and "last move L@a1 (turn under way)" in out
        else:
            assert out.dtype == np.uint8 and out.shape[2] == 3


def test_make_vec_steps_decisions_and_reports_turns():
    vec = boardenvs.make_vec("quicksand_v0", num_envs=32)
    vec.reset(seed=2)
    decisions = np.zeros(32, np.int64)
    lengths = []
    for _ in range(400):
        _, rewards, term, trunc, infos = vec.step(vec.random_actions())
        decisions += 1
        done = term | trunc
        for i in np.flatnonzero(done):
            lengths.append((int(infos["length"][i]), int(decisions[i])))
            assert infos["end_reason"][i] in ("score", "no_legal_move")
            decisions[i] = 0
    assert lengths and all(d >= 2 * t for t, d in lengths)  # every turn is two decisions or more
