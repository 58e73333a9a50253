"""The text-agent face (boardenvs/textagent.py) and the
notebook picture (``Position._repr_png_``, item 2): a prompt lists the
position and exactly the legal moves, a reply in notation is read back to a
legal move or refused with a clear error, and a text-only agent plays whole
games against ``greedy``."""

from __future__ import annotations

import io

import numpy as np
import pytest
from test_all_envs import CASES, _random_game

import boardenvs
from boardenvs.errors import IllegalMoveError, NotationError
from boardenvs.textagent import parse_reply, play_text_game, prompt


def listed_moves(text: str) -> list[str]:
    """What an agent that sees only the prompt reads as its legal moves."""
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("env_id, variant", CASES)
def test_prompts_list_the_legal_moves_and_replies_read_back(env_id, variant):
    """Every listed move, answered plainly or on a 'move:' line of a longer
    reply, is read back as itself; the prompt holds the position text."""
    checked = 0
    for k, (pos, action) in enumerate(_random_game(env_id, variant, 2)):
        if action is None or checked >= 3:
            break
        if pos.is_chance or k % 5:
            continue
        text = prompt(pos)
        moves = listed_moves(text)
        assert moves == pos.legal_moves()
        assert pos.to_text().rstrip("\n") in text and f"player_{pos.to_move}" in text
        for move in moves[:: max(1, len(moves) // 4)]:
            assert parse_reply(pos, move) == move
            assert parse_reply(pos, f"I weigh my options.\n**Move:** `{move}`.\n") == move
        checked += 1
    assert checked


def test_replies_that_name_no_legal_move_are_refused_clearly():
    pos = boardenvs.position("quess_v0", first_player=0)
    assert parse_reply(pos, "move: f3-e3") == "F3-E3"  # lower case, as the notation reads it (C-4)
    assert parse_reply(pos, "move: A1-A2\nmove: F3-E3") == "F3-E3"  # the last move line counts
    with pytest.raises(IllegalMoveError, match=r"'A1-A2' is not a legal move for player_0 here; legal: D1-C1"):
        parse_reply(pos, "A1-A2")
    with pytest.raises(NotationError, match="malformed move 'castle'"):
        parse_reply(pos, "castle")
    with pytest.raises(NotationError, match="no line 'move: <move>'"):
        parse_reply(pos, "I would play\nF3-E3 maybe")
    with pytest.raises(NotationError, match="names no move"):
        parse_reply(pos, "move:   ")
    with pytest.raises(NotationError, match="a reply is a str"):
        parse_reply(pos, None)
    with pytest.raises(NotationError, match="at most"):
        parse_reply(pos, "x" * 200_000)
    over = boardenvs.position("quagmire_v0")
    while not over.is_terminal:
        over = over.play(over.legal_actions()[0])
    with pytest.raises(IllegalMoveError, match="the game is over"):
        parse_reply(over, "d4")
    with pytest.raises(ValueError, match="no seat acts"):
        prompt(over)
    with pytest.raises(ValueError, match="must be a boardenvs Position"):
        prompt("quess_v0")


def test_a_refused_reply_is_quoted_in_the_next_prompt_and_then_forfeits():
    seen = []

    def stubborn(text):
        seen.append(text)
        return "move: A1-A2"

    game = play_text_game("quess_v0", stubborn, seat=0, opponent="random", retries=2, seed=1)
    assert len(seen) == 3 and "refused" not in seen[0] and "'A1-A2' is not a legal move" in seen[1]
    assert [r for r, _ in game.refused] == ["move: A1-A2"] * 3
    assert game.position.end_reason == "illegal_action" and game.returns == (-1.0, 0.0)  # C-6's forfeit


@pytest.mark.parametrize(
    "env_id, opponent", [(e, "greedy" if e == "quess_v0" else "random") for e in boardenvs.ENV_IDS]
)
def test_a_text_only_agent_plays_whole_games(env_id, opponent):
    """The agent sees the prompt only and answers with a move it lists; every
    game ends by the rules or the turn limit, its moves (chance outcomes
    too) replay from the start to the same position."""
    rng = np.random.default_rng(0)

    def reader(text):
        return "move: " + str(rng.choice(listed_moves(text)))

    game = play_text_game(env_id, reader, seat=1, opponent=opponent, seed=3, max_turns=30)
    assert game.position.is_terminal and not game.refused and game.transcript
    assert game.position.end_reason != "illegal_action"
    pos = boardenvs.position(env_id, first_player=0, max_turns=30)
    for move in game.moves:
        pos = pos.play(move)
    assert pos == game.position


def test_an_opponent_that_is_no_opponent_is_refused_before_the_game():
    """C-6: an object that is no opponent (no name, no policy, no adapter's)
    raised AttributeError from deep inside the first opponent turn; it is
    refused now as every ``opponent=`` is (``make_opponent``), in one line
    naming it, before the agent is asked anything.  An Opponent, a batched
    policy and a name still play."""
    from boardenvs.opponents import make_opponent

    asked = []

    def agent(text):
        asked.append(text)
        return "move: " + listed_moves(text)[0]

    for bad in (object(), 42, 1.5, ["greedy"]):
        with pytest.raises(ValueError, match=r"^opponent must be a name .* got ") as info:
            play_text_game("quess_v0", agent, seat=1, opponent=bad, seed=0)
        assert "\n" not in str(info.value)
    assert not asked

    def last_legal(observations, masks):
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)

    for good in (make_opponent("greedy"), last_legal, "random"):
        game = play_text_game("quess_v0", agent, seat=1, opponent=good, seed=0, max_turns=6)
        assert game.position.is_terminal and not game.refused


def test_a_position_shows_as_its_picture_in_a_notebook():
    from PIL import Image

    pos = boardenvs.position("quess_v0", first_player=0).play("F3-E3")
    png = pos._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), pos.render("rgb_array"))


