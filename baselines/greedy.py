"""The ``"greedy"`` reference opponent: one ply, one decision at a time.

For the seat to act, every legal action is tried on a scratch copy of the
state row (one compiled call for all the rows asked, :func:`greedy`, written once
for every game: the game's kernels and heuristic come bound, :mod:`boardenvs.bind`)
and the result is ranked, in this order:

1. an action after which the game is over and the mover won (an immediate win);
2. an action after which the game goes on with the mover in it, ranked by the
   game's own evaluation ``heuristic(state, params, seat, mask)`` (its module's
   ``TOOLS["greedy"]``, :func:`heuristic_of`) of the resulting state for the mover (higher is better; see each game's
   ``heuristic`` and the docs' Opponents page);
3. an action that ends the game in a draw or a truncation;
4. an action that loses at once (the game ends with the mover's loss, or the
   mover is eliminated): only if nothing else is legal.

Among 2 and 3, an action after which the next decision is another seat's
(not chance) and one of that seat's legal actions makes the mover lose at
once (a win for it, or the mover's elimination) is "threatened": it is
played only if every action of 2 and 3 is (then the best of them).  Only the
best-ranked actions are checked for threats, level by level, so this costs
little.

Ties are broken uniformly at random from the seeded generator passed to
:meth:`GreedyOpponent.act`.  Chance is not looked at: the state is
ranked as the decision leaves it (before the next roll).  A turn of several
decisions (Quicksand's hops) is decided decision by decision, each ranked by
the state it leaves.  A game without a ``heuristic`` ranks every ordinary
action the same (wins first, losses last, random otherwise).
"""

from __future__ import annotations

import functools
import sys

import numpy as np
from numba import njit

from boardenvs import engine as E
from boardenvs.bind import apply, bound, call_extra, compiled_for, legal
from boardenvs.opponents import Opponent

_BOUND: dict = {}  # kernels -> their Bound with the game's heuristic

WIN, GOES_ON, DRAW, LOSS = 3.0, 2.0, 1.0, 0.0
_TIER = 1e12  # the heuristics stay far below this
UNCHECKED, SAFE, THREATENED = 0, 1, 2


@njit(cache=True)
def no_heuristic(state, params, seat, mask):
    """The evaluation of a game that declares none: every state the same."""
    return 0.0


def heuristic_of(game):
    """The game's evaluation for greedy (a Game class, instance or env id):
    ``TOOLS["greedy"]["heuristic"]`` in its module, a numba function
    ``heuristic(state, params, seat, mask) -> float`` (higher is better for
    ``seat``; ``mask`` an int8 scratch of ``mask_size`` it may overwrite),
    called on the state a decision leaves while the game goes on; None when
    the game has none (every such state ranks the same)."""
    from boardenvs.registry import tool_settings

    settings = tool_settings(game, "greedy") or {}
    unknown = set(settings) - {"heuristic"}
    if unknown:
        raise TypeError(f"TOOLS['greedy'] of {game}: unknown keys {sorted(unknown)} (it takes 'heuristic')")
    return settings.get("heuristic")


def bound_for(game_cls):
    """The game's kernels bound with its heuristic (:func:`boardenvs.bind.bound`):
    what greedy's compiled functions below take first."""
    key = game_cls.kernels
    if key not in _BOUND:
        # (the key hashes this module too: the search calls greedy_rows, which numba's cache does not check)
        _BOUND[key] = bound(game_cls.kernels, (heuristic_of(game_cls) or no_heuristic,), modules=(__name__,))
    return _BOUND[key]


def greedy_driver(game_cls):
    """The compiled ``greedy(states, params, seeds, out, mask_size)`` of a game
    class (its kernels and heuristic): :func:`greedy` with the game's kernels
    bound (compiled once per game, cached by numba)."""
    g = bound_for(game_cls)
    return functools.partial(compiled_for(sys.modules[__name__], g).greedy, g)


@njit(cache=True)
def lost(s, mover):
    """Has ``mover`` lost in ``s`` (a finished game with its loss, or out)?"""
    if (s[E.H_ALIVE] >> mover) & 1 == 0:
        return True
    return s[E.H_STATUS] == E.TERMINATED and s[E.H_RET + mover] < 0


@njit(cache=True)
def threatened(g, s, params, mover, mask, s2):
    """Can the next decision in ``s`` (another seat's, not chance) make
    ``mover`` lose at once?"""
    nxt = s[E.H_CURRENT]
    if s[E.H_STATUS] != E.PLAYING or nxt == E.CHANCE or nxt == mover:
        return False
    legal(g, s, params, mask)
    for r in range(mask.shape[0]):
        if mask[r]:
            s2[:] = s
            apply(g, s2, params, r)
            if lost(s2, mover):
                return True
    return False


