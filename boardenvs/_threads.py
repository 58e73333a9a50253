"""numba's threads for the batched drivers (placeholder: layer choice pending)."""
from __future__ import annotations

import contextlib

import numba


@contextlib.contextmanager
def limit(num_threads):
    """Run the block with ``num_threads`` numba threads (None: as they are)."""
    if num_threads is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(num_threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)
