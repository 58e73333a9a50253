"""The bench's timing harness: a row, the one interleaved timing loop, and
what every stepper shares.

A row names what is timed (system, game, API, N) and holds a ``setup`` that
returns ``chunk()``: a call that plays some steps and returns how many.
:func:`run_interleaved` sets every row up (compiling, warming up) before
timing any, then times them round-robin, so a change in the machine's load
falls on every row alike; a row reports the median of its repeats, and
CPU-seconds per wall-second beside steps/s (``time.process_time`` counts
numba's and XLA's threads), so ratios can be read per wall-second and per
CPU-second.  The steppers that get a batch of masks back (EnvPool's, SB3's,
TorchRL's) draw their random legal actions with :func:`random_legal`, one
compiled pass, so the sampler costs each of them the same small time.  Every
family imports its optional dependencies through :func:`optional_import`,
called as ``bench_harness.optional_import`` so a test can replace it here
once for all of them.
"""

from __future__ import annotations

import dataclasses
import importlib
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from boardenvs import engine as E


def optional_import(name: str):
    """An anchor's module, or ImportError (the tests replace this to check
    the skip path)."""
    return importlib.import_module(name)


# -- steppers: each setup returns chunk(), which plays some steps and returns how many ---
def chunked(gen, k: int) -> Callable[[], int]:
    """``chunk()`` over a generator that yields once a step: ``k`` steps a call."""

    def chunk():
        for _ in range(k):
            next(gen)
        return k

    return chunk


@numba.njit(cache=True)
def _pick_legal(masks, states, out):
    """Row ``i``: the engine's own draw (``engine.sample_mask``) from
    ``masks[i]`` with the generator in ``states[i]``."""
    for i in range(masks.shape[0]):
        out[i] = E.sample_mask(states[i], masks[i])
    return out


def random_legal(masks, rng):
    """A uniformly random legal action per row of a mask array (one compiled
    pass, so the sampler costs every VecEnv the same small time): the
    engine's sampler, each row's generator seeded from ``rng``."""
    masks = np.ascontiguousarray(masks, dtype=np.bool_).view(np.int8)
    states = np.zeros((len(masks), E.H_RNG + 1), np.int64)
    states[:, E.H_RNG] = rng.integers(1, 2**62, len(masks))
    return _pick_legal(masks, states, np.zeros(len(masks), np.int64))


# -- rows and the one timing loop ----------------------------------------------------------
@dataclasses.dataclass
class Row:
    system: str  # "boardenvs", "no-op", "PettingZoo", "OpenSpiel", "Pgx (CPU)"
    game: str  # env id or the anchor's game name, with the variant
    api: str  # "AEC", "make_vec", "SB3VecEnv", "pyspiel", "jit+vmap"
    n: int
    setup: Callable[[], Callable[[], int]] = dataclasses.field(repr=False, compare=False)
    threads: int | None = None  # numba threads, None = numba's default
    env_id: str | None = None
    options: dict = dataclasses.field(default_factory=dict)
    samples: list = dataclasses.field(default_factory=list)  # (steps/s, CPU-s per wall-s)
    info: dict = dataclasses.field(default_factory=dict)  # compile_s, setup_s, ...

    @property
    def rate(self) -> float:
        return statistics.median(r for r, _ in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(c for _, c in self.samples)

    @property
    def rate_per_cpu(self) -> float:
        return statistics.median(r / max(c, 1e-9) for r, c in self.samples)

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in ("system", "game", "api", "n", "threads", "env_id", "options", "info")}
        out["samples"] = [{"steps_per_s": r, "cpu_per_wall": c} for r, c in self.samples]
        if self.samples:
            rates = [r for r, _ in self.samples]
            out.update(
                median=self.rate, min=min(rates), max=max(rates), cpu_per_wall=self.cpu, per_cpu_s=self.rate_per_cpu
            )
        return out


def measure(chunk: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Steps/s and CPU-seconds per wall-second of ``chunk`` calls for ``seconds``."""
    steps = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while True:
        steps += chunk()
        wall = time.perf_counter() - t0
        if wall >= seconds:
            return steps / wall, (time.process_time() - c0) / wall


def run_interleaved(rows: list[Row], seconds: float, repeats: int, log=print) -> list[Row]:
    """Set up every row (compile, warm up), then time them round-robin
    ``repeats`` times.  Rows whose setup fails are dropped with the reason
    logged (and returned in ``info``)."""
    chunks, kept = [], []
    for row in rows:
        t0 = time.perf_counter()
        try:
            chunk = row.setup()
            chunk()  # warm-up: compilation, caches
        except Exception as exc:  # an anchor that cannot run here
            log(f"skipped {row.system} {row.game} {row.api} N={row.n}: {type(exc).__name__}: {exc}")
            continue
        row.info["setup_s"] = time.perf_counter() - t0
        chunks.append(chunk)
        kept.append(row)
    for r in range(repeats):
        for row, chunk in zip(kept, chunks):
            row.samples.append(measure(chunk, seconds))
        log(f"repeat {r + 1}/{repeats} done")
    return kept


def find(rows, system, game, api, n, threads=None) -> Row | None:
    """The row with this key, or None (a row that was skipped or never built)."""
    for row in rows:
        if (row.system, row.game, row.api, row.n, row.threads) == (system, game, api, n, threads):
            return row
    return None


def api_label(row: Row) -> str:
    """The row's API as the tables name it (the one-thread make_vec row marked)."""
    return row.api + (f", {row.threads} thread" if row.threads == 1 else "")
