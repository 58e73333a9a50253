"""The engine contract (boardenvs/engine.py) and the generic faces (Position,
the AEC env, make_vec) carry what the five games need: chance nodes with
non-uniform outcomes, turns of several decisions, eliminations, teams, forced
passes, truncation, 2..6 seats, cloning by row copy, and a plain-Python path
that runs the same code.

Everything here runs on the toy game of ``contract_game.py`` (rules CR-1..CR-7
in its docstring), registered in ``conftest.py`` by the same one line as a
real game, plus Quess and Quagmire for the plain-Python comparison.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import contract_game as C
import numpy as np
import pytest
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop
from position_text import header

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import IllegalMoveError
from boardenvs.position import Position

ENV_ID = C.ContractRaceGame.env_id


def make_env(**options):
    return boardenvs.make(ENV_ID, **options)


def start(**options) -> Position:
    game = C.ContractRaceGame(**options)
    return Position(game, game.new_state(int(game.params[E.P_FIRST])))


def position(body: str, to_move="chance", turn=0, alive=None, **options) -> Position:
    """A toy position from its body lines (``roller``, ``left``, ``roll``, ``pawns``, ``hp``)."""
    game = C.ContractRaceGame(**options)
    n = game.num_players
    alive = alive or " ".join(["1"] * n)
    rets = " ".join("-1" if a == "0" else "0" for a in alive.split())
    lines = header(game.env_id, game.text_options(), to_move, turn, alive=alive, returns=rets)
    return Position.from_text("\n".join(lines) + f"\n{body.strip()}\n")


def random_playout(pos: Position, rng) -> list[tuple[Position, int, Position]]:
    """Play ``pos`` to the end (chance by its probabilities, decisions
    uniformly); the list of (before, action, after)."""
    steps = []
    while not pos.is_terminal:
        if pos.is_chance:
            probs = pos.game.chance_probs(pos.state)
            action = int(rng.choice(len(probs), p=probs))
        else:
            action = int(rng.choice(pos.legal_actions()))
        after = pos.play(action)
        steps.append((pos, action, after))
        pos = after
    return steps


# --- chance nodes ------------------------------------------------------------


def test_chance_node_in_position():
    pos = start(num_players=3)
    assert pos.to_move == -1 and pos.is_chance
    outcomes = pos.chance_outcomes()
    assert outcomes == [("roll 0", 0.125), ("roll 1", 0.375), ("roll 2", 0.25), ("roll 3", 0.25)]
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    # at a chance node the legal "moves" are exactly the outcomes
    assert pos.legal_moves() == [o for o, _ in outcomes]
    after = pos.play("roll 3")
    assert after.to_move == 0 and not after.is_chance
    assert after.chance_outcomes() == []
    assert int(after.state[C.T_LEFT]) == 2 and int(after.state[C.T_ROLL]) == 3
    assert int(after.state[E.H_LAST_SEAT]) == E.CHANCE and int(after.state[E.H_LAST_ACTION]) == 3
    assert pos.to_move == -1, "play() must not change the Position it is called on"
    # outcomes and decisions share action ids: the notation refuses the wrong kind
    with pytest.raises(IllegalMoveError):
        pos.play("advance, advance")
    with pytest.raises(IllegalMoveError):
        after.play("roll 1")


def test_chance_probabilities_drive_in_kernel_sampling():
    """engine.sample_probs (used by make_vec) follows the non-uniform
    probabilities, not a uniform choice among the outcomes."""
    game = C.ContractRaceGame()
    state = game.new_state(0, rng_seed=2024)
    probs = game.chance_probs(state)
    draws = np.array([E.sample_probs(state, probs) for _ in range(20000)])
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, C.DIE_PROBS, atol=0.015)


# --- decisions and turns -------------------------------------------------------


def test_a_turn_is_a_chain_of_decisions_by_one_seat():
    """The header counts decisions and turns apart: a roll and two decisions
    by the same seat make one turn."""
    pos = start(num_players=2).play("roll 3")
    assert (pos.to_move, pos.turn, pos.decisions) == (0, 0, 1)
    mid = pos.play(C.ADVANCE)  # one decision, by action id
    assert (mid.to_move, mid.turn, mid.decisions) == (0, 0, 2), "the same seat decides again within turn 0"
    assert int(mid.state[C.T_POS]) == 3, "CR-4: the turn's first advance goes as far as the roll"
    end = mid.play(C.ADVANCE)
    assert (end.to_move, end.turn, end.decisions) == (-1, 1, 3), "H_TURN counts the whole turn once"
    assert int(end.state[C.T_POS]) == 4 and int(end.state[C.T_ROLLER]) == 1


def test_legal_moves_list_whole_turns_and_play_takes_them(monkeypatch):
    # player_0 on 2, player_1 on 3 (unsafe, ahead): roll 2 passes it to the
    # safe 4 (then hit it behind, or go on), or hit it first (then advance)
    pos = position("roller: player_0\nleft: 2\nroll: 2\npawns: 2 3\nhp: 3 3", to_move="player_0")
    moves = pos.legal_moves()
    assert moves == ["advance, advance", "advance, hit player_1", "hit player_1, advance"], moves
    assert pos.legal_actions() == [C.ADVANCE, 2], "legal_actions() are single decisions"
    after = pos.play("hit player_1, advance")
    assert after.is_chance and after.turn == 1
    assert int(after.state[C.T_POS]) == 3 and int(after.state[C.T_POS + 1]) == 0
    assert int(after.state[C.T_HP + 1]) == 2
    # a move is a whole turn: half a turn, or a turn and more, is refused
    with pytest.raises(IllegalMoveError, match="whole turn"):
        pos.play("advance")
    with pytest.raises(IllegalMoveError, match="turn is over"):
        pos.play("advance, advance, advance")
    with pytest.raises(IllegalMoveError, match="decision 2"):
        pos.play("hit player_1, hit player_1")  # player_1 went back to the start
    # legal_moves() and move_to_actions() describe the same chains, via the game's declared hook
    for move, chain in zip(moves, pos.legal_turns()):
        assert pos.move_to_actions(move) == chain
    # legal_moves() walks the kernels: no game re-derives it
    calls = []
    original = C.ContractRaceGame.actions_to_move
    monkeypatch.setattr(
        C.ContractRaceGame, "actions_to_move", lambda self, st, ch: calls.append(list(ch)) or original(self, st, ch)
    )
    pos.legal_moves()
    assert calls == pos.legal_turns()


def test_every_listed_turn_plays_and_random_turns_are_listed():
    rng = np.random.default_rng(8)
    checked = 0
    for opts in 3 * ({"num_players": 2}, {"num_players": 4, "teams": 2}):
        for before, _, _ in random_playout(start(**opts), rng):
            if before.is_chance or int(before.state[C.T_LEFT]) != 2:
                continue
            moves = before.legal_moves()
            assert len(set(moves)) == len(moves), "one notation per turn"
            for move in moves:
                after = before.play(move)
                assert after.is_terminal or after.is_chance
            checked += 1
    assert checked > 20


def test_roll_moves_the_first_advance_when_the_square_takes_it():
    """CR-4: the first advance goes roll squares if that square takes the
    pawn (empty, safe or the goal), else one square."""
    blocked = position("roller: player_0\nleft: 2\nroll: 3\npawns: 0 3\nhp: 3 3", to_move="player_0")
    assert int(blocked.play(C.ADVANCE).state[C.T_POS]) == 1
    free = position("roller: player_0\nleft: 2\nroll: 3\npawns: 0 2\nhp: 3 3", to_move="player_0")
    assert int(free.play(C.ADVANCE).state[C.T_POS]) == 3, "passing over a pawn is allowed"
    goal = position("roller: player_0\nleft: 2\nroll: 3\npawns: 7 0\nhp: 3 3", to_move="player_0")
    won = goal.play(C.ADVANCE)
    assert won.is_terminal and won.end_reason == "goal" and won.returns == (1.0, -1.0)


def test_turn_counts_rolls_over_random_games():
    rng = np.random.default_rng(5)
    for _ in range(20):
        steps = random_playout(start(num_players=3, first_player=1), rng)
        rolls = sum(1 for before, _, _ in steps if before.is_chance)
        assert steps[-1][2].turn == rolls, "one turn per roll, whatever the number of decisions"
        assert steps[-1][2].decisions == len(steps)


# --- eliminations --------------------------------------------------------------


def test_elimination_in_position():
    pos = position("roller: player_0\nleft: 0\nroll: 0\npawns: 2 3 0\nhp: 3 1 3", num_players=3)
    pos = pos.play("roll 1")
    assert "hit player_1, advance" in pos.legal_moves()
    pos = pos.play(2)  # hit player_1
    assert not pos.alive(1) and pos.returns[1] == -1.0
    assert not pos.is_terminal, "the others play on"
    assert pos.legal_moves() == ["advance"] and pos.to_move == 0
    pos = pos.play("advance").play("roll 1")
    assert pos.to_move == 2, "the eliminated seat is skipped"
    pos = pos.play("advance, advance").play("roll 0")
    assert pos.to_move == 0, "player_1 still skipped"


def test_last_seat_standing_wins():
    pos = position("roller: player_0\nleft: 0\nroll: 0\npawns: 5 6 x\nhp: 3 1 0", alive="1 1 0", num_players=3)
    pos = pos.play("roll 1").play(2)
    assert pos.is_terminal and not pos.is_truncated
    assert pos.end_reason == "last_standing"
    assert pos.returns == (1.0, -1.0, -1.0)


def test_mud_eliminates_several_seats_at_once():
    pos = position("roller: player_0\nleft: 0\nroll: 1\npawns: 0 0 0 5\nhp: 3 1 1 3", num_players=4)
    pos = pos.play("roll 0")
    assert [pos.alive(s) for s in range(4)] == [True, False, False, True]
    assert pos.returns == (0.0, -1.0, -1.0, 0.0) and not pos.is_terminal
    assert pos.to_move == 0 and int(pos.state[C.T_LEFT]) == 2, "roll 0 still gives two decisions"


@pytest.mark.parametrize("num_players", [4, 6])
def test_eliminated_agents_leave_the_aec_env_and_others_finish(num_players):
    finished_after_elimination = 0
    several_at_once = 0
    for seed in range(40):
        env = make_env(num_players=num_players, first_player="random")
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        gone = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if not (term or trunc):
                assert agent not in gone
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                out = [a for a in env.agents if env.terminations[a]]
                if len(out) >= 2 and raw._state[E.H_STATUS] == E.PLAYING:
                    several_at_once += 1
                continue
            if raw._state[E.H_STATUS] == E.PLAYING:  # knocked out mid-game
                seat = raw._seat[agent]
                assert term and not trunc and reward == -1.0
                assert not raw.position().alive(seat)
                live = [a for a in env.agents if raw.position().alive(raw._seat[a])]
                assert len(live) >= 2 and not any(env.terminations[a] or env.truncations[a] for a in live)
                env.step(None)
                assert agent not in env.agents
                pending = [a for a in env.agents if env.terminations[a]]
                # the other knocked-out agents step first, then play resumes with the mover
                expected = pending[0] if pending else f"player_{raw.position().to_move}"
                assert env.agent_selection == expected
                gone.append(agent)
                continue
            # the game is over: the agents still in get their results
            assert reward == raw.position().returns[raw._seat[agent]]
            assert agent not in gone
            env.step(None)
        pos = raw.position()
        assert pos.is_terminal and not env.agents
        if gone and not pos.is_truncated:
            finished_after_elimination += 1
            assert sorted(pos.returns) == [-1.0] * (num_players - 1) + [1.0]
            for agent in gone:
                assert pos.returns[raw._seat[agent]] == -1.0
    assert finished_after_elimination >= 3, "too few games with an elimination before the end"
    if num_players == 6:
        assert several_at_once >= 1, "no step knocked out several agents at once"


# --- teams -----------------------------------------------------------------------


def test_team_members_share_the_win():
    # 4 players, teams {0, 2} and {1, 3}: player_2 reaches the goal
    pos = position("roller: player_2\nleft: 0\nroll: 0\npawns: 1 2 8 3\nhp: 3 3 3 3", num_players=4, teams=2)
    pos = pos.play("roll 1").play(C.ADVANCE)
    assert pos.is_terminal and pos.end_reason == "goal"
    assert pos.returns == (1.0, -1.0, 1.0, -1.0)


def test_eliminated_teammate_keeps_its_minus_one():
    # player_3 (team 1) is out; team 1 = {1, 3} wins later: player_3 stays at -1,
    # as the AEC env already gave it -1 when it left
    pos = position(
        "roller: player_1\nleft: 0\nroll: 0\npawns: 1 8 2 x\nhp: 3 3 3 0", alive="1 1 1 0", num_players=4, teams=2
    )
    pos = pos.play("roll 1").play(C.ADVANCE)
    assert pos.returns == (-1.0, 1.0, -1.0, -1.0)


def test_last_team_standing_wins():
    # teams {0, 2} and {1, 3}; player_3 already out, player_0 knocks out player_1
    pos = position(
        "roller: player_0\nleft: 0\nroll: 0\npawns: 2 3 5 x\nhp: 3 1 3 0", alive="1 1 1 0", num_players=4, teams=2
    )
    pos = pos.play("roll 1").play(2)
    assert pos.is_terminal and pos.end_reason == "last_standing"
    assert pos.returns == (1.0, -1.0, 1.0, -1.0)


@pytest.mark.parametrize("opts", [{"num_players": 4, "teams": 2}, {"num_players": 6, "teams": 3}])
def test_teams_in_the_aec_env(opts):
    wins = 0
    for seed in range(15):
        env = make_env(first_player="random", **opts)
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        results = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                results[agent] = reward
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        pos = raw.position()
        if pos.is_truncated:
            continue
        wins += 1
        winners = {a for a, r in results.items() if r == 1.0}
        teams = {raw.game.team_of(raw._seat[a]) for a in winners}
        assert len(teams) == 1, "one team wins"
        team = teams.pop()
        for agent, reward in results.items():
            seat = raw._seat[agent]
            if raw.game.team_of(seat) != team:
                assert reward == -1.0
            else:  # every member of the winning team still in the game gets +1
                assert reward == (1.0 if pos.alive(seat) else -1.0)
    assert wins >= 10


# --- forced pass -----------------------------------------------------------------


def test_forced_pass_right_after_the_roll():
    # teams {0, 2} and {1, 3}: player_0 on 2, its teammate player_2 on 3 ahead,
    # nobody to hit: no decision at all after a roll of 1
    pos = position("roller: player_0\nleft: 0\nroll: 0\npawns: 2 0 3 0\nhp: 3 3 3 3", num_players=4, teams=2)
    after = pos.play("roll 1")
    assert after.is_chance and after.turn == 1, "apply passed player_0's turn by itself"
    assert int(after.state[C.T_ROLLER]) == 1 and int(after.state[C.T_LEFT]) == 0


def test_forced_pass_in_the_middle_of_a_turn():
    # player_0 on 1, teammate player_2 on 3: the first advance (roll 1) reaches 2, then blocked
    pos = position("roller: player_0\nleft: 0\nroll: 0\npawns: 1 0 3 0\nhp: 3 3 3 3", num_players=4, teams=2).play(
        "roll 1"
    )
    assert pos.legal_moves() == ["advance"], "the turn ends after one decision"
    after = pos.play("advance")
    assert after.is_chance and after.turn == 1, "one decision was left, none legal: the turn passed"
    assert int(after.state[C.T_ROLLER]) == 1


@pytest.mark.parametrize("opts", C.ContractRaceGame.variants)
def test_a_mover_always_has_a_legal_action(opts):
    """After every apply the state is terminal, at a chance node, or its mover
    has a legal decision; forced passes happen along the way (with teams
    only: CR-5)."""
    rng = np.random.default_rng(11)
    passes = 0
    for _ in range(30):
        for before, _action, after in random_playout(start(**opts), rng):
            assert after.is_terminal or len(after.legal_actions()) > 0
            if not after.is_terminal and after.is_chance and after.turn == before.turn + 1:
                if before.is_chance or int(before.state[C.T_LEFT]) == 2:
                    passes += 1
    assert (passes > 0) == bool(opts.get("teams"))


# --- truncation --------------------------------------------------------------------


def test_max_turns_truncates_in_position():
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(20):
        end = random_playout(start(num_players=4, max_turns=4), rng)[-1][2]
        if not end.is_truncated:
            continue
        seen += 1
        assert end.turn == 4 and end.end_reason == "max_turns"
        assert end.returns == tuple(0.0 if end.alive(s) else -1.0 for s in range(4))
    assert seen >= 10


def test_max_turns_truncates_in_the_aec_env():
    """``max_turns`` ends the episode after exactly that many turns, with
    truncation for every agent still in and one final ``None`` step each."""
    env = make_env(num_players=3, max_turns=6, goal=20)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    dead_steps = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            dead_steps[agent] = dead_steps.get(agent, 0) + 1
            if trunc:
                assert not term and reward == 0.0 and info["end_reason"] == "max_turns"
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pos = env.unwrapped.position()
    assert pos.is_truncated and pos.turn == 6
    assert dead_steps == {a: 1 for a in env.possible_agents}


@pytest.mark.parametrize("num_players", [2, 3])
def test_max_cycles_counts_each_agents_decisions(num_players):
    """PettingZoo's max_cycles counts how often an agent is asked (its
    decisions, two a turn here), not turns: with max_cycles=5 no agent
    decides more than 5 times, and the game stops when the next one asked
    already has."""
    env = make_env(num_players=num_players, max_cycles=5, goal=20)
    env.reset(seed=3)
    asked = dict.fromkeys(env.possible_agents, 0)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and info["end_reason"] == "max_cycles"
            env.step(None)
            continue
        asked[agent] += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pos = env.unwrapped.position()
    assert max(asked.values()) == 5 and pos.is_truncated and pos.end_reason == "max_cycles"
    # stopped inside a turn: its roll and every completed turn's roll are chance outcomes, not agents' decisions
    assert pos.decisions - sum(asked.values()) == pos.turn + 1
    assert pos.turn < 5 * num_players, "max_cycles is not max_turns"


# --- make_vec on the toy game ------------------------------------------------------


def run_vec(seeds, steps, check=True, **options):
    """Random play of len(seeds) rows for ``steps`` steps; the final states and
    every finished episode as (step, row, rewards, terminated)."""
    vec = boardenvs.make_vec(ENV_ID, num_envs=len(seeds), **options)
    obs, infos = vec.reset(seed=np.asarray(seeds))
    game = vec.game
    episodes = []
    for t in range(steps):
        if check:
            # chance is resolved in-kernel and forced passes in apply: every row
            # waits on a decision with at least one legal action
            assert (vec.states[:, E.H_STATUS] == E.PLAYING).all()
            assert (infos["to_move"] >= 0).all() and (obs["action_mask"].sum(axis=1) > 0).all()
        obs, rewards, term, trunc, infos = vec.step(vec.random_actions())
        for i in np.flatnonzero(term | trunc):
            episodes.append((t, int(i), rewards[i].copy(), bool(term[i])))
        if check and t % 25 == 0:
            for i in range(len(seeds)):
                pos = vec.position(i)
                np.testing.assert_array_equal(obs["action_mask"][i], pos.action_mask()[: game.num_actions])
                np.testing.assert_array_equal(obs["observation"][i], pos.observation(pos.to_move))
    return vec.states.copy(), episodes


@pytest.mark.parametrize("opts", [{"num_players": 3}, {"num_players": 4, "teams": 2}])
def test_make_vec_autoreset_and_reproduce(opts):
    game = C.ContractRaceGame(first_player="random", max_turns=10, **opts)
    n = game.num_players
    seeds = np.arange(64) + 1000
    states, episodes = run_vec(seeds, 300, first_player="random", max_turns=10, **opts)
    ends = [e[3] for e in episodes]
    assert sum(ends) > 64 and len(ends) - sum(ends) > 10, "both game ends and truncations, auto-reset"
    for _, _, rew, terminated in episodes:
        assert set(rew.tolist()) <= {-1.0, 0.0, 1.0}
        if terminated:
            winners = [s for s in range(n) if rew[s] == 1.0]
            assert winners and all(rew[s] == -1.0 for s in range(n) if s not in winners)
            assert len({game.team_of(s) for s in winners}) == 1
        else:
            assert (rew <= 0).all()
    # the same seeds give the same games; other seeds do not
    states2, episodes2 = run_vec(seeds, 300, check=False, first_player="random", max_turns=10, **opts)
    np.testing.assert_array_equal(states, states2)
    assert [(t, i, r.tolist(), e) for t, i, r, e in episodes] == [(t, i, r.tolist(), e) for t, i, r, e in episodes2]
    states3, _ = run_vec(seeds + 1, 300, check=False, first_player="random", max_turns=10, **opts)
    assert not np.array_equal(states, states3)


# --- cloning ----------------------------------------------------------------------------


def test_cloning_is_a_row_copy():
    rng = np.random.default_rng(9)
    pos = start(num_players=3)
    for _ in range(7):
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    text = pos.to_text()
    snapshot = pos.state.copy()
    clone = pos.copy()
    assert clone.state is not pos.state and np.array_equal(clone.state, pos.state)
    for _ in range(5):
        if clone.is_terminal:
            break
        clone = clone.play(clone.legal_actions()[-1])
    assert pos.to_text() == text and np.array_equal(pos.state, snapshot)

    # kernels on a copied row: the original row, RNG included, is untouched,
    # and the copy replays the original's future exactly
    game = C.ContractRaceGame(num_players=4)
    rows = np.zeros((2, game.state_size), np.int64)
    rows[0] = game.new_state(0, rng_seed=77)
    rows[1] = rows[0]  # the clone
    probs = game.chance_probs(rows[1])
    outcome = E.sample_probs(rows[1], probs)
    game.kernels.apply(rows[1], game.params, outcome)
    assert rows[0, E.H_CURRENT] == E.CHANCE and rows[0, E.H_RNG] == 77
    assert E.sample_probs(rows[0], probs) == outcome


def test_text_round_trip_through_a_game():
    rng = np.random.default_rng(4)
    for opts in ({"num_players": 3}, {"num_players": 6, "teams": 2}):
        for before, _, after in random_playout(start(**opts), rng):
            for pos in (before, after):
                back = Position.from_text(pos.to_text())
                assert back == pos and back.to_move == pos.to_move and back.returns == pos.returns
                assert np.array_equal(back.action_mask(), pos.action_mask())


def test_observation_counts_stay_within_the_declared_bounds():
    """The spec declares per-column bounds (hit points 0..3, decisions left
    0..2, the roll 0..3); the env's Box uses them and observations stay inside."""
    env = make_env(num_players=3)
    space = env.observation_space("player_0")["observation"]
    goal = 9
    assert space.high[0, goal + 2] == 3 and space.high[0, goal + 5] == 2 and space.high[0, goal + 6] == 3
    assert space.high[0, 0] == 1 and (space.low == 0).all()
    env.reset(seed=0)
    seen_counts = set()
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert space.contains(obs["observation"])
        seen_counts.update(obs["observation"][:, goal + 2].tolist())
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert {3, 2} <= seen_counts


