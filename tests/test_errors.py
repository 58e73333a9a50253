"""C-6: illegal input to the env, to Position, to the notation and text parsers.

Every rejected input raises a ValueError subclass that says what is wrong, and
never changes any state.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

import boardenvs
from boardenvs import IllegalActionError, IllegalMoveError, NotationError
from boardenvs.position import Position


def test_error_classes_are_value_errors():
    """C-6: a ValueError subclass, so `except ValueError` catches them."""
    for cls in (IllegalActionError, IllegalMoveError, NotationError):
        assert issubclass(cls, ValueError)


# --- the AEC env ---------------------------------------------------------------


def _env(first=0, **kw):
    env = boardenvs.make("quess_v0", first_player=first, **{"illegal_action": "raise", **kw})
    env.reset(seed=1)
    return env


def _legal(env) -> list[int]:
    return [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]


def _snapshot(env):
    raw = env.unwrapped
    return {
        "state": raw._state.copy(),
        "obs": {a: copy.deepcopy(env.observe(a)) for a in env.possible_agents},
        "agent_selection": env.agent_selection,
        "agents": list(env.agents),
        "rewards": dict(env.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": copy.deepcopy(env.infos),
        "text": raw.position().to_text(),
    }


def _assert_same(before, after):
    assert np.array_equal(before["state"], after["state"])
    for a in before["obs"]:
        for key in ("observation", "action_mask"):
            assert np.array_equal(before["obs"][a][key], after["obs"][a][key])
    for key in ("agent_selection", "agents", "rewards", "cumulative", "terminations", "truncations", "text"):
        assert before[key] == after[key], key
    assert before["infos"].keys() == after["infos"].keys()
    for agent, info in before["infos"].items():  # (the infos hold the mask: arrays compared as arrays)
        assert info.keys() == after["infos"][agent].keys(), agent
        for key, value in info.items():
            assert np.array_equal(value, after["infos"][agent][key]), (agent, key)


def _bad_actions(env):
    legal = _legal(env)
    masked = next(a for a in range(1296) if a not in legal)
    return {
        "out of range high": 1296,
        "out of range far": 10**9,
        "negative": -1,
        "masked out": masked,
        "masked out (np.int64)": np.int64(masked),
        "float": float(legal[0]),
        "np.float64": np.float64(legal[0]),
        "str notation": "F3-E3",
        "str digits": str(legal[0]),
        "bool True": True,
        "bool False": False,
        "list": [legal[0]],
        "np array of one": np.array([legal[0]]),
        "None": None,
    }


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize(
    "kind",
    [
        "out of range high",
        "out of range far",
        "negative",
        "masked out",
        "masked out (np.int64)",
        "float",
        "np.float64",
        "str notation",
        "str digits",
        "bool True",
        "bool False",
        "list",
        "np array of one",
        "None",
    ],
)
def test_c6_bad_action_raises_and_changes_nothing(first, kind):
    """C-6: an out-of-range, masked-out, wrongly typed action, or None while
    the agent is alive, raises IllegalActionError naming the action and the
    agent; the env is left exactly as it was and can go on."""
    env = _env(first)
    if first == 0:
        env.step(_legal(env)[0])  # also check mid-game, with the other agent to act
    agent = env.agent_selection
    action = _bad_actions(env)[kind]
    before = _snapshot(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    msg = str(info.value)
    assert agent in msg
    assert repr(action) in msg
    _assert_same(before, _snapshot(env))
    env.step(_legal(env)[0])  # the game goes on normally
    assert env.agent_selection != agent


def test_c6_masked_out_message_explains():
    env = _env(0)
    with pytest.raises(IllegalActionError, match=r"masked out|not legal"):
        env.step(0)  # A1-A1
    with pytest.raises(IllegalActionError, match=r"outside|range"):
        env.step(1296)


def test_c6_legal_numpy_integer_is_accepted():
    env = _env(0)
    a = np.int64(env.unwrapped.move_to_action("F3-E3"))
    env.step(a)
    assert env.agent_selection == "player_1"
    assert "since_capture: F3-E3" in env.unwrapped.position().to_text()


def _finish_by_truncation(env_kw=None):
    env = boardenvs.make("quess_v0", first_player=0, max_turns=2, **(env_kw or {}))
    env.reset(seed=0)
    for _ in range(2):
        env.step(_legal(env)[0])
    assert all(env.truncations.values())
    return env


def test_c6_done_agent_must_step_none():
    """C-6: an agent that is done may only step None."""
    env = _finish_by_truncation()
    agent = env.agent_selection
    before = _snapshot(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(0)
    assert agent in str(info.value)
    _assert_same(before, _snapshot(env))


def test_c6_step_after_the_end_raises_raw_env():
    raw = _finish_by_truncation().unwrapped
    raw.step(None)
    raw.step(None)
    assert raw.agents == []
    with pytest.raises(IllegalActionError, match="reset"):
        raw.step(None)
    with pytest.raises(IllegalActionError, match="reset"):
        raw.step(0)


@pytest.mark.parametrize("action", [None, 0])
def test_c6_step_after_the_end_raises_wrapped_env(action):
    """C-6 (and README: "`step` after the end raises IllegalActionError"):
    through the registered (wrapped) env, stepping once every agent has
    stepped None after the end raises a clear error rather than a warning."""
    env = _finish_by_truncation()
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(action)


def test_c6_illegal_action_lose_ends_the_game():
    """C-6 'lose': the offender gets -1, the other 0; the action is not played."""
    env = _env(0, illegal_action="lose")
    env.step(env.unwrapped.move_to_action("F3-E3"))
    assert env.agent_selection == "player_1"
    board_before = env.unwrapped.position().to_text().split("board:")[1]
    env.step(0)  # masked out for Dark
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.truncations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_1"]["illegal_action"] is True
    pos = env.unwrapped.position()
    assert pos.is_terminal and pos.end_reason == "illegal_action"
    assert pos.to_text().split("board:")[1] == board_before


@pytest.mark.parametrize("action", [1296, -5, 2.0, "F3-E3", True, [3], None])
def test_c6_illegal_action_lose_for_every_kind_of_bad_input(action):
    env = _env(0, illegal_action="lose")
    env.step(action)
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(env.terminations.values())
    # then the done agents step None, and the episode is over
    for _ in range(2):
        env.step(None)
    assert env.agents == []


def test_c6_illegal_action_option_is_validated():
    with pytest.raises(ValueError, match="illegal_action"):
        boardenvs.make("quess_v0", illegal_action="ignore")


# --- notation ---------------------------------------------------------------------


@pytest.mark.parametrize("move", ["Z9-A1", "F3E3", "", "G1-A1", "A0-A1", "A7-A1", "F3-E", "F3--E3", "F3 E3", "3F-3E"])
def test_c6_malformed_notation_raises_notation_error(move):
    pos = boardenvs.position("quess_v0", first_player=0)
    before = pos.to_text()
    with pytest.raises(NotationError) as info:
        pos.play(move)
    assert repr(move) in str(info.value)
    assert "F3-E3" in str(info.value)  # says what is expected
    assert pos.to_text() == before
    with pytest.raises(NotationError):
        pos.move_to_action(move)


@pytest.mark.parametrize("move", [None, 3.0, True, ["F3-E3"]])
def test_c6_non_string_move_raises_notation_error(move):
    pos = boardenvs.position("quess_v0", first_player=0)
    with pytest.raises(NotationError, match="notation string or an action id"):
        pos.play(move)


def test_c6_malformed_notation_through_the_env_faces():
    env = _env(0)
    before = _snapshot(env)
    for bad in ("Z9-A1", "F3E3", "", None):
        with pytest.raises(NotationError):
            env.unwrapped.move_to_action(bad)
    _assert_same(before, _snapshot(env))


def test_c6_action_to_move_out_of_range():
    pos = boardenvs.position("quess_v0", first_player=0)
    for bad in (-1, 1296):
        with pytest.raises(ValueError, match=str(bad)):
            pos.action_to_move(bad)


# --- Position.play of an illegal move ------------------------------------------------


@pytest.mark.parametrize("move", ["F1-E1", "A4-A5", "C3-C4", "F3-D3", "E1-E3", 0, 1295, -1, 5000])
def test_c6_play_illegal_move_raises_and_leaves_position(move):
    pos = boardenvs.position("quess_v0", first_player=0).play("F3-E3")
    state = pos.state.copy()
    text = pos.to_text()
    with pytest.raises(IllegalMoveError) as info:
        pos.play(move)
    assert repr(move) in str(info.value)
    assert "player_1" in str(info.value)
    assert np.array_equal(pos.state, state)
    assert pos.to_text() == text
    assert pos.play("C6-D6").to_move == 0  # still usable


def test_c6_play_after_the_end_raises():
    pos = boardenvs.position("quess_v0", first_player=0, max_turns=1).play("F3-E3")
    assert pos.is_terminal
    with pytest.raises(IllegalMoveError, match="over"):
        pos.play("C6-D6")


# --- malformed position texts ---------------------------------------------------------

GOOD = boardenvs.position("quess_v0", first_player=0).play("F3-E3").to_text()


def _replace_line(text: str, prefix: str, new: str | None) -> str:
    lines = text.splitlines()
    hits = [k for k, ln in enumerate(lines) if ln.startswith(prefix)]
    assert len(hits) == 1, prefix
    if new is None:
        del lines[hits[0]]
    else:
        lines[hits[0]] = new
    return "\n".join(lines) + "\n"


def test_good_text_parses():
    """The base text of the cases below is itself valid."""
    assert Position.from_text(GOOD).to_text() == GOOD


@pytest.mark.parametrize(
    "prefix, new, words",
    [
        ("game:", None, ["game"]),
        ("game:", "game: chess_v6", ["chess_v6"]),
        ("to_move:", None, ["to_move"]),
        ("turn:", None, ["turn"]),
        ("status:", None, ["status"]),
        ("reason:", None, ["reason"]),
        ("alive:", None, ["alive"]),
        ("returns:", None, ["returns"]),
        ("board:", None, ["board"]),
        ("since_capture:", None, ["since_capture"]),
        ("A ", None, ["row"]),
        ("to_move:", "to_move: player_2", ["to_move", "player_2"]),
        ("to_move:", "to_move: light", ["to_move", "light"]),
        ("turn:", "turn: -3", ["turn", "-3"]),
        ("turn:", "turn: x", ["turn"]),
        ("status:", "status: finished", ["status", "finished"]),
        ("reason:", "reason: checkmate", ["reason", "checkmate"]),
        ("alive:", "alive: 1", ["alive"]),
        ("alive:", "alive: 1 2", ["alive"]),
        ("returns:", "returns: 0 0 0", ["returns"]),
        ("returns:", "returns: 2 0", ["returns"]),
        ("options:", "options: max_turns=3000 board_size=7", ["board_size"]),
        ("options:", "options: max_turns", ["max_turns"]),
        ("options:", "options: max_turns=0", ["max_turns"]),
        ("options:", "options: max_turns=abc", ["max_turns"]),
        ("A ", "A . . . t c", ["row A"]),
        ("A ", "A . . . t c s s", ["row A"]),
        ("B ", "B . . . . x c", ["row B", "x"]),
        ("C ", "X . . . . . t", ["row C"]),
        ("D ", "D T . . . .  .  TT", ["row D"]),
        ("  1 2", "  1 2 3 4 5", ["1 2 3 4 5 6"]),
        ("since_capture:", "since_capture: F3-Z3", ["F3-Z3"]),
        ("since_capture:", "since_capture: F3E3", ["F3E3"]),
        ("since_capture:", "moves: F3-E3", ["since_capture"]),
        # inconsistent with the board: E3 empty / F3 occupied after walking back
        ("since_capture:", "since_capture: F3-E4", ["F3-E4", "does not fit"]),
        ("since_capture:", "since_capture: E2-E3", ["E2-E3", "does not fit"]),
    ],
)
def test_c6_malformed_position_text(prefix, new, words):
    """C-6: a malformed position text raises NotationError (a ValueError)
    saying what is wrong."""
    bad = _replace_line(GOOD, prefix, new)
    with pytest.raises(NotationError) as info:
        Position.from_text(bad)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_c6_text_with_trailing_garbage():
    with pytest.raises(NotationError, match="since_capture"):
        Position.from_text(GOOD + "extra line\n")


@pytest.mark.parametrize("text", [None, 42, b"game: quess_v0", ""])
def test_c6_position_text_of_the_wrong_kind(text):
    with pytest.raises(NotationError):
        Position.from_text(text)


def test_c6_since_capture_move_impossible_for_the_piece():
    """C-6: since_capture moves must be moves the pieces could have made: a
    triangle cannot have come to E3 from E5 (two squares away) -- an
    inconsistent history that would silently forbid the wrong boards (QU-8)."""
    # two Dark pieces captured earlier (B6, C6), so the record starts after turn 2
    captured = GOOD.replace("B . . . . t c", "B . . . . t .").replace("C . . . . . t", "C . . . . . .")
    captured = captured.replace("turn: 1", "turn: 3")
    assert captured != GOOD
    # (a set-up: which side took those pieces when is QU-V1's question, not this test's)
    Position.from_text(captured.replace("since_capture: F3-E3", "since_capture: E4-E3"), setup=True)  # a step: fine
    with pytest.raises(NotationError, match="E5-E3"):
        Position.from_text(captured.replace("since_capture: F3-E3", "since_capture: E5-E3"), setup=True)
    # with no capture yet the history must lead back to the start position,
    # where E4 was empty (QU-2, QU-8)
    with pytest.raises(NotationError, match="start position"):
        Position.from_text(GOOD.replace("since_capture: F3-E3", "since_capture: E4-E3"))


def test_c6_since_capture_moves_must_alternate_and_end_with_the_other_side():
    """C-6: since_capture's moves alternate colours and the last one was made
    by the side NOT to move (here Light is to move although the last move,
    F3-E3, moved a Light piece)."""
    bad = _replace_line(GOOD, "to_move:", "to_move: player_0")
    with pytest.raises(NotationError, match="since_capture|to_move"):
        Position.from_text(bad)


def test_c6_too_long_since_capture_for_max_turns():
    text = _replace_line(
        boardenvs.position("quess_v0", first_player=0, max_turns=2).play("F3-E3").to_text(),
        "since_capture:",
        "since_capture: D1-C1 A4-A3 F3-E3",
    )
    with pytest.raises(NotationError, match="max_turns"):
        Position.from_text(text)


def test_c6_rejected_text_changes_nothing_elsewhere():
    """C-6: parsing is side-effect free: a good position stays as it was."""
    pos = Position.from_text(GOOD)
    before = pos.to_text()
    with pytest.raises(NotationError):
        Position.from_text(_replace_line(GOOD, "status:", "status: over"))
    assert pos.to_text() == before


def test_a_gymnasium_id_given_to_make_says_which_id_to_use():
    """``boardenvs.make("boardenvs/Quess-v0")`` says that is the
    gymnasium id and names the env id; an unknown long name is shortened."""
    for face in (boardenvs.make, lambda name: boardenvs.make_vec(name, num_envs=2), boardenvs.position):
        with pytest.raises(ValueError, match=r"'boardenvs/Quess-v0' is a gymnasium id .*its env id, 'quess_v0'"):
            face("boardenvs/Quess-v0")
    with pytest.raises(ValueError, match="unknown env id") as err:
        boardenvs.make("x" * 100_000)
    assert len(str(err.value)) < 300


# --- the smaller findings ---------------------------------------------------

_LONG = "x" * 100_000
_LONG_INPUTS = {
    "env id": lambda: boardenvs.make(_LONG),
    "option name": lambda: boardenvs.make("quess_v0", **{_LONG: 1}),
    "option value": lambda: boardenvs.make("quess_v0", max_turns=_LONG),
    "seat option": lambda: boardenvs.make("quess_v0", first_player=_LONG),
    "render_mode": lambda: boardenvs.make("quess_v0", render_mode=_LONG),
    "illegal_action": lambda: boardenvs.make_vec("quess_v0", 2, illegal_action=_LONG),
    "num_envs": lambda: boardenvs.make_vec("quess_v0", _LONG),
    "move": lambda: boardenvs.position("quess_v0").play(_LONG),
    "text option": lambda: boardenvs.Position.from_text("game: quess_v0\noptions: " + _LONG),
    "seed": lambda: boardenvs.make("quess_v0").reset(seed=_LONG),
    "opponent": lambda: gymnasium.make("boardenvs/Quess-v0", opponent=_LONG),
}


@pytest.mark.parametrize("what", list(_LONG_INPUTS))
def test_a_long_input_is_quoted_short(what):
    """A 100,000-character input is named by its start, not echoed whole."""
    with pytest.raises((ValueError, TypeError)) as caught:
        _LONG_INPUTS[what]()
    assert "xxxx" in str(caught.value) and len(str(caught.value)) < 700, len(str(caught.value))


def test_make_vec_after_close_raises_and_bounds_its_buffers():
    """``make_vec`` after ``close()`` raises gymnasium's ClosedEnvironmentError
    (it kept working); the rows' buffers are bounded in bytes, not only in
    rows (2**20 Quess rows would need 9 GiB), with the largest count allowed."""
    from gymnasium.error import ClosedEnvironmentError

    vec = boardenvs.make_vec("quess_v0", 4)
    vec.reset(seed=0)
    vec.close()
    vec.close()
    for call in (vec.reset, lambda: vec.step(np.zeros(4, np.int64)), vec.snapshot, vec.random_actions):
        with pytest.raises(ClosedEnvironmentError, match="after close"):
            call()
    view = gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=2, radius=2)
    view.reset(seed=0)
    view.close()
    with pytest.raises(ClosedEnvironmentError):
        view.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"GiB of buffers.*use at most [0-9,]+ rows"):
        boardenvs.make_vec("quess_v0", 1 << 20)
    assert boardenvs.make_vec("quagmire_v0", 1 << 16, radius=2).num_envs == 1 << 16


def test_a_model_without_the_train_extra_names_the_extra(monkeypatch, capsys):
    """A committed model, a search guided by one, or a saved
    model's path, used where torch is not installed, says which extra to
    install (a MissingExtraError: an ImportError and a ValueError), not a
    bare ModuleNotFoundError; the CLI prints it on one line, rc 2."""
    import sys

    from boardenvs.cli import main
    from boardenvs.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    for opponent in ("baseline:quess_v0", "search:8:quess_v0"):
        with pytest.raises(MissingExtraError, match=r"pip install '\.\[train\]' in a clone") as caught:
            gymnasium.make("boardenvs/Quess-v0", opponent=opponent)
        assert isinstance(caught.value, ImportError) and "accepted:" not in str(caught.value)
    assert main(["play", "quess_v0", "--vs", "baseline:quess_v0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "pip install '.[train]'" in err[0]
