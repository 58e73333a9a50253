"""The reference opponents "greedy" and "mcts": their
choices on hand-built positions, their strength against random play, seeded
reproducibility, the one name registry and every place that asks opponents
(gymnasium.make, make_vec, SB3VecEnv, evaluate as agent and opponent,
``boardenvs play --vs``), bad names, chance and four players."""

from __future__ import annotations

import io
import json
import sys

import gymnasium
import numpy as np
import pytest
from boardenvs.wrappers.evaluation import evaluate

import boardenvs
from boardenvs import engine as E
from boardenvs.opponents import Batch, make_opponent, opponent_names, register_opponent
from boardenvs.position import Position

HEADER = """game: {game}
options: {options}
to_move: {to_move}
turn: {turn}
status: playing
reason: -
alive: 1 1
returns: 0 0
"""

# QM-8: x's walk b2-b1 (and its runs through b1) leaves o with no move
QUAGMIRE_WIN = (
    HEADER.format(game="quagmire_v0", options="radius=2 max_turns=1000", to_move="player_1", turn=11)
    + """board:
a   . . ~
b  . o ~ x
c . ~ ~ ~ ~
d  ~ x ~ o
e   ~ ~ ~
"""
)
# o to move: e3-e2 and e3-e2-e1 let x trap o at once (QM-8); only e3^e1 does not
QUAGMIRE_THREAT = (
    HEADER.format(game="quagmire_v0", options="radius=2 max_turns=1000", to_move="player_1", turn=11)
    + """board:
a   ~ ~ o
b  . ~ ~ ~
c . ~ x ~ ~
d  ~ ~ x ~
e   . . o
"""
)
# QU-9: Dark's circle E3-F1 puts a second dark piece in Light's zone
QUESS_WIN = (
    HEADER.format(game="quess_v0", options="max_turns=3000 superko_memory=4096", to_move="player_1", turn=79)
    + """board:
  1 2 3 4 5 6
A . . . . . .
B . . T T . .
C . . . . . .
D t . . . . S
E . . c . . .
F . . . . . .
since_capture: F5-E3 B2-B3
"""
)
# Light's square: D5-A5, D5-D4 and D5-E5 let Dark win at once (QU-9 / QU-11)
QUESS_THREAT = (
    HEADER.format(game="quess_v0", options="max_turns=3000 superko_memory=4096", to_move="player_0", turn=160)
    + """board:
  1 2 3 4 5 6
A . . . t . .
B . . . . . .
C . . . . . c
D . . . . S .
E . . . . . s
F . . . . . .
since_capture: B2-B1 D3-C5 B1-B4 C5-D3 B4-C4 D3-E5 C4-C2 A1-D1 C2-D2 D1-C1 D2-D5 C1-E1 D5-D6 E5-C6 D6-D5 E1-E6
"""
)


def outcomes(pos):
    """The immediate wins of the mover, and the moves after which the
    opponent has an immediate win (an independent one-ply look-ahead)."""
    mover = pos.to_move
    wins, threatened = set(), set()
    for a in pos.legal_actions():
        after = pos.play(a)
        if after.is_terminal and after.returns[mover] > 0:
            wins.add(a)
        elif not after.is_terminal and any(
            after.play(r).is_terminal and after.play(r).returns[mover] < 0 for r in after.legal_actions()
        ):
            threatened.add(a)
    return wins, threatened


def choices(opponent, pos, seeds=range(6)):
    return {
        int(make_opponent(opponent).act(Batch.of_states(pos.game, pos.state[None], np.random.default_rng(s)))[0])
        for s in seeds
    }


@pytest.mark.parametrize("text", [QUAGMIRE_WIN, QUESS_WIN], ids=["quagmire", "quess"])
@pytest.mark.parametrize("opponent", ["greedy", "mcts:400"])
def test_takes_an_immediate_win(text, opponent):
    pos = Position.from_text(text)
    wins, _ = outcomes(pos)
    assert wins and len(wins) < len(pos.legal_actions())  # a choice to get wrong
    assert choices(opponent, pos) <= wins


@pytest.mark.parametrize("text", [QUAGMIRE_THREAT, QUESS_THREAT], ids=["quagmire", "quess"])
@pytest.mark.parametrize("opponent", ["greedy", "mcts:400"])
def test_never_leaves_an_immediate_win_to_the_opponent(text, opponent):
    pos = Position.from_text(text)
    wins, threatened = outcomes(pos)
    assert not wins and threatened and len(threatened) < len(pos.legal_actions())
    picked = choices(opponent, pos)
    assert picked and not picked & threatened