def test_render_ansi_through_the_env():
    env = make_env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    picture = env.render()
    assert picture.splitlines()[0].startswith("track: S") and "to move" in picture
    assert "roll " in picture and "player_2 = C" in picture  # the roll and the legend


# --- the plain-Python path ----------------------------------------------------------------

TESTS_DIR = Path(__file__).resolve().parent


def sample_runs() -> dict:
    """A small fixed sample through Position (Quess, Quagmire, Quicksand and
    the toy game) and make_vec; JSON-able, so a NUMBA_DISABLE_JIT=1 process can
    compare."""
    out = {"quess": [], "quagmire": [], "quicksand": [], "toy": [], "batched": None}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        pos = boardenvs.position("quess_v0", max_turns=30, first_player=seed % 2)
        while not pos.is_terminal:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
        out["quess"].append([pos.to_text(), list(pos.returns)])
    for seed in range(3):
        rng = np.random.default_rng(seed)
        pos = boardenvs.position("quagmire_v0", radius=2 + seed, first_player=seed % 2)
        trace = []
        while not pos.is_terminal:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
            trace.append(pos.observation(0).tolist())
        out["quagmire"].append([pos.to_text(), list(pos.returns)])
    for seed in range(2):  # cell sets and eight planes at a time (engine.store8)
        rng = np.random.default_rng(seed)
        pos = boardenvs.position("quicksand_v0", first_player=seed)
        trace = []
        for _ in range(150):
            if pos.is_terminal:
                break
            pos = pos.play(int(rng.choice(pos.legal_actions())))
            trace.append([pos.observation(0).tolist(), pos.observation(1).tolist(), pos.legal_actions()])
        out["quicksand"].append([pos.to_text(), list(pos.returns), trace])
    for seed, opts in enumerate(({"num_players": 2}, {"num_players": 5}, {"num_players": 6, "teams": 3})):
        end = random_playout(start(**opts), np.random.default_rng(seed))[-1][2]
        out["toy"].append([end.to_text(), list(end.returns)])
    states, episodes = run_vec(np.arange(4) + 7, 40, check=False, num_players=3, first_player="random", max_turns=10)
    out["batched"] = [states.tolist(), [(t, i, r.tolist(), e) for t, i, r, e in episodes]]
    # a long sparse mask, as Quess' (counted eight entries at a time)
    mask = np.zeros(40, np.int8)
    mask[[3, 9, 17, 31, 38]] = 1
    row = np.zeros(E.HEADER, np.int64)
    row[E.H_RNG] = -5
    out["sample_mask"] = [int(E.sample_mask(row, mask)) for _ in range(30)]
    long = np.zeros(2100, np.int8)  # past 255 words and through the blocks of eight
    long[np.random.default_rng(1).choice(2100, 900, replace=False)] = 1
    out["sample_long_mask"] = [int(E.sample_mask(row, long)) for _ in range(30)]
    return out


