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
from numba import config, njit

# the kernels' compiled primitives (boardenvs.intrinsics): helpers of the contract, called as E.popcount, ...
from .intrinsics import (  # noqa: F401
    highest_bit,
    lowest_bit,
    no_mask,
    nonzero_bits32,
    popcount,
    row_view,
    scratch,
    store8,
)
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