@njit(cache=True)
def greedy(g, states, params, seeds, out, mask_size):
    """Greedy's decision in every row of ``states`` (see the module
    docstring), ties from ``seeds``; the game's kernels and heuristic in
    ``g`` (:func:`bound_for`)."""
    # the rows the kernels work on, allocated here and borrowed below
    # (E.row_view: no reference counting in the kernels' own views)
    greedy_rows(
        g,
        states,
        params,
        seeds,
        out,
        mask_size,
        np.zeros((2, states.shape[1]), np.int64),
        np.zeros((2, mask_size), np.int8),
    )


@njit(cache=True)
def greedy_rows(g, states, params, seeds, out, mask_size, s_rows, mask_rows):
    """:func:`greedy` on scratch rows the caller owns (``(2, width)``
    int64, ``(2, mask_size)`` int8)."""
    k = states.shape[0]
    mask, scratch_mask = E.row_view(mask_rows, 0), E.row_view(mask_rows, 1)
    scores = np.zeros(mask_size, np.float64)
    flags = np.zeros(mask_size, np.int64)
    s, s2 = E.row_view(s_rows, 0), E.row_view(s_rows, 1)
    rng = np.zeros(E.H_RNG + 1, np.int64)  # a row-sized carrier of a splitmix64 state
    for i in range(k):
        root = E.row_view(states, i)
        rng[E.H_RNG] = seeds[i]
        mover = root[E.H_CURRENT]
        legal(g, root, params, mask)
        # one ply: every legal action's tier and evaluation
        for a in range(mask_size):
            flags[a] = UNCHECKED
            if mask[a] == 0:
                scores[a] = -np.inf
                continue
            s[:] = root
            apply(g, s, params, a)
            if lost(s, mover):
                scores[a] = LOSS * _TIER
            elif s[E.H_STATUS] != E.PLAYING:
                scores[a] = (WIN if s[E.H_STATUS] == E.TERMINATED and s[E.H_RET + mover] > 0 else DRAW) * _TIER
            else:
                scores[a] = GOES_ON * _TIER + call_extra(g, 0, s, params, mover, scratch_mask)
        # the best level whose actions leave no immediate loss to the next seat
        pick = -1
        while pick < 0:
            best = -np.inf
            for a in range(mask_size):
                if flags[a] == UNCHECKED and scores[a] >= DRAW * _TIER and scores[a] > best:
                    best = scores[a]
            if best == -np.inf:
                break
            ties = 0
            for a in range(mask_size):
                if flags[a] == UNCHECKED and scores[a] == best:
                    flags[a] = SAFE
                    if best < WIN * _TIER:
                        s[:] = root
                        apply(g, s, params, a)
                        if threatened(g, s, params, mover, scratch_mask, s2):
                            flags[a] = THREATENED
                            continue
                    ties += 1
                    if E.rand_below(rng, ties) == 0:  # reservoir: each tied action equally likely
                        pick = a
        if pick < 0:  # every action loses at once or lets the next seat win: the best of those
            best = -np.inf
            ties = 0
            for a in range(mask_size):
                if mask[a] == 0:
                    continue
                v = scores[a] + (_TIER if flags[a] == THREATENED else 0.0)  # threatened above lost
                if v > best:
                    best = v
                    ties = 1
                    pick = a
                elif v == best:
                    ties += 1
                    if E.rand_below(rng, ties) == 0:
                        pick = a
        out[i] = pick


@njit(cache=True)
def decide(g, s, params, mask):
    """Greedy's decision in row ``s`` (its ties drawn from the row's own
    generator), for the engine's learner loop (:meth:`GreedyOpponent.engine_decision`:
    ``g`` carries the game's heuristic first and this function last)."""
    seeds = np.zeros(1, np.int64)
    seeds[0] = np.int64(E.rand_u64(s) >> np.uint64(1))
    out = np.zeros(1, np.int64)
    mask_size = mask.shape[0]
    greedy_rows(
        g,
        s.reshape((1, s.shape[0])),
        params,
        seeds,
        out,
        mask_size,
        np.zeros((2, s.shape[0]), np.int64),
        np.zeros((2, mask_size), np.int8),
    )
    return out[0]


# every compiled function here (boardenvs.bind.uncached copies them)
COMPILED = ("no_heuristic", "lost", "threatened", "greedy", "greedy_rows", "decide")


class GreedyOpponent(Opponent):
    """One-ply greedy play (see the module docstring); needs the state rows."""

    name = "greedy"

    def engine_decision(self, game) -> tuple:
        """Greedy inside the engine's learner loop: its heuristic, then
        :func:`decide` (ties from each row's generator)."""
        return (heuristic_of(type(game)) or no_heuristic, decide)

    def act(self, batch) -> np.ndarray:
        """The batch's decisions, searched on copies of its rows (``batch.states``)."""
        game, rng = batch.game, batch.rng
        states = np.ascontiguousarray(batch.states, dtype=np.int64)
        out = np.zeros(states.shape[0], np.int64)
        if states.shape[0]:
            seeds = rng.integers(0, 2**63 - 1, size=states.shape[0], dtype=np.int64)
            greedy_driver(type(game))(states, game.params, seeds, out, game.mask_size)
        return out
