"""The engine's compiled primitives below numba's public surface: borrowed
row views, scratch memory and the processor's bit instructions.

Each is a plain-Python function (what runs with ``NUMBA_DISABLE_JIT=1``,
under numba's CUDA simulator, and what a reader reads) with an
``@overload`` that compiled code calls instead, itself generated in LLVM IR
by an ``@intrinsic`` (numba's documented extension API):

* :func:`row_view`, :func:`no_mask`, :func:`scratch`: arrays over memory the
  caller owns that hold no reference to it (no reference count to update,
  nothing to allocate in a loop over rows, where an ordinary ``a[i]`` pays
  two atomic updates per row);
* :func:`popcount`, :func:`lowest_bit`, :func:`highest_bit`,
  :func:`nonzero_bits32`, :func:`store8`: one instruction each (population
  count, count of trailing / leading zeros, a 32-byte vector compare, an
  8-byte store) where numba's own code would loop.

They lean on numba internals beyond the extension API -- ``cgutils``, the
array model's ``populate_array`` and ``context.make_array`` -- so a numba
release that changes those breaks them first: ``numba_range`` bounds numba
to the releases tested.  The game kernels call them through the engine
(``E.popcount``, ``E.row_view``): :mod:`boardenvs.engine` re-exports them as
part of the kernels' helpers.  Their source is one of the engine's files
(:data:`boardenvs.bind.ENGINE_FILES`) that a bound driver's cache key hashes,
since numba's cache checks only a compiled function's own file.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types as nbtypes
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

# --- borrowed views and scratch memory ----------------------------------------


def row_view(a, i):
    """``a[i]`` of a 2-D array (plain Python).  Compiled, a borrowed view
    (:func:`_row_view_ir`): one that holds no reference to ``a``'s memory,
    for a caller that keeps ``a`` alive while the view is used (the drivers'
    rows, passed to a kernel and dropped)."""
    return a[i]


@intrinsic
def _row_view_ir(typingctx, a, i):
    """:func:`row_view` compiled.  ``a[i]`` takes a reference to ``a``'s
    memory and drops it: two atomic updates of its reference count, which the
    drivers made five to ten times a row (about 6 ns each, up to a quarter of
    a small game's serial step).  Checks ``0 <= i < len(a)`` under
    ``NUMBA_BOUNDSCHECK`` like an index."""
    if not (isinstance(a, nbtypes.Array) and a.ndim == 2 and isinstance(i, nbtypes.Integer)):
        return None
    row = a.copy(ndim=1, layout="C" if a.layout == "C" else "A")

    def codegen(context, builder, signature, args):
        src = context.make_array(a)(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, src.shape)
        strides = cgutils.unpack_tuple(builder, src.strides)
        index = context.cast(builder, args[1], i, nbtypes.intp)
        if context.enable_boundscheck:
            cgutils.do_boundscheck(context, builder, index, shape[0], 0)
        start = builder.gep(builder.bitcast(src.data, cgutils.voidptr_t), [builder.mul(index, strides[0])])
        out = context.make_array(row)(context, builder)
        populate_array(
            out,
            data=builder.bitcast(start, src.data.type),
            shape=[shape[1]],
            strides=[strides[1]],
            itemsize=src.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return row(a, i), codegen


@overload(row_view)
def _row_view_compiled(a, i):
    return lambda a, i: _row_view_ir(a, i)


def no_mask(state):
    """An empty int8 mask: for move generators that write a mask of legal
    actions when given one and only look for the first otherwise (plain
    Python: a new empty array; compiled, see :func:`_no_mask_ir`)."""
    return np.zeros(0, np.int8)


@intrinsic
def _no_mask_ir(typingctx, state):
    """:func:`no_mask` compiled: a zero-length int8 view of ``state``'s
    memory that holds no reference (nothing to allocate or count), typed
    like a row of the drivers' masks, so a generator called with a mask and
    with none compiles once."""
    if not (isinstance(state, nbtypes.Array) and state.ndim == 1):
        return None
    out_type = nbtypes.Array(nbtypes.int8, 1, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(out_type)(context, builder)
        zero = context.get_constant(nbtypes.intp, 0)
        one = context.get_constant(nbtypes.intp, 1)
        populate_array(
            out, data=builder.bitcast(src.data, out.data.type), shape=[zero], strides=[one], itemsize=one, meminfo=None
        )
        return out._getvalue()

    return out_type(state), codegen


@overload(no_mask)
def _no_mask_compiled(state):
    return lambda state: _no_mask_ir(state)


def scratch(state, n):
    """``n`` int64 of scratch for one kernel call (a search's marks and
    queues).  On the CPU, compiled or not, a new array (``np.empty``); on
    a CUDA device (:func:`boardenvs.retarget.device_intrinsics`), memory of
    the calling function's own frame (:func:`_scratch_ir`), as nothing is
    allocated there.  ``state`` types the result; call it outside loops."""
    return np.empty(n, np.int64)


@overload(scratch)
def _scratch_compiled(state, n):
    return lambda state, n: np.empty(n, np.int64)


@intrinsic
def _scratch_ir(typingctx, state, n):
    """:func:`scratch` on a device: ``n`` int64 on the calling function's
    stack (a dynamic ``alloca``, freed as the function returns), as a
    1-D C array that holds no reference."""
    if not (isinstance(state, nbtypes.Array) and isinstance(n, nbtypes.Integer)):
        return None
    out_type = nbtypes.Array(nbtypes.int64, 1, "C")

    def codegen(context, builder, signature, args):
        count = context.cast(builder, args[1], signature.args[1], nbtypes.intp)
        data = builder.alloca(ir.IntType(64), size=count)
        out = context.make_array(out_type)(context, builder)
        eight = context.get_constant(nbtypes.intp, 8)
        populate_array(out, data=data, shape=[count], strides=[eight], itemsize=eight, meminfo=None)
        return out._getvalue()

    return out_type(state, n), codegen


# --- bits: the processor's instructions in compiled code, plain Python otherwise --


def popcount(x):
    """Set bits of ``x`` >= 0 (plain Python; compiled: the processor's
    population count, see the overload below)."""
    return bin(int(x)).count("1")


def lowest_bit(x):
    """Index of the lowest set bit of ``x`` > 0 (plain Python; compiled: the
    processor's trailing-zero count)."""
    x = int(x)
    return (x & -x).bit_length() - 1


def highest_bit(x):
    """Index of the highest set bit of ``x`` > 0 (plain Python; compiled: the
    processor's leading-zero count)."""
    return int(x).bit_length() - 1


def nonzero_bits32(mask, start):
    """Bit ``j`` set where ``mask[start + j] != 0``, ``j`` < 32, as an int:
    ``mask`` a 1-D int8 array holding ``start + 32`` entries at least (plain
    Python; compiled, for a C-contiguous ``mask``: one 32-byte compare and
    its sign bits, what x86's ``pmovmskb`` does, see :func:`_nonzero_bits32_ir`)."""
    bits = 0
    for j in range(32):
        if mask[start + j] != 0:
            bits |= 1 << j
    return bits


def store8(a, at, value):
    """``a[at:at + 8]`` = the eight bytes of ``value`` (an integer, its low
    byte first) for a 1-D int8 array ``a`` (plain Python; compiled, for a
    C-contiguous ``a``: one 8-byte store at any alignment, see
    :func:`_store8_ir`).  Eight observation planes of a cell in one go."""
    v = int(value) & 0xFFFFFFFFFFFFFFFF
    for j in range(8):
        b = (v >> (8 * j)) & 0xFF
        a[at + j] = b - 256 if b > 127 else b


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, nbtypes.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    """The trailing-zero count (numba's own ``trailing_zeros`` is not usable
    by its CUDA target: one instruction either way)."""
    if not isinstance(x, nbtypes.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def _ctlz(typingctx, x):
    """The leading-zero count (as :func:`_cttz`)."""
    if not isinstance(x, nbtypes.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def _nonzero_bits32_ir(typingctx, mask, start):
    """:func:`nonzero_bits32` as LLVM IR: a ``<32 x i8>`` load, a compare
    with zero, the ``<32 x i1>`` result read as an i32 (no bounds check: the
    caller keeps ``start + 32 <= len(mask)``)."""
    if not (
        isinstance(mask, nbtypes.Array)
        and mask.ndim == 1
        and mask.dtype == nbtypes.int8
        and mask.layout == "C"
        and isinstance(start, nbtypes.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        vector = ir.VectorType(ir.IntType(8), 32)
        loaded = builder.load(builder.bitcast(builder.gep(data, [args[1]]), vector.as_pointer()), align=1)
        nonzero = builder.icmp_unsigned("!=", loaded, ir.Constant(vector, None))
        return builder.zext(builder.bitcast(nonzero, ir.IntType(32)), ir.IntType(64))

    return nbtypes.uint64(mask, start), codegen


@intrinsic
def _store8_ir(typingctx, a, at, value):
    """:func:`store8` as LLVM IR: an ``i64`` store with alignment 1 (x86 and
    ARM64 store unaligned words at full speed); ``0 <= at <= len(a) - 8``
    checked under ``NUMBA_BOUNDSCHECK`` like an index."""
    if not (
        isinstance(a, nbtypes.Array)
        and a.ndim == 1
        and a.dtype == nbtypes.int8
        and a.layout == "C"
        and isinstance(at, nbtypes.Integer)
        and isinstance(value, nbtypes.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], nbtypes.intp)
        if context.enable_boundscheck:
            (length,) = cgutils.unpack_tuple(builder, arr.shape)
            last = builder.add(index, ir.Constant(index.type, 7))
            cgutils.do_boundscheck(context, builder, index, length, 0)
            cgutils.do_boundscheck(context, builder, last, length, 0)
        word = context.cast(builder, args[2], signature.args[2], nbtypes.uint64)
        ptr = builder.bitcast(builder.gep(arr.data, [index]), ir.IntType(64).as_pointer())
        builder.store(word, ptr, align=1)
        return context.get_dummy_value()

    return nbtypes.none(a, at, value), codegen


@overload(popcount)
def _popcount_compiled(x):
    return lambda x: _ctpop(x)


@overload(lowest_bit)
def _lowest_bit_compiled(x):
    return lambda x: _cttz(x)


@overload(highest_bit)
def _highest_bit_compiled(x):
    return lambda x: 63 - _ctlz(x)


@overload(nonzero_bits32)
def _nonzero_bits32_compiled(mask, start):
    if isinstance(mask, nbtypes.Array) and mask.layout == "C" and mask.ndim == 1 and mask.dtype == nbtypes.int8:
        return lambda mask, start: _nonzero_bits32_ir(mask, start)

    def strided(mask, start):
        bits = np.uint64(0)
        for j in range(32):
            if mask[start + j] != 0:
                bits |= np.uint64(1) << np.uint64(j)
        return bits

    return strided


@overload(store8)
def _store8_compiled(a, at, value):
    if isinstance(a, nbtypes.Array) and a.layout == "C" and a.ndim == 1 and a.dtype == nbtypes.int8:
        return lambda a, at, value: _store8_ir(a, at, value)

    def strided(a, at, value):
        v = np.uint64(value)
        for j in range(8):
            a[at + j] = np.int64((v >> np.uint64(8 * j)) & np.uint64(0xFF))  # the int8 store keeps the low byte

    return strided
