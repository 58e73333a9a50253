"""Reliability (issue 73, item 2): ``boardenvs rate`` killed at any moment
keeps every game it finished, and ``--resume`` goes on; a trace cut
mid-game is refused with the line it stopped at, and the games before it
still count.

A small rating (``tests/killed_rate.py``, a subprocess running
``boardenvs rate``) is sent SIGKILL at ten named points: while a round is
played, after a round's lines are written, in the middle of a line (the
first of a round, one inside a round, the very last game), while the trace
file itself is written and after it is, before the partial file goes.  The
child says where it is on its stdout and blocks there; the parent kills it
on that line (events, no sleeps).  Afterwards the partial trace holds the
unbroken run's games, a prefix of them, whole (plus at most one cut last
line, which ``read_traces`` refuses naming it), the trace file is absent or
whole, and ``boardenvs rate ... --resume`` ends with the unbroken run's
trace file, byte for byte, and its rating.  The ladder's own files are
written whole through ``write_atomically`` (the last test: a kill in the
middle of that write leaves the previous file as it was)."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from backstop import HANG_S
from boardenvs.baselines import ladder
from boardenvs.baselines.ladder import rating

from boardenvs import cli
from boardenvs.tracelog import partial_path
from boardenvs.traces import read_traces, write_traces

CHILD = Path(__file__).resolve().parent / "killed_rate.py"
GAME, AGENT, GAMES, SEED = "quagmire_v0", "mcts:8", 80, 4  # 5 rounds of 16 games: 3 in the first pass, 2 after
SAME = ("agent", "rating", "interval", "half_width", "games", "stopped", "by_member", "beyond", "seed")
POINTS = [
    "playing-1",
    "cut-1-1",
    "written-1",
    "cut-2-8",
    "written-3",
    "playing-4",
    "written-5",
    "cut-5-16",
    "final-half",
    "final-renamed",
]


def _argv(out: Path, *more: str) -> list[str]:
    return ["rate", GAME, AGENT, "--games", str(GAMES), "--seed", str(SEED), "--out", str(out), "--json", *more]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Ladder v1 of quagmire_v0 with three cheap members, in a folder of its own."""
    folder = tmp_path_factory.mktemp("ladders")
    saved = ladder.LADDERS
    ladder.LADDERS = folder
    try:
        ladder.build("quagmire_v0", members=["random", "greedy", "baseline:quagmire_v0"], games=32, verbose=False)
    finally:
        ladder.LADDERS = saved
    return folder


@pytest.fixture(scope="module")
def unbroken(toy, tmp_path_factory):
    """The rating never killed: its result and its trace file's text."""
    out = tmp_path_factory.mktemp("unbroken") / "r.jsonl.gz"
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(ladder, "LADDERS", toy)
        result = ladder.rate(AGENT, GAME, games=GAMES, seed=SEED, traces=out, progress=ladder.QUIET)
    finally:
        mp.undo()
    assert not partial_path(out).exists()
    return {"result": result, "text": gzip.decompress(out.read_bytes()).decode()}


