"""The baselines: training smoke test, load(), the committed models, the
round-robin's statistics (Wilson intervals, Elo) and the CLIs' errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from boardenvs.baselines import tournament as ev
from boardenvs.baselines.extractors import HEX_STEPS, BoardCNN, HexConv2d, HexPathsCNN, TrackMLP
from boardenvs.baselines.greedy import heuristic_of
from boardenvs.baselines.networks import game_options, trainable_ids, training_defaults
from boardenvs.baselines.opponent_mix import OpponentMix
from boardenvs.baselines.train import ShapedRewards, model_name, train
from boardenvs.wrappers import evaluate

import boardenvs
from boardenvs import baselines
from boardenvs.league import League
from boardenvs.registry import gym_id_of


# -- statistics ---------------------------------------------------------------------
def test_wilson_interval_known_values():
    lo, hi = ev.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = ev.wilson(100, 100)  # all won: the interval still has width
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.9630, abs=1e-3)
    lo, hi = ev.wilson(0, 20)
    assert lo == 0.0 and 0.15 < hi < 0.17


def test_elo_recovers_the_logistic_model():
    # A beats B 3 games in 4, B beats C 3 in 4: 400*log10(3) ~ 191 points per step
    results = [
        {"agent": "A", "opponent": "B", "wins": 3000, "draws": 0, "losses": 1000},
        {"agent": "B", "opponent": "C", "wins": 3000, "draws": 0, "losses": 1000},
        {"agent": "A", "opponent": "C", "wins": 9000, "draws": 0, "losses": 1000},
    ]
    ratings = ev.elo(["A", "B", "C"], results, anchor="C")
    assert ratings["C"] == 0.0
    assert ratings["B"] == pytest.approx(400 * math.log10(3), abs=5)
    assert ratings["A"] == pytest.approx(800 * math.log10(3), abs=5)


def test_elo_stays_finite_when_one_player_wins_everything():
    results = [{"agent": "A", "opponent": "random", "wins": 100, "draws": 0, "losses": 0}]
    ratings = ev.elo(["A", "random"], results)
    assert ratings["random"] == 0.0 and 500 < ratings["A"] < 1500


def test_draws_count_half():
    results = [{"agent": "A", "opponent": "random", "wins": 0, "draws": 100, "losses": 0}]
    assert ev.elo(["A", "random"], results)["A"] == pytest.approx(0.0, abs=1e-6)


def test_targets_are_marked():
    entry = {"env_id": "quess_v0", "num_players": 2}
    assert ev._target(entry, "random", 0.96, 0.9, 0.5).startswith("met")
    assert ev._target(entry, "random", 0.94, 0.9, 0.5).startswith("missed")
    assert ev._target(entry, "mcts", 0.55, 0.5, 0.5).startswith("met")
    assert ev._target({"env_id": "tryasina_v0", "num_players": 2}, "random", 0.66, 0.6, 0.5).startswith("met")
    assert ev._target({"env_id": "tryasina_v0", "num_players": 4}, "random", 0.49, 0.4, 0.25).startswith("missed")


# -- extractors -----------------------------------------------------------------------
def test_hex_convolution_sees_a_cell_and_its_six_neighbours():
    conv = HexConv2d(1, 1)
    with torch.no_grad():
        conv.weight.fill_(1.0)
        conv.bias.zero_()
    x = torch.zeros(1, 1, 5, 5)
    x[0, 0, 2, 2] = 1.0  # one cell (q, r) = (0, 0) at the grid's centre
    y = conv(x)[0, 0]
    # the cells whose window holds it: itself and its six axial neighbours (dq, dr)
    expected = {(2, 2), (2, 3), (2, 1), (3, 2), (1, 2), (1, 3), (3, 1)}  # (row=r, col=q)
    hit = {(int(r), int(c)) for r, c in zip(*torch.nonzero(y, as_tuple=True))}
    assert hit == expected


def test_split_planes_tell_quagmire_pieces_apart_as_its_actions_do():
    """Quagmire's move actions name the mover's piece 0 (lower cell index) and
    piece 1: the split planes put each on its own plane, piece 0 first."""
    from boardenvs.games import quagmire as qm

    game = boardenvs.make_game("quagmire_v0")
    space = gymnasium.spaces.Box(game.info.obs_low, game.info.obs_high, game.info.obs_low.shape, np.int8)
    net = BoardCNN(space, features_dim=8, hex=True, split=(2,), around=True)
    side = game.board.side
    on_board = torch.as_tensor(game.board.on_board_grid(), dtype=torch.float32).reshape(side, side)
    rng = np.random.default_rng(3)
    checked = 0
    pos = boardenvs.position("quagmire_v0")
    while checked < 40:
        if pos.is_terminal:
            pos = boardenvs.position("quagmire_v0")
        if pos.state[qm.M_PLACED] == 4:
            seat = pos.to_move
            obs = torch.as_tensor(pos.observation(seat)[None], dtype=torch.float32)  # (1, H, W, C)
            planes = net._split(obs.permute(0, 3, 1, 2))[0]
            assert planes.shape[0] == 2 and planes.sum() == 2
            scaled = (obs * net.scale).permute(0, 3, 1, 2)
            views = net._views(torch.cat([scaled, planes[None]], 1), planes[None]).reshape(
                2, 2 * side - 1, 2 * side - 1, 7
            )
            for p in range(2):
                cell = int(pos.state[qm.M_PIECES + 2 * seat + p])
                assert planes[p].reshape(-1)[game.board.grid_index[cell]] == 1, (p, game.board.name(cell))
                # piece p's own view: the piece at the centre (own pieces, plane 2, and its
                # split plane, 5 + p), the board around it where it lies
                r, c = divmod(int(game.board.grid_index[cell]), side)
                assert views[p, side - 1, side - 1, 2] == 1 and views[p, side - 1, side - 1, 5 + p] == 1
                window = views[p, side - 1 - r : 2 * side - 1 - r, side - 1 - c : 2 * side - 1 - c, 0]
                assert torch.equal(window, on_board) and views[p, :, :, 0].sum() == on_board.sum()
            checked += 1
        pos = pos.play(int(rng.choice(np.flatnonzero(pos.action_mask()))))
    with pytest.raises(ValueError, match="split names planes"):
        BoardCNN(space, split=(9,))
    with pytest.raises(ValueError, match="around=True centres windows"):
        BoardCNN(space, around=True)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_hex_paths_extractor_measures_the_rules_goal_distances(players):
    """HexPathsCNN's distances are the kernels' (HQ-7/HQ-8: steps to the goal
    side, fences block, pawns do not) for every seat of the observer's frame,
    and its path planes mark shortest paths: the pawn's cell, one cell at
    every distance from it to the goal, edges between path cells only."""
    from boardenvs.games.hex_quoridor import rules as hq

    game = boardenvs.make_game("hex_quoridor_v1", num_players=players)
    space = gymnasium.spaces.Box(game.info.obs_low, game.info.obs_high, game.info.obs_low.shape, np.int8)
    net = HexPathsCNN(space, features_dim=8, layers=1)
    n, far = players, float(space.shape[0] * space.shape[1])
    params = game.params
    dist, queue = np.empty(params[hq.P_N] + 1, np.int64), np.empty(params[hq.P_N] + 1, np.int64)
    rng = np.random.default_rng(players)
    pos, checked, fenced = boardenvs.position("hex_quoridor_v1", num_players=players), 0, 0
    while checked < 30:
        if pos.is_terminal:
            pos = boardenvs.position("hex_quoridor_v1", num_players=players)
        seat = pos.to_move
        obs = torch.as_tensor(pos.observation(seat)[None])
        planes, lengths = net._extra(obs)
        to_goal, on_path = planes[0, :n] * net.scale_steps, planes[0, n : 2 * n]
        edges = planes[0, 2 * n :].reshape(n, 6, *to_goal.shape[1:])
        pawns = obs[0].permute(2, 0, 1)[1 : n + 1].float()
        for r in range(n):
            cell = int(pos.state[hq.Q_PAWNS + (seat + r) % n])
            if cell < 0:  # out (HQ-9): no pawn, no path
                assert lengths[0, r] * net.scale_steps == far and on_path[r].sum() == 0
                continue
            hq._goal_distances(pos.state, params, (seat + r) % n, dist, queue)
            length = int(dist[cell])
            assert lengths[0, r] * net.scale_steps == length, (r, length)
            assert (on_path[r] * pawns[r]).sum() == 1  # the pawn's own cell is on its path
            levels = sorted({int(v) for v in to_goal[r][on_path[r] > 0].tolist()})
            assert levels == list(range(length + 1))
            for d, (dr, dc) in enumerate(HEX_STEPS):
                for y, x in torch.nonzero(edges[r, d]).tolist():
                    assert on_path[r, y, x] == 1 and on_path[r, y + dr, x + dc] == 1
                    assert to_goal[r, y + dr, x + dc] == to_goal[r, y, x] - 1
        fenced = max(fenced, len(game.placed_fences(pos.state)))
        checked += 1
        pos = pos.play(int(rng.choice(np.flatnonzero(pos.action_mask()))))
    assert fenced >= 3  # fences were on the board in the positions checked
    with pytest.raises(ValueError, match="5n \\+ 7"):
        HexPathsCNN(gymnasium.spaces.Box(0, 1, (9, 9, 18), np.int8))


@pytest.mark.parametrize("env_id", sorted(e for e in trainable_ids() if e in boardenvs.ENV_IDS))
def test_extractor_fits_every_game(env_id):
    from boardenvs.baselines.extractors import EXTRACTORS

    game = boardenvs.make_game(env_id)
    space = gymnasium.spaces.Box(game.info.obs_low, game.info.obs_high, game.info.obs_low.shape, np.int8)
    defaults = training_defaults(env_id)
    cls = EXTRACTORS[defaults.extractor]
    net = cls(space, **{**defaults.extractor_kwargs, "features_dim": 16})
    out = net(torch.as_tensor(np.stack([space.sample(), space.high]), dtype=torch.float32))
    assert out.shape == (2, 16) and torch.isfinite(out).all()
    assert isinstance(net, BoardCNN if len(space.shape) == 3 else TrackMLP)


# -- training and loading -------------------------------------------------------------
def test_train_load_predict_and_play(tmp_path):
    out = tmp_path / "q"
    config = train(
        "quagmire_v0",
        steps=512,
        num_envs=8,
        n_steps=64,
        batch_size=256,
        out=out,
        greedy_share=0.0,
        mcts_share=0.3,
        mcts_simulations=8,
        eval_every=256,
        eval_games=4,
        progress_bar=False,
        warm_start=0,
        eval_opponents=("random", "greedy", "mcts"),
        verbose=0,
    )
    assert out.with_suffix(".pt").is_file() and (tmp_path / "q_tb").is_dir()
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved == json.loads(json.dumps(config))
    assert (
        saved["budget"]["steps"] >= 512
        and saved["history"]
        and {"random", "greedy", "mcts"} <= set(saved["history"][0])
    )
    random_share = training_defaults("quagmire_v0").opponents.get("random", 0.0)  # the game's, greedy's given
    assert saved["opponents"] == {
        "random": random_share,
        "greedy": 0.0,
        "mcts:8": 0.3,
        "self-play": round(0.7 - random_share, 4),
        "snapshot_every": 20_000,
    }
    agent = baselines.load(out)
    assert agent.env_id == "quagmire_v0"
    env = gymnasium.make("boardenvs/Quagmire-v0", opponent=agent)
    obs, info = env.reset(seed=0)
    action, _ = agent.predict(obs, action_masks=info["action_mask"], deterministic=True)
    assert info["action_mask"][int(action)]
    # a batch, and as an opponent of evaluate
    res = evaluate(agent, "quagmire_v0", games=6, opponent=agent, seed=1)
    assert res["wins"] + res["draws"] + res["losses"] == 6
    # the weights loaded are the ones trained: same action distribution
    obs_t = torch.as_tensor(obs.reshape(agent.policy.observation_space.shape)[None], dtype=torch.float32)
    state = torch.load(out.with_suffix(".pt"), weights_only=True)
    assert all(torch.equal(state[k], v) for k, v in agent.policy.state_dict().items())
    assert torch.isfinite(agent.policy.get_distribution(obs_t).distribution.logits).all()


def test_train_takes_a_wider_network_and_load_builds_it(tmp_path):
    out = tmp_path / "wide"
    config = train(
        "tryasina_v0",
        steps=128,
        num_envs=2,
        n_steps=64,
        batch_size=64,
        out=out,
        eval_every=0,
        extractor_kwargs={"hidden": 64},
        net_arch=[32, 16],
        progress_bar=False,
        verbose=0,
    )
    assert config["extractor_kwargs"] == {"hidden": 64} and config["net_arch"] == [32, 16]
    agent = baselines.load(out)
    weights = agent.policy.state_dict()
    assert weights["features_extractor.net.1.weight"].shape == (64, 2 * 91)
    assert [weights[f"mlp_extractor.policy_net.{i}.weight"].shape[0] for i in (0, 2)] == [32, 16]


def test_load_rejects_unknown_names(tmp_path):
    with pytest.raises(ValueError, match="no baseline 'nope'"):
        baselines.load("nope")
    with pytest.raises(ValueError, match="no baseline"):
        baselines.load(tmp_path / "missing")


def test_load_rejects_weights_of_another_shape(tmp_path, monkeypatch, capsys):
    """A model saved before its game's observation changed shape gets a clear
    error, not torch's size mismatch."""
    import shutil

    src = Path(baselines.__file__).parent / "models" / "tryasina_v0"
    weights = torch.load(src.with_suffix(".pt"), weights_only=True)
    narrowed = [k for k in weights if k.endswith("net.1.weight") or k.endswith("scale")]
    assert len(narrowed) == 6  # the input layer and scale of the shared, policy and value extractors
    for k in narrowed:  # as saved when each of the two rows was one column narrower
        weights[k] = weights[k][:, :-2] if k.endswith("weight") else weights[k][:, :-1]
    torch.save(weights, tmp_path / "old.pt")
    shutil.copy(src.with_suffix(".json"), tmp_path / "old.json")
    with pytest.raises(
        ValueError,
        match=r"old.pt does not fit .* tryasina_v0 \(observations \(2, 91\)\): "
        r"features_extractor.net.1.weight is \(256, 180\), the network's \(256, 182\)",
    ):
        baselines.load(tmp_path / "old")
    weights = torch.load(src.with_suffix(".pt"), weights_only=True)
    weights["extra"] = weights.pop("features_extractor.net.1.weight")
    torch.save(weights, tmp_path / "old.pt")
    with pytest.raises(ValueError, match=r"missing \['features_extractor.net.1.weight'\], unexpected \['extra'\]"):
        baselines.load(tmp_path / "old")
    # the round-robin's CLI prints such an error (a committed model gone out of date) instead of a traceback
    monkeypatch.setattr(ev, "round_robin", lambda *a, **k: baselines.load(tmp_path / "old"))
    with pytest.raises(SystemExit):
        ev.main(["tryasina_v0"])
    assert "does not fit the network" in capsys.readouterr().err


