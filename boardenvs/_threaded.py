"""make_vec's threaded drivers: one set for every game, over the serial ones.

A threaded driver splits its rows into chunks and runs the game's *serial*
driver on each chunk in numba's threads (``prange``), calling it through its
compiled address (:func:`_call_at`) rather than by name.  Called by name,
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
other flags) and calls again.  Chunks are slices of the rows (or of the
listed rows for the row API), so a chunk's driver sees the same types as
the whole call.
"""

from __future__ import annotations

import hashlib

import numba
import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic


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


# each driver: ``addr`` (the serial driver's), ``token`` (of the types it was
# compiled for), ``chunks`` (how many), then the serial driver's own
# arguments; False, having done nothing, when they are not of those types.
# Chunk ``c`` of ``n`` rows is rows ``c * n // chunks`` up to ``(c + 1) * n // chunks``
@njit(cache=True, parallel=True)
def reset_n(addr, token, chunks, states, params, seeds, probs, obs, masks, out_masks, to_move):
    if _token_of((states, params, seeds, probs, obs, masks, out_masks, to_move)) != token:
        return False
    n = states.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(
            addr, (states[a:b], params, seeds[a:b], probs[a:b], obs[a:b], masks[a:b], out_masks[a:b], to_move[a:b])
        )
    return True


@njit(cache=True, parallel=True)
def step_n(
    addr,
    token,
    chunks,
    states,
    params,
    actions,
    probs,
    obs,
    masks,
    out_masks,
    rewards,
    terminated,
    truncated,
    reasons,
    lengths,
    to_move,
    illegal,
    draw,
):
    if (
        _token_of(
            (
                states,
                params,
                actions,
                probs,
                obs,
                masks,
                out_masks,
                rewards,
                terminated,
                truncated,
                reasons,
                lengths,
                to_move,
                illegal,
                draw,
            )
        )
        != token
    ):
        return False
    n = states.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(
            addr,
            (
                states[a:b],
                params,
                actions[a:b],
                probs[a:b],
                obs[a:b],
                masks[a:b],
                out_masks[a:b],
                rewards[a:b],
                terminated[a:b],
                truncated[a:b],
                reasons[a:b],
                lengths[a:b],
                to_move[a:b],
                illegal[a:b],
                draw,
            ),
        )
    return True


@njit(cache=True, parallel=True)
def random_actions_n(addr, token, chunks, states, masks, out):
    if _token_of((states, masks, out)) != token:
        return False
    n = states.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(addr, (states[a:b], masks[a:b], out[a:b]))
    return True


# the row API's: the listed rows are chunked, the engine's arrays passed whole
@njit(cache=True, parallel=True)
def act_rows(addr, token, chunks, states, params, rows, actions, probs, masks):
    if _token_of((states, params, rows, actions, probs, masks)) != token:
        return False
    n = rows.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(addr, (states, params, rows[a:b], actions[a:b], probs, masks))
    return True


@njit(cache=True, parallel=True)
def observe_rows(addr, token, chunks, states, params, rows, seats, obs, masks, out_masks):
    if _token_of((states, params, rows, seats, obs, masks, out_masks)) != token:
        return False
    n = rows.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(addr, (states, params, rows[a:b], seats[a:b], obs[a:b], masks, out_masks[a:b]))
    return True


@njit(cache=True, parallel=True)
def reset_rows(addr, token, chunks, states, params, rows, probs, seats, draw, masks):
    if _token_of((states, params, rows, probs, seats, draw, masks)) != token:
        return False
    n = rows.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(addr, (states, params, rows[a:b], probs, seats[a:b], draw, masks))
    return True