def test_plain_python_path_runs_the_same_code():
    jitted = json.loads(json.dumps(sample_runs()))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(TESTS_DIR)}
    code = (
        "import json, numba, conftest, test_engine_contract as t;"
        "assert numba.config.DISABLE_JIT;"
        "print(json.dumps(t.sample_runs()))"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", code],
        env=env,
        cwd=TESTS_DIR,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    plain = json.loads(proc.stdout.strip().splitlines()[-1])
    assert plain["quess"] == jitted["quess"]
    assert plain["quagmire"] == jitted["quagmire"]
    assert plain["quicksand"] == jitted["quicksand"]
    assert plain["toy"] == jitted["toy"]
    assert plain["batched"] == jitted["batched"]
    assert plain["sample_mask"] == jitted["sample_mask"]
    assert plain["sample_long_mask"] == jitted["sample_long_mask"] and len(set(jitted["sample_long_mask"])) > 20
    assert set(jitted["sample_mask"]) == {3, 9, 17, 31, 38}
    assert any("status: terminated" in text for text, _ in jitted["toy"])


@pytest.mark.parametrize("n", [1, 7, 8, 31, 32, 33, 63, 64, 65, 130, 1296, 2040, 2041, 4100])
@pytest.mark.parametrize("contiguous", [True, False])
def test_sample_mask_draws_the_kth_set_entry(n, contiguous):
    """``sample_mask`` counts and searches the mask 32 entries at a time
    (one vector compare, then popcounts; a strided mask entry by entry): it
    returns the ``k``-th set entry for ``k`` drawn below the count, at every
    length (a tail of entries past the last 32, none before it) and density
    (none, one, sparse, all), as the plain list would."""
    rng = np.random.default_rng(n)
    for density in (0.0, 1 / n, 0.02, 0.3, 1.0):
        mask = (rng.random(n) < density).astype(np.int8)
        if not contiguous:  # a column of a 2-D array: numba's "A" layout
            mask = np.repeat(mask[:, None], 3, axis=1)[:, 1]
        if density == 1 / n:
            mask[:] = 0
            mask[n - 1] = 1  # the last entry alone
        row = np.zeros(E.HEADER, np.int64)
        row[E.H_RNG] = n * 7919 + int(density * 1000)
        for _ in range(25):
            expected_row = row.copy()
            set_entries = np.flatnonzero(mask)
            expected = int(set_entries[E.rand_below(expected_row, len(set_entries))]) if len(set_entries) else 0
            assert E.sample_mask(row, mask) == expected
            assert (row == expected_row).all()  # one draw from the row's generator (none without a set entry)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_row_view_is_the_row_itself(order):
    """The drivers take each row with ``row_view`` (a view that holds no
    reference, so no reference counting per row): compiled, it is ``a[i]``,
    reads and writes going to ``a``'s own memory, in every layout (C; a
    Fortran-ordered or column-strided array gives a strided row)."""
    from numba import njit

    @njit
    def fill(a, values):
        for i in range(a.shape[0]):
            r = E.row_view(a, i)
            for j in range(r.shape[0]):
                r[j] += values[i, j]
        return E.row_view(a, a.shape[0] - 1).sum()

    base = np.arange(5 * 8, dtype=np.int64).reshape(5, 8)
    a = {"C": base.copy(), "F": np.asfortranarray(base), "strided": np.repeat(base, 2, axis=1)[:, ::2]}[order]
    values = np.random.default_rng(1).integers(-9, 9, size=a.shape)
    expected = a + values
    assert fill(a, values) == expected[-1].sum()
    assert (a == expected).all()
    assert E.row_view(a, 2) is not None and (E.row_view(a, 2) == expected[2]).all()  # plain Python: a[i]


def _prints_ok_under_boundscheck(code: str) -> None:
    """``code`` run in a fresh process with ``NUMBA_BOUNDSCHECK=1`` ends by printing ok."""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:] + proc.stdout


