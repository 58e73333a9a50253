"""The model-guided search opponent ``"search:<simulations>:<model>"``:
the compiled PUCT against an independent Python model of the same search,
immediate wins, names and errors, the places opponents are named, chance
and four players."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from boardenvs.baselines.search import GuidedSearch
from boardenvs.baselines.search_opponent import SearchOpponent
from boardenvs.wrappers import evaluate
from test_opponents_reference import QUAGMIRE_WIN, QUESS_WIN, outcomes

import boardenvs
from boardenvs import engine as E
from boardenvs.opponents import Batch, make_opponent
from boardenvs.position import Position


def projection_evaluator(game, seed=0):
    """A deterministic stand-in for a network: priors a masked softmax of a
    fixed random projection of the observation, the value a tanh of another."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(game.obs_size, game.mask_size)) * 0.2
    w_v = rng.normal(size=game.obs_size) * 0.1

    def evaluate(obs, masks):
        x = np.asarray(obs, np.float64).reshape(len(obs), -1)
        logits = np.where(masks, x @ w, -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True), np.tanh(x @ w_v)

    return evaluate


def uniform_evaluator(obs, masks):
    masks = np.asarray(masks, np.float64)
    return masks / masks.sum(axis=1, keepdims=True), np.zeros(len(masks))


def reference_visits(game, root, evaluate, sims, c=1.25, others=None, seed=None):
    """PUCT written plainly over the game's kernels (deterministic games):
    the root's visits per action after ``sims`` simulations.  ``others``
    ("greedy"): after each of the root seat's decisions the other seats'
    decisions are played by the greedy opponent's driver, its ties drawn as
    the compiled search draws them (``seed``: the row's generator)."""
    if others == "greedy":
        from boardenvs.baselines.greedy import greedy_driver

        greedy = greedy_driver(type(game))
        carrier = np.zeros(E.H_RNG + 1, np.int64)
        carrier[E.H_RNG] = seed
        seat = int(root[E.H_CURRENT])

    def reply(s):
        while others == "greedy" and s[E.H_STATUS] == E.PLAYING and s[E.H_CURRENT] != seat:
            out = np.zeros(1, np.int64)
            greedy(
                s[None].copy(), game.params, np.array([int(E.rand_u64(carrier)) >> 1], np.int64), out, game.mask_size
            )
            game.kernels.apply(s, game.params, int(out[0]))

    def leaf(s):
        mask = game.legal_mask(s).astype(bool)
        priors, values = evaluate(game.observe(s, int(s[E.H_CURRENT])).reshape(1, -1), mask[None])
        u = 0.5 * (min(max(float(values[0]), -1.0), 1.0) + 1.0)
        node = {
            "n": 0.0,
            "u": u,
            "edges": [
                {"a": a, "p": float(np.float32(priors[0, a])), "n": 0, "w": 0.0, "child": None}
                for a in np.flatnonzero(mask)
            ],
        }
        return node, seat_values(s, u)

    def seat_values(s, u):
        n = int(s[E.H_NUM_PLAYERS])
        return [u if p == s[E.H_CURRENT] else (1.0 - u) / (n - 1) for p in range(n)]

    def terminal(s):
        return [0.5 * (float(s[E.H_RET + p]) + 1.0) for p in range(int(s[E.H_NUM_PLAYERS]))]

    root_node, _ = leaf(root)
    if len(root_node["edges"]) == 1:  # a forced decision: 1 on its action, searched no further
        return np.eye(game.mask_size)[root_node["edges"][0]["a"]]
    root_node["n"] += 1.0
    for _ in range(sims):
        s, node, path = root.copy(), root_node, []
        if others == "greedy":
            E.rand_u64(carrier)  # the simulation's dice, drawn first (none in these games)
        while True:
            if s[E.H_STATUS] != E.PLAYING:
                values = terminal(s)
                break
            mover = int(s[E.H_CURRENT])
            sqrt_n = math.sqrt(node["n"])
            legal = game.legal_mask(s)  # greedy's ties may lead a node to another state: its legal edges compete
            best, best_v = None, -math.inf
            for e in node["edges"]:
                q = e["w"] / e["n"] if e["n"] > 0 else node["u"]
                v = q + c * e["p"] * sqrt_n / (1.0 + e["n"])
                if legal[e["a"]] and v > best_v:
                    best, best_v = e, v
            if best is None:  # none is: the state is evaluated, nothing expanded
                values = leaf(s)[1]
                break
            path.append((best, mover))
            game.kernels.apply(s, game.params, best["a"])
            reply(s)
            if best["child"] is None:
                if s[E.H_STATUS] != E.PLAYING:
                    values = terminal(s)
                else:
                    best["child"], values = leaf(s)
                break
            node = best["child"]
        root_node["n"] += 1.0
        for e, mover in path:
            e["n"] += 1
            e["w"] += values[mover]
            if e["child"] is not None:
                e["child"]["n"] += 1.0
    visits = np.zeros(game.mask_size)
    for e in root_node["edges"]:
        visits[e["a"]] = e["n"]
    return visits