def test_committed_models_load_and_play_legal_moves():
    names = baselines.available()
    assert names, "no committed models in boardenvs/baselines/models"
    for name in names:
        agent = baselines.load(name)
        assert agent.name == name
        env = gymnasium.make(gym_id_of(boardenvs.game_class(agent.env_id)), **agent.options)
        obs, info = env.reset(seed=0)
        for _ in range(5):
            action, _ = agent.predict(obs, action_masks=info["action_mask"], deterministic=True)
            assert info["action_mask"][int(action)], name
            obs, _, term, trunc, info = env.step(int(action))
            if term or trunc:
                break
        assert (baselines.MODELS / f"{name}.pt").stat().st_size < 5_000_000


def test_model_names_and_player_counts(tmp_path):
    assert model_name("quess_v0") == "quess_v0" and model_name("hex_quoridor_v1", 4) == "hex_quoridor_v1_4p"
    assert game_options("tryasina_v0", 4) == {"num_players": 4}
    with pytest.raises(ValueError, match="played by 2 players"):
        game_options("quess_v0", 3)
    with pytest.raises(ValueError, match="unknown game"):
        train("chess_v0", steps=1)
    for bad in (0, -5, 2.5, True, "400"):  # refused before anything is built (no run folder)
        with pytest.raises(ValueError, match=rf"mcts_simulations must be a positive int .*, got {bad!r}"):
            train("quagmire_v0", steps=64, num_envs=2, mcts_share=0.5, mcts_simulations=bad, out=tmp_path / "m" / "m")
    assert not (tmp_path / "m").exists()


