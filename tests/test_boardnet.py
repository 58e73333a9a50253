"""The board network (boardenvs.baselines.boardnet): every game's declared
action layout reads each action off the cells it names, for every variant,
and the network built from it is the size its config promises."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boardenvs.baselines import boardnet as bn
from boardenvs.baselines.networks import check_config, model_config, new_policy, trainable_ids
from gymnasium import spaces
from registry_cases import variant_cases

import boardenvs
from boardenvs.registry import make_game

CASES = variant_cases(trainable_ids())
BOARD_CASES = [c for c in CASES if bn.action_layout(make_game(c.values[0], **c.values[1])) is not None]


def _policy(game, **trunk):
    layout = bn.action_layout(game)
    info = game.info
    space = spaces.Box(info.obs_low, info.obs_high, info.obs_low.shape, "int8")
    return bn.BoardPolicy(
        space,
        spaces.Discrete(info.num_actions),
        lambda _: 1e-3,
        layout=layout,
        features_extractor_kwargs={"pieces": bn.trunk_pieces(layout), **trunk},
    )


def test_the_board_games_declare_a_layout_and_tryasina_does_not():
    assert {c.values[0] for c in BOARD_CASES} == set(boardenvs.ENV_IDS) - {"tryasina_v0"}
    assert model_config("tryasina_v0", None)["extractor"] == "mlp"  # its tracks are no board: the dense MLP


@pytest.mark.parametrize("env_id, variant", BOARD_CASES)
def test_every_layout_tiles_the_actions_and_builds_the_counted_network(env_id, variant):
    game = make_game(env_id, **variant)
    layout = bn.action_layout(game)  # checked: each action read by one segment
    policy = _policy(game, hex=env_id in ("quagmire_v0", "hex_quoridor_v1"))
    counted = bn.board_parameters(tuple(game.info.obs_low.shape), layout)
    assert sum(p.numel() for p in policy.parameters()) == counted
    obs = torch.as_tensor(np.stack([game.observe(game.new_state(0, 1), 0)] * 3).astype(np.float32))
    logits = policy.action_net(policy.extract_features(obs))
    assert logits.shape == (3, game.num_actions) and torch.isfinite(logits).all()
    assert policy.value_net(policy.extract_features(obs)).shape == (3, 1)


@pytest.mark.parametrize("env_id, variant", BOARD_CASES)
def test_a_cell_reaches_exactly_the_actions_that_name_it(env_id, variant):
    """Features in one cell only: the "cells" actions that tap that cell
    change, no other one; a "pairs" segment changes in that cell's row and
    column only."""
    game = make_game(env_id, **variant)
    layout = bn.action_layout(game)
    shape = game.info.obs_low.shape
    cells = shape[0] * shape[1]
    head = bn.BoardHead(8, shape[:2], game.num_actions, layout)
    torch.manual_seed(0)
    for p in head.parameters():
        torch.nn.init.normal_(p)
    pieces = len(bn.trunk_pieces(layout))
    for cell in (0, cells // 2, cells - 1):
        base = torch.zeros(1, 8 * cells + pieces * cells)
        lit = base.clone()
        lit[0, torch.arange(8) * cells + cell] = 1.0
        changed = set(np.flatnonzero((head(lit) - head(base)).abs().detach().numpy()[0] > 1e-9).tolist())
        expected = set()
        for seg in layout:
            if seg["kind"] == "cells":
                taps = seg["taps"][..., 0]
                expected |= {seg["first"] + k for k in np.flatnonzero((taps == cell).any(axis=1))}
            elif seg["kind"] == "pairs":
                where = np.flatnonzero(seg["cells"] == cell)
                n = len(seg["cells"])
                for i in where:
                    expected |= {seg["first"] + i * n + j for j in range(n)} | {
                        seg["first"] + j * n + i for j in range(n)
                    }
            elif seg["kind"] == "board":
                expected |= set(range(seg["first"], seg["first"] + seg["count"]))
        cell_actions = {
            a
            for seg in layout
            if seg["kind"] in ("cells", "pairs", "board")
            for a in range(
                seg["first"],
                seg["first"]
                + (
                    len(seg["taps"])
                    if seg["kind"] == "cells"
                    else len(seg["cells"]) ** 2
                    if seg["kind"] == "pairs"
                    else seg["count"]
                ),
            )
        }
        assert changed & cell_actions == expected, (env_id, cell)


def test_a_piece_window_is_the_features_around_the_piece():
    """Quagmire's moves read a 5x5 window of the grid centred on the piece:
    zeros off the grid, all zeros when the piece is not on the board."""
    game = make_game("quagmire_v0")
    h, w, _ = game.info.obs_low.shape
    head = bn.BoardHead(3, (h, w), game.num_actions, bn.action_layout(game))
    features = torch.arange(2 * 3 * h * w, dtype=torch.float32).view(2, 3, h * w)
    onehot = torch.zeros(2, h * w)
    onehot[0, 1 * w + 0] = 1.0  # row 1, column 0: the window runs off the grid on two sides
    got = head._window(features, onehot, 5).view(2, 3, 5, 5)
    grid = features.view(2, 3, h, w)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            r, c = 1 + dr, 0 + dc
            want = grid[0, :, r, c] if 0 <= r < h and 0 <= c < w else torch.zeros(3)
            assert torch.equal(got[0, :, dr + 2, dc + 2], want)
    assert not got[1].any()  # row 1 has no piece


def test_the_trunk_marks_each_piece_by_reading_order():
    game = make_game("quagmire_v0")
    h, w, c = game.info.obs_low.shape
    space = spaces.Box(game.info.obs_low, game.info.obs_high, game.info.obs_low.shape, "int8")
    trunk = bn.BoardTrunk(space, channels=4, layers=1, hex=True, pieces=((2, 0), (2, 1)))
    obs = torch.zeros(1, h, w, c)
    obs[0, 5, 1, 2] = obs[0, 2, 4, 2] = 1.0  # own pieces at cells 5 * w + 1 and 2 * w + 4
    out = trunk(obs)[0, 4 * h * w :].view(2, h * w)
    assert out[0].argmax() == 2 * w + 4 and out[1].argmax() == 5 * w + 1 and out.sum() == 2


def test_bad_layouts_are_refused_naming_the_game(monkeypatch):
    from boardenvs.games import quess

    game = make_game("quess_v0")
    bad = (
        (
            [{"kind": "pairs", "first": 0, "cells": np.arange(36)}, {"kind": "board", "first": 5, "count": 1}],
            "read by 2",
        ),
        ([{"kind": "pairs", "first": 0, "cells": np.arange(35)}], "action 1225 is read by 0"),
        ([{"kind": "pairs", "first": 0, "cells": np.arange(36) + 1}], "names cells of the grid"),
        ([{"kind": "square", "first": 0, "count": 1296}], "kind 'square'"),
        ([{"kind": "piece", "first": 0, "count": 1296, "plane": 9, "rank": 0, "window": 5}], "one of the 8 planes"),
    )
    for layout, words in bad:
        monkeypatch.setitem(quess.TOOLS["training"], "actions", lambda g, layout=layout: layout)
        with pytest.raises(ValueError, match=f"quess_v0's action layout: .*{words}"):
            bn.action_layout(game)


def test_a_board_config_is_checked_before_anything_is_built():
    config = model_config("quess_v0", None)
    assert config["extractor"] == "board" and config["net_arch"] == []
    assert check_config(config) == sum(p.numel() for p in new_policy(config).parameters())
    for change, words in (
        ({"extractor_kwargs": {"channels": 10**4}}, "at most 4_096"),
        ({"extractor_kwargs": {"split": [1]}}, "board network takes no 'split'"),
        ({"net_arch": [64]}, "net_arch must be \\[\\] for the board network"),
        ({"extractor_kwargs": {"channels": 4096, "layers": 16}}, "more than 20_000_000"),
    ):
        with pytest.raises(ValueError, match=words):
            check_config({**config, **change})
    with pytest.raises(ValueError, match="tryasina_v0 declares no action layout"):
        check_config(
            {**model_config("tryasina_v0", None), "extractor": "board", "extractor_kwargs": {}, "net_arch": []}
        )


@pytest.mark.parametrize("env_id", ["quess_v0", "tryasina_v0"])
def test_the_update_evaluates_actions_as_sb3_contrib_does(env_id):
    """OnePassMasking: the values, log-probabilities and entropy of
    sb3-contrib's MaskableActorCriticPolicy.evaluate_actions, and the same
    gradients, from one log_softmax (the board policy and the dense one)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    config = model_config(env_id, None)
    ours = new_policy(config)
    assert type(ours).__mro__[1].__name__ == "OnePassMasking"
    game = make_game(env_id)
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.integers(0, 2, (16, *game.info.obs_low.shape)).astype(np.float32))
    masks = rng.random((16, game.num_actions)) < 0.1
    masks[np.arange(16), rng.integers(0, game.num_actions, 16)] = True
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks]).float()
    got = ours.evaluate_actions(obs, actions, action_masks=masks)
    sum(x.sum() for x in got).backward()
    ours_grads = [p.grad.clone() for p in ours.parameters()]
    ours.zero_grad()
    want = MaskableActorCriticPolicy.evaluate_actions(ours, obs, actions, action_masks=masks)
    sum(x.sum() for x in want).backward()
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    for a, p in zip(ours_grads, ours.parameters()):
        torch.testing.assert_close(a, p.grad, rtol=1e-4, atol=1e-5)
