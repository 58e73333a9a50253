"""Threads for training: torch's and numba's pools sized together for the machine.

A training process runs two thread pools: torch's (the network's forward
and backward passes) and numba's (the engine's threaded drivers).  Each
sizes itself to every core by default, so together they ask for twice the
cores, and on a busy machine their threads wait for each other at every
parallel section while other processes hold the cores, spinning as they
wait (docs/threads.md measures what that costs).  :func:`training_threads`
gives the two pools, together, no more threads than the cores this process
may run on (numba half, torch the rest, each at least one); every training
entry point calls it first (``boardenvs train``, ``boardenvs demo``, the
tutorials).
"""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may run on (its affinity; ``os.cpu_count()`` elsewhere)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def split(threads: int) -> tuple[int, int]:
    """``(torch's, numba's)`` threads for ``threads`` in all: numba half
    (rounded down), torch the rest, each at least one."""
    numba_threads = max(1, threads // 2)
    return max(1, threads - numba_threads), numba_threads


def training_threads(threads: int | None = None) -> tuple[int, int]:
    """Size torch's and numba's thread pools for training: ``threads`` in
    all (default: :func:`available_cores`), split by :func:`split`; returns
    ``(torch's, numba's)``.  torch's is set only if torch is installed; numba's
    is capped at its pool's size (``NUMBA_NUM_THREADS``).  Call it before
    training, in the process that trains (each worker process of a pool
    calls it with its own share)."""
    import numba

    if threads is None:
        threads = available_cores()
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
        raise ValueError(f"threads must be an int in 1..1024, got {threads!r}")
    torch_threads, numba_threads = split(threads)
    numba_threads = min(numba_threads, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(numba_threads)
    try:
        import torch
    except ImportError:
        return torch_threads, numba_threads
    torch.set_num_threads(torch_threads)
    return torch_threads, numba_threads