@njit(cache=True, parallel=True)
def agent_step(
    addr,
    token,
    chunks,
    states,
    params,
    actions,
    seats,
    draw,
    same_step,
    pending,
    outside,
    picks,
    stage,
    deals,
    probs,
    masks,
    obs,
    out_masks,
    final_obs,
    final_masks,
    rewards,
    ends,
    reasons,
    lengths,
    wait_obs,
    wait_masks,
):
    if (
        _token_of(
            (
                states,
                params,
                actions,
                seats,
                draw,
                same_step,
                pending,
                outside,
                picks,
                stage,
                deals,
                probs,
                masks,
                obs,
                out_masks,
                final_obs,
                final_masks,
                rewards,
                ends,
                reasons,
                lengths,
                wait_obs,
                wait_masks,
            )
        )
        != token
    ):
        return False
    n = states.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(
            addr,
            (
                states[a:b],
                params,
                actions[a:b],
                seats[a:b],
                draw,
                same_step,
                pending[a:b],
                outside[a:b],
                picks,
                stage[a:b],
                deals[a:b],
                probs[a:b],
                masks[a:b],
                obs[a:b],
                out_masks[a:b],
                final_obs[a:b],
                final_masks[a:b],
                rewards[a:b],
                ends[a:b],
                reasons[a:b],
                lengths[a:b],
                wait_obs[a:b],
                wait_masks[a:b],
            ),
        )
    return True


@njit(cache=True, parallel=True)
def agent_resume(
    addr,
    token,
    chunks,
    states,
    params,
    rows,
    actions,
    seats,
    draw,
    same_step,
    outside,
    picks,
    stage,
    deals,
    probs,
    masks,
    obs,
    out_masks,
    final_obs,
    final_masks,
    rewards,
    ends,
    reasons,
    lengths,
    wait_obs,
    wait_masks,
):
    if (
        _token_of(
            (
                states,
                params,
                rows,
                actions,
                seats,
                draw,
                same_step,
                outside,
                picks,
                stage,
                deals,
                probs,
                masks,
                obs,
                out_masks,
                final_obs,
                final_masks,
                rewards,
                ends,
                reasons,
                lengths,
                wait_obs,
                wait_masks,
            )
        )
        != token
    ):
        return False
    n = rows.shape[0]
    for c in prange(chunks):
        a, b = c * n // chunks, (c + 1) * n // chunks
        _call_at(
            addr,
            (
                states,
                params,
                rows[a:b],
                actions[a:b],
                seats,
                draw,
                same_step,
                outside,
                picks,
                stage,
                deals,
                probs,
                masks,
                obs,
                out_masks,
                final_obs,
                final_masks,
                rewards,
                ends,
                reasons,
                lengths,
                wait_obs,
                wait_masks,
            ),
        )
    return True


# per driver name: the generic threaded driver and the argument holding the rows to split
GENERIC = {
    "reset_n": (reset_n, 0),
    "step_n": (step_n, 0),
    "random_actions_n": (random_actions_n, 0),
    "act_rows": (act_rows, 2),
    "observe_rows": (observe_rows, 2),
    "reset_rows": (reset_rows, 2),
    "agent_step": (agent_step, 0),
    "agent_resume": (agent_resume, 2),
}

ROWS_PER_CHUNK = 16  # at least, so a chunk's call costs little against its rows
CHUNKS_PER_THREAD = 16  # numba's scheduler balances rows of uneven cost (games that end and restart)


class ThreadedDriver:
    """A game's serial driver run in numba's threads, chunk by chunk (see the
    module docstring); called with the serial driver's arguments but its
    first, the game's kernels ``g`` (a :class:`boardenvs.bind.Bound`, given
    here once).  A ``Bound`` adds no parameter to compiled code, so the
    serial driver compiled for ``(g, *args)`` is called by address with
    ``args`` alone.  One is shared by every ``make_vec`` of its game, so the
    address and its token are one attribute, read once per call and
    replaced whole."""

    __slots__ = ("serial", "generic", "rows_arg", "g", "_bound")

    def __init__(self, serial, name: str, g):
        self.serial, self.g = serial, g
        self.generic, self.rows_arg = GENERIC[name]
        self._bound = (0, 0)  # (address, token): token 0 matches no types

    def _bind(self, args) -> tuple:
        """(address, token) of the serial driver compiled for ``args``' types
        (compiled, or loaded from numba's cache, if not yet)."""
        for a in args:
            if type(a) is np.ndarray and not a.flags.c_contiguous:  # its chunks would be typed otherwise
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

    def __call__(self, *args):
        n = args[self.rows_arg].shape[0]
        chunks = min(n // ROWS_PER_CHUNK, CHUNKS_PER_THREAD * numba.get_num_threads()) or min(n, 1)
        addr, token = self._bound
        if not self.generic(addr, token, chunks, *args):
            addr, token = self._bind(args)
            if not self.generic(addr, token, chunks, *args):
                raise RuntimeError(f"{self.serial.__name__}: no compiled driver for these argument types")