def test_opponent_mix_shares():
    pool = League()
    mix = OpponentMix(pool, {"random": 0.25})
    rng = np.random.default_rng(0)
    picks = [mix.pick(rng) for _ in range(2000)]
    fixed = sum(p is mix.fixed[0][0] for p in picks)
    assert 400 < fixed < 600  # 25% of 2000, the rest from the (empty) pool's initial opponent
    with pytest.raises(ValueError, match="add up to at most 1"):
        OpponentMix(pool, {"random": 0.7, "greedy": 0.6})


@pytest.mark.parametrize("env_id, options", [("tryasina_v0", {"num_players": 4}), ("hex_quoridor_v1", {})])
def test_shaped_rewards_are_potential_differences_that_telescope(env_id, options):
    """With gamma = 1 an episode's shaping adds up to -phi(its first state)
    (phi = 0 at the end): the game's own return is unchanged up to a constant
    per episode, and SB3's episode statistics keep the game's own rewards."""
    from boardenvs.wrappers import SB3VecEnv

    plain = SB3VecEnv(env_id, num_envs=6, opponent="random", **options)
    shaped = ShapedRewards(SB3VecEnv(env_id, num_envs=6, opponent="random", **options), 0.25, 7.0, 1.0)
    game, inner = shaped.inner.game, shaped.inner

    def phi():
        h = [
            heuristic_of(game)(inner.vec.states[i], game.params, int(inner.seats[i]), np.zeros(game.mask_size, np.int8))
            for i in range(6)
        ]
        return 0.25 * np.tanh(np.array(h) / 7.0)

    plain.seed(5)
    shaped.seed(5)
    plain.reset()
    shaped.reset()
    start, acc, rng, ended = phi(), np.zeros(6), np.random.default_rng(1), 0
    while ended < 12:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in plain.action_masks()])
        _, r_plain, d_plain, i_plain = plain.step(actions)
        _, r_shaped, d_shaped, i_shaped = shaped.step(actions)
        assert (d_plain == d_shaped).all()
        acc += r_shaped - r_plain
        assert np.abs(r_shaped - r_plain).max() <= 0.5 + 1e-6  # |phi| <= 0.25
        for i in np.flatnonzero(d_shaped):
            assert acc[i] == pytest.approx(-start[i], abs=1e-4)
            assert i_shaped[i]["episode"]["r"] == i_plain[i]["episode"]["r"] == r_plain[i]
            ended += 1
        now = phi()
        start[d_shaped], acc[d_shaped] = now[d_shaped], 0.0
    with pytest.raises(ValueError, match="no shaping scale for quess_v0"):
        train("quess_v0", steps=64, num_envs=2, shaping=0.1, progress_bar=False, verbose=0)


