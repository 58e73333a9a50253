"""Arrays handed out new every step, without allocating one every step.

The single-agent views return a new observation array per step (what the
caller may keep, gymnasium's convention) and SB3's mask calls return new
arrays too.  At a few hundred kB to a few MB each, such arrays are not
kept by the allocator between steps: glibc hands large blocks back to the
system when they are freed, and the next step's allocation faults every
page in again.  At N = 1024 that was about 600 page faults a step, a third
of the learner's step time through ``SB3VecEnv`` (measured with
``resource.getrusage``'s minor faults).

:class:`FreshArrays` keeps the last few arrays it handed out and gives one
back only when nothing else holds it: its reference count is the pool's
own (no variable, container, view, memoryview or torch tensor of the
caller's refers to it).  So what a caller gets is, as far as it can tell, a
new array; what it still holds is never written again.
"""

from __future__ import annotations

import sys

import numpy as np


def _count(pool: list, k: int) -> int:
    """The reference count of ``pool[k]`` as seen from here."""
    return sys.getrefcount(pool[k])


def _unheld_count() -> int:
    """:func:`_count` of an array only a pool's list holds (measured, not
    assumed: the interpreter's own temporaries differ between versions)."""
    pool = [np.empty(1)]
    return _count(pool, 0)


_UNHELD = _unheld_count()


class FreshArrays:
    """Arrays of one ``shape`` and ``dtype``: :meth:`get` returns one that
    nobody else holds (see the module docstring), reusing one of the last
    ``keep`` it handed out where it can.  Not copied by ``copy`` / ``pickle``
    (an owner rebuilds it: see :meth:`__reduce__`)."""

    __slots__ = ("shape", "dtype", "keep", "_pool", "_next")

    def __init__(self, shape, dtype, keep: int = 4):
        self.shape, self.dtype, self.keep = tuple(shape), np.dtype(dtype), int(keep)
        self._pool: list = []
        self._next = 0

    def get(self) -> np.ndarray:
        pool = self._pool
        for k in range(len(pool)):
            if _count(pool, k) <= _UNHELD:
                return pool[k]
        a = np.empty(self.shape, self.dtype)
        if len(pool) < self.keep:
            pool.append(a)
        else:  # every kept one is held: replace the oldest slot (its holder keeps it alive)
            pool[self._next] = a
            self._next = (self._next + 1) % self.keep
        return a

    def __reduce__(self):
        # a copy starts empty: the arrays a copy of the owner holds are its own copies
        return (FreshArrays, (self.shape, self.dtype, self.keep))

    def __repr__(self) -> str:
        return f"<FreshArrays {self.shape} {self.dtype} ({len(self._pool)} kept)>"