def test_replies_are_read_in_time_linear_in_their_length():
    """A reply of up to 100,000 characters is read in time linear in its
    length, whatever it holds: a long run of blanks inside a move line made
    the former pattern backtrack quadratically (about 27 CPU-s for one
    99,998-character reply).  CPU time of this process, so load from other
    processes does not count; the bound is far above linear and far below
    quadratic."""
    import time

    pos = boardenvs.position("quess_v0", first_player=0)
    blanks = " \t" * 49_995
    replies = [
        "move: F3" + blanks + "E3",  # blanks inside a move line
        "**move**" + blanks[:49_000] + ": F3-E3" + blanks[:50_000] + "x",
        " " * 99_998,
        ("move" + " " * 20 + "\n") * 4_000,
        "\n" * 99_998,
    ]
    for reply in replies:
        assert len(reply) <= 100_000
        start = time.process_time()
        with pytest.raises(NotationError):
            parse_reply(pos, reply)
        assert time.process_time() - start < 2.0, reply[:40]
    assert parse_reply(pos, "move:" + " \t" * 40_000 + "F3-E3" + " " * 19_000) == "F3-E3"
    assert parse_reply(pos, "  > **Move** : `F3-E3`\r\n") == "F3-E3"  # a Windows line end too


def test_play_text_game_reads_each_refused_reply_once_in_linear_time():
    """A text agent that answers with the worst reply every time forfeits
    after its retries (C-6), each reply read once."""
    import time

    from boardenvs import textagent

    calls = []
    real = textagent.parse_reply

    def counting(pos, reply):
        calls.append(len(reply))
        return real(pos, reply)

    bad = "move: F3" + " \t" * 49_995 + "E3"
    start = time.process_time()
    try:
        textagent.parse_reply = counting
        game = play_text_game("quess_v0", lambda text: bad, opponent="random", retries=2)
    finally:
        textagent.parse_reply = real
    assert time.process_time() - start < 5.0
    assert calls == [len(bad)] * 3 and len(game.refused) == 3
    assert game.position.end_reason == "illegal_action" and game.returns[0] == -1
