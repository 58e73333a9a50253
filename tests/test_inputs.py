"""No crash and no silent nonsense from any public input (C-6, engine
contract v2): position texts that could not occur, seats and action ids of
the wrong kind, options, seeds, calls before reset.  Each case was seen
through the public API before this contract; each must now be a clear error
that changes nothing (or, for numpy seeds, simply work).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from position_text import header

import boardenvs
from boardenvs import IllegalActionError, IllegalMoveError, NotationError, OptionError
from boardenvs.errors import ResetNeededError
from boardenvs.games.quess import QuessGame
from boardenvs.position import Position
from boardenvs.registry import registered_ids
from boardenvs.spec import Layout

GOOD = boardenvs.position("quess_v0", first_player=0).play("F3-E3").to_text()


def _with(text: str, prefix: str, new: str) -> str:
    lines = text.splitlines()
    (k,) = [i for i, ln in enumerate(lines) if ln.startswith(prefix)]
    lines[k] = new
    return "\n".join(lines) + "\n"


def quess_text(rows, to_move=0, turn=10, status="playing", reason="-", returns="0 0", alive="1 1", since=""):
    lines = header(
        "quess_v0", "max_turns=3000", f"player_{to_move}", turn, status, reason, alive=alive, returns=returns
    )
    lines += ["board:", "  1 2 3 4 5 6"] + [f"{'ABCDEF'[r]} " + " ".join(rows[r]) for r in range(6)]
    return "\n".join(lines + [f"since_capture: {since}".rstrip()]) + "\n"


# --- position texts --------------------------------------------------------------

# Light: T E3, T D2, C F2 (none in Dark's zone); Dark: t A4, c B5
PLAIN = ["...t..", "....c.", "......", ".T....", "..T...", ".C...."]


@pytest.mark.parametrize(
    "line, words",
    [
        ("turn: 9223372036854775807", ["turn", "max_turns"]),
        ("turn: 99999999999999999999", ["turn"]),
        ("turn: \u00b2", ["turn"]),  # a superscript two: isdigit() but no integer
        ("turn: 0", ["since_capture", "0 turns"]),  # one move since the start, at turn 0
        ("turn: 3000", ["max_turns"]),  # playing at the limit
        ("to_move: chance", ["chance"]),
        ("status: terminated", ["reason"]),  # terminated with reason -
        ("returns: 1 1", ["returns"]),
        ("alive: 0 0", ["alive"]),
        ("alive: 1 0", ["alive"]),  # no one leaves a Quess game early
    ],
)
def test_impossible_or_overflowing_headers_are_notation_errors(line, words):
    bad = _with(GOOD, line.split(":")[0] + ":", line)
    with pytest.raises(NotationError) as info:
        Position.from_text(bad)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_quess_texts_the_rules_cannot_reach():
    assert not Position.from_text(quess_text(PLAIN)).is_terminal
    nine = [r.replace(".", "T", 1) if k in (2, 3) else r for k, r in enumerate(PLAIN)]  # five Light triangles
    cases = {
        "triangles": quess_text(nine),
        # Light on two squares of Dark's zone (A5, B6) and still playing (QU-9)
        "zone": quess_text(["....T.", ".....T", "......", "..tc..", "......", ".C...."], to_move=1),
        # one piece each and still playing (QU-10)
        "one_each": quess_text(["......", "......", "..T...", "......", "......", ".....s"]),
        # Dark to move with no move at all (QU-11): its triangle is walled in by Light triangles
        "no legal move": quess_text(["C.....", "......", "......", "......", ".....T", "....Tt"], to_move=1),
        # a zone win claimed where nobody is in a zone
        "does not hold": quess_text(PLAIN, status="terminated", reason="zone", returns="1 -1"),
        # the right ending with the wrong returns
        "returns": quess_text(
            ["....T.", ".....T", "......", "..tc..", "......", ".C...."],
            to_move=1,
            status="terminated",
            reason="zone",
            returns="-1 1",
        ),
    }
    for words, text in cases.items():
        with pytest.raises(NotationError, match=words.split()[0]):
            Position.from_text(text)
    # and the consistent ending parses
    won = Position.from_text(
        quess_text(
            ["....T.", ".....T", "......", "..tc..", "......", ".C...."],
            to_move=1,
            status="terminated",
            reason="zone",
            returns="1 -1",
        )
    )
    assert won.is_terminal and won.returns == (1.0, -1.0)


def test_quess_texts_whose_turns_pieces_or_endings_disagree():
    """The turn counter covers the captures and the record; an ending by a
    limit, a forfeit or a flag never replaces one the rules give; a side
    with no pieces has just lost (QU-11)."""
    three = ["......", "......", "..T...", "......", "....t.", ".....s"]  # nine captures
    assert Position.from_text(quess_text(three, turn=9)).turn == 9
    with pytest.raises(NotationError, match="captures"):
        Position.from_text(quess_text(three, turn=1))
    zone = ["....T.", ".....T", "......", "..tc..", "......", ".C...."]
    for status, reason, returns in (
        ("truncated", "max_cycles", "0 0"),
        ("terminated", "illegal_action", "-1 0"),
        ("terminated", "timeout", "-1 1"),
    ):
        with pytest.raises(NotationError, match="the rules end this game"):
            Position.from_text(quess_text(zone, to_move=1, status=status, reason=reason, returns=returns))
    no_light = ["......", "......", "......", "..tc..", "......", "......"]
    with pytest.raises(NotationError, match="no pieces"):
        Position.from_text(quess_text(no_light, to_move=1))
    # ten captures: Dark's six moves took Light's six (QU-V1), so at least eleven turns
    lost = quess_text(no_light, to_move=0, turn=11, status="terminated", reason="no_legal_move", returns="-1 1")
    assert Position.from_text(lost).returns == (-1.0, 1.0)


def test_unknown_header_lines_and_repeated_options_are_refused():
    with pytest.raises(NotationError, match="colour"):
        Position.from_text(GOOD.replace("turn: 1", "turn: 1\ncolour: purple"))
    with pytest.raises(NotationError, match="given twice"):
        Position.from_text(GOOD.replace("options: max_turns=3000", "options: max_turns=5 max_turns=3000"))


def test_a_clock_decided_one_each_round_trips():
    """QU-12: the chess clock gives the one-each draw to the side with more
    time; the text form keeps that ending."""
    one_each = ["......", "......", "..T...", "......", "......", ".....s"]
    text = quess_text(one_each, to_move=1, turn=10, status="terminated", reason="one_each", returns="1 -1")
    assert Position.from_text(text).returns == (1.0, -1.0)
    with pytest.raises(NotationError, match="returns"):
        Position.from_text(text.replace("returns: 1 -1", "returns: 1 1"))


def test_quess_history_longer_than_the_turns_or_the_record():
    text = boardenvs.position("quess_v0", first_player=0).play("F3-E3").play("A4-B4").to_text()
    assert Position.from_text(text).turn == 2
    with pytest.raises(NotationError, match="turns played"):
        Position.from_text(_with(text, "turn:", "turn: 1"))
    small = text.replace("superko_memory=4096", "superko_memory=16")
    assert Position.from_text(small).game.options["superko_memory"] == 16


def test_quagmire_texts_the_rules_cannot_reach():
    def qtext(rows, turn, status="playing", reason="-", returns="0 0", to_move=0):
        lines = header(
            "quagmire_v0", "radius=2 max_turns=1000", f"player_{to_move}", turn, status, reason, returns=returns
        )
        return "\n".join(lines + ["board:"] + [f"{'abcde'[k]} {r}" for k, r in enumerate(rows)]) + "\n"

    rows = [". . .", ". x . .", ". . ~ . .", ". o . .", "x . o"]
    assert Position.from_text(qtext(rows, 5)).turn == 5
    with pytest.raises(NotationError, match="water"):
        Position.from_text(qtext(rows, 9))  # five moves flood at least five cells
    with pytest.raises(NotationError, match="turn"):
        Position.from_text(qtext(rows, 3))  # the setup takes four turns
    # a draw claimed (Quagmire has none: QM-9) and a loss claimed with a free mover
    with pytest.raises(NotationError, match="no_legal_move"):
        Position.from_text(qtext(rows, 5, "terminated", "no_legal_move", "0 0"))
    with pytest.raises(NotationError, match="no_legal_move"):
        Position.from_text(qtext(rows, 5, "terminated", "no_legal_move", "-1 1"))


# --- Position's seats and action ids ---------------------------------------------


@pytest.mark.parametrize("seat", [-1, 2, 99, 1.5, True, "0", None])
def test_observation_and_alive_refuse_bad_seats(seat):
    pos = boardenvs.position("quess_v0")
    for call in (pos.observation, pos.alive):
        with pytest.raises(ValueError, match="seat"):
            call(seat)


@pytest.mark.parametrize("env_id", boardenvs.ENV_IDS)
@pytest.mark.parametrize("action", [-1, 10**6, 2**63, 1.5, "3", None, True])
def test_action_to_move_raises_one_error_type(env_id, action):
    pos = boardenvs.position(env_id)
    with pytest.raises(IllegalMoveError):
        pos.action_to_move(action)


def test_quagmire_move_to_action_syntax_is_a_notation_error():
    pos = boardenvs.position("quagmire_v0")
    for move in ("zz", "d4-f6", "d4^d5", "d4-d5-d4", "@z9", 7):
        with pytest.raises(NotationError):
            pos.move_to_action(move)
    with pytest.raises(IllegalMoveError, match="no piece"):
        pos.move_to_action("d4-d5")  # well-formed; nobody stands on d4


# --- options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "env_id, options, words",
    [
        ("quess_v0", {"first_player": True}, ["first_player", "random"]),
        ("quess_v0", {"first_player": 2}, ["first_player", "0..1"]),
        ("quess_v0", {"first_player": "any"}, ["first_player"]),
        ("quess_v0", {"max_turns": 0}, ["max_turns", "1.."]),
        ("quess_v0", {"max_turns": 2**41}, ["max_turns"]),
        ("quess_v0", {"max_turns": 10.0}, ["max_turns"]),
        ("quess_v0", {"superko_memory": 8}, ["superko_memory", "16.."]),
        ("quagmire_v0", {"radius": "3"}, ["radius", "2..12"]),
        ("quagmire_v0", {"radius": 13}, ["radius"]),
        ("contract_race_v0", {"num_players": 5, "teams": 2}, ["teams", "num_players=5"]),
        ("contract_race_v0", {"num_players": 7}, ["num_players", "2, 3, 4, 5, 6"]),
    ],
)
def test_bad_options_name_the_option_and_what_it_allows(env_id, options, words):
    for build in (boardenvs.make, boardenvs.position, lambda e, **o: boardenvs.make_vec(e, 2, **o)):
        with pytest.raises(OptionError) as info:
            build(env_id, **options)
        for w in words:
            assert w in str(info.value), (w, str(info.value))


def test_unknown_option_lists_the_accepted_ones():
    with pytest.raises(TypeError, match=r"board_size.*accepted.*first_player.*max_turns"):
        boardenvs.make("quess_v0", board_size=7)


def test_numpy_option_values_are_accepted():
    env = boardenvs.make("quagmire_v0", radius=np.int64(2), first_player=np.int32(1))
    assert env.unwrapped.game.options == {"radius": 2, "first_player": 1, "max_turns": 1000}


def test_quess_state_no_longer_grows_with_max_turns():
    """The superko record is bounded by superko_memory: a huge max_turns is
    fine and small, and the row stays a few KB (the env card says how many)."""
    default = QuessGame()
    huge = QuessGame(max_turns=10**9)
    assert default.state_size * 8 < 7_000 and huge.state_size * 8 < 9_000
    assert QuessGame(max_turns=100).state_size < default.state_size
    import boardenvs.games.quess as quess

    assert "6.7 KB" in quess.__doc__ and "8.9 KB" in quess.__doc__


def test_superko_memory_truncates_a_long_capture_free_game():
    """A game whose capture-free stretch fills the record is truncated, with
    its own reason (0 for both), and the text form says so (QU-8's record)."""
    pos = boardenvs.position("quess_v0", first_player=0, superko_memory=16)
    rng = np.random.default_rng(0)

    def pieces(p):
        return int(np.count_nonzero(QuessGame.board_cells(p.state)))

    while not pos.is_terminal:
        for a in rng.permutation(pos.legal_actions()):
            after = pos.play(int(a))
            if pieces(after) == pieces(pos):  # a quiet move
                break
        pos = after
    assert pos.end_reason == "superko_memory" and pos.turn == 15
    assert pos.is_truncated and pos.returns == (0.0, 0.0)
    assert Position.from_text(pos.to_text()) == pos


def test_spaces_come_from_the_declared_spec():
    for env_id in boardenvs.ENV_IDS:
        env = boardenvs.make(env_id)
        info = env.unwrapped.game.info
        box = env.observation_space("player_0")["observation"]
        assert box.shape == info.obs_shape and (box.high == info.obs_high).all() and (box.low == info.obs_low).all()
        assert env.action_space("player_0").n == info.num_actions


def test_layout_by_name_and_describe():
    pos = boardenvs.position("quess_v0").play("F3-E3")
    text = pos.game.describe(pos.state)
    for field in ("current", "turn", "decisions", "returns", "bitboards", "hash", "boards", "bloom", "history"):
        assert f"  {field} " in text
    layout = Layout("x")
    layout.add("a", 2)
    with pytest.raises(ValueError, match="twice"):
        layout.add("a", 1)
    assert layout.add("tail", "n") == 2
    with pytest.raises(ValueError, match="after a variable"):
        layout.add("b", 1)
    assert layout.resolve(n=5).size == 7


# --- the env ------------------------------------------------------------------------


def test_numpy_seeds_are_seeds_and_negative_ones_are_refused():
    def first_obs(seed):
        env = boardenvs.make("quess_v0")
        env.reset(seed=seed)
        return env.agent_selection, env.unwrapped.position().to_text()

    assert first_obs(np.int64(3)) == first_obs(3) == first_obs(np.uint8(3))
    for bad in (-1, np.int64(-5), 1.5, "3", True):
        with pytest.raises(ValueError, match="seed"):
            boardenvs.make("quess_v0").reset(seed=bad)


@pytest.mark.parametrize("raw", [True, False])
def test_calls_before_reset_say_call_reset_first(raw):
    env = boardenvs.quess_v0.raw_env() if raw else boardenvs.make("quess_v0")
    with pytest.raises(ResetNeededError, match=r"reset\(\) first"):
        env.step(0)
    with pytest.raises(ResetNeededError, match=r"reset\(\) first"):
        env.unwrapped.position()
    assert issubclass(ResetNeededError, ValueError) and issubclass(ResetNeededError, RuntimeError)


def test_rejected_step_keeps_the_infos_with_illegal_action_random():
    env = boardenvs.make("quagmire_v0", illegal_action="random")
    env.reset(seed=4)
    env.step(0)
    env.step(0)  # masked out for player_1: replaced, and said in its infos
    agent = env.agent_selection
    before = {a: dict(i) for a, i in env.infos.items()}
    with pytest.raises(IllegalActionError):
        env.step("zz")
    assert env.infos == before and env.agent_selection == agent


def test_terminations_and_truncations_are_python_bools():
    env = boardenvs.make("quagmire_v0", radius=2)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert type(term) is bool and type(trunc) is bool
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(type(v) is bool for v in (*env.terminations.values(), *env.truncations.values()))


def test_parallel_reset_infos_name_the_active_agent():
    par = boardenvs.quess_v0.parallel_env(first_player=1)
    _, infos = par.reset(seed=0)
    assert {a: i["active_agent"] for a, i in infos.items()} == {"player_0": "player_1", "player_1": "player_1"}


def test_masked_out_message_names_the_action_once():
    env = boardenvs.make("quess_v0", first_player=0, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError) as info:
        env.step(0)  # A1-A1
    assert str(info.value).count("action 0") == 1 and "masked out" in str(info.value)
    env = boardenvs.make("quagmire_v0", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError) as info:
        env.step(37)  # a move during the setup
    message = str(info.value)
    assert message.count("action 37") == 1 and "not on the board yet" in message


@pytest.mark.parametrize(
    "args", [["random-games", "--seed", "-1"], ["random-games", "--games", "0"], ["random-games", "--seed", "x"]]
)
def test_cli_refuses_bad_numbers_without_a_traceback(args, capsys):
    from boardenvs.cli import main

    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("seed" in err or "games" in err)


@pytest.mark.parametrize("env_id", registered_ids())
def test_rules_ship_with_their_ids(env_id, capsys):
    """``boardenvs rules ID`` prints the game's rules, with its rule ids
    (its declared prefix) numbered from 1 without a gap; the package's
    games have as many as their specs (../shared/rules)."""
    import re

    from boardenvs.cli import main

    assert main(["rules", env_id]) == 0
    text = capsys.readouterr().out
    prefix = boardenvs.game_class(env_id).rule_prefix
    numbers = {int(k) for k in re.findall(rf"\b{prefix}-([0-9]+)\b", text)}
    assert numbers and numbers == set(range(1, max(numbers) + 1))
    count = {"quess_v0": 13, "quagmire_v0": 9, "quicksand_v0": 12, "tryasina_v0": 17, "hex_quoridor_v1": 16}.get(env_id)
    assert count is None or max(numbers) == count
    assert main(["rules"]) == 0
    conventions = capsys.readouterr().out
    assert all(f"C-{k}" in conventions for k in range(1, 7))


def _listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    "args, flag, missing",
    [
        (["picture", "quess_v0", "--out", "missing/x.png"], "--out", "missing"),
        (["watch", "quess_v0", "--quiet", "--out", "missing/d/x.json"], "--out", "missing/d"),
        (["watch", "quess_v0", "--quiet", "--out", "w.json", "--gif", "missing/x.gif"], "--gif", "missing"),
        (["watch", "quess_v0", "--quiet", "--mp4", "missing/x.mp4"], "--mp4", "missing"),
        (["replay", "ok.json", "--gif", "missing/x.gif"], "--gif", "missing"),
        (["play", "quess_v0", "-i", "--out", "missing/x.json"], "--out", "missing"),
    ],
)
def test_cli_output_into_a_missing_folder_is_one_error_line_and_writes_nothing(
    args, flag, missing, tmp_path, monkeypatch, capsys
):
    """C-6 for files: the folder is checked before the game is played or
    anything is written (watch's JSON is not saved when its GIF cannot be)."""
    from boardenvs.cli import main
    from boardenvs.records import game_record, save_record

    monkeypatch.chdir(tmp_path)
    start = boardenvs.position("quess_v0", first_player=0)
    save_record(game_record(start, 0, ["F3-E3"], start.play("F3-E3")), "ok.json")
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    before = _listing(tmp_path)
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag} ") and "Traceback" not in captured.err
    assert f"the folder '{missing}' does not exist" in lines[0] and args[args.index(flag) + 1] in lines[0]
    assert "your move" not in captured.out  # refused before the game started
    assert _listing(tmp_path) == before