def _kill_at(point: str, out: Path, ladders: Path) -> None:
    """Run the child until it says it is at ``point``, SIGKILL it there and reap it."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), point, str(ladders), json.dumps(_argv(out, "--quiet"))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    backstop = threading.Timer(HANG_S, child.kill)  # a hung child, not a slow one
    backstop.start()
    try:
        lines = []
        for line in child.stdout:
            lines.append(line)
            if line.strip() == f"AT {point}":
                child.send_signal(signal.SIGKILL)
                break
        assert child.wait() == -signal.SIGKILL, f"the child never reached {point}: {lines[-5:]}"
    finally:
        backstop.cancel()
        child.stdin.close()
        child.stdout.close()


@pytest.mark.parametrize("point", POINTS)
def test_a_rating_killed_at_any_point_keeps_its_games_and_goes_on(toy, unbroken, tmp_path, point, capsys, monkeypatch):
    """Reliability: killed at any moment, nothing lost; a trace cut
    mid-game is refused with the line it stopped at, and the games before
    it still count.  SIGKILL a ``rate`` run at ``point``: its partial trace
    holds a prefix of the unbroken run's games, whole (a cut last line
    refused by ``read_traces`` with its number), the trace file is absent
    or the unbroken one; ``--resume`` drops the cut line (one stderr line
    says so), plays only the games it lacks and ends with the unbroken
    run's trace file and rating; no temporary or partial file is left."""
    monkeypatch.setattr(ladder, "LADDERS", toy)
    out = tmp_path / "r.jsonl.gz"
    partial = partial_path(out)
    _kill_at(point, out, toy)
    text = partial.read_text()
    head, newline, cut = text.rpartition("\n")
    whole = head + newline
    kept = whole.count("\n")
    assert unbroken["text"].startswith(whole), point  # the unbroken run's first games, byte for byte
    if point.startswith("cut-"):  # the next game's line, cut short
        following = unbroken["text"][len(whole) :].split("\n")[0]
        assert cut and following.startswith(cut) and len(cut) < len(following), point
        with pytest.raises(ValueError, match=rf"line {kept + 1}: cut short mid-game .* the {kept} games before"):
            read_traces(partial)
    else:
        assert cut == "", point
        assert kept == 0 or len(read_traces(partial)) == kept  # each game replays to its recorded end
    expected = {"playing-1": 0, "cut-1-1": 0, "written-1": 16, "cut-2-8": 23, "written-3": 48, "playing-4": 48}
    assert kept == expected.get(point, GAMES - (point == "cut-5-16")), (point, kept)
    if point == "final-renamed":
        assert gzip.decompress(out.read_bytes()).decode() == unbroken["text"]
    else:
        assert not out.exists()
    temporaries = [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]
    assert len(temporaries) == (point == "final-half"), temporaries
    capsys.readouterr()
    real, rounds = rating.play_chunk, []
    monkeypatch.setattr(rating, "play_chunk", lambda *a, **k: rounds.append(a[9]) or real(*a, **k))
    assert cli.main(_argv(out, "--resume")) == 0
    assert len(rounds) == GAMES // ladder.CHUNK - kept // ladder.CHUNK  # only the rounds it lacks (a cut one again)
    printed, said = capsys.readouterr()
    result = json.loads(printed)
    assert f"goes on from the {kept} games" in said
    assert (f"line {kept + 1} was cut mid-game" in said) == point.startswith("cut-"), said
    assert {k: result[k] for k in SAME} == {k: unbroken["result"][k] for k in SAME}
    assert gzip.decompress(out.read_bytes()).decode() == unbroken["text"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl.gz"]  # no partial, no temporary


def test_a_cut_trace_is_refused_naming_its_line_and_resume_keeps_the_games_before_it(
    toy, unbroken, tmp_path, capsys, monkeypatch
):
    """Reliability: a trace cut mid-game is refused with the line it
    stopped at; the resuming run says (one stderr line) it drops that line
    and goes on from the games before it."""
    monkeypatch.setattr(ladder, "LADDERS", toy)
    out = tmp_path / "r.jsonl.gz"
    lines = unbroken["text"].splitlines(keepends=True)
    partial_path(out).write_text("".join(lines[:20]) + lines[20][:57])
    with pytest.raises(ValueError, match=r"line 21: cut short mid-game \(not JSON: .*\); the 20 games before it"):
        read_traces(partial_path(out))
    assert cli.main(_argv(out, "--resume")) == 0
    err = capsys.readouterr().err
    assert f"{partial_path(out)}: line 21 was cut mid-game" in err and "the 20 games before it are kept" in err
    assert "goes on from the 20 games" in err
    assert gzip.decompress(out.read_bytes()).decode() == unbroken["text"]


def test_a_partial_trace_is_never_overwritten_nor_taken_for_another_run(toy, unbroken, tmp_path, capsys, monkeypatch):
    """Reliability: a run without ``--resume`` refuses to start over the
    games of a stopped one; ``--resume`` with other settings (another seed)
    refuses naming the first game that differs; ``--resume`` with nothing
    to go on from says so."""
    monkeypatch.setattr(ladder, "LADDERS", toy)
    out = tmp_path / "r.jsonl.gz"
    lines = unbroken["text"].splitlines(keepends=True)
    partial_path(out).write_text("".join(lines[:16]))
    assert cli.main(_argv(out)) == 2
    assert "holds the games of a rating that stopped: --resume goes on from it" in capsys.readouterr().err
    argv = _argv(out, "--resume")
    argv[argv.index("--seed") + 1] = str(SEED + 1)
    assert cli.main(argv) == 2
    assert "game 1 is not the game this rating plays there (its seed is" in capsys.readouterr().err
    assert partial_path(out).read_text() == "".join(lines[:16])  # (the refused runs left it as it was)
    partial_path(out).unlink()
    assert cli.main(_argv(out, "--resume")) == 2
    assert "no partial trace" in capsys.readouterr().err


def test_a_ladder_file_killed_mid_write_is_the_previous_one(unbroken, tmp_path):
    """Reliability: the ladder's files (its games, its ratings, its
    leaderboard) are written whole through ``write_atomically``: SIGKILL in
    the middle of writing one leaves the previous file as it was, and the
    half-written temporary is never read as it."""
    path = tmp_path / "v1.jsonl.gz"
    write_traces([json.loads(unbroken["text"].splitlines()[0])], path)
    before = path.read_bytes()
    code = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from boardenvs import files, traces\n"
        "real = files.write_atomically\n"
        "def half(path, write, what='output file'):\n"
        "    def w(tmp):\n"
        "        write(tmp)\n"
        "        open(tmp, 'r+b').truncate(10)\n"
        "        print('AT half', flush=True)\n"
        "        sys.stdin.read()\n"
        "    return real(path, w, what)\n"
        "traces.write_atomically = half\n"
        "t = traces.read_traces(sys.argv[1])\n"
        "traces.write_traces(t * 3, sys.argv[1])\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "AT half"
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
    finally:
        child.stdin.close()
        child.stdout.close()
    assert path.read_bytes() == before and len(read_traces(path)) == 1
    assert len([p for p in tmp_path.iterdir() if ".tmp" in p.name]) == 1  # (its temporary, under its own name)
