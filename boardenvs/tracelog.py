"""A trace file written as the games are played: ``boardenvs rate`` killed
at any moment keeps every game it finished, and ``--resume`` goes on.

While a rating plays, its games go to ``<trace>.partial`` (plain JSON
lines, whatever the trace's own extension), one complete line per game,
appended as each round of games ends (a round is played as one batch: its
games end together), flushed and synced (``fsync``) once per round: a
kill, a crash or a reboot keeps every round written before it.  (Measured:
a round's write and sync take about 0.3 ms, against 10 ms for the cheapest
round there is, greedy against random at quagmire_v0; a sync per game would
be 3.4 ms a round, a third of that, and keep nothing more: the games of a
round reach the writer together.)  When the
rating ends, the trace file itself is written whole
(:func:`boardenvs.traces.write_traces`, through a temporary file) and the
partial file removed; so ``<trace>`` is always a complete trace file or
absent, and ``<trace>.partial`` a run's games so far.

A kill during a write can leave the partial file's last line cut short:
:func:`read_partial` keeps the complete lines before it (each replayed and
checked) and says which line it dropped; ``read_traces`` refuses such a
file naming the line.  :class:`TraceLog` with ``resume=True`` reads the
partial file, cuts off a cut last line (one line on stderr says so), and
hands the run the games it holds (:meth:`TraceLog.take`) so it plays only
the rest with the seeds an unbroken run uses: the final trace file and the
rating are the unbroken run's.  A run without ``resume`` refuses to start
over a partial file (its games would be lost).  A round that cannot be
written or synced (a full disk: ENOSPC) stops the rating with one
ValueError line naming the partial file; the rounds before it stay whole
(a cut last line at most), for ``--resume`` once there is room."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .files import MAX_READ_BYTES, output_path, remove_stale_temporaries

SUFFIX = ".partial"


def partial_path(trace) -> Path:
    """Where a rating writing ``trace`` keeps its games so far: ``<trace>.partial``."""
    return Path(f"{trace}{SUFFIX}")


def line_bytes(traces) -> bytes:
    """``traces`` as the lines of a trace file (the bytes ``write_traces`` writes)."""
    return b"".join(json.dumps(t, separators=(",", ":")).encode("utf-8") + b"\n" for t in traces)


def read_partial(path) -> tuple[list[dict], int | None, int]:
    """The games of a partial trace file: ``(traces, cut, size)``, the
    complete lines' traces (each replayed and checked), the number of the
    last line if it was cut short (no newline: a kill mid-write; None if
    not), and the bytes of the complete lines.  A damaged complete line is
    a ValueError naming the file and the line."""
    from .traces import check_trace

    path = Path(path)
    try:
        if path.stat().st_size > MAX_READ_BYTES:
            raise ValueError(f"partial trace file {str(path)!r} is larger than {MAX_READ_BYTES:,} bytes: refused")
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read partial trace file {str(path)!r}: {exc.strerror or exc}") from None
    *lines, last = data.split(b"\n")
    traces = []
    for k, line in enumerate(lines):
        where = f"{path}, line {k + 1}"
        try:
            trace = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"{where}: not JSON ({getattr(exc, 'msg', exc)})") from None
        check_trace(trace, where)
        traces.append(trace)
    return traces, (len(lines) + 1 if last else None), len(data) - len(last)


class TraceLog:
    """The games of a rating that writes ``trace``, written as they are
    played (see the module docstring).  ``resume``: go on from the partial
    file of a stopped run; ``stream`` (default stderr): where a resumed run
    says how many games it goes on from, and which cut line it dropped."""

    def __init__(self, trace, resume: bool = False, stream=None):
        self.trace, self.path = Path(trace), partial_path(trace)
        output_path(self.path, "partial trace file")
        remove_stale_temporaries(self.trace)  # (a final write a kill cut short)
        self.kept, self.used = [], 0
        if resume:
            if not self.path.is_file():
                done = self.trace.is_file()
                raise ValueError(
                    f"--resume: no partial trace {self.path} ("
                    + (
                        f"the rating that wrote {self.trace} finished"
                        if done
                        else "a rating keeps one beside its trace file until it finishes"
                    )
                    + ")"
                )
            self.kept, cut, size = read_partial(self.path)
            stream = stream or sys.stderr
            if cut is not None:
                print(
                    f"{self.path}: line {cut} was cut mid-game (the run stopped while writing it): dropped; "
                    f"the {len(self.kept)} games before it are kept",
                    file=stream,
                    flush=True,
                )
            print(f"--resume: goes on from the {len(self.kept)} games in {self.path}", file=stream, flush=True)
            self.file = open(self.path, "r+b")  # noqa: SIM115 (open as long as the run: closed by finish/close)
            self.file.truncate(size)
            self.file.seek(size)
        else:
            if self.path.exists():
                raise ValueError(
                    f"{self.path} holds the games of a rating that stopped: --resume goes on from it "
                    "(or remove it to start over)"
                )
            self.file = open(self.path, "wb")  # noqa: SIM115
        self._sync_folder()

    def take(self, n: int) -> list[dict]:
        """The next (at most ``n``) games of the stopped run, in order."""
        got = self.kept[self.used : self.used + n]
        self.used += len(got)
        return got

    def add(self, traces) -> None:
        """Append ``traces``, one line each, and sync them to the disk.  A
        failed write or sync (a full disk: ENOSPC) is one ValueError line
        naming the file; the lines before this round's stay as they were
        (a cut last line at most, which ``--resume`` drops)."""
        try:
            self.file.write(line_bytes(traces))
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as exc:
            try:  # (the buffer the failed write left: not written again on close)
                self.file.close()
            except OSError:
                pass
            raise ValueError(
                f"cannot write partial trace file {str(self.path)!r}: {exc.strerror or exc} "
                "(the games written before it are kept: --resume goes on from them)"
            ) from None

    def finish(self, traces) -> str:
        """Write the trace file whole (``traces``: every game, in order) and
        remove the partial one; ValueError if the partial file held games
        this run did not play (a stopped run with other settings)."""
        from .traces import write_traces

        if self.used != len(self.kept):
            self.close()
            raise ValueError(
                f"{self.path} holds {len(self.kept)} games, this rating plays {self.used}: "
                "--resume goes on with the stopped run's own settings (its --games, --precision, --seed)"
            )
        written = write_traces(traces, self.trace)
        self.close()
        self.path.unlink()
        self._sync_folder()
        return written

    def close(self) -> None:
        if not self.file.closed:
            self.file.close()

    def _sync_folder(self) -> None:
        """The partial file's name on the disk too (a crash would otherwise lose it)."""
        if os.name == "nt":
            return
        fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        except OSError:  # (a file system that cannot sync a folder)
            pass
        finally:
            os.close(fd)