def test_cli_errors_are_clear(capsys, tmp_path):
    from boardenvs.baselines.tournament import main as eval_main
    from boardenvs.baselines.train import main as train_main

    with pytest.raises(SystemExit):
        train_main(["quess_v0", "--steps", "0"])
    assert "--steps must be a positive int" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["quess_v0", "--players", "4"])
    assert "played by 2 players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["quess_v0", "--gamma", "1.5"])
    assert "--gamma must be in (0, 1], got 1.5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["quess_v0", "--ent-coef", "-0.1"])
    assert "--ent-coef must be >= 0, got -0.1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["quess_v0", "--shaping", "0.2", "--steps", "64", "--num-envs", "2", "--out", str(tmp_path / "q")])
    assert "no shaping scale for quess_v0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["quagmire_v0", "--shaping", "-0.3", "--steps", "64", "--out", str(tmp_path / "neg")])
    assert "--shaping must be a number >= 0 (the potential's size), got -0.3" in capsys.readouterr().err
    assert not (tmp_path / "neg_tb").exists()
    with pytest.raises(SystemExit):
        train_main(
            [
                "quagmire_v0",
                "--mcts-share",
                "0.7",
                "--greedy-share",
                "0.5",
                "--steps",
                "64",
                "--out",
                str(tmp_path / "sh"),
            ]
        )
    assert "opponent shares must be >= 0 and add up to at most 1" in capsys.readouterr().err
    assert not (tmp_path / "sh_tb").exists()
    for argv, message in (
        (["--eval-vs", "random", "mctz"], "mctz"),
        (["--eval-games", "0"], "--eval-games must be a positive int"),
    ):
        with pytest.raises(SystemExit):
            train_main(["quagmire_v0", "--steps", "64", "--out", str(tmp_path / "ev"), *argv])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "ev_tb").exists()
    for argv, message in (
        (["--extractor-kwargs", "{hidden: 5}"], "--extractor-kwargs must be a JSON object"),
        (["--extractor-kwargs", "[1]"], "--extractor-kwargs must be a JSON object, got '[1]'"),
        (["--extractor-kwargs", '{"hiden": 5}'], "extractor options {'hiden': 5}: "),
        (["--extractor-kwargs", '{"hidden": 0}'], "extractor option 'hidden' must be an int >= 1, got 0"),
        (["--extractor-kwargs", '{"features_dim": 1.5}'], "'features_dim' must be an int >= 1, got 1.5"),
        (["--net-arch", "0"], "net_arch must be layer sizes >= 1, got [0]"),
        (["--net-arch", "64", "--init", str(tmp_path / "m")], "the network comes from the --init model"),
    ):
        with pytest.raises(SystemExit):
            train_main(["tryasina_v0", "--steps", "64", "--out", str(tmp_path / "net"), *argv])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "net_tb").exists()
    with pytest.raises(SystemExit):
        eval_main(["nope_v0"])
    assert "no committed model 'nope_v0'" in capsys.readouterr().err
    for argv, message in (
        (["random=0"], "NAME=N with N a positive int"),
        (["random"], "got 'random'"),
        (["random=\u00b2"], "NAME=N with N a positive int"),
        (["mctz=10"], "'mctz' is not an opponent here (random, greedy, mcts)"),
        (["random=10", "--games-vs", "random=20"], "--games-vs names 'random' twice"),
    ):
        with pytest.raises(SystemExit):
            eval_main(["quagmire_v0", "--games-vs", *argv])
        assert message in capsys.readouterr().err


