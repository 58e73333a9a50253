"""Reliability (issue 73, item 3): a full disk, a crash or a reboot never
leaves a file half-written.

Every file the package writes goes through
:func:`boardenvs.files.write_atomically`: a temporary file in the same folder,
synced to the disk, renamed over the old one, the folder synced.  Here the
writer of each kind of file fails half-way with ``ENOSPC`` (what a full
disk raises): the error is one ValueError line naming the file, the file
that was there before is byte for byte as it was, and no temporary file is
left.  The files too costly to make here in full (the ladders and the
leaderboard, strength tables, distillation samples, doc pictures) are
written by their modules' own write steps on tiny inputs, what is costly
around them replaced.  (A rating's partial trace file, appended to as it
plays: ``test_rate_killed.py``.)"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from boardenvs.baselines import resume as R
from boardenvs.baselines import tournament
from boardenvs.baselines import train as T
from boardenvs.baselines.runs import save_model
from boardenvs.wrappers.html_replay import write_page
from boardenvs.wrappers.recording import save_animation

from boardenvs import baselines, files
from boardenvs.cli import main as cli_main
from boardenvs.records import save_record
from boardenvs.traces import write_traces

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # what a full disk raises
REAL = files.write_atomically


@pytest.fixture
def full_disk(monkeypatch):
    """``full_disk(kind, nth=1)``: from then on, the ``nth`` write of ``kind``
    (write_atomically's ``what``) fails half-way: its writer writes the file,
    cuts it to half its size and raises ENOSPC.  Patched in every module that
    holds the function (``from .files import write_atomically``).  Returns
    the list of the paths of the failed writes with their bytes before."""
    failed = []

    def arm(kind: str, nth: int = 1):
        calls = []

        def write_atomically(path, write, what="output file"):
            if what != kind:
                return REAL(path, write, what)
            calls.append(path)
            if len(calls) != nth:
                return REAL(path, write, what)
            failed.append((path, open(path, "rb").read() if os.path.isfile(path) else None))

            def half_then_full(tmp):
                write(tmp)
                with open(tmp, "r+b") as f:
                    f.truncate(f.seek(0, 2) // 2)
                raise FULL

            return REAL(path, half_then_full, what)

        # (the package's modules, by their namespaces: another package's module-level __getattr__ may raise
        # something else than AttributeError for a name it does not have, as supersuit's does)
        for name, module in list(sys.modules.items()):
            if name.split(".")[0] == "boardenvs" and vars(module).get("write_atomically") is REAL:
                monkeypatch.setattr(module, "write_atomically", write_atomically)
        return failed

    return arm


def _temporaries(folder) -> list:
    return sorted(p.name for p in folder.rglob("*") if ".tmp" in p.name)


def _model_pair(out, steps):
    loaded = baselines.load("quess_v0")
    save_model(loaded.policy, dict(loaded.config), out, steps, 1.0, 1.0, False, "train")


def _entry(n):
    return {"name": f"model {n}", "num_players": 2, "results": []}  # (a round-robin of no games)


def _picture(path, n):
    code = cli_main(["picture", "quicksand_v0", "--random", str(n), "--out", str(path)])
    if code:
        raise SystemExit(code)


WRITERS = {
    # kind: (file name, write it the n-th time)
    "model weights": ("m.pt", lambda p, n: _model_pair(p.with_suffix(""), n)),
    "model config": ("m.json", lambda p, n: _model_pair(p.with_suffix(""), n)),
    "game record": ("g.json", lambda p, n: save_record({"format": 1, "moves": ["a"] * n}, p)),
    "trace file": ("t.jsonl", lambda p, n: write_traces([{"n": n}] * 50, p)),
    "trace file (gzip)": ("t.jsonl.gz", lambda p, n: write_traces([{"n": n}] * 50, p)),
    "replay page": ("r.html", lambda p, n: write_page("<html>" + "x" * 100 * n + "</html>", p)),
    "animation": ("a.gif", lambda p, n: save_animation([np.full((8, 8, 3), 40 * n, np.uint8)] * 3, p)),
    "results": ("results.json", lambda p, n: tournament.write(_entry(n), p, p.with_suffix(".md"))),
    "results table": ("results.md", lambda p, n: tournament.write(_entry(n), p.with_suffix(".json"), p)),
}


@pytest.mark.parametrize("kind", [*WRITERS, "--out"])
def test_a_full_disk_keeps_the_old_file_and_says_which(tmp_path, full_disk, capsys, kind):
    """Reliability: a full disk.  Each writer failing with ENOSPC half-way:
    one line naming the file (a ValueError; the command line's one
    ``error:`` line), the previous file byte-identical, no temporary file."""
    if kind == "--out":  # the picture command
        name, write = "p.png", _picture
    else:
        name, write = WRITERS[kind]
    path = tmp_path / name
    write(path, 1)
    before = path.read_bytes()
    failed = full_disk(kind.replace(" (gzip)", ""))
    if kind == "--out":
        with pytest.raises(SystemExit) as exit_:
            write(path, 7)
        err = capsys.readouterr().err.strip().splitlines()
        assert exit_.value.code == 2 and len(err) == 1 and err[0].startswith("error: "), err
        message = err[0]
    else:
        with pytest.raises(ValueError) as error:
            write(path, 2)
        message = str(error.value)
    assert failed and failed[0][1] == before  # (the failure was the injected one, over the old file)
    what = kind.replace(" (gzip)", "")
    assert f"cannot write {what} {str(path)!r}: No space left on device" in message
    assert "\n" not in message
    assert path.read_bytes() == before
    assert _temporaries(tmp_path) == []


def test_a_full_disk_during_a_runs_resume_state_keeps_the_last_one(tmp_path, full_disk):
    """Reliability: a full disk.  The resume state's writer failing at the
    run's second checkpoint: the run stops with one line naming the file,
    the first checkpoint's resume state is byte for byte as it was (and
    ``--resume`` reads it), no temporary file."""
    failed = full_disk("resume state", nth=2)
    out = tmp_path / "q"
    with pytest.raises(ValueError) as error:
        T.train(
            "quicksand_v0",
            steps=1024,
            num_envs=4,
            n_steps=32,
            batch_size=64,
            n_epochs=1,
            eval_every=0,
            eval_seconds=0,
            save_every=200,
            out=out,
            threads=1,
            progress_bar=False,
            verbose=0,
        )
    path, before = failed[0]
    assert str(error.value) == f"cannot write resume state {str(path)!r}: No space left on device"
    assert path == R.state_path(out) and before is not None and path.read_bytes() == before
    assert R.read(out).state["sb3"]["num_timesteps"] < 400
    assert _temporaries(tmp_path) == []


def test_the_file_reaches_the_disk_before_its_name_and_the_name_after(tmp_path, monkeypatch):
    """Reliability: a reboot.  write_atomically syncs the temporary file
    before it renames it over the old one, then syncs the folder (the
    rename itself on disk), and only then returns."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.path.realpath(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def replace(a, b):
        events.append(("replace", os.path.realpath(b)))
        return real_replace(a, b)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    path = tmp_path / "x.json"
    files.write_atomically(path, lambda tmp: tmp.write_text("new"), "thing")
    folder, target = os.path.realpath(tmp_path), os.path.realpath(path)
    assert [e[0] for e in events] == ["fsync", "replace", "fsync"]
    assert ".tmp" in events[0][1] and events[1][1] == target and events[2][1] == folder
    assert path.read_text() == "new"


