"""Position basics: legal moves, immutability, text round-trip, the action
frame of each seat (QU-1, QU-3), observations (games/quess/__init__.py card)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import IllegalMoveError
from boardenvs.position import Position

ROWS = "ABCDEF"
LIGHT_ZONE = {"F1", "E1", "F2", "D1", "E2", "F3"}
DARK_ZONE = {"A6", "A5", "B6", "A4", "B5", "C6"}

# QU-2, QU-4..QU-7: Light's opening moves, worked out by hand from the rules.
# D1 triangle: C1, D2 (E1 own).  E2 triangle: D2, E3 (E1, F2 own).
# F3 triangle: E3, F4 (F2 own).  E1 circle: C2, D3 (F3 own).
# F2 circle: D3, E4 (D1 own).  F1 square: walled in by E1 and F2.
LIGHT_OPENING = ["D1-C1", "D1-D2", "E1-C2", "E1-D3", "E2-D2", "E2-E3", "F2-D3", "F2-E4", "F3-E3", "F3-F4"]


def idx(name: str) -> int:
    return ROWS.index(name[0].upper()) * 6 + int(name[1]) - 1


def sq(i: int) -> str:
    return ROWS[i // 6] + str(i % 6 + 1)


def turned(move: str) -> str:
    """The move turned 180 degrees (square i -> 35 - i)."""
    a, b = move.split("-")
    return f"{sq(35 - idx(a))}-{sq(35 - idx(b))}"


def board_of(pos: Position) -> list[str]:
    lines = pos.to_text().splitlines()
    k = lines.index("board:")
    return [c for r in range(6) for c in lines[k + 2 + r].split()[1:]]


def random_game(seed: int, first: int, max_plies: int = 400):
    """Positions along a seeded random game (the initial one first, the end last)."""
    rng = random.Random(seed)
    pos = boardenvs.position("quess_v0", first_player=first)
    out = [pos]
    while not pos.is_terminal and len(out) <= max_plies:
        pos = pos.play(rng.choice(pos.legal_moves()))
        out.append(pos)
    return out


@pytest.fixture(scope="module")
def games():
    return [random_game(seed, seed % 2) for seed in range(12)]


# --- legal moves ----------------------------------------------------------------


def test_initial_legal_moves_for_light_exactly():
    """QU-2, QU-4..QU-7: the ten opening moves of Light."""
    pos = boardenvs.position("quess_v0", first_player=0)
    assert pos.to_move == 0 and pos.turn == 0 and not pos.is_terminal
    assert sorted(pos.legal_moves()) == LIGHT_OPENING
    assert len(pos.legal_actions()) == 10


def test_initial_legal_moves_for_dark_exactly():
    """QU-2/QU-3: Dark opening (first_player=1) -- Light's turned 180 degrees."""
    pos = boardenvs.position("quess_v0", first_player=1)
    expected = ["A4-A3", "A4-B4", "A5-B3", "A5-C4", "B5-B4", "B5-C5", "B6-C4", "B6-D5", "C6-C5", "C6-D6"]
    assert sorted(pos.legal_moves()) == expected
    assert sorted(turned(m) for m in LIGHT_OPENING) == expected


def test_legal_moves_and_actions_agree():
    pos = boardenvs.position("quess_v0", first_player=0)
    assert pos.legal_moves() == [pos.action_to_move(a) for a in pos.legal_actions()]
    mask = pos.action_mask()
    assert mask.dtype == np.int8 and mask.shape == (1296,)
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(pos.legal_actions())


# --- immutability, copies ---------------------------------------------------------


def test_play_returns_a_new_position_and_leaves_the_old_one():
    pos = boardenvs.position("quess_v0", first_player=0)
    text, state = pos.to_text(), pos.state.copy()
    new = pos.play("F3-E3")
    assert new is not pos and new.state is not pos.state
    assert pos.to_text() == text
    assert np.array_equal(pos.state, state)
    assert sorted(pos.legal_moves()) == LIGHT_OPENING
    assert new.to_move == 1 and new.turn == 1
    assert board_of(new)[idx("E3")] == "T" and board_of(new)[idx("F3")] == "."
    # the old position can still be played, independently
    other = pos.play("D1-C1")
    assert board_of(other)[idx("C1")] == "T" and board_of(other)[idx("E3")] == "."
    assert board_of(new)[idx("C1")] == "."


def test_play_accepts_action_ids():
    pos = boardenvs.position("quess_v0", first_player=0)
    a = pos.move_to_action("F3-E3")
    assert pos.play(a).to_text() == pos.play("F3-E3").to_text()
    assert pos.play(np.int64(a)).to_text() == pos.play("F3-E3").to_text()