def test_round_robin_plays_more_games_where_asked():
    """--games-vs: the model's games against one opponent; every other pair plays --games."""
    entry = ev.round_robin(
        "quagmire_v0",
        games=4,
        players=["baseline:quagmire_v0", "random", "greedy"],
        seed=1,
        verbose=False,
        games_vs={"random": 6},
    )
    games = {(r["agent"], r["opponent"]): r["games"] for r in entry["results"]}
    assert games == {
        ("baseline:quagmire_v0", "random"): 6,
        ("baseline:quagmire_v0", "greedy"): 4,
        ("random", "greedy"): 4,
    }
    assert entry["games_vs"] == {"random": 6} and "| quagmire_v0 | random | 6 |" in ev.markdown({"quagmire_v0": entry})
    # the ratings come with their bootstrap intervals and each player's games, in the players' order
    assert list(entry["elo"]) == ["baseline:quagmire_v0", "random", "greedy"]
    assert entry["elo_games"] == {"baseline:quagmire_v0": 10, "random": 10, "greedy": 8}
    assert entry["elo_bootstrap"] == {"samples": 1000, "seed": 1} and entry["elo_interval"]["random"] == [0.0, 0.0]
    with pytest.raises(ValueError, match="not among the opponents"):
        ev.round_robin("quagmire_v0", games=2, players=["baseline:quagmire_v0", "random"], games_vs={"mcts": 2})
    with pytest.raises(ValueError, match=r"games_vs\['random'\] must be a positive int, got 0"):
        ev.round_robin("quagmire_v0", games=2, players=["baseline:quagmire_v0", "random"], games_vs={"random": 0})