def test_cli_picture_refuses_a_file_type_it_cannot_write(tmp_path, capsys):
    from boardenvs.cli import main

    assert main(["picture", "quess_v0", "--out", str(tmp_path / "x.txt")]) == 2
    assert "x.txt': the file name must end in .png" in capsys.readouterr().err
    (tmp_path / "d.png").mkdir()
    assert main(["picture", "quess_v0", "--out", str(tmp_path / "d.png")]) == 2  # a folder, not a file
    assert "d.png' is a folder, not a file" in capsys.readouterr().err
    assert _listing(tmp_path) == ["d.png"]


@pytest.mark.parametrize(
    "content, words",
    [
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
        ('{"game": "quess_v0", "moves": ' + "[" * 50_000 + "]" * 50_000 + "}", "its JSON is nested too deeply"),
        (b"\xff\xfe\x00binary", "not UTF-8 text"),
    ],
)
def test_cli_replay_of_a_file_that_is_no_record_is_one_error_line(content, words, tmp_path, capsys):
    from boardenvs.cli import main

    path = tmp_path / "deep.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["replay", str(path), "--gif", str(tmp_path / "x.gif")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {path} is not a game record: {words}")
    assert _listing(tmp_path) == ["deep.json"]


def _help_texts():
    """Every --help of the package's command lines: (command, text)."""
    import contextlib

    from boardenvs.baselines import demo, distill, tournament, train

    from boardenvs.cli import main

    commands = [
        (main, []),
        *((main, [c]) for c in ("random-games", "demo", "play", "replay", "watch", "picture", "list", "rules", "rate")),
        (train.main, []),
        (tournament.main, []),
        (distill.main, []),
        (demo.main, []),
    ]
    for fn, argv in commands:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as info:
            fn([*argv, "--help"])
        assert info.value.code == 0
        yield f"{fn.__module__} {' '.join(argv)}", out.getvalue()