def test_a_full_disk_found_at_the_sync_keeps_the_old_file(tmp_path, monkeypatch):
    """Reliability: a full disk.  A file system that reports ENOSPC only when
    the bytes are synced (delayed allocation): the same one line, the old
    file as it was, no temporary file."""
    path = tmp_path / "x.json"
    path.write_text("old")

    def fsync(fd):
        raise FULL

    monkeypatch.setattr(files.os, "fsync", fsync)
    with pytest.raises(ValueError, match="cannot write thing .*x.json': No space left on device"):
        files.write_atomically(path, lambda tmp: tmp.write_text("new"), "thing")
    assert path.read_text() == "old" and _temporaries(tmp_path) == []


def test_stale_temporaries_of_dead_processes_are_removed_and_no_others(tmp_path):
    """Reliability: killed at any moment.  remove_stale_temporaries clears
    the temporary files of a process that is gone (a killed run's), and
    leaves a live process's, other names' and every other file."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone, alive = int(dead.stdout), os.getpid()
    names = {
        f".q.{gone}-0123abcd.tmp.pt": False,  # a dead process's: removed
        f".q.resume.{gone}-0123abcd.tmp.pt": False,
        f".q.{alive}-0123abcd.tmp.pt": True,  # ours (a write in flight): kept
        f".other.{gone}-0123abcd.tmp.pt": True,  # another file's
        "q.pt": True,
        ".q.pt": True,
    }
    for name in names:
        (tmp_path / name).write_text("x")
    removed = files.remove_stale_temporaries(tmp_path / "q.pt", tmp_path / "q.resume.pt", tmp_path / "q.json")
    assert sorted(p.name for p in removed) == sorted(n for n, keep in names.items() if not keep)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for n, keep in names.items() if keep)


# -- the writers of files too costly to make in full here: each module's own write step on tiny inputs -----------------
def _one_line(error, kind, path) -> None:
    message = str(error.value)
    assert message == f"cannot write {kind} {str(path)!r}: No space left on device", message


@pytest.mark.parametrize("kind", ["ladder", "leaderboard"])
def test_a_full_disk_while_a_ladder_file_is_written_keeps_the_old_one(tmp_path, full_disk, monkeypatch, kind):
    """Reliability: a full disk.  The ladder's own files (``ladder.build``'s
    ladder, ``ladder.record``'s leaderboard; a ladder of two cheap members
    and a few games): one line naming the file, the previous leaderboard
    byte for byte as it was (a ladder is never overwritten: a failed one is
    not there at all, the folder holds no temporary file)."""
    from boardenvs.baselines import ladder

    monkeypatch.setattr(ladder, "LADDERS", tmp_path)
    build = lambda: ladder.build("quagmire_v0", members=["random", "greedy"], games=8, verbose=False)  # noqa: E731
    if kind == "ladder":
        failed = full_disk(kind)
        with pytest.raises(ValueError) as error:
            build()
        path, before = failed[0]
        assert path == ladder.ladder_path("quagmire_v0", 1) and before is None and not path.exists()
    else:
        build()
        ladder.record("quagmire_v0", "greedy", games=16, progress=ladder.QUIET)
        failed = full_disk(kind)
        with pytest.raises(ValueError) as error:
            ladder.record("quagmire_v0", "random", games=16, progress=ladder.QUIET)
        path, before = failed[0]
        assert path == ladder.rated_path("quagmire_v0", 1) and path.read_bytes() == before
        assert list(json.loads(before)) == ["greedy"]
    _one_line(error, kind, path)
    assert _temporaries(tmp_path) == []


@pytest.mark.parametrize("kind", ["strength results", "strength table"])
def test_a_full_disk_while_a_strength_table_is_written_keeps_the_old_one(tmp_path, full_disk, monkeypatch, kind):
    """Reliability: a full disk.  ``python -m boardenvs.baselines.strength``
    writing its results and table (its games replaced by a made-up row per
    model: the write is the module's own): one line naming the file, the
    previous file byte for byte as it was, no temporary file."""
    from boardenvs.baselines import available, strength

    name = available()[0]
    played = []

    def measure(model, games, *args, **kwargs):
        played.append(model)
        row = dict(model=model, agent="model", opponent="random", games=games, wins=len(played), draws=0)
        return [
            {**row, "losses": games - len(played), "rate": 0.5, "interval": [0.4, 0.6], "target": None, "met": None}
        ]

    monkeypatch.setattr(strength, "measure", measure)
    out = tmp_path / "s"
    assert strength.main([name, "--games", "4", "--out", str(out)]) == 0
    failed = full_disk(kind)
    with pytest.raises(ValueError) as error:
        strength.main([name, "--games", "6", "--out", str(out)])
    path, before = failed[0]
    assert path == out.with_suffix(".json" if kind == "strength results" else ".md")
    assert before is not None and path.read_bytes() == before and "| 4 | 1-0-3 |" in out.with_suffix(".md").read_text()
    _one_line(error, kind, path)
    assert _temporaries(tmp_path) == []


def test_a_full_disk_while_distillation_samples_are_written_leaves_no_file(tmp_path, full_disk, monkeypatch):
    """Reliability: a full disk.  ``distill`` keeping the teacher's
    decisions (``samples``; the games replaced by a few made-up samples,
    the write the module's own): one line naming the file, no samples file
    (a samples file that exists is read back, never overwritten), no
    temporary file, nothing fitted."""
    from boardenvs.baselines import distill as D

    data = {"obs": np.zeros((3, 4), np.int8), "masks": np.ones((3, 4), np.int8), "actions": np.arange(3)}
    monkeypatch.setattr(D, "collect", lambda *a, **k: data)
    monkeypatch.setattr(D, "fit", lambda *a, **k: pytest.fail("fitted after a failed write"))
    failed = full_disk("samples file")
    samples = tmp_path / "s.npz"
    with pytest.raises(ValueError) as error:
        D.distill("quagmire_v0", teacher="greedy", games=2, out=tmp_path / "m", samples=samples, verbose=0)
    assert failed == [(samples, None)] and not samples.exists()
    _one_line(error, "samples file", samples)
    assert _temporaries(tmp_path) == []


def test_a_full_disk_while_the_doc_pictures_are_written_keeps_the_old_ones(tmp_path, full_disk, monkeypatch):
    """Reliability: a full disk.  ``make pictures`` (``doc_pictures``; the
    docs' GIF, tested above as an animation, left out): the second picture
    failing, one line naming it, that picture byte for byte as it was, no
    temporary file."""
    from boardenvs.wrappers import recording

    from boardenvs import pictures

    monkeypatch.setattr(recording, "record_game", lambda *a, **k: pytest.fail("the GIF after a failed picture"))
    for k, env_id in enumerate(pictures.ENV_IDS):  # the pictures of an earlier run (made-up bytes)
        (tmp_path / (Path(pictures.game_class(env_id).rules_file).stem + ".png")).write_bytes(b"old %d" % k)
    failed = full_disk("picture", nth=2)
    with pytest.raises(ValueError) as error:
        pictures.doc_pictures(tmp_path)
    path, before = failed[0]
    assert before == b"old 1" and path.read_bytes() == before
    _one_line(error, "picture", path)
    assert _temporaries(tmp_path) == []