def test_baseline_names_are_opponents_everywhere():
    from boardenvs.wrappers import make_opponent, opponent_names

    name = baselines.available()[0]
    agent = baselines.load(name)
    assert any(n.startswith("baseline:") for n in opponent_names())
    opp = make_opponent(f"baseline:{name}")
    assert opp.name == f"baseline:{name}" and opp.deterministic
    res = evaluate("random", agent.env_id, games=4, opponent=f"baseline:{name}", seed=0, **agent.options)
    assert res["games"] == 4
    with pytest.raises(ValueError, match="no baseline 'nope'.*accepted"):
        make_opponent("baseline:nope")


def test_baseline_opponent_refuses_another_game():
    name = next(n for n in baselines.available() if not n.startswith("quess"))
    # the observations as the env gives them: flat by default, the planes with flatten=False
    for flatten, shown in ((True, "\\(288,\\)"), (False, "\\(6, 6, 8\\)")):
        env = gymnasium.make("boardenvs/Quess-v0", opponent=f"baseline:{name}", flatten=flatten)
        with pytest.raises(ValueError, match=f"baseline:{name} plays .* this env gives observations {shown}"):
            obs, info = env.reset(seed=0)  # raises here when the opponent moves first,
            env.step(int(np.flatnonzero(info["action_mask"])[0]))  # else on its first move