def test_cli_help_is_plain_text_without_rst_markup():
    import re

    texts = dict(_help_texts())
    for command, text in texts.items():
        assert not re.search(r"``|:[a-z]+:`|`", text), (command, text)
    main_help = texts["boardenvs.cli "]
    assert (
        "Command line: boardenvs list, card, rules, play, watch, replay, picture, random-games, train, demo and rate."
        in " ".join(main_help.split())
    )
    assert "make demo and boardenvs demo: train a short baseline" in texts["boardenvs.baselines.demo "]
    assert "A seeded round-robin with confidence intervals and Elo." in " ".join(
        texts["boardenvs.baselines.tournament "].split()
    )
    assert "play back a saved game" in texts["boardenvs.cli replay"]  # each command's help starts with what it does


def test_help_text_turns_rst_into_plain_text():
    from boardenvs.helptext import help_text

    doc = """:func:`~boardenvs.wrappers.evaluate` and :mod:`boardenvs.interactive`
    play ``make demo``; see `the rules` and :class:`Pool <a.b.SelfPlayPool>`.

    A second paragraph is left out."""
    assert help_text(doc) == "evaluate and boardenvs.interactive play make demo; see the rules and Pool."


def _bad_game(name, base=None, **attrs):
    """A Quagmire-like game class with ``attrs`` changed (built when called:
    a class that lacks what every game needs is refused when it is defined)."""
    from boardenvs.games.quagmire import QuagmireGame

    return type(name, (base or QuagmireGame,), {"env_id": "half_v0", "title": "Half", "gym_name": "", **attrs})


