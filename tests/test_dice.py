"""The dice variant's action classes per game (Game.action_classes), read
against each move's notation, and DiceVariant's handling of illegal actions."""

from __future__ import annotations

import numpy as np
import pytest
from boardenvs.wrappers.dice import DiceVariant

import boardenvs
from boardenvs.errors import IllegalActionError


def _random_positions(env_id, seeds=3, plies=40):
    for seed in range(seeds):
        pos = boardenvs.position(env_id)
        rng = np.random.default_rng(seed)
        for _ in range(plies):
            if pos.is_terminal:
                break
            yield pos
            pos = pos.play(int(rng.choice(pos.legal_actions())))


def test_quess_classes_are_the_shape_on_the_from_square():
    for pos in _random_positions("quess_v0"):
        game = pos.game
        classes = game.action_classes(pos.state)
        cells = game.board_cells(pos.state)
        seat = pos.to_move
        for a in pos.legal_actions():
            frm = pos.action_to_move(a).split("-")[0]
            code = int(cells[(ord(frm[0]) - ord("A")) * 6 + int(frm[1]) - 1])
            assert code - 1 - 3 * seat == classes[a] and game.action_class_names[classes[a]] in (
                "triangle",
                "circle",
                "square",
            )


def test_quagmire_classes_read_off_the_notation():
    seen = set()
    for pos in _random_positions("quagmire_v0"):
        classes = pos.game.action_classes(pos.state)
        for a in pos.legal_actions():
            move = pos.action_to_move(a)
            want = -1 if move.startswith("@") else 2 if "^" in move else 1 if move.count("-") == 2 else 0
            assert classes[a] == want
            seen.add(want)
    assert seen == {-1, 0, 1, 2}


@pytest.mark.parametrize("mode", ["random", "lose"])
def test_an_action_outside_the_rolled_class_follows_illegal_action(mode):
    for seed in range(20):
        env = DiceVariant(boardenvs.make("quess_v0", illegal_action=mode))
        env.reset(seed=seed)
        agent = env.agent_selection
        obs = env.observe(agent)
        game, state = env.unwrapped.game, env.unwrapped._state
        full = game.legal_mask(state)
        other = np.flatnonzero(full & (obs["action_mask"] == 0))
        if other.size == 0:
            continue
        rolled = env.class_names[env.roll]
        with pytest.warns(UserWarning, match="illegal_action") as warned:
            env.step(int(other[0]))
        assert env.infos[agent]["illegal_action"] is True
        if mode == "lose":
            assert env.terminations[agent] and env.rewards[agent] == -1.0
            assert f"not of the rolled class {rolled!r}" in str(warned[0].message)
        else:
            assert f"for the roll {rolled!r}" in str(warned[0].message)
            assert env.unwrapped.position().turn == 1
        return
    raise AssertionError("no seed rolled a class that left other legal moves out")


def test_dice_variant_raise_names_the_roll_and_changes_nothing():
    env = DiceVariant(boardenvs.make("quagmire_v0", radius=3, illegal_action="raise"))
    env.reset(seed=0)
    for _agent in env.agent_iter(max_iter=40):
        obs, *_ = env.last()
        full = env.unwrapped.game.legal_mask(env.unwrapped._state)
        other = np.flatnonzero(full & (obs["action_mask"] == 0))
        if env.roll >= 0 and other.size:
            before = env.unwrapped.position().to_text()
            with pytest.raises(IllegalActionError, match=env.class_names[env.roll]):
                env.step(int(other[0]))
            assert env.unwrapped.position().to_text() == before
            return
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    raise AssertionError("no restricted turn with other legal moves came up")
