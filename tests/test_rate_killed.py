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
written whole through ``write_atomically`` (a kill in the middle of that
write leaves the previous file as it was).  A rating's folder is also taken
at 50 seeded-random points of its life (a snapshot of the disk, what a
SIGKILL there leaves: ``killing.py``, and ``test_killed.py``'s fifty
points), and a full disk (ENOSPC) while a round is appended stops the
rating with one line naming the partial file, its games kept for
``--resume``."""

from __future__ import annotations

import errno
import gzip
import json
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from boardenvs.baselines import ladder
from boardenvs.baselines.ladder import rating
from killing import dead_pid, draw, kill_at, snapshot

from boardenvs import cli, files
from boardenvs.tracelog import partial_path, read_partial
from boardenvs.traces import read_traces, write_traces

CHILD = Path(__file__).resolve().parent / "killed_rate.py"
GAME, AGENT, GAMES, SEED = "quagmire_v0", "mcts:8", 80, 4  # 5 rounds of 16 games: 3 in the first pass, 2 after
REAL_WRITE = files.write_atomically
SAME = ("agent", "rating", "interval", "half_width", "games", "stopped", "by_member", "beyond", "seed")
# real kills, one of each kind of point (every kind, and 50 points in all, are also drawn by the seeded-random
# test below, which leaves the disk as a kill would without a process per point)
POINTS = ["playing-1", "cut-2-8", "written-3", "final-half"]


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
    """The child rating killed at ``point`` (:func:`killing.kill_at`)."""
    kill_at([sys.executable, str(CHILD), point, str(ladders), json.dumps(_argv(out, "--quiet"))], point)


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


# -- 50 seeded-random points -------------------------------------------------------------------------------------------
KILLS, RESUMES, DRAW_SEED = 50, 6, 73
TEMPORARY = re.compile(r"\.r\.jsonl\.\d+-[0-9a-f]{8}\.tmp\.gz")


class RateEvents:
    """The events of a rating, each counted by kind: a round played (its
    games in memory, none written), each line of a round's appended games
    half-written and written (the bytes up to the middle, or the end, of
    that line on the disk), the round synced, the final trace file half
    written, written but not renamed, renamed, and the partial file
    removed.  ``hook(kind, n, cut)`` is called at each (``cut``: ``(path,
    size)``, the file being written as the disk holds it then, or None).
    The wrappers are test code patched in from outside, as in
    ``killed_rate.py``; each event comes after the real code wrote what it
    stands for, the cut file a prefix of it."""

    def __init__(self, monkeypatch, hook=None):
        from boardenvs import files, traces
        from boardenvs.tracelog import TraceLog, line_bytes

        self.counts, self.order, self.hook = {}, [], hook
        real_play, real_add, real_finish, real_write = rating.play_chunk, TraceLog.add, TraceLog.finish, REAL_WRITE
        events = self

        def play_chunk(*args, **kwargs):
            games = real_play(*args, **kwargs)
            events.at("round: played")
            return games

        def add(log, games):
            start = log.file.tell()
            real_add(log, games)
            for k in range(len(games)):
                before, through = (start + len(line_bytes(games[:j])) for j in (k, k + 1))
                events.at("line: half", cut=(log.path, (before + through) // 2))
                events.at("line: written", cut=(log.path, through))
            events.at("round: synced")

        def finish(log, games):
            written = real_finish(log, games)
            events.at("partial: removed")
            return written

        def write_atomically(path, write, what="output file"):
            def watched(tmp):
                write(tmp)
                events.at(f"{what}: half", cut=(tmp, os.path.getsize(tmp) // 2))
                events.at(f"{what}: written")

            real_write(path, watched, what)
            events.at(f"{what}: renamed")

        monkeypatch.setattr(rating, "play_chunk", play_chunk)
        monkeypatch.setattr(TraceLog, "add", add)
        monkeypatch.setattr(TraceLog, "finish", finish)
        monkeypatch.setattr(files, "write_atomically", write_atomically)
        monkeypatch.setattr(traces, "write_atomically", write_atomically)

    def at(self, kind: str, cut=None) -> None:
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        self.order.append((kind, n))
        if self.hook is not None:
            self.hook(kind, n, cut)


@pytest.fixture(scope="module")
def rated_anywhere(toy, unbroken, tmp_path_factory):
    """The unbroken rating's events (counted), then the rating again with a
    snapshot of its folder taken at each of :data:`KILLS` points drawn from
    them."""
    mp = pytest.MonkeyPatch()
    mp.setattr(ladder, "LADDERS", toy)
    try:
        counted = RateEvents(mp)
        again = ladder.rate(
            AGENT,
            GAME,
            games=GAMES,
            seed=SEED,
            traces=tmp_path_factory.mktemp("counted") / "r.jsonl.gz",
            progress=ladder.QUIET,
        )
    finally:
        mp.undo()
    groups = [["round: played"], ["line: half", "line: written"], ["round: synced"]]
    groups.append(["trace file: half", "trace file: written", "trace file: renamed", "partial: removed"])
    points = draw(counted.counts, groups, KILLS, DRAW_SEED)
    wanted = {p: k for k, p in enumerate(points)}
    root = tmp_path_factory.mktemp("rated_anywhere")
    out, dead, taken = root / "run" / "r.jsonl.gz", dead_pid(), {}
    out.parent.mkdir()

    def hook(kind, n, cut):
        if (kind, n) in wanted:
            k = wanted[(kind, n)]
            snapshot(out.parent, root / f"snapshot_{k}", dead, cut)
            taken[k] = (kind, n)

    mp = pytest.MonkeyPatch()
    mp.setattr(ladder, "LADDERS", toy)
    try:
        events = RateEvents(mp, hook)
        result = ladder.rate(AGENT, GAME, games=GAMES, seed=SEED, traces=out, progress=ladder.QUIET)
    finally:
        mp.undo()
    return {
        "points": points,
        "taken": taken,
        "root": root,
        "dead": dead,
        "result": result,
        "again": again,
        "counts": counted.counts,
        "events": events.counts,
        "text": gzip.decompress(out.read_bytes()).decode(),
    }


def test_a_rating_killed_at_50_random_points_leaves_its_games_every_time(
    toy, unbroken, rated_anywhere, capsys, monkeypatch
):
    """Reliability: killed at any moment, nothing lost: SIGKILL at 50
    random points of a ``rate`` run.

    Fifty points (kind, occurrence) are drawn, seeded, from the events the
    rating goes through (:class:`RateEvents`): a round played, a line of a
    round's games half-written or written, the round synced, the final
    trace file half-written, written but not renamed, renamed, and the
    partial file removed.  The kill is simulated as in ``test_killed.py``'s
    fifty points (``killing.snapshot``: the folder as the disk holds it
    then, the file being written cut where the write has got to, a
    temporary file carrying a dead process's pid); the real SIGKILLs above
    kill a child at ten of these points.

    Every snapshot holds either the final trace file, the unbroken run's
    byte for byte (``read_traces`` reads it), or the partial file, whose
    complete lines (``read_partial``) are a prefix of the unbroken run's
    games, with a cut last line only where the point is in the middle of a
    line; no temporary file bears a name the trace is read from, and every
    one is the dead process's.  ``--resume`` from a seeded sample of
    :data:`RESUMES` of the snapshots with a partial file ends with the
    unbroken run's trace file and rating, and no partial or temporary file
    left."""
    monkeypatch.setattr(ladder, "LADDERS", toy)
    got = rated_anywhere
    assert got["events"] == got["counts"]  # the snapshots did not change the run ...
    assert got["text"] == unbroken["text"]  # ... nor its end
    assert {k: got["result"][k] for k in SAME} == {k: unbroken["result"][k] for k in SAME}
    assert {k: got["again"][k] for k in SAME} == {k: unbroken["result"][k] for k in SAME}
    assert sorted(got["taken"]) == list(range(KILLS)) and len({p[0] for p in got["points"]}) >= 6
    lines = unbroken["text"].splitlines(keepends=True)
    games = [json.loads(line) for line in lines]
    partials, finals = [], []
    for k, (kind, n) in enumerate(got["points"]):
        snap = got["root"] / f"snapshot_{k}"
        names = {p.name for p in snap.iterdir()}
        where = f"snapshot_{k} ({kind} #{n}): {sorted(names)}"
        temporaries = {x for x in names if TEMPORARY.fullmatch(x)}
        assert names - temporaries <= {"r.jsonl.gz", "r.jsonl.gz.partial"} and names - temporaries, where
        assert all(f".{got['dead']}-" in x for x in temporaries) and len(temporaries) <= 1, where
        assert bool(temporaries) == (kind in ("trace file: half", "trace file: written")), where
        if "r.jsonl.gz" in names:  # the final trace file: complete, the unbroken run's
            assert read_traces(snap / "r.jsonl.gz") == games, where
            assert gzip.decompress((snap / "r.jsonl.gz").read_bytes()).decode() == unbroken["text"], where
            finals.append(k)
        if "r.jsonl.gz.partial" in names:  # the games so far, whole, a prefix of the unbroken run's
            kept, cut, size = read_partial(snap / "r.jsonl.gz.partial")
            assert kept == games[: len(kept)] and size == len("".join(lines[: len(kept)]).encode()), where
            assert (cut is not None) == (kind == "line: half"), where
            if kind.startswith("line: "):
                assert len(kept) == n + (kind == "line: written"), where
            partials.append(k)
        else:
            assert kind == "partial: removed", where
    assert finals and partials and set(finals) | set(partials) == set(range(KILLS))
    for k in random.Random(DRAW_SEED).sample(partials, RESUMES):
        snap = got["root"] / f"snapshot_{k}"
        capsys.readouterr()
        assert cli.main(_argv(snap / "r.jsonl.gz", "--resume")) == 0, (k, got["points"][k])
        result = json.loads(capsys.readouterr().out)
        assert {x: result[x] for x in SAME} == {x: unbroken["result"][x] for x in SAME}, (k, got["points"][k])
        assert gzip.decompress((snap / "r.jsonl.gz").read_bytes()).decode() == unbroken["text"], k
        assert sorted(p.name for p in snap.iterdir()) == ["r.jsonl.gz"], k  # no partial, no temporary


FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # what a full disk raises


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_a_full_disk_while_a_round_is_appended_says_so_and_resume_goes_on(
    toy, unbroken, tmp_path, capsys, monkeypatch, where
):
    """Reliability: a full disk.  ENOSPC while the third round's lines are
    appended to the partial trace (half of them written, then the error; or
    at the sync, a file system with delayed allocation): ``boardenvs rate``
    stops with one ``error:`` line naming the partial file (rc 2), the
    partial file holds the first two rounds' games whole (and at most a cut
    last line), and ``--resume`` later ends with the unbroken run's trace
    file and rating."""
    from boardenvs import tracelog

    monkeypatch.setattr(ladder, "LADDERS", toy)
    out = tmp_path / "r.jsonl.gz"
    partial = partial_path(out)
    appends = []

    class Filling:  # the partial file, its third round's write failing half-way
        def __init__(self, file):
            self.file = file

        def write(self, data):
            appends.append(len(data))
            if len(appends) == 3:
                self.file.write(data[: len(data) // 2])
                self.file.flush()
                raise FULL
            return self.file.write(data)

        def __getattr__(self, name):
            return getattr(self.file, name)

    class SyncFull:  # os, its third sync of the partial file failing
        def fsync(self, fd):
            if os.path.realpath(f"/proc/self/fd/{fd}").endswith(".partial") and os.path.isfile(partial):
                appends.append(fd)
                if len(appends) == 3:
                    raise FULL
            return os.fsync(fd)

        def __getattr__(self, name):
            return getattr(os, name)

    with monkeypatch.context() as m:
        if where == "write":
            m.setattr(tracelog, "open", lambda *a, **k: Filling(open(*a, **k)), raising=False)
        else:
            m.setattr(tracelog, "os", SyncFull())
        capsys.readouterr()
        assert cli.main(_argv(out, "--quiet")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: cannot write partial trace file {str(partial)!r}: "), err
    assert "No space left on device" in err[0] and len(appends) == 3
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == [partial.name]
    kept, cut, _ = read_partial(partial)
    lines = unbroken["text"].splitlines(keepends=True)
    if where == "write":  # the first two rounds, and the lines of the third its half held whole, a cut one after
        assert 32 <= len(kept) < 48 and cut == len(kept) + 1, (len(kept), cut)
    else:  # the third round's lines were written, their sync failed
        assert len(kept) == 48 and cut is None
    assert partial.read_text().startswith("".join(lines[: len(kept)]))
    assert unbroken["text"].startswith(partial.read_text())  # (the cut line: a prefix of the unbroken run's)
    assert cli.main(_argv(out, "--resume")) == 0
    printed, said = capsys.readouterr()
    assert f"goes on from the {len(kept)} games" in said
    assert {k: json.loads(printed)[k] for k in SAME} == {k: unbroken["result"][k] for k in SAME}
    assert gzip.decompress(out.read_bytes()).decode() == unbroken["text"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl.gz"]
