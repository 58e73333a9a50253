"""A training run that stops at a named point and waits there to be killed
(``tests/test_killed.py``, issue 73 item 2).

``python killed_run.py POINT OUT SETTINGS_JSON`` runs
``boardenvs.baselines.train.train(GAME, out=OUT, **SETTINGS)``; at ``POINT``
it prints ``AT POINT`` and blocks reading its stdin, so the parent kills it
exactly there (an event, not a clock).  The points, each reached after a
checkpoint or two are on disk:

* ``update``: inside PPO's update, after its first gradient step (the
  weights in memory half-way between two rollouts);
* ``check``: inside the second win-rate check (the clock paused);
* ``write-weights`` / ``write-resume``: inside the second write of the
  model's weights / the third of the resume state, the temporary file
  half-written and not yet renamed over the old one.

The points are test code patched into the run from outside (the functions
the run calls are wrapped here), not hooks in the library."""

from __future__ import annotations

import json
import sys

from killing import wait_here  # (tests/, this script's folder, is first on sys.path)


def main() -> int:
    point, out, settings = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    from boardenvs.baselines import checkup
    from boardenvs.baselines import train as T
    from sb3_contrib import MaskablePPO

    from boardenvs import files

    if point == "update":
        real_train = MaskablePPO.train

        def train(self):
            if self.num_timesteps > 600:  # (checkpoints at 300, 512 and 600 are on disk)
                optimizer = self.policy.optimizer
                real_step = optimizer.step

                def step(*args, **kwargs):
                    real_step(*args, **kwargs)
                    wait_here(point)

                optimizer.step = step
            return real_train(self)

        MaskablePPO.train = train
    elif point == "check":
        real_rates, calls = checkup.win_rates, []

        def win_rates(*args, **kwargs):
            calls.append(1)
            rates = real_rates(*args, **kwargs)
            if len(calls) == 2:
                wait_here(point)
            return rates

        checkup.win_rates = win_rates
    elif point.startswith("write-"):
        what, nth = {"write-weights": ("model weights", 2), "write-resume": ("resume state", 3)}[point]
        real_write, calls = files.write_atomically, []

        def write_atomically(path, write, kind="output file"):
            if kind != what:
                return real_write(path, write, kind)
            calls.append(1)

            def half_then_wait(tmp):
                write(tmp)
                if len(calls) == nth:
                    with open(tmp, "r+b") as f:
                        f.truncate(max(1, f.seek(0, 2) // 2))
                    wait_here(point)

            return real_write(path, half_then_wait, kind)

        files.write_atomically = write_atomically
    else:
        raise SystemExit(f"unknown point {point!r}")
    T.train(settings.pop("game"), out=out, **settings)
    print("FINISHED", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
