"""The ``"search:<simulations>:<model>"`` opponent: PUCT guided by a model.

AlphaZero's search (Silver et al., 2018) with a trained policy-value
network: ``search:200:quess_v0`` runs 200 simulations per decision guided
by the committed model ``quess_v0`` (or a saved model's path:
``search:200:runs/q.pt``).  One simulation, from a copy of the root row:

* **selection**: from the root, while the node's edge has a child, go to
  the legal edge maximising ``Q + c * P * sqrt(N_node) / (1 + N_edge)``:
  ``P`` the model's prior (its masked policy at the node), ``Q = W / N``
  the mean value of the edge *for the seat that took it* (each node's mover
  maximises its own value: any number of seats), an unvisited edge valued
  at its node's own value estimate (first-play urgency), ``c = 1.25``;
* **expansion and evaluation**: the first edge without a child leads to a
  new node: the model's prior over its legal actions becomes its edges, its
  value head's ``v`` (for the seat to act, in ``[-1, 1]``) the leaf's value;
  a finished game is valued by its returns instead;
* **backup**: every edge on the path gets ``N += 1`` and ``W +=`` the value
  of the seat that took it, on ``[0, 1]``: ``(v + 1) / 2`` for the seat at
  the leaf, ``(1 - that) / (P - 1)`` for each of the ``P - 1`` others (the
  model gives the mover's value only; in a two-seat game that is exact).

Every edge is one decision; **chance** is sampled, as in the ``mcts``
opponent: after each decision the chance nodes are played from the row's
own generator, so the tree is open-loop over dice.  A node's legal actions
are read again on every visit and only its legal edges compete; a node none
of whose edges is legal under this simulation's dice is evaluated again by
the model (its value is backed up, nothing is expanded).

Batched: one compiled call selects a leaf in every row searched (numba's
threads over rows), one forward pass of the model evaluates all the leaves,
one compiled call expands and backs up; a decision is the root's most
visited edge, and :meth:`SearchOpponent.search_policy` also returns the
root's visit shares (the policy target of
:mod:`boardenvs.baselines.expert_iteration`).  ``root_noise=(alpha, eps)``
mixes Dirichlet noise into the root's priors (self-play's exploration).

``others="greedy"`` (the opponent ``"search-greedy:<simulations>:<model>"``)
models the other seats as the ``greedy`` opponent: in each simulation,
after every decision of the root's seat (and its chance nodes), the other
seats' decisions are greedy's, played by its compiled driver with ties
drawn from the row's generator, until the root's seat is to act again or
the game is over.  The tree then holds the root seat's decisions only, and
the search is a best response to ``greedy`` (as the 4-player targets'
opponents are), open-loop over greedy's ties as over dice.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from numba import njit, prange

from boardenvs import engine as E
from boardenvs.bind import apply, compiled_for, legal, observe, settle_chance

from .greedy import bound_for, greedy_rows

DEFAULT_SIMULATIONS = 200
MAX_SIMULATIONS = 100_000  # each simulation is a node per row and a forward pass of the model
PUCT_C = 1.25
# what select() found at the end of a row's path
SKIP, NEW, TERMINAL, AGAIN = 0, 1, 2, 3


OTHERS_SEARCHED, OTHERS_GREEDY = 0, 1  # what plays the other seats in a simulation (search's ``others``)


def search_driver(game_cls, parallel: bool = False, others: str | None = None):
    """The compiled ``(select, expand)`` of a game class (see
    :class:`GuidedSearch` for the arrays they share): :func:`select` and
    :func:`expand` (or, with ``parallel``, their threaded forms) with the
    game's kernels and greedy's heuristic bound (compiled once per game,
    cached by numba); ``others="greedy"``: the other seats' decisions are
    played by the ``greedy`` opponent inside the simulation, not searched."""
    if others not in (None, "greedy"):
        raise ValueError(f"search: others is None or 'greedy', got {others!r}")
    g = bound_for(game_cls)  # the kernels and the heuristic greedy's replies need
    module = compiled_for(sys.modules[__name__], g)
    flag = OTHERS_GREEDY if others == "greedy" else OTHERS_SEARCHED
    select = module.select_threads if parallel else module.select
    expand = module.expand_threads if parallel else module.expand
    return functools.partial(select, g, flag), functools.partial(expand, g)


@njit(cache=True)
def reply(g, others, s, params, rng, seat, probs, i, g_rows, g_masks, g_io):
    """The other seats' decisions, ``greedy``'s (ties from the
    simulation's generator), until ``seat`` is to act or the game is
    over; row ``i``'s scratch: ``g_rows[3i]`` the state greedy reads,
    ``g_rows[3i+1:3i+3]`` and ``g_masks[2i:2i+2]`` its own rows,
    ``g_io[i]`` its seed and its decision."""
    if others != OTHERS_GREEDY:
        return
    while s[E.H_STATUS] == E.PLAYING and s[E.H_CURRENT] != seat:
        g_rows[3 * i, :] = s
        g_io[i, 0] = np.int64(E.rand_u64(rng) >> np.uint64(1))
        greedy_rows(
            g,
            g_rows[3 * i : 3 * i + 1],
            params,
            g_io[i, 0:1],
            g_io[i, 1:2],
            g_masks.shape[1],
            g_rows[3 * i + 1 : 3 * i + 3],
            g_masks[2 * i : 2 * i + 2],
        )
        apply(g, s, params, g_io[i, 1])
        settle_chance(g, s, params, probs)


@njit(cache=True)
def select_row(
    g,
    others,
    root,
    params,
    c,
    rng,
    s,
    mask,
    obs,
    probs,
    start,
    count,
    node_n,
    node_u,
    e_action,
    e_prior,
    e_n,
    e_w,
    e_child,
    path,
    movers,
    i,
    g_rows,
    g_masks,
    g_io,
):
    """Walk row ``i``'s tree from ``root`` (in ``s``) to a leaf; returns (kind, path length)."""
    E.copy_row(s, root)
    s[E.H_RNG] = np.int64(E.rand_u64(rng))  # this simulation's dice
    seat = root[E.H_CURRENT]
    node, plen = 0, 0
    while True:
        if s[E.H_STATUS] != E.PLAYING:
            return TERMINAL, plen
        legal(g, s, params, mask)
        mover = s[E.H_CURRENT]
        sqrt_n = math.sqrt(node_n[node])
        best, best_v = -1, -np.inf
        for e in range(start[node], start[node] + count[node]):
            if mask[e_action[e]]:
                q = e_w[e] / e_n[e] if e_n[e] > 0 else node_u[node]
                v = q + c * e_prior[e] * sqrt_n / (1.0 + e_n[e])
                if v > best_v:
                    best_v, best = v, e
        if best < 0:  # none of the node's edges is legal under these dice
            observe(g, s, params, mover, obs)
            return AGAIN, plen
        path[plen], movers[plen] = best, mover
        plen += 1
        apply(g, s, params, e_action[best])
        settle_chance(g, s, params, probs)
        reply(g, others, s, params, rng, seat, probs, i, g_rows, g_masks, g_io)
        if e_child[best] < 0:
            if s[E.H_STATUS] != E.PLAYING:
                return TERMINAL, plen
            legal(g, s, params, mask)
            observe(g, s, params, s[E.H_CURRENT], obs)
            return NEW, plen
        node = e_child[best]


@njit(cache=True)
def select_one(
    g,
    others,
    i,
    roots,
    params,
    c,
    rngs,
    leaves,
    masks,
    obs,
    kinds,
    plens,
    active,
    start,
    count,
    node_n,
    node_u,
    e_action,
    e_prior,
    e_n,
    e_w,
    e_child,
    paths,
    movers,
    num_outcomes,
    g_rows,
    g_masks,
    g_io,
):
    """Row ``i`` of :func:`select`."""
    if not active[i]:
        kinds[i] = SKIP
        return
    probs = np.zeros(max(num_outcomes, 1), np.float64)
    # the rows the kernels work on, borrowed (E.row_view: no reference counts in the kernels' views)
    kinds[i], plens[i] = select_row(
        g,
        others,
        E.row_view(roots, i),
        params,
        c,
        E.row_view(rngs, i),
        E.row_view(leaves, i),
        E.row_view(masks, i),
        E.row_view(obs, i),
        probs,
        start[i],
        count[i],
        node_n[i],
        node_u[i],
        e_action[i],
        e_prior[i],
        e_n[i],
        e_w[i],
        e_child[i],
        paths[i],
        movers[i],
        i,
        g_rows,
        g_masks,
        g_io,
    )


@njit(cache=True)
def select(g, others, roots, *arrays):
    """Every active row's walk to a leaf (:func:`select_row`); the arrays as :func:`select_one` takes them."""
    for i in range(roots.shape[0]):
        select_one(g, others, i, roots, *arrays)


@njit(cache=True, parallel=True)
def select_threads(g, others, roots, *arrays):
    """:func:`select` with the rows spread over numba's threads."""
    for i in prange(roots.shape[0]):
        select_one(g, others, i, roots, *arrays)


@njit(cache=True)
def expand_one(
    i,
    leaves,
    masks,
    priors,
    values,
    kinds,
    plens,
    nodes,
    edges,
    start,
    count,
    node_n,
    node_u,
    e_action,
    e_prior,
    e_n,
    e_w,
    e_child,
    paths,
    movers,
):
    """Row ``i`` of :func:`expand`: a new leaf's node and edges, the path's backup."""
    kind = kinds[i]
    if kind == SKIP:
        return
    s = leaves[i]
    n_players = s[E.H_NUM_PLAYERS]
    seat_values = np.zeros(E.MAX_PLAYERS, np.float64)
    if kind == TERMINAL:
        for p in range(n_players):
            seat_values[p] = 0.5 * (s[E.H_RET + p] + 1.0)
    else:
        u = 0.5 * (min(max(values[i], -1.0), 1.0) + 1.0)
        mover = s[E.H_CURRENT]
        for p in range(n_players):
            seat_values[p] = u if p == mover else (1.0 - u) / (n_players - 1)
        if kind == NEW:
            nd = nodes[i]
            nodes[i] += 1
            first = edges[i]
            k = 0
            for a in range(masks.shape[1]):
                if masks[i, a]:
                    e = first + k
                    e_action[i, e], e_prior[i, e] = a, priors[i, a]
                    e_n[i, e], e_w[i, e], e_child[i, e] = 0, 0.0, -1
                    k += 1
            edges[i] += k
            start[i, nd], count[i, nd], node_u[i, nd], node_n[i, nd] = first, k, u, 0.0
            if plens[i] > 0:
                e_child[i, paths[i, plens[i] - 1]] = nd
    node_n[i, 0] += 1.0
    for d in range(plens[i]):
        e = paths[i, d]
        e_n[i, e] += 1
        e_w[i, e] += seat_values[movers[i, d]]
        if e_child[i, e] >= 0:
            node_n[i, e_child[i, e]] += 1.0


@njit(cache=True)
def expand(g, leaves, *arrays):
    """Every searched row's leaf expanded and its path backed up (:func:`expand_one`)."""
    for i in range(leaves.shape[0]):
        expand_one(i, leaves, *arrays)


@njit(cache=True, parallel=True)
def expand_threads(g, leaves, *arrays):
    """:func:`expand` with the rows spread over numba's threads."""
    for i in prange(leaves.shape[0]):
        expand_one(i, leaves, *arrays)


# every compiled function here (boardenvs.bind.uncached copies them)
COMPILED = (
    "reply",
    "select_row",
    "select_one",
    "select",
    "select_threads",
    "expand_one",
    "expand",
    "expand_threads",
)


class GuidedSearch:
    """The search of one batch of roots (``states``, ``(k, width)`` rows
    with a seat to act) of ``game``: :meth:`run` plays ``simulations`` and
    returns the root's visits per action ``(k, mask_size)``.

    Each row's tree: ``nodes`` (at most ``simulations + 1``) with their
    edges' range ``start``/``count``, visits ``node_n`` and value estimate
    ``node_u`` (for the node's mover, on ``[0, 1]``); edges ``e_action``,
    ``e_prior``, ``e_n``, ``e_w`` (summed values for the seat that took
    the edge) and ``e_child`` (-1: not expanded), stored in a pool that
    grows by doubling (a node adds one edge per legal action)."""

    def __init__(
        self,
        game,
        states,
        evaluate,
        simulations: int,
        c: float = PUCT_C,
        root_noise: tuple[float, float] | None = None,
        rng=None,
        parallel: bool | None = None,
        others: str | None = None,
    ):
        self.game, self.evaluate, self.sims, self.c = game, evaluate, int(simulations), float(c)
        self.roots = np.array(states, np.int64, ndmin=2)
        k, width = self.roots.shape
        A = game.mask_size
        self.k, self.A = k, A
        self.rng = rng if rng is not None else np.random.default_rng()
        self.root_noise = root_noise
        self.rngs = np.zeros((k, E.H_RNG + 1), np.int64)  # each row's own generator (its dice)
        self.rngs[:, E.H_RNG] = self.rng.integers(0, 2**63 - 1, size=k, dtype=np.int64)
        self.parallel = k >= 32 if parallel is None else bool(parallel)
        self.select, self.expand_fn = search_driver(type(game), self.parallel, others)
        n = self.sims + 2
        self.leaves = np.zeros((k, width), np.int64)
        self.masks = np.zeros((k, A), np.int8)
        self.obs = np.zeros((k, game.obs_size), np.int8)
        self.kinds, self.plens = np.zeros(k, np.int64), np.zeros(k, np.int64)
        self.nodes, self.edges = np.zeros(k, np.int64), np.zeros(k, np.int64)
        self.start, self.count = np.zeros((k, n), np.int64), np.zeros((k, n), np.int64)
        self.node_n, self.node_u = np.zeros((k, n), np.float64), np.zeros((k, n), np.float64)
        self.paths, self.movers = np.zeros((k, n), np.int64), np.zeros((k, n), np.int64)
        cap = 4 * A
        self.e_action, self.e_child = np.zeros((k, cap), np.int32), np.zeros((k, cap), np.int32)
        self.e_prior, self.e_n, self.e_w = (
            np.zeros((k, cap), np.float32),
            np.zeros((k, cap), np.int32),
            np.zeros((k, cap)),
        )
        self.priors, self.values = np.zeros((k, A), np.float32), np.zeros(k, np.float64)
        # the greedy replies' scratch (others="greedy"; empty otherwise), allocated once: per row three state
        # rows, two mask rows, a seed and a decision
        w, a = (width, A) if others else (0, 0)
        self.g_rows, self.g_masks = np.zeros((3 * k, w), np.int64), np.zeros((2 * k, a), np.int8)
        self.g_io = np.zeros((k, 2), np.int64)

    def _room(self) -> None:
        """Grow the edge pool so every row can add a node of ``mask_size`` edges."""
        need = int(self.edges.max()) + self.A
        cap = self.e_action.shape[1]
        if need <= cap:
            return
        while cap < need:
            cap *= 2
        for name in ("e_action", "e_child", "e_prior", "e_n", "e_w"):
            old = getattr(self, name)
            new = np.zeros((self.k, cap), old.dtype)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

    def _evaluate_leaves(self) -> None:
        rows = np.flatnonzero((self.kinds == NEW) | (self.kinds == AGAIN))
        if rows.size:
            priors, values = self.evaluate(self.obs[rows], self.masks[rows].astype(bool))
            self.priors[rows], self.values[rows] = priors, values

    def _expand(self) -> None:
        self._room()
        self.expand_fn(
            self.leaves,
            self.masks,
            self.priors,
            self.values,
            self.kinds,
            self.plens,
            self.nodes,
            self.edges,
            self.start,
            self.count,
            self.node_n,
            self.node_u,
            self.e_action,
            self.e_prior,
            self.e_n,
            self.e_w,
            self.e_child,
            self.paths,
            self.movers,
        )

    def run(self) -> np.ndarray:
        """Play the simulations; the root's visits per action, ``(k, mask_size)``
        (a forced decision: 1 on its action, searched no further)."""
        game, k = self.game, self.k
        # the roots: evaluated and expanded first (node 0 of every row)
        if (self.roots[:, E.H_STATUS] != E.PLAYING).any() or (self.roots[:, E.H_CURRENT] < 0).any():
            raise ValueError("search: every root must be a decision of a seat in a game still on")
        for i in range(k):
            self.leaves[i] = self.roots[i]
            self.masks[i] = game.legal_mask(self.roots[i])
            self.obs[i] = game.observe(self.roots[i], int(self.roots[i, E.H_CURRENT])).reshape(-1)
        self.kinds[:] = NEW
        self.plens[:] = 0
        self._evaluate_leaves()
        self._expand()
        if self.root_noise is not None:
            alpha, eps = self.root_noise
            for i in range(k):
                n = int(self.count[i, 0])
                if n > 1:
                    noise = self.rng.dirichlet(np.full(n, alpha))
                    self.e_prior[i, :n] = (1 - eps) * self.e_prior[i, :n] + eps * noise
        active = (self.count[:, 0] > 1).astype(np.int8)
        for _ in range(self.sims if active.any() else 0):
            self.select(
                self.roots,
                game.params,
                self.c,
                self.rngs,
                self.leaves,
                self.masks,
                self.obs,
                self.kinds,
                self.plens,
                active,
                self.start,
                self.count,
                self.node_n,
                self.node_u,
                self.e_action,
                self.e_prior,
                self.e_n,
                self.e_w,
                self.e_child,
                self.paths,
                self.movers,
                game.num_chance_outcomes,
                self.g_rows,
                self.g_masks,
                self.g_io,
            )
            self._evaluate_leaves()
            self._expand()
        visits = np.zeros((k, self.A), np.float64)
        for i in range(k):
            n = int(self.count[i, 0])
            acts = self.e_action[i, :n]
            visits[i, acts] = self.e_n[i, :n] if active[i] else 1.0
        return visits

    def decisions(self, visits) -> np.ndarray:
        """The most visited root edge of each row (ties: the higher prior,
        then the lower action)."""
        out = np.zeros(self.k, np.int64)
        for i in range(self.k):
            n = int(self.count[i, 0])
            acts, n_e, prior = self.e_action[i, :n], self.e_n[i, :n], self.e_prior[i, :n]
            order = np.lexsort((acts, -prior, -n_e))
            out[i] = acts[order[0]]
        return out