def test_row_view_checks_its_index_under_boundscheck():
    """With ``NUMBA_BOUNDSCHECK=1`` a row past the end (or before the start)
    raises IndexError like ``a[i]`` does, instead of reading another row."""
    code = (
        "import numpy as np; from numba import njit; from boardenvs.engine import row_view\n"
        "f = njit(lambda a, i: row_view(a, i)[0])\n"
        "a = np.arange(12).reshape(3, 4)\n"
        "assert f(a, 2) == 8\n"
        "for i in (3, -1, 100):\n"
        "    try:\n"
        "        f(a, i)\n"
        "    except IndexError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'row {i} of 3 read')\n"
        "print('ok')\n"
    )
    _prints_ok_under_boundscheck(code)


@pytest.mark.parametrize("layout", ["C", "strided"])
def test_store8_writes_eight_bytes_low_byte_first_at_any_offset(layout):
    """``store8`` (the observation writers' eight planes at a time): compiled
    (one unaligned store in a C-contiguous array, byte by byte in a strided
    one) and plain Python write the same eight bytes, the low byte first, at
    every offset, and nothing beside them."""
    from numba import njit

    @njit
    def put(a, at, value):
        E.store8(a, at, value)

    value = np.int64(-0x7EDCBA9876543211)  # every byte differs, the top one's sign bit set
    for at in range(0, 13):
        base = np.full(2 * 21, 7, np.int8)
        a = base[:21] if layout == "C" else base[::2]
        plain = a.copy()
        E.store8(plain, at, int(value))
        put(a, at, value)
        assert (a == plain).all()
        assert (a[at : at + 8].view(np.uint8) == np.frombuffer(value.tobytes(), np.uint8)).all()  # little-endian
        assert (a[:at] == 7).all() and (a[at + 8 :] == 7).all()