def _no_configure():
    from boardenvs.game import Game
    from boardenvs.games.quagmire import QuagmireGame

    return _bad_game("NoConfigure", Game, kernels=QuagmireGame.kernels, rule_prefix="HA", rules_file="quagmire.md")


# what every game needs, checked when its class is defined: (class maker, the message's words)
UNDEFINABLE = {
    "no kernels": (lambda: _bad_game("NoKernels", kernels=None), "kernels (a boardenvs.engine.Kernels"),
    "kernels not callable": (
        lambda: _bad_game(
            "OddKernels",
            kernels=__import__("boardenvs.games.quagmire", fromlist=["x"]).QuagmireGame.kernels._replace(apply=3),
        ),
        "kernels (a boardenvs.engine.Kernels of functions)",
    ),
    "no configure": (_no_configure, "configure() (the sizes of a configured game"),
    "empty title": (lambda: _bad_game("EmptyTitle", title="", gym_name="Half"), "a title"),
    "no title": (lambda: _bad_game("NoTitle", title=None), "a title"),
    "no max_turns": (lambda: _bad_game("NoLimit", option_specs=()), "the max_turns option (C-3"),
    "no rules": (
        lambda: _bad_game("NoRules", rules_file="no_such_rules.md"),
        "rules file (rules_file='no_such_rules.md' names no file",
    ),
    "no rules at all": (lambda: _bad_game("NoRulesAtAll", rules_file=""), "rules file"),
    "no rule prefix": (lambda: _bad_game("NoPrefix", rule_prefix=""), "rule_prefix"),
    "no colour picture": (lambda: _bad_game("NoPicture", render_modes=("ansi",)), "colour picture"),
}