def random_positions(env_id, count, plies, seed, **options):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        pos = boardenvs.position(env_id, **options)
        for _ in range(int(rng.integers(0, plies))):
            if pos.is_terminal:
                break
            pos = pos.play(int(rng.choice(pos.legal_actions())))
        if not pos.is_terminal:
            out.append(pos)
    return out


_REFERENCE = {}  # (env_id, options) -> the reference PUCT's visits (the same for both drivers: computed once)


@pytest.mark.parametrize(
    "env_id, options", [("quagmire_v0", {"radius": 2}), ("quess_v0", {}), ("hex_quoridor_v1", {"num_players": 3})]
)
@pytest.mark.parametrize("parallel", [False, True])
def test_compiled_search_matches_the_reference_puct(env_id, options, parallel):
    """Visit counts equal, edge by edge, to a plain Python PUCT with the
    same priors and values, for several roots searched in one batch."""
    positions = random_positions(env_id, 4, 12, seed=3, **options)
    game = positions[0].game
    evaluate_fn = projection_evaluator(game)
    states = np.stack([p.state for p in positions])
    tree = GuidedSearch(game, states, evaluate_fn, simulations=60, parallel=parallel, rng=np.random.default_rng(0))
    visits = tree.run()
    key = (env_id, tuple(sorted(options.items())))
    if key not in _REFERENCE:
        _REFERENCE[key] = [reference_visits(game, pos.state.copy(), evaluate_fn, 60) for pos in positions]
    for i, expected in enumerate(_REFERENCE[key]):
        assert np.array_equal(visits[i], expected), (i, np.flatnonzero(visits[i] != expected))
        assert visits[i].sum() == 60


@pytest.mark.parametrize("env_id, options", [("quagmire_v0", {"radius": 2}), ("hex_quoridor_v1", {"num_players": 4})])
@pytest.mark.parametrize("parallel", [False, True])
def test_search_greedy_plays_the_other_seats_as_greedy(env_id, options, parallel):
    """``others="greedy"`` (``search-greedy:<n>:<model>``): every tree edge
    is the root seat's decision, the other seats' decisions in between are
    greedy's (ties from the row's generator); visit counts equal a plain
    Python PUCT doing the same, and differ from the ordinary search's."""
    positions = random_positions(env_id, 4, 12, seed=4, **options)
    game = positions[0].game
    evaluate_fn = projection_evaluator(game)
    states = np.stack([p.state for p in positions])
    tree = GuidedSearch(
        game, states, evaluate_fn, simulations=40, parallel=parallel, rng=np.random.default_rng(7), others="greedy"
    )
    visits = tree.run()
    seeds = np.random.default_rng(7).integers(0, 2**63 - 1, size=len(positions), dtype=np.int64)
    plain = GuidedSearch(game, states, evaluate_fn, simulations=40, rng=np.random.default_rng(7)).run()
    searched = 0
    for i, pos in enumerate(positions):
        expected = reference_visits(game, pos.state.copy(), evaluate_fn, 40, others="greedy", seed=int(seeds[i]))
        assert np.array_equal(visits[i], expected), (i, np.flatnonzero(visits[i] != expected))
        if len(pos.legal_actions()) > 1:  # the last simulation's path: the root seat's decisions only
            searched += 1
            assert visits[i].sum() == 40 and tree.plens[i] > 0
            assert (tree.movers[i, : tree.plens[i]] == pos.state[E.H_CURRENT]).all()
    assert searched >= 3
    assert not np.array_equal(visits, plain)


@pytest.mark.parametrize("text", [QUAGMIRE_WIN, QUESS_WIN], ids=["quagmire", "quess"])
def test_finds_an_immediate_win_from_uniform_priors(text):
    pos = Position.from_text(text)
    wins, _ = outcomes(pos)
    assert wins and len(wins) < len(pos.legal_actions())
    opponent = SearchOpponent(uniform_evaluator, simulations=2 * len(pos.legal_actions()) + 50)
    for seed in range(3):
        batch = Batch.of_states(pos.game, pos.state[None], np.random.default_rng(seed))
        actions, probs = opponent.search_policy(batch)
        assert int(actions[0]) in wins
        assert (
            probs[0].sum() == pytest.approx(1.0) and (probs[0][~pos.game.legal_mask(pos.state).astype(bool)] == 0).all()
        )