def test_copy_is_independent():
    pos = boardenvs.position("quess_v0", first_player=0).play("F3-E3")
    twin = pos.copy()
    assert twin is not pos and twin.state is not pos.state
    assert twin.to_text() == pos.to_text() and twin == pos
    text = pos.to_text()
    # a Position never changes: its state is a copy of its row, writing into it reaches nothing
    twin.state[:] = 0
    handed = twin.state
    handed[:] = boardenvs.position("quess_v0", first_player=1).state
    assert pos.to_text() == text == twin.to_text()
    assert twin.play("A4-B4").to_text() != text and pos.to_text() == text
    # a Position built from a row keeps its own copy of it
    row = pos.state
    built = Position(pos.game, row)
    row[:] = 0
    assert built.to_text() == text
    with pytest.raises(ValueError, match="int64 array of shape"):
        Position(pos.game, row[:-1])
    with pytest.raises(TypeError, match="boardenvs Game"):
        Position("quess_v0", row)


def test_illegal_play_leaves_position_unchanged():
    pos = boardenvs.position("quess_v0", first_player=0)
    text = pos.to_text()
    with pytest.raises(IllegalMoveError):
        pos.play("F1-E1")
    assert pos.to_text() == text


# --- text round trip ------------------------------------------------------------------


def test_initial_text():
    text = boardenvs.position("quess_v0", first_player=0).to_text()
    assert text.splitlines()[:8] == [
        "game: quess_v0",
        f"options: max_turns={boardenvs.games.quess.QuessGame.defaults['max_turns']} superko_memory=4096",
        "to_move: player_0",
        "turn: 0",
        "status: playing",
        "reason: -",
        "alive: 1 1",
        "returns: 0 0",
    ]
    assert text.splitlines()[8:] == [
        "board:",
        "  1 2 3 4 5 6",
        "A . . . t c s",
        "B . . . . t c",
        "C . . . . . t",
        "D T . . . . .",
        "E C T . . . .",
        "F S C T . . .",
        "since_capture:",
    ]


def test_text_round_trip_on_random_games(games):
    """to_text / from_text round-trip on positions sampled along random games,
    terminal ones included: same text, same legal moves, same future (the
    superko history is rebuilt from since_capture)."""
    rng = random.Random(5)
    checked = terminal = 0
    for game in games:
        samples = set(rng.sample(range(len(game)), min(8, len(game)))) | {len(game) - 1}
        for k in sorted(samples):
            pos = game[k]
            back = Position.from_text(pos.to_text())
            assert back.to_text() == pos.to_text()
            assert back.legal_moves() == pos.legal_moves()
            assert back == pos and hash(back) == hash(pos)
            assert (back.to_move, back.turn, back.is_terminal, back.returns, back.end_reason) == (
                pos.to_move,
                pos.turn,
                pos.is_terminal,
                pos.returns,
                pos.end_reason,
            )
            for j in range(k + 1, min(k + 30, len(game))):  # replay the same moves from both
                last = int(game[j].state[E.H_LAST_ACTION])
                back = back.play(last)
                assert back.to_text() == game[j].to_text()
                assert back.legal_moves() == game[j].legal_moves()
            checked += 1
            terminal += pos.is_terminal
    assert checked > 50 and terminal == len(games)


def test_text_round_trip_keeps_options():
    pos = boardenvs.position("quess_v0", first_player=0, max_turns=50).play("F3-E3")
    back = Position.from_text(pos.to_text())
    assert "max_turns=50" in pos.to_text()
    assert int(back.game.params[E.P_MAX_TURNS]) == 50


# --- the env's snapshot -----------------------------------------------------------------


def test_env_position_is_a_snapshot():
    env = boardenvs.make("quess_v0", first_player=0)
    env.reset(seed=0)
    snap = env.unwrapped.position()
    text = snap.to_text()
    env.step(env.unwrapped.move_to_action("F3-E3"))
    assert snap.to_text() == text  # unchanged by the env's step
    now = env.unwrapped.position()
    assert now.to_text() == boardenvs.position("quess_v0", first_player=0).play("F3-E3").to_text()
    now.state[:] = 0  # and the env is unchanged by changes to the snapshot
    assert env.unwrapped.position().to_text() == snap.play("F3-E3").to_text()


# --- action frames (QU-1, card) -----------------------------------------------------------


def test_light_action_ids_absolute_dark_turned():
    """Card: action = from * 36 + to, squares row * 6 + col in the acting
    player's frame; for Dark, square i is 35 - i."""
    light = boardenvs.position("quess_v0", first_player=0)
    dark = boardenvs.position("quess_v0", first_player=1)
    assert light.move_to_action("F3-E3") == idx("F3") * 36 + idx("E3")
    assert dark.move_to_action("C6-D6") == (35 - idx("C6")) * 36 + (35 - idx("D6"))
    # the same action id is the mirror move for the other seat
    assert dark.action_to_move(light.move_to_action("F3-E3")) == "A4-B4"
    # both seats see the same opening actions in their own frame
    assert light.legal_actions() == dark.legal_actions()