@pytest.mark.parametrize("case", list(UNDEFINABLE))
def test_a_game_class_lacking_what_every_game_needs_fails_when_defined(case):
    """Item 4 of the architecture: required hooks are checked when the class
    is defined, so a missing one fails at import with a message naming it
    (not later, in a generic test or a CLI command)."""
    from boardenvs.registry import registered_ids

    make, words = UNDEFINABLE[case]
    ids = registered_ids()
    with pytest.raises(TypeError, match="game half_v0 .* declares no ") as info:
        make()
    assert words in str(info.value)
    assert registered_ids() == ids


def _malformed_games():
    return {
        "env id not a str": (_bad_game("IntId", env_id=7), "env id 7 must look like 'name_v0'"),
        "gym name taken": (
            _bad_game("Clash", gym_name="Quess"),
            "'boardenvs/Quess-v0' is already registered to 'quess_v0'",
        ),
        "gym name not a str": (_bad_game("IntName", gym_name=5), "gym_name and title must be str, got 5"),
        "gym name malformed": (_bad_game("Slash", gym_name="a/b"), "the gymnasium name 'a/b'"),
        "variant that cannot be built": (
            _bad_game("BadVariant", variants=({"radius": 99},)),
            "BadVariant(**{'radius': 99}) cannot be built",
        ),
        "no variants": (_bad_game("NoVariants", variants=()), "variants must be a non-empty tuple"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "env id not a str",
        "gym name taken",
        "gym name not a str",
        "gym name malformed",
        "variant that cannot be built",
        "no variants",
    ],
)
def test_register_checks_everything_first_and_registers_nothing_on_failure(case, capsys):
    """A malformed game class is refused with a ValueError naming what is
    wrong, and leaves no half-registered id behind: the registry, the
    gymnasium ids, the package's modules are as they were, and make and
    ``boardenvs list --all`` still work."""
    import sys

    import gymnasium

    from boardenvs import register
    from boardenvs.cli import main
    from boardenvs.registry import registered_ids

    cls, words = _malformed_games()[case]
    ids, gym_ids, modules = registered_ids(), set(gymnasium.registry), set(sys.modules)
    with pytest.raises(ValueError) as info:
        register(cls)
    assert words in str(info.value)
    assert registered_ids() == ids and set(gymnasium.registry) == gym_ids and set(sys.modules) == modules
    assert not hasattr(boardenvs, "half_v0")
    for env_id in ids:
        boardenvs.make(env_id)
    assert main(["list", "--all"]) == 0 and "half_v0" not in capsys.readouterr().out