def test_no_mask_is_an_empty_int8_mask_over_nothing():
    """``no_mask(state)``: the empty int8 mask a move generator is given to
    look for a first legal move only; compiled, a zero-length view that
    neither allocates nor holds a reference, typed like a driver's mask row."""
    from numba import njit, typeof

    @njit
    def probe(state):
        m = E.no_mask(state)
        return m.shape[0], m.size

    state = np.arange(5, dtype=np.int64)
    assert probe(state) == (0, 0) and (state == np.arange(5)).all()
    assert E.no_mask(state).shape == (0,) and E.no_mask(state).dtype == np.int8  # plain Python
    typed = njit(lambda s: E.no_mask(s))  # compiled for its type only: never called
    typed.compile((typeof(state),))
    assert typed.nopython_signatures[0].return_type == typeof(np.zeros((2, 3), np.int8)[0])


def test_store8_and_no_mask_check_their_range_under_boundscheck():
    """With ``NUMBA_BOUNDSCHECK=1`` a store whose eight bytes do not all lie
    in the array raises IndexError and writes nothing past it; so does a
    write into :func:`no_mask`'s empty mask (it would land on the state)."""
    code = (
        "import numpy as np; from numba import njit; from boardenvs.engine import store8, no_mask\n"
        "def put(s):\n"
        "    m = no_mask(s)\n"
        "    m[0] = 1\n"
        "g = njit(put)\n"
        "s = np.zeros(3, np.int64)\n"
        "try:\n"
        "    g(s)\n"
        "except IndexError:\n"
        "    assert (s == 0).all()\n"
        "else:\n"
        "    raise SystemExit('no_mask written')\n"
        "f = njit(lambda a, i: store8(a, i, np.int64(-1)))\n"
        "a = np.zeros(24, np.int8)\n"
        "f(a[:16], 8)\n"
        "assert (a[8:16] == -1).all() and (a[16:] == 0).all()\n"
        "for i in (9, 15, -1, 100):\n"
        "    try:\n"
        "        f(a[:16], i)\n"
        "    except IndexError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'store at {i} of 16')\n"
        "assert (a[16:] == 0).all()\n"
        "print('ok')\n"
    )
    _prints_ok_under_boundscheck(code)


