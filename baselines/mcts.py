"""The ``"mcts"`` reference opponent: plain UCT with random rollouts.

``"mcts"`` runs 100 simulations per decision, ``"mcts:400"`` 400.  One
simulation, on a clone of the state row (a row copy):

* **selection**: from the root, while every legal action of the node has a
  child, go to the child maximising ``W/N + c * sqrt(ln(N_parent) / N)``,
  ``c = sqrt(2)``, with ``W/N`` the mean value *for the seat that chose the
  edge* (each node's mover maximises its own mean: any number of seats);
* **expansion**: the first node with an untried legal action gets one child,
  an untried action drawn uniformly;
* **rollout**: uniformly random legal actions (the kernels' ``legal`` +
  :func:`boardenvs.engine.sample_mask`) to the end of the game, or until
  ``rollout_cap`` decisions have been played (then every seat scores 0.5);
* **backup**: every seat's value from the header's returns, ``(H_RET + 1)/2``:
  a win 1, a draw or a truncation 0.5, a loss (or an elimination) 0; teams
  and eliminations are already in the returns.

Every edge is one decision; the mover is read from the header, so the several
decisions of one turn (Quicksand's chains) are successive edges of the same
seat.  **Chance** is sampled: after each decision the chance nodes are played
from the clone's own generator (reseeded per simulation), so the tree is
open-loop over chance (a node is reached through its decisions; the legal
actions are read again on every visit and only the legal children compete).
The decision played is the root's most visited child; ``search_policy``
also returns the root's visit counts per action (``counts / sims`` is the
search's policy, the soft target :mod:`boardenvs.baselines.distill` fits).

Batched: one compiled call searches every row asked (the rows of the vector
view waiting on this opponent, ``evaluate``'s games), rows spread over
numba's threads; the rollouts call the game's kernels directly, no Python
per simulation.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from numba import njit, prange

from boardenvs import engine as E
from boardenvs.bind import apply, bound, compiled_for, legal, settle_chance
from boardenvs.opponents import Opponent

DEFAULT_SIMULATIONS = 100
# the most simulations per decision: the tree of one row holds 7 numbers per
# simulation (56 bytes: 56 MB per row at the bound, and rows are searched in
# parallel), and a million simulations already take minutes per decision
MAX_SIMULATIONS = 10**6
UCT_C = math.sqrt(2.0)


def mcts_driver(game_cls, parallel: bool = False):
    """The compiled ``search(states, params, sims, c, cap, seeds, out, counts,
    mask_size, num_outcomes)`` of a game class: :func:`search` (or, with
    ``parallel``, :func:`search_threads`) with the game's kernels bound
    (compiled once per game, cached by numba): ``out[i]`` the decision of row
    ``i``, ``counts[i, a]`` the root's visits to action ``a`` (a forced
    decision: 1 on its action)."""
    g = bound(game_cls.kernels)
    module = compiled_for(sys.modules[__name__], g)
    return functools.partial(module.search_threads if parallel else module.search, g)


@njit(cache=True)
def search_row(g, root, params, sims, c, cap, seed, counts, mask_size, s_rows, mask_rows, probs_rows):
    # the rows the kernels work on, borrowed from the caller's 1-row
    # arrays (E.row_view): no reference counting in the kernels' own
    # views of them, a third to a half of a simulation in some games
    s, mask, probs = E.row_view(s_rows, 0), E.row_view(mask_rows, 0), E.row_view(probs_rows, 0)
    n_players = root[E.H_NUM_PLAYERS]
    tried = np.zeros(mask_size, np.int8)
    rng = np.zeros(E.H_RNG + 1, np.int64)
    rng[E.H_RNG] = seed
    values = np.zeros(E.MAX_PLAYERS, np.float64)
    size = sims + 2
    act = np.full(size, -1, np.int64)
    who = np.full(size, -1, np.int64)
    visits = np.zeros(size, np.float64)
    total = np.zeros(size, np.float64)
    first = np.full(size, -1, np.int64)
    sibling = np.full(size, -1, np.int64)
    path = np.zeros(size, np.int64)
    nodes = 1
    count = legal(g, root, params, mask)
    if count <= 1:  # a forced decision: nothing to search
        for a in range(mask_size):
            if mask[a]:
                counts[a] = 1.0
                return a
        return -1
    for _ in range(sims):
        s[:] = root
        s[E.H_RNG] = np.int64(E.rand_u64(rng))  # this simulation's dice and rollout
        node = 0
        plen = 1
        path[0] = 0
        # selection and expansion
        while s[E.H_STATUS] == E.PLAYING:
            mover = s[E.H_CURRENT]
            legal(g, s, params, mask)
            ch = first[node]
            while ch >= 0:
                tried[act[ch]] = 1
                ch = sibling[ch]
            untried = 0
            for a in range(mask_size):
                untried += mask[a] & (1 - tried[a])
            pick = -1
            if untried > 0:
                r = E.rand_below(rng, untried)
                for a in range(mask_size):
                    if mask[a] and not tried[a]:
                        if r == 0:
                            pick = a
                            break
                        r -= 1
            ch = first[node]
            while ch >= 0:
                tried[act[ch]] = 0
                ch = sibling[ch]
            if pick >= 0:  # expand
                nc = nodes
                nodes += 1
                act[nc] = pick
                who[nc] = mover
                sibling[nc] = first[node]
                first[node] = nc
                apply(g, s, params, pick)
                settle_chance(g, s, params, probs)
                path[plen] = nc
                plen += 1
                break
            log_n = math.log(visits[node])
            best = -1
            best_v = -np.inf
            ch = first[node]
            while ch >= 0:
                if mask[act[ch]]:
                    v = total[ch] / visits[ch] + c * math.sqrt(log_n / visits[ch])
                    if v > best_v:
                        best_v = v
                        best = ch
                ch = sibling[ch]
            apply(g, s, params, act[best])
            settle_chance(g, s, params, probs)
            node = best
            path[plen] = node
            plen += 1
        # rollout
        steps = 0
        while s[E.H_STATUS] == E.PLAYING and steps < cap:
            legal(g, s, params, mask)
            apply(g, s, params, E.sample_mask(s, mask))
            settle_chance(g, s, params, probs)
            steps += 1
        if s[E.H_STATUS] == E.PLAYING:
            for p in range(n_players):
                values[p] = 0.5
        else:
            for p in range(n_players):
                values[p] = 0.5 * (s[E.H_RET + p] + 1.0)
        # backup
        for j in range(plen):
            nd = path[j]
            visits[nd] += 1.0
            if nd != 0:
                total[nd] += values[who[nd]]
    # the most visited root child (ties: the better mean)
    best = -1
    ch = first[0]
    while ch >= 0:
        counts[act[ch]] = visits[ch]
        if best < 0 or visits[ch] > visits[best] or (visits[ch] == visits[best] and total[ch] > total[best]):
            best = ch
        ch = sibling[ch]
    return act[best]


@njit(cache=True)
def search(g, states, params, sims, c, cap, seeds, out, counts, mask_size, num_outcomes):
    """UCT from every row of ``states`` (see the module docstring)."""
    for i in range(states.shape[0]):
        s_rows = np.zeros((1, states.shape[1]), np.int64)  # each row's own, alive through the call
        mask_rows = np.zeros((1, mask_size), np.int8)
        probs_rows = np.zeros((1, max(num_outcomes, 1)), np.float64)
        out[i] = search_row(
            g, states[i], params, sims, c, cap, seeds[i], counts[i], mask_size, s_rows, mask_rows, probs_rows
        )


@njit(cache=True, parallel=True)
def search_threads(g, states, params, sims, c, cap, seeds, out, counts, mask_size, num_outcomes):
    """:func:`search` with the rows spread over numba's threads."""
    for i in prange(states.shape[0]):
        s_rows = np.zeros((1, states.shape[1]), np.int64)  # each row's own (threads), alive through the call
        mask_rows = np.zeros((1, mask_size), np.int8)
        probs_rows = np.zeros((1, max(num_outcomes, 1)), np.float64)
        out[i] = search_row(
            g, states[i], params, sims, c, cap, seeds[i], counts[i], mask_size, s_rows, mask_rows, probs_rows
        )


