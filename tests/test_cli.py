"""The command line's one vocabulary: the game first in every command (an
env id or its gymnasium id), one meaning per flag, help on every flag, a
typo answered with the nearest name in one short line, files under runs/
unless a path is given, and every failure one ``error:`` line with exit
status 2 (a corrupt trace, a folder that cannot be written, terminal control
characters in a name, the trainer's errors)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import boardenvs
from boardenvs import cli
from boardenvs.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAME_COMMANDS = ("play", "watch", "picture", "rules", "card", "random-games", "rate")


def _subparsers(parser):
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


class _Caught(Exception):
    pass


def _script_parsers():
    """``{name: parser}`` of the trainer and the demo (``boardenvs train``,
    ``boardenvs demo``), caught as they start parsing."""
    from boardenvs.baselines import demo, train

    from boardenvs.helptext import CommandParser

    found = {}

    def catch(self, *args, **kwargs):
        found[self.prog.rpartition(".")[2]] = self
        raise _Caught

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CommandParser, "parse_args", catch)
        for module in (train, demo):
            with pytest.raises(_Caught):
                module.main([])
    return found


def _status(argv) -> int:
    """``main(argv)``'s exit status, returned or raised (the trainer's parser exits)."""
    try:
        return main(argv)
    except SystemExit as done:
        return done.code


def test_every_flag_of_every_command_has_help_and_no_doubled_percent():
    parsers = {**_subparsers(cli.parser()), **{f"script {k}": p for k, p in _script_parsers().items()}}
    assert {"script train", "script demo"} <= set(parsers)
    missing = [
        f"{name} {'/'.join(a.option_strings) or a.dest}"
        for name, p in parsers.items()
        for a in p._actions
        if not (a.help or "").strip() and not isinstance(a, argparse._HelpAction)
    ]
    assert not missing, missing
    texts = {name: p.format_help() for name, p in parsers.items()}
    texts["boardenvs"] = cli.parser().format_help()
    for name, text in texts.items():
        assert "%%" not in text, name
    assert "95% interval" in texts["rate"]
    # the trainer's default budget says what it is (minutes per game, not "the committed model's budget")
    train_help = " ".join(texts["script train"].split())
    assert "committed model's budget" not in train_help, train_help
    assert re.search(r"minutes of training.*\(default, unless --steps is given: \d", train_help), train_help


@pytest.mark.parametrize("command", GAME_COMMANDS)
def test_every_command_takes_the_game_first_by_env_id_or_gymnasium_id(command):
    parser = cli.parser()
    extra = {"rate": ["greedy"], "picture": ["--out", "x.png"]}.get(command, [])
    for name in ("quess_v0", "boardenvs/Quess-v0"):
        args = parser.parse_args([command, name, *extra])
        assert args.game == "quess_v0", (command, name)
    usage = _subparsers(parser)[command].format_usage()
    assert re.search(rf"boardenvs {command} .*GAME", usage, re.S) and not re.search(r"--game\b", usage), usage


def test_rate_takes_the_game_then_the_agent_and_its_old_order_still_works(capsys):
    args = cli.parser().parse_args(["rate", "quess_v0", "greedy", "--players", "2"])
    assert (args.game, args.agent, args.players) == ("quess_v0", "greedy", 2)
    argv, notes = cli.modernize(["rate", "greedy", "--game", "quess_v0", "--traces", "t.jsonl"])
    assert argv == ["rate", "quess_v0", "greedy", "--out", "t.jsonl"] and len(notes) == 2
    argv, _ = cli.modernize(["rate", "greedy", "--game=boardenvs/Quess-v0"])
    assert argv == ["rate", "boardenvs/Quess-v0", "greedy"]


def test_players_is_the_player_count_everywhere_and_vs_the_opponents(capsys, tmp_path):
    commands = _subparsers(cli.parser())
    with_players = [name for name, p in commands.items() if "--players" in p._option_string_actions]
    assert set(with_players) == {"play", "watch", "picture", "random-games", "rate"}
    for name in with_players:
        action = commands[name]._option_string_actions["--players"]
        assert action.type is cli.PLAYERS and action.nargs is None and "player count" in action.help, name
    for name in ("play", "watch"):
        assert "opponent" in commands[name]._option_string_actions["--vs"].help
    # watch's 0.3 spelling (--players OPP ...) is --vs, with a note; a number stays the player count
    assert cli.modernize(["watch", "quess_v0", "--players", "random", "greedy", "--quiet"])[0] == [
        "watch",
        "quess_v0",
        "--vs",
        "random",
        "greedy",
        "--quiet",
    ]
    assert cli.modernize(["watch", "tryasina_v0", "--players", "3"]) == (["watch", "tryasina_v0", "--players", "3"], [])
    out = tmp_path / "w.json"
    assert (
        main(["watch", "tryasina_v0", "--players", "3", "--vs", "greedy", "random", "--quiet", "--out", str(out)]) == 0
    )
    assert json.loads(out.read_text())["options"]["num_players"] == 3
    assert main(["watch", "quess_v0", "--players", "random", "--quiet", "--max-moves", "2"]) == 0
    assert "note: watch --players OPP ... is now --vs" in capsys.readouterr().err
    assert main(["play", "quess_v0", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --players 3: quess_v0 is played by 2") and err.count("\n") == 1
    assert main(["play", "hex_quoridor_v1", "--players", "4", "--option", "num_players=2"]) == 2
    assert "disagree" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, nearest",
    [
        (["watch", "quess_v0", "--vs", "randon", "--quiet"], "'random'"),
        (["play", "quess_v0", "--vs", "gredy"], "'greedy'"),
        (["rate", "quess_v0", "mtcs", "--no-traces"], "'mcts'"),
        (["play", "quess_v9"], "'quess_v0'"),
        (["rate", "boardenvs/Quess-v1", "greedy"], "'boardenvs/Quess-v0'"),
        (["random-games", "quagmir_v0"], "'quagmire_v0'"),
        (["train", "quicksand_v1"], "'quicksand_v0'"),
        (["demo", "tryasina"], "'tryasina_v0'"),
    ],
)
def test_a_typo_is_one_short_line_naming_the_nearest_name(argv, nearest, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = _status(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert f"did you mean {nearest}?" in err and len(err) < 300, err
    assert "trust=True" not in err and "policy(obs" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_an_untrusted_file_is_refused_in_the_command_lines_words(tmp_path, capsys):
    (tmp_path / "model.zip").write_bytes(b"PK")
    assert main(["watch", "quess_v0", "--vs", str(tmp_path / "model.zip")]) == 2
    err = capsys.readouterr().err
    assert "--trust-files" in err and "trust=True" not in err and err.count("\n") == 1


def test_no_page_or_message_installs_boardenvs_from_an_index():
    """boardenvs is on no index: every install line is from a clone or a wheel."""
    bad = re.compile(r"pip install [\"']?boardenvs\b|[\"']boardenvs\[[\w,]+\][\"']")
    files = [ROOT / "README.md", ROOT / "Makefile", *ROOT.glob("docs/**/*.md"), *ROOT.glob("docs/**/*.ipynb")]
    files += [*ROOT.glob("docs/cluster/*.yaml"), *ROOT.glob("boardenvs/**/*.py"), *ROOT.glob("wrappers/*.py")]
    files += [*ROOT.glob("baselines/**/*.py"), *ROOT.glob("benchmarks/**/*.py")]
    skip = {ROOT / "docs/guide/changes.md"}  # (it quotes the old lines)
    found = [
        f"{f.relative_to(ROOT)}:{k + 1}"
        for f in files
        if f not in skip
        for k, line in enumerate(f.read_text(encoding="utf-8").splitlines())
        if bad.search(line)
    ]
    assert not found, found
    from boardenvs.errors import install_line

    assert install_line("rllib").startswith("pip install '.[rllib]'") and "py3-none-any.whl[rllib]" in install_line(
        "rllib"
    )
    assert "rllib-env:" in (ROOT / "Makefile").read_text() and "make rllib-env" in (ROOT / "README.md").read_text()


def _doc_command_lines():
    """``(page, line)`` of every ``boardenvs ...`` line in a fenced block of
    the README and the pages (a console's ``$`` and a trailing comment dropped)."""
    for page in [ROOT / "README.md", *ROOT.glob("docs/**/*.md")]:
        if page.name == "changes.md":  # (the change log quotes the old spellings)
            continue
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            line = line.strip().removeprefix("$ ").split("  #")[0].strip()
            if fenced and line.startswith("boardenvs "):
                yield page.name, line


def test_the_docs_command_lines_use_the_one_vocabulary():
    """Every ``boardenvs ...`` line in a code block of the README and the
    pages parses with today's parser, with no old spelling rewritten."""
    parser = cli.parser()
    scripts = {name: p.format_help() for name, p in _script_parsers().items()}
    lines = list(_doc_command_lines())
    assert len(lines) >= 20 and {argv.split()[1] for _, argv in lines} >= {"play", "watch", "rate", "train"}
    for page, line in lines:
        argv = shlex.split(line)[1:]
        if argv[0] in scripts:  # the trainer's and the demo's flags: in their --help
            flags = [a.split("=")[0] for a in argv if a.startswith("--")]
            assert all(f in scripts[argv[0]] for f in flags), (page, line)
            continue
        assert cli.modernize(argv)[1] == [], (page, line)
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                parser.parse_args(argv)
            except SystemExit as done:
                pytest.fail(f"{page}: {line!r} does not parse ({done.code})")


def test_the_two_demos_have_distinct_names(capsys):
    commands = _subparsers(cli.parser())
    assert "random agents" in commands["random-games"].description
    assert "make demo" in commands["demo"].description and "train" in commands["demo"].description
    assert "boardenvs demo" in (ROOT / "Makefile").read_text().split("\ndemo:")[1].split("\n\n")[0]
    assert main(["random-games", "quagmire_v0", "--games", "1", "--seed", "4"]) == 0
    assert "results: 1 random-vs-random quagmire_v0 games" in capsys.readouterr().out


def test_outputs_go_under_runs_unless_a_path_is_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "quess_v0", "--seed", "1"]) == 0
    (saved,) = (tmp_path / "runs").iterdir()
    assert saved.name.startswith("quess_v0-") and saved.suffix == ".json"
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]
    assert "runs/" in (ROOT / ".gitignore").read_text().splitlines()