def test_action_to_move_and_move_to_action_are_inverse(games):
    """On every legal action of positions of random games, both seats."""
    seats = set()
    n = 0
    for game in games:
        for pos in game[::3]:
            if pos.is_terminal:
                continue
            seats.add(pos.to_move)
            for a in pos.legal_actions():
                m = pos.action_to_move(a)
                assert pos.move_to_action(m) == a
                assert pos.move_to_action(m.lower()) == a
                frm, to = (idx(s) for s in m.split("-"))
                if pos.to_move == 1:
                    frm, to = 35 - frm, 35 - to
                assert a == frm * 36 + to
                n += 1
    assert seats == {0, 1} and n > 1000


def test_env_action_frames_both_seats():
    """The env's action_to_move / move_to_action use the frame of the agent to act."""
    env = boardenvs.make("quess_v0", first_player=0)
    env.reset(seed=0)
    raw = env.unwrapped
    for _ in range(6):
        mask = env.observe(env.agent_selection)["action_mask"]
        for a in np.flatnonzero(mask):
            assert raw.move_to_action(raw.action_to_move(int(a))) == a
        pos = raw.position()
        assert sorted(raw.action_to_move(int(a)) for a in np.flatnonzero(mask)) == sorted(pos.legal_moves())
        env.step(int(np.flatnonzero(mask)[-1]))


def test_dark_first_mask_equals_light_first_mask_in_the_env():
    """Card: one policy plays both seats -- at the start, Dark's mask in its
    own frame is Light's."""
    masks = []
    for first in (0, 1):
        env = boardenvs.make("quess_v0", first_player=first)
        env.reset(seed=0)
        masks.append(env.observe(f"player_{first}")["action_mask"])
    assert np.array_equal(masks[0], masks[1]) and masks[0].sum() == 10


def test_lower_case_input_accepted():
    pos = boardenvs.position("quess_v0", first_player=0)
    assert pos.play("f3-e3").to_text() == pos.play("F3-E3").to_text()
    assert pos.play("F3-e3").to_text() == pos.play("F3-E3").to_text()
    dark = pos.play("F3-E3")
    assert dark.play("c6-d6").to_text() == dark.play("C6-D6").to_text()


# --- observations ------------------------------------------------------------------------


def _planes(obs, plane):
    return {sq(i) for i in range(36) if obs[i // 6, i % 6, plane]}


def test_observation_shape_dtype_and_light_planes():
    """Card: int8 (6, 6, 8); planes 0-2 own T/C/S, 3-5 opponent's, 6 own zone,
    7 opponent zone; Light's frame is the board as written."""
    obs = boardenvs.position("quess_v0", first_player=0).observation(0)
    assert obs.shape == (6, 6, 8) and obs.dtype == np.int8
    assert set(np.unique(obs)) <= {0, 1}
    assert _planes(obs, 0) == {"D1", "E2", "F3"}
    assert _planes(obs, 1) == {"E1", "F2"}
    assert _planes(obs, 2) == {"F1"}
    assert _planes(obs, 3) == {"A4", "B5", "C6"}
    assert _planes(obs, 4) == {"A5", "B6"}
    assert _planes(obs, 5) == {"A6"}
    assert _planes(obs, 6) == LIGHT_ZONE
    assert _planes(obs, 7) == DARK_ZONE


def test_observation_dark_sees_itself_bottom_left():
    """Card: Dark's board is turned 180 degrees, so at the start both seats
    see the same picture: own pieces and zone bottom-left."""
    pos = boardenvs.position("quess_v0", first_player=0)
    assert np.array_equal(pos.observation(1), pos.observation(0))
    dark = pos.observation(1)
    assert _planes(dark, 2) == {"F1"}  # Dark's square A6, turned
    assert _planes(dark, 6) == LIGHT_ZONE  # its own zone, turned
    assert _planes(dark, 5) == {"A6"}  # Light's square F1, turned


def test_observation_frames_along_random_games(games):
    """For every sampled position: Light's planes are the board as written;
    Dark's are the same board turned 180 degrees with own/opponent swapped;
    the env's observation equals the Position's."""
    shapes = "TCS"
    for game in games:
        for pos in game[::5]:
            board = board_of(pos)
            o0, o1 = pos.observation(0), pos.observation(1)
            for i, ch in enumerate(board):
                r, c = divmod(i, 6)
                want = np.zeros(6, np.int8)
                if ch != ".":
                    want[shapes.index(ch.upper()) + (0 if ch.isupper() else 3)] = 1
                assert np.array_equal(o0[r, c, :6], want)
            assert np.array_equal(o1[:, :, 0:3], np.rot90(o0[:, :, 3:6], 2))
            assert np.array_equal(o1[:, :, 3:6], np.rot90(o0[:, :, 0:3], 2))
            assert np.array_equal(o1[:, :, 6:8], o0[:, :, 6:8])


def test_env_observation_matches_position():
    env = boardenvs.make("quess_v0", first_player=1)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(10):
        pos = env.unwrapped.position()
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            assert np.array_equal(obs["observation"], pos.observation(seat))
            assert obs["observation"].dtype == np.int8
            if agent == env.agent_selection:
                assert np.array_equal(obs["action_mask"], pos.action_mask())
            else:
                assert not obs["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