# --- the one step (boardenvs._drivers.step_row): what every face calls -------------------------------------------


def _at_decision(game, seed=3):
    state = game.new_state(0, rng_seed=seed)
    mask = np.zeros(game.mask_size, np.int8)
    game.settle(state, mask)
    assert state[E.H_STATUS] == E.PLAYING and state[E.H_CURRENT] >= 0
    return state, mask


def test_the_one_step_plays_a_legal_action_settles_chance_and_refreshes_the_mask():
    game = boardenvs.make_game("contract_race_v0", num_players=3)
    state, mask = _at_decision(game)
    a = int(np.flatnonzero(mask)[0])
    expected = state.copy()
    game.kernels.apply(expected, game.params, a)
    assert game.step(state, a, mask, settle=False) == E.STEP_PLAYED
    assert np.array_equal(state, expected)  # the kernel's move, nothing else
    assert np.array_equal(mask, game.legal_mask(state))  # the mask of whoever acts now (chance: the outcomes)
    while state[E.H_STATUS] == E.PLAYING and state[E.H_CURRENT] != E.CHANCE:
        assert game.step(state, int(np.flatnonzero(mask)[0]), mask, settle=False) == E.STEP_PLAYED
    assert state[E.H_CURRENT] == E.CHANCE  # without settle the step stops at the roll (CR-3)...
    rolled = state.copy()
    game.settle(rolled, np.zeros(game.mask_size, np.int8))  # ...with it, the seeded die rolls: the row's generator
    shadow = state.copy()
    while shadow[E.H_STATUS] == E.PLAYING and shadow[E.H_CURRENT] == E.CHANCE:
        probs = game.chance_probs(shadow)
        game.kernels.apply(shadow, game.params, int(E.sample_probs(shadow, probs)))
    assert np.array_equal(rolled, shadow)


