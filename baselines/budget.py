"""A training run's clock: its budget, its evaluations and checkpoints, its
progress line, and an interrupt that keeps the last checkpoint.

A run is bounded by minutes of training, by steps, or by both (whichever
comes first).  The clock counts training only: it is paused while the run
evaluates (:func:`.checkup.win_rates`) and writes checkpoints, so "90%
against greedy after 4 minutes" means 4 minutes of training, whatever the
evaluations cost.  Evaluations come every ``eval_seconds`` of training, or
every ``eval_steps`` steps (what a test wants: the same evaluations on a
busy machine as on a quiet one); after each, the model is written to
``<out>.pt`` / ``<out>.json`` with the history so far, so the files on disk
are always a complete model.  Ctrl-C stops the run between two writes, never
inside one (:func:`deferred_interrupt`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time

from stable_baselines3.common.callbacks import BaseCallback

MAX_MINUTES = 7 * 24 * 60  # a week: a bound that catches a typo, not a policy


def check_minutes(minutes) -> float | None:
    """``minutes`` as a float in (0, a week], or None; ValueError naming the
    value otherwise (0, negative, NaN, infinite or absurd)."""
    if minutes is None:
        return None
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, (int, float))
        or not math.isfinite(minutes)
        or not 0 < minutes <= MAX_MINUTES
    ):
        raise ValueError(f"--minutes must be a number of minutes in (0, {MAX_MINUTES}] (a week), got {minutes!r}")
    return float(minutes)


@contextlib.contextmanager
def deferred_interrupt():
    """Hold Ctrl-C (SIGINT) until the block is done, then raise it: a
    checkpoint's two files are written whole or not at all."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