@pytest.mark.parametrize("thing", [None, 3, "quess_v0", object, "a game instance"])
def test_register_of_something_that_is_no_game_is_a_type_error(thing):
    from boardenvs import register
    from boardenvs.registry import registered_ids

    if thing == "a game instance":
        thing = boardenvs.make_game("quagmire_v0")
    ids = registered_ids()
    with pytest.raises(TypeError, match="register takes a Game subclass .* or a LazyGame, got"):
        register(thing)
    assert registered_ids() == ids


def test_registering_the_same_game_again_is_allowed():
    import contract_game

    from boardenvs import register

    assert register(contract_game.ContractRaceGame) is boardenvs.contract_race_v0


@pytest.mark.parametrize("call", ["make", "make_vec", "make_vec_sync"])
def test_a_gymnasium_id_fixes_its_game(call):
    """gymnasium merges the caller's keywords over the id's kwargs: an
    env_id naming another game is refused instead of building that game
    under this id; the id's own env_id is accepted."""
    import gymnasium

    make = {
        "make": gymnasium.make,
        "make_vec": lambda *a, **k: gymnasium.make_vec(*a, num_envs=2, **k),
        "make_vec_sync": lambda *a, **k: gymnasium.make_vec(*a, num_envs=2, vectorization_mode="sync", **k),
    }[call]
    for other in ("quagmire_v0", "nope_v0", 5):
        with pytest.raises(ValueError, match=r"boardenvs/Quess-v0 is quess_v0: env_id=.* cannot change its game"):
            make("boardenvs/Quess-v0", env_id=other)
    with pytest.raises(ValueError, match=r"use gymnasium.make\('boardenvs/Quagmire-v0'\)"):
        make("boardenvs/Quess-v0", env_id="quagmire_v0")
    env = make("boardenvs/Quess-v0", env_id="quess_v0")
    assert env.observation_space.shape[-1] == 6 * 6 * 8  # Quess' planes (flat), not Quagmire's
    quagmire = make("boardenvs/Quagmire-v0")
    assert quagmire.observation_space.shape[-1] != 6 * 6 * 8