def test_the_one_step_handles_an_illegal_action_by_its_mode():
    """C-6 on the engine's step: "lose" forfeits the mover (-1, others 0),
    "random" plays a legal action drawn from the row's generator, "raise"
    (refuse) changes nothing; the flag says which."""
    game = boardenvs.make_game("contract_race_v0", num_players=3)
    state, mask = _at_decision(game)
    seat = int(state[E.H_CURRENT])
    bad = int(np.flatnonzero(mask == 0)[0])
    for action in (bad, -1, game.mask_size, 2**40):
        s, m = state.copy(), mask.copy()
        assert game.step(s, action, m, mode=E.ILLEGAL_REFUSE) == E.STEP_REFUSED
        assert np.array_equal(s, state) and np.array_equal(m, mask)
    s, m = state.copy(), mask.copy()
    assert game.step(s, bad, m, mode=E.ILLEGAL_LOSE) == E.STEP_ILLEGAL
    assert s[E.H_STATUS] == E.TERMINATED and game.end_reason(s) == "illegal_action"
    assert s[E.H_RET + seat] == -1 and sorted(s[E.H_RET : E.H_RET + 3]) == [-1, 0, 0] and not m.any()
    s, m = state.copy(), mask.copy()
    assert game.step(s, bad, m, mode=E.ILLEGAL_RANDOM) == E.STEP_ILLEGAL
    drawn = state.copy()
    pick = int(E.sample_mask(drawn, mask))  # the row's generator draws the replacement
    assert mask[pick] == 1
    expected, m2 = drawn.copy(), mask.copy()
    assert game.step(expected, pick, m2) == E.STEP_PLAYED
    assert np.array_equal(s, expected) and np.array_equal(m, m2)
    s, m = state.copy(), mask.copy()
    assert game.step(s, E.RANDOM_ACTION, m) == E.STEP_PLAYED  # the row API's code: a draw, not illegal
    assert np.array_equal(s, expected)  # the same draw as "random"'s replacement, played