def test_an_opponent_given_as_the_agent_plays_as_it_is():
    # a built "baseline:" opponent plays its most likely action also as evaluate's agent (not re-wrapped to sample)
    from boardenvs.wrappers import make_opponent

    name = "tryasina_v0"
    by_name = evaluate(f"baseline:{name}", name, games=40, seed=3)
    built = evaluate(make_opponent(f"baseline:{name}"), name, games=40, seed=3)
    sampled = evaluate(baselines.load(name), name, games=40, seed=3, deterministic=False)
    deterministic = evaluate(baselines.load(name), name, games=40, seed=3, deterministic=True)
    assert built == by_name == deterministic
    assert sampled["by_seat"] != deterministic["by_seat"] or sampled["wins"] != deterministic["wins"]


def test_method_follows_the_init_chain():
    ppo = {"name": "m"}
    assert ev.method(ppo) == "PPO"
    distilled = {"distilled": {"teacher": "greedy", "student_share": 0.0}}
    dagger = {"distilled": {"teacher": "greedy", "student_share": 0.5}, "init": distilled}
    assert ev.method({"init": {"init": dagger}}) == "distilled from greedy, distilled from greedy (DAgger), PPO"
    assert ev.method({"init": ppo}) == "PPO"  # PPO continued is still PPO
    xi = {"expert_iteration": {"simulations": 64, "iterations": [{}] * 4}}
    assert (
        ev.method({**xi, "init": {**xi, "init": dagger}})
        == "distilled from greedy, distilled from greedy (DAgger), expert iteration (search:64, 8 iterations)"
    )
    assert (
        ev.method({**xi, "init": {"expert_iteration": {"simulations": 32, "iterations": [{}]}, "init": ppo}})
        == "PPO, expert iteration (search:32, 1 iteration), expert iteration (search:64, 4 iterations)"
    )


def _package_models():
    return {p.name: p.read_bytes() if p.is_file() else "folder" for p in baselines.MODELS.iterdir()}


def test_train_then_play_the_pt_it_wrote_wherever_an_opponent_is_named(tmp_path, monkeypatch, capsys):
    """train's default output is a new run folder in the current directory
    (not the package's committed model), and the .pt it writes (or its path
    without .pt) is an opponent for play --vs, watch --vs,
    gymnasium.make(opponent=...) and evaluate."""
    import io
    import sys

    from boardenvs.wrappers import make_opponent

    from boardenvs.cli import main

    committed = _package_models()
    monkeypatch.chdir(tmp_path)
    config = train(
        "quagmire_v0",
        steps=64,
        num_envs=2,
        n_steps=32,
        batch_size=64,
        eval_every=0,
        progress_bar=False,
        warm_start=0,
        verbose=0,
    )
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("quagmire_v0-") and {p.name for p in run.iterdir()} >= {
        "quagmire_v0.pt",
        "quagmire_v0.json",
    }
    assert _package_models() == committed  # the committed quagmire_v0.pt is untouched
    pt = str(run.relative_to(tmp_path) / "quagmire_v0.pt")
    assert json.loads((run / "quagmire_v0.json").read_text())["budget"] == config["budget"]

    # boardenvs play --vs PATH.pt: the model (seat 0) places first, then you quit
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "quagmire_v0", "--seat", "1", "--vs", pt, "--out", "g.json"]) == 0
    assert "player_0 (x) plays @" in capsys.readouterr().out
    # watch --vs: the .pt and its path without .pt
    assert main(["watch", "quagmire_v0", "--vs", pt, pt[: -len(".pt")], "--quiet", "--max-moves", "6"]) == 0
    assert "error" not in capsys.readouterr().err
    # gymnasium.make(opponent=PATH) and evaluate, as the agent and as the opponent
    env = gymnasium.make("boardenvs/Quagmire-v0", opponent=pt, seat=1)
    env.reset(seed=0)
    assert env.unwrapped.opponent.name == pt and env.unwrapped.opponent.deterministic
    res = evaluate(pt, "quagmire_v0", games=4, opponent=pt, seed=0)
    assert res["wins"] + res["draws"] + res["losses"] == 4
    assert make_opponent(str(run / "quagmire_v0.json")).name.endswith("quagmire_v0.json")
    # a .pt whose .json is gone, and a path that is nothing, are named
    lone = tmp_path / "lone.pt"
    lone.write_bytes((run / "quagmire_v0.pt").read_bytes())
    with pytest.raises(ValueError, match=r"a saved model is a .pt/.json pair .* 'lone.json' is missing"):
        make_opponent("lone.pt")
    # (a mistyped path says so, not "unknown opponent" with the list of names)
    with pytest.raises(
        ValueError,
        match=r"opponent 'nothing/here.pt': no such file \(.*nothing/here.pt does not exist\); "
        r"the path of a saved model",
    ):
        make_opponent("nothing/here.pt")
    with pytest.raises(
        ValueError, match=r"unknown opponent 'nothing': accepted names are .* or the path of a saved model"
    ):
        make_opponent("nothing")
    assert main(["play", "quagmire_v0", "--vs", "lone.pt"]) == 2
    assert "'lone.json' is missing" in capsys.readouterr().err