def test_evaluate_refuses_more_games_than_its_bound_before_allocating():
    """evaluate(games=10**12) was numpy's MemoryError; the bound (10**7) is
    documented and named, and nothing is built for a refused call."""
    from boardenvs.wrappers import evaluate
    from boardenvs.wrappers.evaluation import MAX_GAMES

    assert MAX_GAMES == 10**7 and "MAX_GAMES`` (10**7)" in evaluate.__doc__
    for games in (10**12, MAX_GAMES + 1):
        with pytest.raises(ValueError, match=rf"games must be at most 10_000_000 \(evaluate's bound\), got {games}"):
            evaluate("random", "quess_v0", games=games)
    for games in (0, -3, 2.0, True, "10"):
        with pytest.raises(ValueError, match="games must be a positive int"):
            evaluate("random", "quess_v0", games=games)


def test_evaluate_plays_its_games_in_batches_of_bounded_size(monkeypatch):
    """Memory does not grow with games: at most BATCH rows at once; every
    game is counted once; a call of at most BATCH games is one batch (the
    same results as before batches)."""
    from boardenvs.wrappers import evaluate, evaluation

    built = []
    original = evaluation.SingleAgentVectorEnv

    def counting(*args, num_envs, **kwargs):
        built.append(num_envs)
        return original(*args, num_envs=num_envs, **kwargs)

    one_batch = evaluate("greedy", "quagmire_v0", games=7, seed=3, radius=2)
    monkeypatch.setattr(evaluation, "SingleAgentVectorEnv", counting)
    monkeypatch.setattr(evaluation, "BATCH", 7)
    assert evaluate("greedy", "quagmire_v0", games=7, seed=3, radius=2) == one_batch and built == [7]
    built.clear()
    res = evaluate("greedy", "quagmire_v0", games=20, seed=3, radius=2)
    assert built == [7, 7, 6]
    assert res["games"] == res["wins"] + res["draws"] + res["losses"] == 20
    assert sum(sum(counts) for counts in res["by_seat"].values()) == 20
    assert evaluate("greedy", "quagmire_v0", games=20, seed=3, radius=2) == res  # seeded, batch by batch


def test_round_robin_and_the_cli_games_flags_are_bounded(capsys, tmp_path):
    from boardenvs.baselines import distill, imitation, train
    from boardenvs.baselines import tournament as ev
    from boardenvs.baselines.demo import main as demo_main

    name = "quagmire_v0"
    with pytest.raises(ValueError, match=r"games must be at most 10_000_000 \(evaluate's bound\), got 10000001"):
        ev.round_robin(name, games=10_000_001, verbose=False)
    with pytest.raises(ValueError, match=r"games_vs\['random'\] must be at most 10_000_000"):
        ev.round_robin(
            name, games=2, players=[f"baseline:{name}", "random"], games_vs={"random": 10**12}, verbose=False
        )
    for fn, argv, message in (
        (ev.main, [name, "--games", str(10**12)], "--games must be at most 10_000_000, got 1000000000000"),
        (
            ev.main,
            [name, "--games-vs", "random=100000000"],
            "--games-vs random=100000000: N must be at most 10_000_000",
        ),
        (
            train.main,
            [name, "--eval-games", str(10**8), "--out", str(tmp_path / "t")],
            "eval_games must be an int in 1..10_000_000 (evaluate's bound), got 100000000",
        ),
        (
            distill.main,
            [name, "--games", str(10**6), "--out", str(tmp_path / "d")],
            "games must be at most 100_000 (the samples are kept in memory",
        ),
        (demo_main, ["--games", str(10**8), "--out", str(tmp_path / "demo")], "--games must be at most 10_000_000"),
    ):
        with pytest.raises(SystemExit) as info:
            fn(argv)
        assert info.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # refused before any training, folder or file
    with pytest.raises(ValueError, match="games must be at most 100_000"):
        imitation.collect(name, "random", games=10**9)