def test_greedy_follows_the_game_heuristic():
    """Quagmire's evaluation is mobility (own moves minus the opponent's):
    greedy's choice is an action whose result scores best."""
    pos = boardenvs.position("quagmire_v0", radius=3)
    for move in ("@a1", "@g4", "@d4", "@c2"):
        pos = pos.play(move)
    game = pos.game
    scratch = np.zeros(game.mask_size, np.int8)
    from boardenvs.baselines.greedy import heuristic_of

    scores = {a: heuristic_of(game)(pos.play(a).state, game.params, 0, scratch) for a in pos.legal_actions()}
    best = {a for a, v in scores.items() if v == max(scores.values())}
    assert len(set(scores.values())) > 1
    assert choices("greedy", pos, range(10)) <= best


def test_reference_opponents_beat_random():
    greedy = evaluate("greedy", "quagmire_v0", games=40, opponent="random", seed=1, radius=2)
    mcts = evaluate("mcts:50", "quagmire_v0", games=30, opponent="random", seed=1, radius=2)
    assert greedy["win_rate"] >= 0.7, greedy
    assert mcts["win_rate"] >= 0.85, mcts
    # and the other way round: as the opponent of a random agent
    assert evaluate("random", "quagmire_v0", games=30, opponent="mcts:50", seed=2, radius=2)["win_rate"] <= 0.15


@pytest.mark.parametrize("name", ["greedy", "mcts:30"])
def test_seeded_reproducibility(name):
    vec = boardenvs.make_vec("quess_v0", num_envs=6)
    vec.reset(seed=3)
    vec.step(vec.random_actions())
    states = vec.states.copy()
    game = vec.game
    one = make_opponent(name).act(Batch.of_states(game, states, np.random.default_rng(5)))
    two = make_opponent(name).act(Batch.of_states(game, states, np.random.default_rng(5)))
    assert np.array_equal(one, two)
    masks = np.stack([game.legal_mask(s) for s in states])
    assert masks[np.arange(6), one].all()
    r1 = evaluate(name, "quagmire_v0", games=6, opponent="greedy", seed=4, radius=2)
    r2 = evaluate(name, "quagmire_v0", games=6, opponent="greedy", seed=4, radius=2)
    assert r1 == r2


@pytest.mark.parametrize("name", ["random", "greedy", "mcts", "mcts:20"])
def test_every_name_works_everywhere(name, tmp_path, monkeypatch, capsys):
    from boardenvs.wrappers.sb3 import SB3VecEnv

    from boardenvs.cli import main

    env = gymnasium.make("boardenvs/Quagmire-v0", opponent=name, radius=2, seat=0)
    obs, info = env.reset(seed=0)
    while True:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break
    venv = gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=4, opponent=name, radius=2)
    obs, info = venv.reset(seed=0)
    for _ in range(6):
        obs, r, term, trunc, info = venv.step(np.argmax(info["action_mask"], axis=1))
    sb3 = SB3VecEnv("quagmire_v0", num_envs=3, opponent=name, radius=2)
    sb3.reset()
    sb3.step(np.argmax(sb3.action_masks(), axis=1))
    as_agent = evaluate(name, "quagmire_v0", games=4, opponent="random", radius=2)
    as_opponent = evaluate("random", "quagmire_v0", games=4, opponent=name, radius=2)
    assert as_agent["games"] == as_opponent["games"] == 4
    monkeypatch.setattr(sys, "stdin", io.StringIO("@a1\n@e1\nquit\n"))
    save = tmp_path / "g.json"
    assert main(["play", "quagmire_v0", "--option", "radius=2", "--vs", name, "--seed", "1", "--out", str(save)]) == 0
    moves = json.loads(save.read_text())["moves"]
    assert moves[0] == "@a1" and moves[3] == "@e1" and len(moves) == 4  # QM-2: the opponent placed twice between
    assert "player_1 (o) plays" in capsys.readouterr().out


def test_a_league_starts_with_a_named_opponent():
    from boardenvs.league import League

    pool = League(initial="greedy")
    assert pool.pick(np.random.default_rng(0)).name == "greedy"
    env = gymnasium.make("boardenvs/Quagmire-v0", opponent=pool, radius=2)
    env.reset(seed=0)
    assert env.unwrapped.opponent.name == "greedy"


