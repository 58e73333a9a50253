"""make_vec's threaded drivers: one for every game and every driver, over the serial ones.

The threaded driver splits a driver's rows (its ``part``: a NamedTuple of
row-indexed arrays, see :mod:`boardenvs._drivers`) into chunks and runs the
game's *serial* driver on each chunk in numba's threads (``prange``),
calling it through its compiled address (:func:`_call_at`) rather than by
name.  Called by name,
numba links the callee's code into every caller and optimises it again:
each game's threaded copy of the drivers took as long to compile as its
kernels (Hex Quoridor: 10 s of a 33 s cold start).  Called by address, the
drivers here know no game: they compile once, into numba's cache, for all
of them.

The address is of the serial driver compiled for the exact argument types
of the call.  Each threaded driver is given, beside the address, a token of
the types it was compiled for, compares it with a token of its own argument
types (a constant in its compiled code) before calling anything, and
returns False when they differ: :class:`ThreadedDriver` then looks the
address up for the new types (a copy or a pickle may bring arrays with
other flags) and calls again.  Chunks are slices of every field of
``part`` (the rows, or the listed rows of the row API), so a chunk's driver
sees the same types as the whole call.
"""

from __future__ import annotations

import hashlib

import numba
import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic, overload


@intrinsic
def _call_at(typingctx, addr, args):
    """Call the numba function compiled at ``addr`` (its native entry, which
    reports errors such as bounds-check failures to the caller like a call by
    name) with the tuple ``args``: it must have been compiled for exactly
    these argument types and return None."""
    if not isinstance(addr, types.Integer) or not isinstance(args, types.BaseTuple):
        return None
    argtys = tuple(args.types)

    def codegen(context, builder, signature, llargs):
        fnty = context.call_conv.get_function_type(types.none, argtys)
        fn = builder.inttoptr(llargs[0], fnty.as_pointer())
        values = [builder.extract_value(llargs[1], i) for i in range(len(argtys))]
        status, _ = context.call_conv.call_function(builder, fn, types.none, argtys, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return context.get_dummy_value()

    return types.none(addr, args), codegen


def types_token(tys) -> int:
    """A 64-bit token of a sequence of numba types (their names: dtype,
    dimensions, layout, read-only, aligned)."""
    digest = hashlib.blake2b("|".join(map(str, tys)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


@intrinsic
def _token_of(typingctx, args):
    """:func:`types_token` of the tuple ``args``' types, as a constant."""
    if not isinstance(args, types.BaseTuple):
        return None
    token = types_token(args.types)

    def codegen(context, builder, signature, llargs):
        return context.get_constant(types.int64, token)

    return types.int64(args), codegen


def chunk(part, a, b):
    """``part`` (a NamedTuple or tuple of row-indexed arrays) cut to rows
    ``a:b``, every field sliced (plain Python; compiled: :func:`_chunk_compiled`)."""
    cut = [field[a:b] for field in part]
    return type(part)(*cut) if hasattr(part, "_fields") else tuple(cut)


@overload(chunk)
def _chunk_compiled(part, a, b):
    """:func:`chunk` compiled for one NamedTuple or plain tuple type (what
    the drivers are handed from Python, :mod:`boardenvs._parts`): a function
    built for its fields, returning the same type (a leading slice of a
    C-contiguous array is C-contiguous), so a chunk's driver sees the whole
    call's types."""
    if not isinstance(part, types.BaseTuple):
        return None
    fields = "".join(f"part[{k}][a:b], " for k in range(len(part)))
    named = isinstance(part, types.BaseNamedTuple)
    space = {"cls": part.instance_class if named else None}
    exec(f"def impl(part, a, b):\n    return {'cls' if named else ''}({fields})\n", space)
    return space["impl"]


@njit(cache=True, parallel=True)
def run_chunks(addr, token, chunks, whole, part, params, extra):
    """Every driver's threads: the rows of ``part`` cut into ``chunks`` of
    rows (chunk ``c`` of ``n`` rows is ``c * n // chunks`` up to ``(c + 1) *
    n // chunks``), the serial driver compiled at ``addr`` called on each
    with ``(whole, chunk, params, extra)``; False, having done nothing, when
    the arguments are not of the types it was compiled for (``token``)."""
    if _token_of((whole, part, params, extra)) != token:
        return False
    n = part[0].shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(addr, (whole, chunk(part, a, b), params, extra))
    return True


ROWS_PER_CHUNK = 16  # at least, so a chunk's call costs little against its rows
CHUNKS_PER_THREAD = 16  # numba's scheduler balances rows of uneven cost (games that end and restart)


def _arrays(value):
    """The arrays in an argument (a NamedTuple's or tuple's fields, nested)."""
    if isinstance(value, tuple):
        for item in value:
            yield from _arrays(item)
    elif isinstance(value, np.ndarray):
        yield value


class ThreadedDriver:
    """A game's serial driver run in numba's threads, chunk by chunk (see the
    module docstring); called as the serial driver, ``(whole, part, params,
    extra)``, its first argument, the game's kernels ``g`` (a
    :class:`boardenvs.bind.Bound`), given here once.  A ``Bound`` adds no
    parameter to compiled code, so the serial driver compiled for ``(g,
    *args)`` is called by address with ``args`` alone.  One is shared by
    every ``make_vec`` of its game, so the address and its token are one
    attribute, read once per call and replaced whole."""

    __slots__ = ("serial", "g", "_bound")

    def __init__(self, serial, g):
        self.serial, self.g = serial, g
        self._bound = (0, 0)  # (address, token): token 0 matches no types

    def _bind(self, args) -> tuple:
        """(address, token) of the serial driver compiled for ``args``' types
        (compiled, or loaded from numba's cache, if not yet)."""
        for a in _arrays(args):
            if not a.flags.c_contiguous:  # its chunks would be typed otherwise
                raise ValueError(f"{self.serial.__name__}: the threaded drivers take C-contiguous arrays")
        sig = tuple(numba.typeof(a) for a in args)
        full = (numba.typeof(self.g), *sig)
        self.serial.compile(full)
        cres = self.serial.overloads[full]
        addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        if not addr:
            raise RuntimeError(f"{self.serial.__name__}: no compiled code for {full}")
        bound = self._bound = (addr, types_token(sig))
        return bound

    def __call__(self, whole, part, params, extra):
        n = part[0].shape[0]
        chunks = min(n // ROWS_PER_CHUNK, CHUNKS_PER_THREAD * numba.get_num_threads()) or min(n, 1)
        addr, token = self._bound
        if not run_chunks(addr, token, chunks, whole, part, params, extra):
            addr, token = self._bind((whole, part, params, extra))
            if not run_chunks(addr, token, chunks, whole, part, params, extra):
                raise RuntimeError(f"{self.serial.__name__}: no compiled driver for these argument types")
