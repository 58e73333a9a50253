"""A ``boardenvs rate`` run that stops at a named point and waits there to
be killed (``tests/test_rate_killed.py``, issue 73 item 2).

``python killed_rate.py POINT LADDERS ARGV_JSON`` runs ``boardenvs rate``
(``boardenvs.cli.main(ARGV)``) on the ladders in the folder ``LADDERS``; at
``POINT`` it prints ``AT POINT`` and blocks reading its stdin, so the parent
kills it exactly there (an event, not a clock).  The points (``R``: the
R-th round of 16 games, ``L``: a line of its games):

* ``playing-R``: round R played, its games in memory, none of them written;
* ``written-R``: round R's lines written and synced;
* ``cut-R-L``: round R's lines written up to the middle of its L-th line
  (a kill in the middle of a write: the bytes before it on the disk);
* ``final-half``: the trace file's temporary half-written, not renamed;
* ``final-renamed``: the trace file written whole, its partial file not
  yet removed.

The points are test code patched into the run from outside, as in
``killed_run.py``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from killing import wait_here  # (tests/, this script's folder, is first on sys.path)


def main() -> int:
    point, ladders, argv = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    from boardenvs.baselines import ladder
    from boardenvs.baselines.ladder import rating

    from boardenvs import cli, files, traces
    from boardenvs.tracelog import TraceLog, line_bytes

    ladder.LADDERS = Path(ladders)  # (set in each of the package's modules)
    kind, _, rest = point.partition("-")
    if kind == "playing":
        real, calls = rating.play_chunk, []

        def play_chunk(*args, **kwargs):
            games = real(*args, **kwargs)
            calls.append(1)
            if len(calls) == int(rest):
                wait_here(point)
            return games

        rating.play_chunk = play_chunk
    elif kind in ("written", "cut"):
        real, calls = TraceLog.add, []
        nth, _, line = rest.partition("-")

        def add(self, games):
            calls.append(1)
            if kind == "cut" and len(calls) == int(nth):
                data = line_bytes(games)
                start = len(line_bytes(games[: int(line) - 1]))
                end = len(line_bytes(games[: int(line)]))
                self.file.write(data[: (start + end) // 2])
                self.file.flush()
                os.fsync(self.file.fileno())
                wait_here(point)
            real(self, games)
            if len(calls) == int(nth):
                wait_here(point)

        TraceLog.add = add
    elif point == "final-half":
        real_write = files.write_atomically

        def write_atomically(path, write, what="output file"):
            def half_then_wait(tmp):
                write(tmp)
                with open(tmp, "r+b") as f:
                    f.truncate(f.seek(0, 2) // 2)
                wait_here(point)

            return real_write(path, half_then_wait if what == "trace file" else write, what)

        files.write_atomically = write_atomically
        traces.write_atomically = write_atomically
    elif point == "final-renamed":
        real_traces = traces.write_traces

        def write_traces(games, path):
            written = real_traces(games, path)
            wait_here(point)
            return written

        traces.write_traces = write_traces
    else:
        raise SystemExit(f"unknown point {point!r}")
    code = cli.main(argv)
    print("FINISHED", code, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