def test_the_one_step_refuses_a_wrong_roll_and_an_ended_game():
    game = boardenvs.make_game("contract_race_v0", num_players=2)
    state = game.new_state(0, rng_seed=5)
    mask = game.legal_mask(state)
    assert state[E.H_CURRENT] == E.CHANCE
    impossible = [a for a in range(game.mask_size) if not mask[a]]
    for action in impossible + [-1]:
        s = state.copy()
        # no one forfeits for chance: a wrong outcome is refused whatever the mode
        assert game.step(s, action, mask.copy(), mode=E.ILLEGAL_LOSE, settle=False) == E.STEP_REFUSED
        assert np.array_equal(s, state)
    E.forfeit(state, 0, E.REASON_ILLEGAL)
    ended = state.copy()
    assert game.step(state, 0, mask.copy()) == E.STEP_REFUSED and np.array_equal(state, ended)


def test_make_vec_rows_step_as_the_one_step_steps_one_row():
    """make_vec's step is the one step on each row: a row stepped by
    Game.step with the same actions and generator gives the same row."""
    game = boardenvs.make_game("contract_race_v0", num_players=4)
    vec = boardenvs.make_vec("contract_race_v0", num_envs=5, num_players=4)
    obs, infos = vec.reset(seed=9)
    rows = np.array(vec.states)
    masks = [game.legal_mask(r) for r in rows]
    for _ in range(40):
        actions = vec.random_actions()  # (drawn from each row's generator, which moves on)
        rows[:, E.H_RNG] = vec.states[:, E.H_RNG]
        obs, rewards, terms, truncs, infos = vec.step(actions)
        for i in range(5):
            if terms[i] or truncs[i]:
                rows[i] = vec.states[i]
                masks[i] = game.legal_mask(rows[i])
                continue
            game.step(rows[i], int(actions[i]), masks[i])
            assert np.array_equal(rows[i], vec.states[i]) and np.array_equal(
                masks[i][: game.num_actions], obs["action_mask"][i]
            )


def test_the_one_step_checks_what_a_caller_hands_it():
    """C-6 on Game.step: a mask or row of the wrong kind is refused before
    any kernel runs, and a caller's mask never reaches the kernels' trust
    (it is recomputed from the row: an all-ones mask legalises nothing)."""
    game = boardenvs.make_game("contract_race_v0", num_players=2)
    state, mask = _at_decision(game)
    bad = int(np.flatnonzero(mask == 0)[0])
    for wrong in (np.ones(10**6, np.int8), mask.astype(np.int64), mask[::2], np.ones(game.mask_size - 1, np.int8)):
        with pytest.raises(ValueError, match="mask must be"):
            game.step(state.copy(), 0, wrong)
    with pytest.raises(ValueError, match="state must be"):
        game.step(state[:-1].copy(), 0, mask.copy())
    s, scribbled = state.copy(), np.ones(game.mask_size, np.int8)
    assert game.step(s, bad, scribbled, mode=E.ILLEGAL_REFUSE) == E.STEP_REFUSED and np.array_equal(s, state)
    assert np.array_equal(scribbled, mask)  # (the row's own mask, recomputed)
    with pytest.raises(IllegalMoveError, match="int64"):
        game.step(state.copy(), 2**64, mask.copy())


def test_tool_settings_follow_the_game_and_its_bases_and_old_attributes_are_named():
    from boardenvs.baselines.greedy import heuristic_of

    from boardenvs.registry import tool_settings

    base = boardenvs.game_class("quagmire_v0")
    sub = type("MyQuagmire", (base,), {"__module__": __name__})  # another module, no TOOLS: the base's settings
    assert tool_settings(sub, "training") == tool_settings(base, "training") is not None
    assert heuristic_of(sub) is heuristic_of(base) is not None
    with pytest.raises(TypeError, match=r"heuristic is no class attribute since 0.4: it moved to TOOLS\[\"greedy\"\]"):
        type("OldStyle", (base,), {"env_id": "old_style_v0", "heuristic": None, "__module__": __name__})


def test_unimported_kernels_get_a_key_no_process_shares_and_uncached_copies_keep_their_options():
    from boardenvs.baselines import search

    from boardenvs import bind

    k = boardenvs.make_game("quagmire_v0").kernels
    inner = k.legal

    @E.njit
    def legal_here(state, params, mask):
        return inner(state, params, mask)

    local = k._replace(legal=legal_here)
    keys = {bind.bound(local).key, bind.bound(local, opponent=False, modules=("boardenvs.baselines.greedy",)).key}
    assert all(key.startswith("unimported.") and len(key) > 40 for key in keys) and len(keys) == 2
    copies = bind.uncached(search)
    assert (
        copies.select_threads.targetoptions["parallel"] is True
        and copies.select._cache.__class__.__name__ == "NullCache"
    )