@pytest.mark.parametrize("bad", ["mcts:abc", "mcts:0", "mcts:", "mcts:-3", "greedy:3", "random:1", "nope", "MCTS"])
def test_bad_names_are_refused_naming_what_is_accepted(bad, capsys):
    from boardenvs.cli import main
    from boardenvs.opponents import load_opponent

    for call in (
        lambda: make_opponent(bad),
        lambda: load_opponent(bad),
        lambda: gymnasium.make("boardenvs/Quagmire-v0", opponent=bad),
    ):
        with pytest.raises(ValueError, match="'greedy'") as info:
            call()
        assert repr(bad) in str(info.value) and "mcts:<simulations>" in str(info.value)
    assert main(["play", "quagmire_v0", "--vs", bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def test_register_a_name_and_a_prefix():
    from boardenvs.opponents import RandomOpponent

    class Fixed(RandomOpponent):
        def __init__(self, tag):
            self.name = f"fixed:{tag}"

    register_opponent("test_fixed", lambda tag: Fixed(tag), prefix=True, help="<tag>")
    assert make_opponent("test_fixed:7").name == "fixed:7"
    assert "test_fixed:<tag>" in opponent_names()
    with pytest.raises(ValueError, match="already registered"):
        register_opponent("test_fixed", lambda tag: Fixed(tag), prefix=True)
    with pytest.raises(ValueError, match="unknown opponent 'test_fixed'"):
        make_opponent("test_fixed")  # only the prefixed form is registered
    game = boardenvs.make_game("quess_v0")  # a search asked without the rows' states: a clear error
    with pytest.raises(ValueError, match="carries no states"):
        make_opponent("greedy").act(
            Batch(game, np.ones((1, 1296), bool), np.random.default_rng(0), observations=np.zeros((1, 288)))
        )


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("tryasina_v0", {"num_players": 4}),
        ("tryasina_v0", {}),
        ("hex_quoridor_v1", {"num_players": 4, "radius": 2}),
        ("hex_quoridor_v1", {"num_players": 4, "teams": "2v2", "radius": 2}),
    ],
)
@pytest.mark.parametrize("name", ["greedy", "mcts:10"])
def test_chance_and_four_players(env_id, options, name):
    """Chance (Tryasina's die), eliminations (Hex Quoridor, HQ-9) and teams:
    whole games against the reference opponents end with the results the
    rules allow, and a four-player search returns legal actions for every seat."""
    vec = boardenvs.make_vec(env_id, num_envs=4, **options)
    vec.reset(seed=0)
    game = vec.game
    acts = make_opponent(name).act(Batch.of_states(game, vec.states, np.random.default_rng(0)))
    masks = np.stack([game.legal_mask(s) for s in vec.states])
    assert masks[np.arange(4), acts].all()
    result = evaluate(name, env_id, games=3, opponent=name, seed=0, **options)
    assert result["wins"] + result["draws"] + result["losses"] == 3


def test_mcts_rollout_cap_and_bad_arguments():
    """Rollouts capped at one decision (then scored 0.5 for every seat) still
    give legal actions in the dice game; bad arguments are refused."""
    from boardenvs.baselines.mcts import MCTSOpponent

    vec = boardenvs.make_vec("tryasina_v0", num_envs=8)
    vec.reset(seed=1)
    for _ in range(30):
        vec.step(vec.random_actions())
    assert (vec.states[:, E.H_STATUS] == E.PLAYING).all()
    out = MCTSOpponent(20, rollout_cap=1).act(Batch.of_states(vec.game, vec.states, np.random.default_rng(0)))
    assert all(vec.game.legal_mask(s)[a] for s, a in zip(vec.states, out))
    for bad in ({"simulations": 0}, {"simulations": 2.5}, {"rollout_cap": 0}, {"c": -1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            MCTSOpponent(**{"simulations": 10, **bad})


@pytest.mark.parametrize("env_id, options", [("quagmire_v0", {}), ("tryasina_v0", {"num_players": 3})])
def test_mcts_search_policy_is_the_roots_visit_counts(env_id, options):
    """``search_policy`` (distill's soft targets): per row the root's visits
    over the simulations, only on legal actions, summing to the simulation
    count; the decision is the most visited action and the same as
    ``act``'s with the same generator; a forced decision is one-hot."""
    from boardenvs.baselines.mcts import MCTSOpponent

    sims = 40
    vec = boardenvs.make_vec(env_id, num_envs=8, **options)
    vec.reset(seed=2)
    for _ in range(5):
        vec.step(vec.random_actions())
    states = vec.states.copy()
    acts, probs = MCTSOpponent(sims).search_policy(Batch.of_states(vec.game, states, np.random.default_rng(0)))
    masks = np.stack([vec.game.legal_mask(s) for s in states]).astype(bool)
    assert probs.shape == masks.shape and (vec.states == states).all()  # the rows are not touched
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert (probs[~masks] == 0).all()
    forced = masks.sum(axis=1) == 1
    counts = probs[~forced] * sims
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert (probs[np.arange(8), acts] == probs.max(axis=1)).all()
    assert (probs[forced] == masks[forced]).all()
    assert (acts == MCTSOpponent(sims).act(Batch.of_states(vec.game, states, np.random.default_rng(0)))).all()
    if env_id == "quagmire_v0":  # a real search: more than one action visited somewhere
        assert ((probs > 0).sum(axis=1) > 1).any()