def test_an_sb3_zip_is_an_opponent_everywhere_too(tmp_path, monkeypatch):
    """Loaded with trust (an SB3 zip runs code when loaded), the
    zip's opponent is accepted wherever an opponent is; its path alone is
    refused (tests/test_trust.py)."""
    from boardenvs.wrappers import make_opponent
    from sb3_contrib import MaskablePPO

    from boardenvs.errors import UntrustedFileError
    from boardenvs.opponents import load_opponent

    monkeypatch.chdir(tmp_path)
    MaskablePPO("MlpPolicy", gymnasium.make("boardenvs/Quagmire-v0", radius=2, flatten=True), n_steps=64, seed=0).save(
        "model"
    )
    for spec in ("model.zip", "model"):
        trusted = load_opponent(spec, trust=True)
        assert trusted.deterministic and trusted.name == spec
        with pytest.raises(UntrustedFileError, match="trust=True"):
            make_opponent(spec)
        env = gymnasium.make("boardenvs/Quagmire-v0", radius=2, opponent=trusted, seat=1, first_player=0)
        obs, info = env.reset(seed=0)  # the model (flattened observations) has placed a piece on the planes
        assert env.unwrapped.position().turn == 1
    assert evaluate(load_opponent("model.zip", trust=True), "quagmire_v0", games=2, radius=2)["games"] == 2
    (tmp_path / "junk.zip").write_bytes(b"no model")
    with pytest.raises(ValueError, match="'junk.zip' is not a saved SB3 model"):
        load_opponent("junk.zip", trust=True)


def test_train_and_distill_help_name_the_run_folder_default(capsys):
    from boardenvs.baselines import distill as distill_module
    from boardenvs.baselines.train import main as train_main

    for fn in (train_main, distill_module.main):
        with pytest.raises(SystemExit):
            fn(["--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "default: a new run folder, runs/<name>-<date>-<time>/<name>" in text
        assert "models folder" not in text
    guide = (Path(__file__).parent.parent / "docs" / "guide" / "training.md").read_text()  # the docs' training guide
    assert "`runs/<name>-<date>-<time>/<name>.pt`" in guide and "--vs runs/hq4.pt" in guide


def test_the_demo_prints_a_table_a_newcomer_can_read(tmp_path, capsys):
    """``make demo``'s end says what each opponent is, the trained
    model's win rate with its interval beside the shipped model's and a
    random agent's against the same opponent, which side the model played,
    and records the game with the model named in the legend (a tiny run)."""
    from boardenvs.baselines.demo import main as demo_main

    assert demo_main(["quagmire_v0", "--steps", "256", "--games", "2", "--out", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert (
        table[0]
        == "| opponent | what it is | your model: W-D-L | win rate [95% CI] | the shipped model | a random agent |"
    )
    rows = {line.split(" | ")[0].strip("| "): line for line in table[1:]}
    assert "a uniformly random legal move" in rows["random"] and "one-move heuristic" in rows["greedy"]
    assert re.search(r"\| \d+% \| \d+% \|$", rows["greedy"]), rows["greedy"]  # the shipped model's and random's
    assert "your model played player_0" in out and "the shipped model (baseline:quagmire_v0" in out
    assert (tmp_path / "demo" / "quagmire_v0.gif").is_file()


def test_a_recording_names_the_players_in_its_legend():
    """``record_game(..., players=[...])`` / ``position_frames``: the names
    show beside the seats (the frames differ from unnamed ones); a wrong
    count is refused."""
    from boardenvs.wrappers.recording import position_frames

    start = boardenvs.position("quagmire_v0", radius=2)
    plain, named = position_frames(start, []), position_frames(start, [], players=["your model", "greedy"])
    assert plain[0].shape == named[0].shape and not np.array_equal(plain[0], named[0])
    with pytest.raises(ValueError, match="2 strs"):
        position_frames(start, [], players=["only one"])