class TrainingClock(BaseCallback):
    """SB3's callback that keeps the run's clock (see the module docstring).

    ``evaluate()`` returns ``{opponent: win rate}``; ``checkpoint()`` writes
    the model.  ``history`` collects one entry per evaluation: steps,
    training seconds and CPU seconds, and the win rates."""

    def __init__(
        self,
        minutes: float | None,
        steps: int | None,
        evaluate,
        checkpoint,
        eval_seconds: float | None = None,
        eval_steps: int | None = None,
        save_every: int | None = None,
        label: str = "",
        progress: bool = True,
        verbose: int = 1,
        stop_at: dict | None = None,
    ):
        super().__init__()
        self.budget_s = None if minutes is None else 60.0 * minutes
        self.budget_steps = steps
        self.evaluate_now, self.checkpoint_now = evaluate, checkpoint
        self.eval_seconds, self.eval_steps, self.save_every = eval_seconds, eval_steps, save_every
        self.label, self.show, self.talk = label, progress, verbose
        self.stop_at = dict(stop_at or {})
        self.history: list[dict] = []
        self.train_s = self.cpu_s = 0.0
        self.latest: dict = {}
        self.stopped_by = None
        self._bar = None

    # -- the clock ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start (or go on with) the clock: called once before training, and
        again after anything that ran with the clock stopped (a warm start's
        own time counts: it is training)."""
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        self._next_eval_s = self.eval_seconds
        self._next_eval_steps = self.eval_steps
        self._next_save = self.save_every

    def _tick(self) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        self.train_s += wall - self._wall
        self.cpu_s += cpu - self._cpu
        self._wall, self._cpu = wall, cpu

    @contextlib.contextmanager
    def paused(self):
        """The clock stopped for the block (an evaluation, a checkpoint)."""
        self._tick()
        try:
            yield
        finally:
            self._wall, self._cpu = time.perf_counter(), time.process_time()

    def done(self, steps: int) -> str | None:
        """Why the budget is spent at ``steps`` (``"minutes"``, ``"steps"``), or None."""
        if self.budget_s is not None and self.train_s >= self.budget_s:
            return "minutes"
        if self.budget_steps is not None and steps >= self.budget_steps:
            return "steps"
        return None

    def state(self) -> dict:
        """Where the clock is, as plain data (a run's resume state, :mod:`.resume`):
        the history, the training and CPU seconds, the next check and save."""
        return {
            "history": [dict(h) for h in self.history],
            "train_s": self.train_s,
            "cpu_s": self.cpu_s,
            "latest": dict(self.latest),
            "next_eval_s": self._next_eval_s,
            "next_eval_steps": self._next_eval_steps,
            "next_save": self._next_save,
        }

    def set_state(self, state: dict) -> None:
        """Go on from :meth:`state` (after :meth:`start`): the budget left is
        what that run had left."""
        self.history = [dict(h) for h in state["history"]]
        self.train_s, self.cpu_s = float(state["train_s"]), float(state["cpu_s"])
        self.latest = dict(state["latest"])
        self._next_eval_s, self._next_eval_steps = state["next_eval_s"], state["next_eval_steps"]
        self._next_save = state["next_save"]

    # -- SB3's hooks ----------------------------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        if self.show and sys.stderr.isatty():
            from tqdm.auto import tqdm

            total = self.budget_s if self.budget_s is not None else self.budget_steps
            unit = "s" if self.budget_s is not None else "steps"
            self._bar = tqdm(
                total=round(total),
                unit=unit,
                desc=self.label,
                dynamic_ncols=True,
                leave=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} " + unit + " {postfix}",
            )

    def _on_step(self) -> bool:
        self._tick()
        steps = self.num_timesteps
        self.stopped_by = self.done(steps)
        due = (self._next_eval_s is not None and self.train_s >= self._next_eval_s) or (
            self._next_eval_steps is not None and steps >= self._next_eval_steps
        )
        if due or (self.stopped_by and (self.eval_seconds or self.eval_steps)):
            rates = self.check(steps)
            if self.stop_at and all(rates.get(k, 0.0) >= v for k, v in self.stop_at.items()):
                self.stopped_by = self.stopped_by or "stop_at"
        elif self._next_save is not None and steps >= self._next_save:
            with self.paused():
                self.checkpoint_now(self)
        if self._next_save is not None:
            while steps >= self._next_save:
                self._next_save += self.save_every
        self._show(steps)
        return self.stopped_by is None

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        """Close the progress bar (the end of training, or an interrupt)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    # -- evaluations ------------------------------------------------------------------------------------------------
    def check(self, steps: int) -> dict:
        """Evaluate now (the clock paused), record it, write the checkpoint."""
        with self.paused():
            rates = self.evaluate_now()
            self.latest = rates
            entry = {"steps": int(steps), "train_s": round(self.train_s, 1), "cpu_s": round(self.cpu_s, 1), **rates}
            self.history.append(entry)
            for name, rate in rates.items():
                self.logger.record(f"eval/win_rate_vs_{name}", rate)
            self.checkpoint_now(self)
            if self.talk and self._bar is None:
                print(f"[{self.label}] {self.describe()}", flush=True)
        while self._next_eval_s is not None and self.train_s >= self._next_eval_s:
            self._next_eval_s += self.eval_seconds
        while self._next_eval_steps is not None and steps >= self._next_eval_steps:
            self._next_eval_steps += self.eval_steps
        return rates

    def describe(self) -> str:
        """The progress line's words: training time, steps, steps/s, the latest win rates."""
        rate = self.num_timesteps / self.train_s if self.train_s else 0.0
        left = f", {_clock(max(self.budget_s - self.train_s, 0))} left" if self.budget_s is not None else ""
        wins = " ".join(f"{k} {v:.0%}" for k, v in self.latest.items())
        return f"{_clock(self.train_s)} trained{left}, {self.num_timesteps:,} steps ({rate:,.0f}/s)" + (
            f"; win rate vs {wins}" if wins else ""
        )

    def _show(self, steps: int) -> None:
        if self._bar is None:
            return
        now = self.train_s if self.budget_s is not None else steps
        self._bar.update(max(0, min(round(now), self._bar.total) - self._bar.n))
        wins = " ".join(f"{k} {v:.0%}" for k, v in self.latest.items())
        self._bar.set_postfix_str(
            f"{_clock(self.train_s)} trained, {steps:,} steps" + (f", vs {wins}" if wins else ""), refresh=False
        )


def _clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}:{s:02d}"