def test_a_corrupt_gzip_trace_is_one_error_line(tmp_path, capsys):
    from boardenvs.opponents import make_opponent
    from boardenvs.traces import play_matches, write_traces

    (t,) = play_matches("quagmire_v0", {}, [(0, 1)], [0], [make_opponent("random")] * 2, np.random.default_rng(0))
    good = tmp_path / "t.jsonl.gz"
    write_traces([t] * 20, good)
    data = good.read_bytes()
    bad = tmp_path / "bad.jsonl.gz"
    for damaged in (data[:10] + b"\xff" * 64, data[: len(data) // 2]):  # a reserved block type (zlib.error); cut short
        bad.write_bytes(damaged)
        assert main(["replay", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: cannot read trace file '{bad}': ") and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_output_folders_that_cannot_be_written_are_refused_before_any_game(tmp_path, capsys):
    """A folder that exists but takes no new file (here /proc: refused even
    to root) is named before a game is played or a model trained."""
    from boardenvs.files import output_path

    with pytest.raises(ValueError, match=r"cannot write in the folder '/proc'"):
        output_path("/proc/x.json", "--out")
    assert output_path(tmp_path / "x.json", "--out") == tmp_path / "x.json" and list(tmp_path.iterdir()) == []
    for argv in (
        ["rate", "quess_v0", "greedy", "--out", "/proc/r.jsonl.gz", "--games", "2"],
        ["watch", "quess_v0", "--out", "/proc/w.json"],
        ["watch", "quess_v0", "--quiet", "--gif", "/proc/w.gif"],
    ):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert "cannot write in the folder '/proc'" in captured.err and captured.err.count("\n") == 1, argv
        assert captured.out == "", argv  # nothing played


def test_terminal_output_escapes_control_characters_and_lone_surrogates(tmp_path, capsys):
    from boardenvs.errors import printable
    from boardenvs.opponents import make_opponent
    from boardenvs.traces import play_matches, write_traces

    assert printable("a\x1b]0;owned\x07b\rc\x9bd\ud800e\n") == "a\\x1b]0;owned\\x07b\\x0dc\\x9bd\\ud800e\n"
    (t,) = play_matches("quagmire_v0", {}, [(0, 1)], [0], [make_opponent("random")] * 2, np.random.default_rng(0))
    t["agents"][0]["name"] = "\x1b]0;owned\x07\x1b[2J" + "\ud800"
    path = tmp_path / "t.jsonl"
    write_traces([t], path)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")  # a terminal that refuses surrogates
    with contextlib.redirect_stdout(out):
        assert main(["replay", str(path)]) == 0
    out.seek(0)
    text = out.read()
    assert "\\x1b]0;owned\\x07\\x1b[2J\\ud800 vs random" in text
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)


def test_train_errors_are_one_line_with_status_2(tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("x")
    for argv in (
        ["train", "quess_v0", "--steps", "64", "--out", str(tmp_path / "file" / "q")],
        ["demo", "quess_v0", "--steps", "64", "--out", str(tmp_path / "file" / "d")],
    ):
        with pytest.raises(SystemExit) as done:
            main(argv)
        err = capsys.readouterr().err
        assert done.value.code == 2 and err.startswith("error: --out") and err.count("\n") == 1, err
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if sb3-contrib were not installed
    code = _status(["train", "quess_v0", "--steps", "64", "--out", str(tmp_path / "q"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and "pip install '.[train]'" in err, err
    assert not list(tmp_path.glob("q*"))


def test_a_training_seed_outside_32_bits_is_one_line_on_every_training_command(tmp_path, capsys):
    """C-6: ``--seed -1`` ended ``boardenvs demo`` in a traceback from
    numpy's legacy seeding (stable-baselines3 seeds it with the run's seed,
    which takes 32 bits).  Every training command refuses a seed outside
    0..2**32-1 as it parses it, in one line with status 2, writing nothing;
    ``train()`` refuses it with ValueError before anything is built."""
    from boardenvs.baselines import distill, expert_iteration, strength, tournament
    from boardenvs.baselines import train as train_module

    for bad in ("-1", str(2**32), "1.5", "x"):
        for argv in (["train", "quess_v0"], ["demo", "quess_v0"]):
            with pytest.raises(SystemExit) as done:
                main([*argv, "--steps", "64", "--seed", bad, "--out", str(tmp_path / "run" / "q")])
            err = capsys.readouterr().err
            assert done.value.code == 2 and err.count("\n") == 1, err
            assert err.startswith("error: argument --seed: a training seed is an integer in 0..2**32-1"), err
        for script in (distill, expert_iteration, strength, tournament):  # python -m boardenvs.baselines.<script>
            with pytest.raises(SystemExit) as done:
                script.main(["--seed", bad])
            assert done.value.code == 2 and "a training seed is an integer in 0..2**32-1" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    for bad in (-1, 2**32, True, 1.0):
        with pytest.raises(ValueError, match=r"seed must be an int in 0\.\.2\*\*32-1"):
            train_module.train("quess_v0", steps=64, seed=bad, out=str(tmp_path / "api" / "q"))
    assert not (tmp_path / "api").exists()


def test_a_missing_model_path_says_no_such_file(tmp_path):
    from boardenvs import baselines

    for name in ("missing.pt", tmp_path / "gone", str(tmp_path / "gone.json")):
        with pytest.raises(ValueError, match=r"no such file") as info:
            baselines.load(name)
        assert "one of" not in str(info.value)
    with pytest.raises(ValueError, match=r"no baseline 'quess_v9' \(did you mean 'quess_v0'\?\): one of"):
        baselines.load("quess_v9")


def test_training_threads_fit_torch_and_numba_in_the_cores():
    import numba
    import torch

    from boardenvs.threads import available_cores, split

    assert [split(n) for n in (1, 2, 3, 4, 16)] == [(1, 1), (1, 1), (2, 1), (2, 2), (8, 8)]
    before = torch.get_num_threads(), numba.get_num_threads()
    try:
        t, n = boardenvs.training_threads()
        assert (t, n) == (torch.get_num_threads(), numba.get_num_threads())
        assert t + n <= max(2, available_cores())
        assert boardenvs.training_threads(4) == (2, min(2, numba.config.NUMBA_NUM_THREADS))
        with pytest.raises(ValueError, match="threads must be an int in 1..1024"):
            boardenvs.training_threads(0)
    finally:
        torch.set_num_threads(before[0])
        numba.set_num_threads(before[1])


def test_a_huge_bound_reads_as_a_power_of_two(capsys):
    from boardenvs.registry import game_class

    (max_turns,) = [o for o in game_class("quess_v0").option_specs if o.name == "max_turns"]
    assert max_turns.allowed().endswith("..2**40")
    assert main(["list"]) == 0 and "1099511627776" not in capsys.readouterr().out


def test_card_prints_a_games_env_card(capsys):
    assert main(["card", "boardenvs/Quagmire-v0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Quagmire") and "## End reasons" in out
    assert "`boardenvs card quess_v0`" in (ROOT / "README.md").read_text()