def test_forced_decisions_and_root_noise():
    pos = Position.from_text(QUESS_WIN)
    game = pos.game
    opponent = SearchOpponent(projection_evaluator(game), simulations=40, root_noise=(0.3, 0.25))
    actions, probs = opponent.search_policy(
        Batch.of_states(game, np.stack([pos.state, pos.state]), np.random.default_rng(1))
    )
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert not np.array_equal(probs[0], probs[1])  # each row draws its own noise
    with pytest.raises(ValueError, match="root_noise"):
        SearchOpponent(uniform_evaluator, root_noise=(0.0, 0.25))


def test_names_and_errors():
    opp = make_opponent("search:16:quess_v0")
    assert isinstance(opp, SearchOpponent) and opp.simulations == 16 and opp.name == "search:16:quess_v0"
    assert make_opponent("search:quess_v0").simulations == 200 and make_opponent("search:quess_v0").others is None
    opp = make_opponent("search-greedy:16:quess_v0")
    assert opp.others == "greedy" and opp.simulations == 16 and opp.name == "search-greedy:16:quess_v0"
    with pytest.raises(ValueError, match="search-greedy:<simulations>:<model> takes"):
        make_opponent("search-greedy:0:quess_v0")
    with pytest.raises(ValueError, match="others is None"):
        SearchOpponent(uniform_evaluator, others="mcts")
    for bad, words in [
        ("search:0:quess_v0", "simulations"),
        ("search:16:", "needs a model"),
        ("search:16:no_such_model", "no baseline"),
        ("search:", "needs an argument"),
    ]:
        with pytest.raises(ValueError, match=words):
            make_opponent(bad)
    with pytest.raises(ValueError, match="search: simulations"):
        SearchOpponent(uniform_evaluator, simulations=0)
    with pytest.raises(ValueError, match="the model must be"):
        SearchOpponent(object())
    env = gymnasium.make("boardenvs/Quagmire-v0", opponent="search:8:quess_v0", seat=1)
    with pytest.raises(ValueError, match="the model plays quess_v0, this game is quagmire_v0"):
        env.reset(seed=0)  # the opponent moves first
        for _ in range(4):
            mask = env.unwrapped.action_masks()
            env.step(int(np.flatnonzero(mask)[0]))


def test_plays_wherever_an_opponent_is_named():
    env = gymnasium.make("boardenvs/Quess-v0", opponent="search:8:quess_v0")
    obs, info = env.reset(seed=0)
    for _ in range(10):
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break
    vec = gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=4, opponent="search:8:quagmire_v0")
    obs, info = vec.reset(seed=0)
    for _ in range(5):
        obs, *_, info = vec.step(np.argmax(info["action_mask"], axis=1))
    from boardenvs.wrappers.sb3 import SB3VecEnv

    sb3 = SB3VecEnv("quagmire_v0", num_envs=3, opponent="search:8:quagmire_v0", seat=1)
    sb3.reset()
    sb3.step(np.argmax(np.stack(sb3.env_method("action_masks")), axis=1))
    # as the agent and as the opponent of evaluate, reproducibly
    first = evaluate("search:8:quagmire_v0", "quagmire_v0", games=6, opponent="random", seed=2)
    again = evaluate("search:8:quagmire_v0", "quagmire_v0", games=6, opponent="random", seed=2)
    assert first == again and first["games"] == 6
    assert evaluate("random", "quagmire_v0", games=4, opponent="search:8:quagmire_v0", seed=2)["games"] == 4


@pytest.mark.parametrize("model", ["tryasina_v0", "tryasina_v0_4p", "hex_quoridor_v1_4p"])
@pytest.mark.parametrize("kind", ["search", "search-greedy"])
def test_chance_and_four_players(model, kind):
    """Open-loop over dice (Tryasina) and one value per mover with four
    seats, or greedy's replies between the mover's decisions: legal
    decisions, the same games for the same seed."""
    from boardenvs import baselines

    agent = baselines.load(model)
    kw = dict(games=4, opponent="random", seed=5, **agent.options)
    first = evaluate(f"{kind}:12:{model}", agent.env_id, **kw)
    assert first == evaluate(f"{kind}:12:{model}", agent.env_id, **kw) and first["games"] == 4


def test_boardenvs_play_vs_a_search(monkeypatch, tmp_path, capsys):
    import io
    import json
    import sys

    from boardenvs.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("@a1\nquit\n"))
    save = tmp_path / "g.json"
    assert main(["play", "quagmire_v0", "--vs", "search:8:quagmire_v0", "--seed", "1", "--out", str(save)]) == 0
    moves = json.loads(save.read_text())["moves"]
    assert moves[0] == "@a1" and len(moves) >= 2  # the search answered
    assert "player_1 (o) plays" in capsys.readouterr().out