# every compiled function here (boardenvs.bind.uncached copies them)
COMPILED = ("search_row", "search", "search_threads")


class MCTSOpponent(Opponent):
    """UCT with random rollouts (see the module docstring); needs the state rows.

    ``simulations`` per decision (100), ``c`` the exploration constant on
    values in [0, 1] (sqrt 2), ``rollout_cap`` the most decisions a rollout
    plays before it is scored 0.5 for every seat (default: none beyond the
    game's own ``max_turns``, which truncates as a draw), ``parallel``:
    spread the rows asked over numba's threads (default: when many
    rows are asked at once: 32 or more).  ``simulations`` is at most
    ``MAX_SIMULATIONS`` (10**6: each simulation is a node of the row's
    tree, 56 bytes, and a million take minutes per decision)."""

    def __init__(
        self,
        simulations: int = DEFAULT_SIMULATIONS,
        c: float = UCT_C,
        rollout_cap: int | None = None,
        parallel: bool | None = None,
    ):
        from boardenvs.spec import is_int

        if not is_int(simulations) or simulations < 1:
            raise ValueError(f"mcts: simulations must be a positive int, got {simulations!r}")
        if simulations > MAX_SIMULATIONS:
            raise ValueError(
                f"mcts: simulations must be at most {MAX_SIMULATIONS:_} (the tree of each row holds "
                f"one node per simulation), got {simulations!r}"
            )
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"mcts: c must be a number >= 0, got {c!r}")
        if rollout_cap is not None and (not is_int(rollout_cap) or rollout_cap < 1):
            raise ValueError(f"mcts: rollout_cap must be a positive int or None, got {rollout_cap!r}")
        self.simulations = int(simulations)
        self.c = float(c)
        self.rollout_cap = rollout_cap
        self.parallel = parallel
        self.name = "mcts" if self.simulations == DEFAULT_SIMULATIONS else f"mcts:{self.simulations}"

    def act(self, batch) -> np.ndarray:
        """The batch's decisions, searched from copies of its rows (``batch.states``)."""
        return self.search_policy(batch)[0]

    def search_policy(self, batch) -> tuple[np.ndarray, np.ndarray]:
        """The decisions of the batch's rows and the search's policy at each
        root: ``(actions (k,), probs (k, mask_size))``, ``probs`` the root's
        visit counts over the simulations (each row sums to 1; a forced
        decision is 1 on its action)."""
        game, rng = batch.game, batch.rng
        states = np.ascontiguousarray(batch.states, dtype=np.int64)
        k = states.shape[0]
        out = np.zeros(k, np.int64)
        counts = np.zeros((k, game.mask_size), np.float64)
        if k == 0:
            return out, counts
        parallel = k >= 32 if self.parallel is None else bool(self.parallel)
        cap = np.iinfo(np.int64).max if self.rollout_cap is None else int(self.rollout_cap)
        seeds = rng.integers(0, 2**63 - 1, size=k, dtype=np.int64)
        search = mcts_driver(type(game), parallel)
        search(
            states,
            game.params,
            self.simulations,
            self.c,
            cap,
            seeds,
            out,
            counts,
            game.mask_size,
            game.num_chance_outcomes,
        )
        return out, counts / np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
