"""The rules-engine contract shared by every game.

A game's whole state is one row of ``int64`` (``state.shape == (state_size,)``);
N games are a C-contiguous ``(N, state_size)`` array, so cloning a game is a row
copy and N games step in one call.  The row is declared by name with
:class:`boardenvs.spec.Layout`: the engine's header (below) first, the same
in every game, then the game's own fields.

A game supplies five numba kernels (a :class:`Kernels` tuple), each working on
one row, never allocating:

``init(state, params, first_seat)``
    start a new game (call :func:`new_game` first, then lay out the board).
``legal(state, params, mask) -> int``
    write every entry of the int8 ``mask`` (1 = legal) for whoever acts now
    and return how many are set.
    At a chance node the "actions" are the chance outcomes ``0..k-1``.
``apply(state, params, action)``
    play a decision or a chance outcome the mask allows (the faces validate
    first, so a kernel never sees an illegal action and never half-applies).
``observe(state, params, seat, obs)``
    write every entry of the flat observation of ``seat`` (egocentric).
``chance_probs(state, params, probs)``
    at a chance node, the probability of each outcome (zeros elsewhere).

**Decisions and turns.**  A *decision* is one action by one agent, or one
chance outcome; ``apply`` counts it (:func:`record_action`, ``H_DECISIONS``).
A *turn* is what the rules call a move: a chain of decisions that ends when
the rules say so, which the kernel marks with :func:`end_turn` (``H_TURN``
counts completed turns; ``max_turns`` counts turns).  Within a turn ``apply``
leaves ``H_CURRENT`` on the same seat; the faces never guess where a turn
ends: a chain is one turn while ``H_TURN`` stays the same, the seat stays the
same and no chance node comes up.  ``H_LAST_ACTION`` / ``H_LAST_SEAT`` are the
last decision; a game that shows its last whole move keeps it in its own
fields.  PettingZoo's ``max_cycles`` (how often an agent was asked) is counted
by the AEC face, not here.

What the contract carries for all five games:

* 2..6 seats (``H_NUM_PLAYERS``), each with a return slot ``H_RET + seat``.
* **Chance nodes**: ``H_CURRENT == CHANCE`` (-1); the outcomes are actions.
* **Several decisions per turn** (above).
* **Eliminations**: :func:`eliminate` clears the seat's ``H_ALIVE`` bit and
  fixes its return at -1 while the others play on (no later ending changes
  it: the AEC env has already ended that agent's episode with -1).
* **Teams**: :func:`win_team` gives +1 to a set of seats and -1 to the rest.
* **Forced passes** are resolved inside ``apply``: after every call the state
  is terminal or someone (or chance) has a legal action.
* ``max_turns`` truncation (C-3) in :func:`end_turn`, other limits with
  :func:`truncate`, forfeits (C-6 ``"lose"``) in :func:`forfeit`, and a per-row
  random generator (``H_RNG``, splitmix64) so batched auto-resets and dice are
  reproducible and cloned with the row.

``params`` is an ``int64`` vector of options; the first slots are generic
(``P_*`` below), the game's own follow from ``P_GAME``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import config, njit
from numba.core import cgutils
from numba.core import types as nbtypes
from numba.core.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

from .spec import Layout

MAX_PLAYERS = 6
CHANCE = -1

# --- the header of every state row -------------------------------------------
HEADER_LAYOUT = Layout("header")
H_CURRENT = HEADER_LAYOUT.add("current", 1, "seat to act, or CHANCE (-1)")
H_STATUS = HEADER_LAYOUT.add("status", 1, "PLAYING / TERMINATED / TRUNCATED")
H_TURN = HEADER_LAYOUT.add("turn", 1, "completed turns (what the rules call moves)")
H_DECISIONS = HEADER_LAYOUT.add("decisions", 1, "applied decisions and chance outcomes")
H_ALIVE = HEADER_LAYOUT.add("alive", 1, "bit mask of seats still in the game")
H_NUM_PLAYERS = HEADER_LAYOUT.add("num_players", 1)
H_REASON = HEADER_LAYOUT.add("reason", 1, "why the game ended (REASON_* or the game's own)")
H_LAST_ACTION = HEADER_LAYOUT.add("last_action", 1, "the last decision, -1 if none")
H_LAST_SEAT = HEADER_LAYOUT.add("last_seat", 1, "who took it (CHANCE for an outcome)")
H_RNG = HEADER_LAYOUT.add("rng", 1, "splitmix64 state of this row")
H_RET = HEADER_LAYOUT.add("returns", MAX_PLAYERS, "final return per seat (-1, 0, +1)")
HEADER = HEADER_LAYOUT.fixed_size

PLAYING = 0
TERMINATED = 1
TRUNCATED = 2

REASON_NONE = 0
REASON_TRUNCATED = 1  # max_turns
REASON_ILLEGAL = 2
REASON_TIMEOUT = 3
REASON_MAX_CYCLES = 4  # PettingZoo's max_cycles, counted by the AEC face
REASON_GAME = 10  # games number their own end reasons from here

# --- generic option slots ----------------------------------------------------
P_MAX_TURNS = 0
P_NUM_PLAYERS = 1
P_FIRST = 2  # first seat, or -1 for "random" (drawn from H_RNG in-kernel)
P_GAME = 8  # first game-specific slot


class Kernels(NamedTuple):
    init: object
    legal: object
    apply: object
    observe: object
    chance_probs: object


# --- helpers the game kernels call ----------------------------------------


@njit(cache=True)
def new_game(state, params, first_seat):
    """Zero the row (keeping its random generator) and set the header."""
    rng = state[H_RNG]
    state[:] = 0
    state[H_RNG] = rng
    n = params[P_NUM_PLAYERS]
    state[H_NUM_PLAYERS] = n
    state[H_ALIVE] = (1 << n) - 1
    state[H_CURRENT] = first_seat
    state[H_STATUS] = PLAYING
    state[H_LAST_ACTION] = -1
    state[H_LAST_SEAT] = -1


@njit(cache=True)
def is_alive(state, seat):
    return (state[H_ALIVE] >> seat) & 1 == 1


@njit(cache=True)
def next_alive_seat(state, seat):
    """The next seat after ``seat`` in seat order that is still in the game."""
    n = state[H_NUM_PLAYERS]
    for k in range(1, n + 1):
        s = (seat + k) % n
        if (state[H_ALIVE] >> s) & 1:
            return s
    return seat


@njit(cache=True)
def record_action(state, seat, action):
    state[H_LAST_ACTION] = action
    state[H_LAST_SEAT] = seat
    state[H_DECISIONS] += 1


@njit(cache=True)
def end_game(state, reason):
    """Terminate with the returns already written into ``H_RET``."""
    state[H_STATUS] = TERMINATED
    state[H_REASON] = reason


@njit(cache=True)
def win_seat(state, winner, reason):
    """``winner`` +1, every other seat -1 (C-3)."""
    n = state[H_NUM_PLAYERS]
    for s in range(n):
        state[H_RET + s] = 1 if s == winner else -1
    end_game(state, reason)


@njit(cache=True)
def win_team(state, team_mask, reason):
    """Every seat in the bit mask ``team_mask`` +1, every other seat -1; a
    seat already eliminated keeps its -1 (its episode ended with it)."""
    n = state[H_NUM_PLAYERS]
    for s in range(n):
        state[H_RET + s] = 1 if (team_mask >> s) & 1 and (state[H_ALIVE] >> s) & 1 else -1
    end_game(state, reason)


@njit(cache=True)
def draw(state, reason):
    """0 for every seat still in the game (eliminated seats keep their -1)."""
    n = state[H_NUM_PLAYERS]
    for s in range(n):
        if (state[H_ALIVE] >> s) & 1:
            state[H_RET + s] = 0
    end_game(state, reason)


@njit(cache=True)
def eliminate(state, seat):
    """Take ``seat`` out of a game that goes on: return -1, alive bit cleared."""
    state[H_ALIVE] &= ~(1 << seat)
    state[H_RET + seat] = -1


@njit(cache=True)
def forfeit(state, seat, reason):
    """End the game as a loss for ``seat`` (-1) and 0 for the others
    (PettingZoo classic's convention for illegal moves)."""
    n = state[H_NUM_PLAYERS]
    for s in range(n):
        if s == seat:
            state[H_RET + s] = -1
        elif (state[H_ALIVE] >> s) & 1:
            state[H_RET + s] = 0
    end_game(state, reason)


@njit(cache=True)
def truncate(state, reason):
    """End the game by a limit, not by the rules (C-3): 0 for every seat
    still in the game, ``truncations`` true."""
    n = state[H_NUM_PLAYERS]
    for s in range(n):
        if (state[H_ALIVE] >> s) & 1:
            state[H_RET + s] = 0
    state[H_STATUS] = TRUNCATED
    state[H_REASON] = reason


@njit(cache=True)
def end_turn(state, params, next_seat):
    """Close a turn: count it, hand over to ``next_seat`` (or CHANCE), and
    truncate (C-3) when ``max_turns`` turns have been played."""
    state[H_TURN] += 1
    state[H_CURRENT] = next_seat
    if state[H_STATUS] == PLAYING and state[H_TURN] >= params[P_MAX_TURNS]:
        truncate(state, REASON_TRUNCATED)


# --- per-row random numbers -------------------------------------------------


def _wraps_around(kernel):
    """For kernels whose uint64 arithmetic wraps around on purpose: numba
    wraps silently, but in plain-Python mode (``NUMBA_DISABLE_JIT=1``) numpy
    warns on every overflow, so there they run under ``np.errstate``."""
    if not config.DISABLE_JIT:
        return kernel

    @functools.wraps(kernel)
    def plain(*args):
        with np.errstate(over="ignore"):
            return kernel(*args)

    return plain


@_wraps_around
@njit(cache=True)
def rand_u64(state):
    """splitmix64: one 64-bit draw from the row's own generator."""
    x = np.uint64(state[H_RNG]) + np.uint64(0x9E3779B97F4A7C15)
    state[H_RNG] = np.int64(x)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def no_chance_probs(state, params, probs):
    """The ``chance_probs`` kernel of a game without chance nodes."""
    probs[:] = 0.0


@njit(cache=True)
def rand_below(state, n):
    return np.int64(rand_u64(state) % np.uint64(n))


@njit(cache=True)
def rand_unit(state):
    return np.float64(rand_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def copy_row(dst, src):
    """``dst[:] = src[:len(dst)]`` as a plain loop: numba compiles an
    array-to-array slice assignment to a per-element broadcast, much slower
    on a mask (``benchmarks/breakdown.py``'s mask copy measures it)."""
    for j in range(dst.shape[0]):
        dst[j] = src[j]


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


@njit(cache=True)
def sample_mask(state, mask):
    """A uniformly random set entry of the 0/1 int8 ``mask`` (0 if none):
    the ``k``-th set entry, ``k`` drawn below their count.

    Reads 32 entries at a time as the 32 bits "entry != 0"
    (:func:`nonzero_bits32`: one vector compare) and counts them with the
    processor's popcount; the search skips 32 entries at a time by the same
    counts, then clears the word's lowest bits ``k`` times and takes the
    lowest one left."""
    n = mask.shape[0]
    full = n // 32 * 32
    count = 0
    for a in range(0, full, 32):
        count += np.int64(popcount(nonzero_bits32(mask, a)))
    for a in range(full, n):
        if mask[a] != 0:
            count += 1
    if count == 0:
        return 0
    k = rand_below(state, count)
    for a in range(0, full, 32):
        bits = np.uint64(nonzero_bits32(mask, a))
        c = np.int64(popcount(bits))
        if k < c:
            for _ in range(k):
                bits &= bits - np.uint64(1)
            return a + np.int64(lowest_bit(bits))
        k -= c
    for a in range(full, n):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return 0


@njit(cache=True)
def sample_probs(state, probs):
    u = rand_unit(state)
    acc = 0.0
    last = -1
    for a in range(probs.shape[0]):
        if probs[a] > 0.0:
            last = a
            acc += probs[a]
            if u < acc:
                return a
    return last


@njit(cache=True)
def first_seat_of(state, params):
    if params[P_FIRST] >= 0:
        return params[P_FIRST]
    return rand_below(state, params[P_NUM_PLAYERS])


# the illegal_action modes of the one step (boardenvs._drivers.step_row): what
# an action the mask does not allow does
ILLEGAL_LOSE = 0  # the mover forfeits (C-6, PettingZoo classic's and Pgx's convention)
ILLEGAL_RANDOM = 1  # a uniformly random legal action, from the row's generator, instead
ILLEGAL_REFUSE = 2  # nothing changes (the face raises)
ILLEGAL_MODES = {"lose": ILLEGAL_LOSE, "random": ILLEGAL_RANDOM, "raise": ILLEGAL_REFUSE}
# what the one step did
STEP_PLAYED = 0
STEP_ILLEGAL = 1  # the action was not legal: forfeited, or a random one played
STEP_REFUSED = 2  # nothing changed (refused, or the game was already over)

# an action code of ``act_rows``: a uniformly random legal action, drawn in
# the kernel from the row's generator (-1 forfeits the mover)
RANDOM_ACTION = -2