def test_mcts_simulations_are_bounded():
    """mcts:<simulations> allocates a tree of that many nodes per row: the
    bound (10**6) is named instead of numba's allocation failure."""
    from boardenvs.baselines.mcts import MAX_SIMULATIONS, MCTSOpponent
    from boardenvs.wrappers import make_opponent

    assert MAX_SIMULATIONS == 10**6 and "10**6" in MCTSOpponent.__doc__
    with pytest.raises(ValueError, match=r"opponent 'mcts:999999999': mcts: simulations must be at most 1_000_000"):
        make_opponent("mcts:999999999")
    with pytest.raises(ValueError, match="simulations must be at most 1_000_000"):
        MCTSOpponent(10**6 + 1)
    assert MCTSOpponent(10**6).simulations == 10**6


def _policy_with_actions(num_actions, obs_space):
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy(obs_space, spaces.Discrete(num_actions), lambda _: 0.0)


def test_a_model_of_another_action_count_is_refused_as_an_opponent_naming_both():
    """The right observation shape, another action count: was numpy's
    broadcast message; now a ValueError naming the model's action count and
    the game's, at the opponent's first move (the single and vector views,
    evaluate, the CLI's play_turn)."""
    import gymnasium
    from boardenvs.wrappers import evaluate, make_opponent
    from boardenvs.wrappers.vector import SingleAgentVectorEnv

    from boardenvs.matches import play_turn

    env = gymnasium.make("boardenvs/Quagmire-v0", radius=2)
    assert env.action_space.n == 103
    policy = _policy_with_actions(40, env.observation_space)
    message = r"the model chooses among 40 actions, this game has 103"
    view = gymnasium.make("boardenvs/Quagmire-v0", radius=2, opponent=policy, seat=1, first_player=0)
    with pytest.raises(ValueError, match=message):
        view.reset(seed=0)  # the opponent moves first
    vec = SingleAgentVectorEnv("quagmire_v0", num_envs=3, radius=2, opponent=policy, seat=1, first_player=0)
    with pytest.raises(ValueError, match=message):
        vec.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        evaluate(policy, "quagmire_v0", games=2, radius=2)
    pos = boardenvs.position("quagmire_v0", radius=2)
    with pytest.raises(ValueError, match=message):
        play_turn(make_opponent(policy), pos, np.random.default_rng(0))
    other_size = _policy_with_actions(103, gymnasium.spaces.Box(0, 1, (7, 7), np.int8))
    with pytest.raises(
        ValueError, match=r"the model takes observations of shape \(7, 7\), this game gives \(5, 5, 5\)"
    ):
        play_turn(make_opponent(other_size), pos, np.random.default_rng(0))
    flat = _policy_with_actions(103, gymnasium.make("boardenvs/Quagmire-v0", radius=2, flatten=True).observation_space)
    after, move = play_turn(make_opponent(flat), pos, np.random.default_rng(0))  # same numbers, flattened: reshaped
    assert move in pos.legal_moves()


def test_cli_writes_only_regular_files_and_reads_capped_ones(tmp_path, capsys, monkeypatch):
    """``--save`` / ``--out`` write only to a new or an
    existing regular file (a symlink, a FIFO or a device node is refused,
    not replaced by a regular file); ``replay`` reads only a regular file of
    at most 64 MB (``/dev/zero`` was read without end).  Each is one
    ``error:`` line, rc 2, nothing written."""
    import os

    from boardenvs import files
    from boardenvs.cli import main

    target = tmp_path / "real.png"
    target.write_bytes(b"keep")
    os.symlink(target, tmp_path / "link.png")
    os.mkfifo(tmp_path / "pipe.png")
    for name, words in (("link.png", "is a symbolic link: refused"), ("pipe.png", "is not a regular file")):
        assert main(["picture", "quess_v0", "--out", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and words in err[0], err
    assert target.read_bytes() == b"keep" and (tmp_path / "link.png").is_symlink()
    assert main(["picture", "quess_v0", "--out", str(tmp_path / "new.png")]) == 0  # a new file: written
    for path, words in (
        ("/dev/zero", "not a regular file"),
        (str(tmp_path / "pipe.png"), "not a regular file"),
        (str(tmp_path), "not a regular file"),
    ):
        assert main(["replay", path]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and words in err[0], err
    big = tmp_path / "big.json"
    big.write_text("{}" + " " * 100)
    monkeypatch.setattr(files, "MAX_READ_BYTES", 50)
    monkeypatch.setattr(files.read_text_capped, "__defaults__", ("file", 50))
    assert main(["replay", str(big)]) == 2
    assert "is larger than" in capsys.readouterr().err
