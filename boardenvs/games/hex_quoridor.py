"""Hex Quoridor — ``hex_quoridor_v0``: Quoridor on a hex-hex board with zig-zag fences.

Rules: ``boardenvs/rules/hex_quoridor.md`` (``boardenvs rules hex_quoridor_v0``)
(HQ-1..HQ-16), implemented once, in the numba kernels below;
:class:`HexQuoridorGame` adds notation, the text form and pictures.  Board
geometry (C-5) comes from :mod:`boardenvs.hexboard`.

=================  ==========================================================
Agents             ``player_0`` .. ``player_{n-1}``, ``n`` in {2, 3, 4, 6}
                   (HQ-4); seat ``s`` starts on side ``SIDES[n][s]``
Actions            ``Discrete(C + F)`` in the **mover's frame** (the board
                   turned so its start side is at the bottom): ``0 .. C-1``
                   move the pawn to cell ``i`` (reading order of the turned
                   board; step or jump, HQ-11/12); ``C + f``: place fence
                   ``f`` (fences in the order of :func:`fence_geometry`).
                   Radius 4: ``C = 61``, ``F = 264``, ``Discrete(325)``.
Action mask        exact, path rule (HQ-8) and eliminations (HQ-9) included
Observation        ``int8 (2R+1, 2R+1, 5n+7)`` over the axial grid, in the
                   observer's frame: 0 on the board; 1 own pawn; 2..n the
                   other pawns in seat order after the observer; n+1..n+6
                   edge blocked (fence or rim) per direction E, NE, NW, W, SW,
                   SE of the turned board; n+7 own goal cells; n+8..2n+7
                   fences left per seat (a count, observer first);
                   2n+8..3n+7 still in the game per seat (observer first);
                   3n+8..4n+6 the goal cells of each other seat (seat order
                   after the observer); 4n+7..5n+6 that seat is the
                   observer's teammate (observer first: always 1), so every
                   seat sees each pawn's goal side and team (HQ-2, HQ-15)
Rewards            +1 to the winner (team play: the whole team, HQ-14/15),
                   -1 to every other seat; an eliminated seat -1 at once (HQ-9)
Options            ``num_players`` (2), ``teams`` ("none"), ``radius`` (4),
                   ``fences_per_player`` (-1: by HQ-5), ``first_player``
                   ("random"), ``max_turns`` (1000)
Notation           a pawn move is its destination (``e5``); a fence its two
                   facing pairs (``d3d4/e4e5``)
=================  ==========================================================
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit

from .. import engine as E
from ..errors import NotationError, OptionError
from ..game import Game
from ..hexboard import MAX_RADIUS, hex_board
from ..spec import Option, first_player_option, max_turns_option, num_players_option

# --- seats, sides, fences (HQ-2, HQ-4, HQ-5, HQ-15) ----------------------------
SIDES = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
SIDE_NAMES = ("bottom", "lower-left", "upper-left", "top", "upper-right", "lower-right")
FENCES = {2: 9, 3: 6, 4: 4, 6: 3}
TEAMS = {  # option value -> (players, team id per seat)
    "none": None,
    "2v2": (4, (0, 0, 1, 1)),
    "3x2": (6, (0, 0, 1, 1, 2, 2)),
    "2x3": (6, (0, 0, 0, 1, 1, 1)),
}
MAX_FENCES_PER_PLAYER = 20  # n * 20 <= 127 fits the int8 observation
SENTINEL = 7  # occupant code of the off-board sentinel cell
FAR = 1 << 30  # distance of a cell with no path to the goal

# --- the state row after the generic header -----------------------------------
LAYOUT = E.HEADER_LAYOUT.extend("hex_quoridor_v0")
Q_PAWNS = LAYOUT.add("pawns", E.MAX_PLAYERS, "cell of each seat's pawn, -1 once eliminated (or no such seat)")
Q_LEFT = LAYOUT.add("fences_left", E.MAX_PLAYERS, "unplayed fences per seat")
Q_OCC = LAYOUT.add("occupant", "cells1", "seat + 1 on each cell (0 empty), then the sentinel cell (SENTINEL)")
# the two fields below start at run-time offsets (params P_BLK / P_FEN)
LAYOUT.add("blocked", "slots", "per cell (sentinel included) and direction: 1 if a fence or the rim blocks it")
LAYOUT.add("fences", "fences", "1 for each placed fence")

# --- params after the generic ones --------------------------------------------
P_N = E.P_GAME  # cells
P_F = E.P_GAME + 1  # fence slots
P_ELIM = E.P_GAME + 2  # 1: HQ-9 eliminations (3+ players, no teams)
P_BLK = E.P_GAME + 3  # offset of the blocked field in the state row
P_FEN = E.P_GAME + 4  # offset of the fences field
P_FPP = E.P_GAME + 5  # fences per player
P_SIDE = E.P_GAME + 6  # 6 slots: side of each seat
P_TEAM = E.P_GAME + 12  # 6 slots: bit mask of each seat's team
# offsets of the tables (in params)
P_TNB = E.P_GAME + 18  # (C+1) x 6 neighbours, the sentinel C for off the board
P_TON = E.P_GAME + 19  # 6 x (C+1): cell on side k (HQ-2)
P_TFE = E.P_GAME + 20  # F x 6: directed edge slots (cell * 6 + d) of a fence's three edges, both ways
P_TCMAP = E.P_GAME + 21  # 6 x C: frame cell -> cell, per frame k (turned k sixths clockwise)
P_TCINV = E.P_GAME + 22  # 6 x (C+1): cell -> frame cell
P_TFMAP = E.P_GAME + 23  # 6 x F: frame fence -> fence
P_TGRID = E.P_GAME + 24  # 6 x C: grid index of each cell in frame k
P_TORD = E.P_GAME + 25  # 6 x 6: search order of directions towards the goal, per side
P_TRIM = E.P_GAME + 26  # (C+1) x 6: the rim's blocked slots (the empty board)
P_TSTART = E.P_GAME + 27  # 6: start cell per side (HQ-3)
P_TABLES = E.P_GAME + 28

REASON_GOAL = E.REASON_GAME
REASON_STUCK = E.REASON_GAME + 1  # ruling: nobody in the game has a legal move

MOVE, FENCE = 0, 1  # action classes (the dice variant)


# --- geometry (Python, once per radius) ----------------------------------------


def fence_geometry(board):
    """Every fence of HQ-6/7 on ``board``: a list of ``(x, y, m1, m2, o)``.

    ``x, y`` adjacent with ``y`` after ``x`` in reading order (direction E,
    SW or SE from ``x``), ``m1`` / ``m2`` their common neighbours in
    directions ``d + 1`` / ``d - 1`` from ``x``; orientation ``o = 0``
    separates ``{x, m1} | {y, m2}`` (blocks x-y, m1-y, x-m2), ``o = 1``
    ``{y, m1} | {x, m2}`` (blocks x-y, m1-x, y-m2).  Ordered by ``x``, then
    direction E, SW, SE, then orientation."""
    nb = board.neighbours
    out = []
    for x in range(board.num_cells):
        for d in (0, 4, 5):
            y, m1, m2 = nb[x, d], nb[x, (d + 1) % 6], nb[x, (d - 1) % 6]
            if min(y, m1, m2) < 0:
                continue  # HQ-7: all four cells on the board
            out.append((x, int(y), int(m1), int(m2), 0))
            out.append((x, int(y), int(m1), int(m2), 1))
    return out


def fence_pairs(fence) -> tuple:
    """The two facing pairs of a fence, each sorted, pairs sorted (name order)."""
    x, y, m1, m2, o = fence
    pairs = ((x, m1), (y, m2)) if o == 0 else ((y, m1), (x, m2))
    return tuple(sorted(tuple(sorted(p)) for p in pairs))


def fence_edges(fence) -> tuple:
    """The three blocked edges of a fence as cell pairs."""
    x, y, m1, m2, o = fence
    return ((x, y), (m1, y), (x, m2)) if o == 0 else ((x, y), (m1, x), (y, m2))


def side_cells(board, k: int) -> list:
    """Cells of side ``k`` (HQ-2), corners included."""
    R = board.radius
    test = (
        lambda q, r: r == R,
        lambda q, r: q == -R,
        lambda q, r: q + r == -R,
        lambda q, r: r == -R,
        lambda q, r: q == R,
        lambda q, r: q + r == R,
    )[k]
    return [i for i, (q, r) in enumerate(board.coords) if test(q, r)]


class Geometry:
    """The tables of one radius (shared by every game of that radius)."""

    _cache: dict = {}

    @classmethod
    def of(cls, radius):
        if radius not in cls._cache:
            cls._cache[radius] = cls(radius)
        return cls._cache[radius]

    def __init__(self, radius):
        self.board = board = hex_board(radius)
        n = self.n = board.num_cells
        self.fences = fence_geometry(board)
        F = self.F = len(self.fences)
        self.fence_by_pairs = {fence_pairs(f): i for i, f in enumerate(self.fences)}
        nb = np.where(board.neighbours >= 0, board.neighbours, n)
        self.nb = np.vstack([nb, np.full((1, 6), n)]).astype(np.int64)
        on = np.zeros((6, n + 1), np.int64)
        for k in range(6):
            on[k, side_cells(board, k)] = 1
        self.on_side = on
        fe = np.zeros((F, 6), np.int64)
        for f, fence in enumerate(self.fences):
            for j, (u, v) in enumerate(fence_edges(fence)):
                d = board.direction(u, v)
                fe[f, 2 * j] = u * 6 + d
                fe[f, 2 * j + 1] = v * 6 + (d + 3) % 6
        self.fence_slots = fe
        # frames: frame k is the board turned k sixths counter-clockwise (a
        # seat on side k sees its side at the bottom); frame -> board turns k clockwise
        self.cmap = np.zeros((6, n), np.int64)
        self.cinv = np.zeros((6, n + 1), np.int64)
        self.fmap = np.zeros((6, F), np.int64)
        self.finv = np.zeros((6, F), np.int64)
        self.grid = np.zeros((6, n), np.int64)
        for k in range(6):
            rot = board.rotation(k)
            self.cmap[k] = rot
            self.cinv[k, rot] = np.arange(n)
            self.cinv[k, n] = n
            for fr, (x, y, m1, m2, o) in enumerate(self.fences):
                pairs = fence_pairs((rot[x], rot[y], rot[m1], rot[m2], o))
                f = self.fence_by_pairs[pairs]
                self.fmap[k, fr] = f
                self.finv[k, f] = fr
            self.grid[k] = board.grid_index[self.cinv[k, :n]]
        # search order towards the goal: a pawn of side 0 heads up (NW, NE first)
        base = (2, 1, 3, 0, 4, 5)
        self.order = np.array([[(d - k) % 6 for d in base] for k in range(6)], np.int64)
        rim = np.zeros((n + 1, 6), np.int64)
        rim[self.nb == n] = 1
        rim[n, :] = 1
        self.rim = rim
        R = radius
        self.start = np.array([board.rotate(board.index_of(-R // 2, R), k) for k in range(6)], np.int64)
        tables = [self.nb, self.on_side, self.fence_slots, self.cmap, self.cinv, self.fmap, self.grid,
                  self.order, self.rim, self.start]  # fmt: skip
        self.offsets = []
        flat = []
        at = P_TABLES
        for t in tables:
            self.offsets.append(at)
            flat.append(t.ravel())
            at += t.size
        self.tables = np.concatenate(flat)


# --- kernels -------------------------------------------------------------------


@njit(cache=True, inline="always")
def _frame(params, seat):
    return params[P_SIDE + seat]


@njit(cache=True, inline="always")
def _goal_off(params, seat):
    """Offset in params of the on-side table of ``seat``'s goal side (HQ-2)."""
    return params[P_TON] + ((params[P_SIDE + seat] + 3) % 6) * (params[P_N] + 1)


@njit(cache=True)
def _pawn_moves(state, params, seat, mask, write):
    """Steps (HQ-11) and jumps (HQ-12) of ``seat``'s pawn: with ``write``,
    mark them in ``mask`` (mover's frame) and return how many; else return
    1 at the first one found (0 if none)."""
    n = params[P_N]
    nb = params[P_TNB]
    blk = params[P_BLK]
    cinv = params[P_TCINV] + _frame(params, seat) * (n + 1)
    a = state[Q_PAWNS + seat]
    count = 0
    for d in range(6):
        if state[blk + a * 6 + d]:
            continue  # a fence or the rim
        b = params[nb + a * 6 + d]
        o = state[Q_OCC + b]
        if o == 0:
            if not write:
                return 1
            f = params[cinv + b]
            if mask[f] == 0:
                mask[f] = 1
                count += 1
            continue
        # a pawn on b, not separated from a: the first tier with an open landing
        for tier in range(3):
            found = False
            for side in range(2 if tier else 1):
                dd = (d + tier) % 6 if side == 0 else (d - tier) % 6
                if state[blk + b * 6 + dd] == 0:
                    L = params[nb + b * 6 + dd]
                    if state[Q_OCC + L] == 0:
                        found = True
                        if not write:
                            return 1
                        f = params[cinv + L]
                        if mask[f] == 0:
                            mask[f] = 1
                            count += 1
            if found:
                break
    return count


@njit(cache=True)
def _reaches_goal(state, params, seat, stamp, gen, stack):
    """HQ-8: is there a path (unblocked edges, pawns ignored) from ``seat``'s
    pawn to its goal side?  Depth-first, goal-ward directions first."""
    nb = params[P_TNB]
    blk = params[P_BLK]
    goal = _goal_off(params, seat)
    order = params[P_TORD] + 6 * params[P_SIDE + seat]
    start = state[Q_PAWNS + seat]
    stamp[start] = gen
    stack[0] = start
    sp = 1
    while sp > 0:
        sp -= 1
        c = stack[sp]
        if params[goal + c]:
            return True
        for j in range(5, -1, -1):
            d = params[order + j]
            if state[blk + c * 6 + d] == 0:
                v = params[nb + c * 6 + d]
                if stamp[v] != gen:
                    stamp[v] = gen
                    stack[sp] = v
                    sp += 1
    return False


@njit(cache=True)
def _goal_distances(state, params, seat, dist, queue):
    """Breadth-first from ``seat``'s goal side: ``dist[c]`` = steps from cell
    ``c`` to that side through unblocked edges (pawns ignored), or ``FAR``."""
    n = params[P_N]
    nb = params[P_TNB]
    blk = params[P_BLK]
    goal = _goal_off(params, seat)
    tail = 0
    for c in range(n + 1):
        if params[goal + c]:
            dist[c] = 0
            queue[tail] = c
            tail += 1
        else:
            dist[c] = FAR
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(6):
            if state[blk + c * 6 + d] == 0:
                v = params[nb + c * 6 + d]
                if dist[v] == FAR:
                    dist[v] = dist[c] + 1
                    queue[tail] = v
                    tail += 1


@njit(cache=True)
def _mark_shortest_path(state, params, seat, dist, pathmark):
    """Set bit ``seat`` of ``pathmark`` on both slots of every edge of one
    shortest path from ``seat``'s pawn to its goal side (down ``dist``)."""
    nb = params[P_TNB]
    blk = params[P_BLK]
    bit = 1 << seat
    c = state[Q_PAWNS + seat]
    while dist[c] > 0 and dist[c] < FAR:
        for d in range(6):
            slot = c * 6 + d
            v = params[nb + slot]
            if state[blk + slot] == 0 and dist[v] == dist[c] - 1:
                pathmark[slot] |= bit
                pathmark[v * 6 + (d + 3) % 6] |= bit
                c = v
                break


@njit(cache=True)
def _down_degrees(state, params, dist, down):
    """``down[c]``: open edges from ``c`` to a cell one step nearer the goal."""
    n = params[P_N]
    nb = params[P_TNB]
    blk = params[P_BLK]
    for c in range(n + 1):
        k = 0
        for d in range(6):
            slot = c * 6 + d
            k += (state[blk + slot] == 0) & (dist[params[nb + slot]] == dist[c] - 1)
        down[c] = k


@njit(cache=True, inline="always")
def _upper(params, slot, dist):
    """The end of the edge ``slot`` one step farther from the goal, or -1."""
    u = slot // 6
    v = params[params[P_TNB] + slot]
    if dist[v] == dist[u] - 1:
        return u
    if dist[u] == dist[v] - 1:
        return v
    return -1


@njit(cache=True, inline="always")
def _escapes(state, params, e, dist, x, s0, s1, s2):
    """Has the stranded cell ``x`` an edge, open and not one of fence ``e``'s,
    to a cell at its own distance that is not stranded (``s0..s2``)?"""
    nb = params[P_TNB]
    blk = params[P_BLK]
    for d in range(6):
        slot = x * 6 + d
        if state[blk + slot]:
            continue
        if slot == params[e] or slot == params[e + 1] or slot == params[e + 2] or slot == params[e + 3] \
                or slot == params[e + 4] or slot == params[e + 5]:  # fmt: skip
            continue
        w = params[nb + slot]
        if dist[w] == dist[x] and w != s0 and w != s1 and w != s2:
            return True
    return False


@njit(cache=True, inline="always")
def _keeps_descent(state, params, e, dist, down):
    """Sufficient for every cell (the pawn's included) to keep a path after
    fence ``e``'s three edges are blocked.  Only the fence's cells lose
    edges.  A cell that loses some but not all of its edges down the old
    distances ``dist`` still walks down; a *stranded* one (it lost them all)
    is fine if it can step sideways to a cell at its own distance that is
    not stranded.  Then from every cell, walking down (and sideways at most
    once per level, never back up) reaches the goal."""
    x0 = _upper(params, params[e], dist)
    x1 = _upper(params, params[e + 2], dist)
    x2 = _upper(params, params[e + 4], dist)
    s0 = x0 if x0 >= 0 and down[x0] <= (1 + (x1 == x0) + (x2 == x0)) else -1
    s1 = x1 if x1 >= 0 and down[x1] <= (1 + (x0 == x1) + (x2 == x1)) else -1
    s2 = x2 if x2 >= 0 and down[x2] <= (1 + (x0 == x2) + (x1 == x2)) else -1
    if s0 >= 0 and not _escapes(state, params, e, dist, s0, s0, s1, s2):
        return False
    if s1 >= 0 and not _escapes(state, params, e, dist, s1, s0, s1, s2):
        return False
    if s2 >= 0 and not _escapes(state, params, e, dist, s2, s0, s1, s2):
        return False
    return True


@njit(cache=True)
def _fences(state, params, seat, mask, write):
    """Legal fences of ``seat`` (HQ-6..9, HQ-15): with ``write`` mark them in
    ``mask[C:]`` (mover's frame) and return how many, else return 1 at the
    first legal one.

    Fast path check: a fence can only cut a pawn off if it blocks an edge of
    that pawn's path, so one shortest path per live pawn is marked first,
    and only fences that touch a marked path are searched, for the pawns
    whose path they touch: first a quick sufficient test on the distances to
    the goal before the fence (:func:`_keeps_descent`), then, if that is not
    enough, a full search.
    ``tests/test_hex_quoridor_rules.py`` checks the result against the
    brute-force search of every pawn after every fence."""
    n = params[P_N]
    F = params[P_F]
    num = params[E.P_NUM_PLAYERS]
    blk = params[P_BLK]
    fe = params[P_TFE]
    fmap = params[P_TFMAP] + _frame(params, seat) * F
    n1 = n + 1
    scratch = np.empty((8 + 2 * num) * n1, np.int64)
    stamp = scratch[:n1]
    stamp[:] = 0
    queue = scratch[n1 : 2 * n1]
    pathmark = scratch[2 * n1 : 8 * n1]
    pathmark[:] = 0
    dists = scratch[8 * n1 : (8 + num) * n1]
    downs = scratch[(8 + num) * n1 :]
    gen = 0
    alive = 0
    for p in range(num):
        if E.is_alive(state, p):
            dist = dists[p * n1 : (p + 1) * n1]
            _goal_distances(state, params, p, dist, queue)
            _down_degrees(state, params, dist, downs[p * n1 : (p + 1) * n1])
            _mark_shortest_path(state, params, p, dist, pathmark)
            alive += 1
    elim = params[P_ELIM] == 1 and alive > 2  # HQ-9 (with two left, HQ-8 for both)
    count = 0
    for fr in range(F):
        e = fe + 6 * params[fmap + fr]
        s0, s2, s4 = params[e], params[e + 2], params[e + 4]
        ok = (state[blk + s0] | state[blk + s2] | state[blk + s4]) == 0  # HQ-7
        if ok:
            touch = pathmark[s0] | pathmark[s2] | pathmark[s4]
            for p in range(num):  # the quick test clears most touching fences
                if (touch >> p) & 1 and _keeps_descent(state, params, e, dists[p * n1 : (p + 1) * n1], downs[p * n1 : (p + 1) * n1]):
                    touch &= ~(1 << p)
            if touch:
                for j in range(6):  # try it: block its edges, search, unblock
                    state[blk + params[e + j]] = 1
                cut = 0
                for p in range(num):
                    if (touch >> p) & 1:
                        gen += 1
                        if not _reaches_goal(state, params, p, stamp, gen, queue):
                            if elim and p != seat:
                                cut += 1
                            else:
                                ok = False  # HQ-8 / HQ-15, or the placer itself (HQ-9)
                                break
                if ok and cut > alive - 2:
                    ok = False  # HQ-9: at least two players stay
                for j in range(6):
                    state[blk + params[e + j]] = 0
        if write:
            mask[n + fr] = 1 if ok else 0
            if ok:
                count += 1
        elif ok:
            return 1
    return count


@njit(cache=True)
def _has_legal(state, params, seat):
    """HQ-13: has ``seat`` any legal action?"""
    none = np.zeros(0, np.int8)
    if _pawn_moves(state, params, seat, none, False):
        return True
    return state[Q_LEFT + seat] > 0 and _fences(state, params, seat, none, False) > 0


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)
    n = params[P_N]
    blk = params[P_BLK]
    rim = params[P_TRIM]
    for j in range(6 * (n + 1)):
        state[blk + j] = params[rim + j]  # HQ-7: no fences yet, only the rim
    state[Q_OCC + n] = SENTINEL
    for s in range(E.MAX_PLAYERS):
        state[Q_PAWNS + s] = -1
    for s in range(params[E.P_NUM_PLAYERS]):
        c = params[params[P_TSTART] + params[P_SIDE + s]]  # HQ-3
        state[Q_PAWNS + s] = c
        state[Q_OCC + c] = s + 1
        state[Q_LEFT + s] = params[P_FPP]  # HQ-5


@njit(cache=True)
def legal(state, params, mask):
    seat = state[E.H_CURRENT]
    n = params[P_N]
    mask[:n] = 0
    count = _pawn_moves(state, params, seat, mask, True)
    if state[Q_LEFT + seat] > 0:
        count += _fences(state, params, seat, mask, True)
    else:
        mask[n:] = 0
    return count


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    n = params[P_N]
    k = _frame(params, seat)
    num = params[E.P_NUM_PLAYERS]
    E.record_action(state, seat, action)
    if action < n:  # HQ-11/12: the pawn goes to the cell
        c = params[params[P_TCMAP] + k * n + action]
        state[Q_OCC + state[Q_PAWNS + seat]] = 0
        state[Q_OCC + c] = seat + 1
        state[Q_PAWNS + seat] = c
        if params[_goal_off(params, seat) + c]:  # HQ-14 / HQ-15
            E.win_team(state, params[P_TEAM + seat], REASON_GOAL)
    else:  # HQ-6: place the fence
        F = params[P_F]
        f = params[params[P_TFMAP] + k * F + action - n]
        e = params[P_TFE] + 6 * f
        blk = params[P_BLK]
        for j in range(6):
            state[blk + params[e + j]] = 1
        state[params[P_FEN] + f] = 1
        state[Q_LEFT + seat] -= 1
        if params[P_ELIM] == 1:  # HQ-9: the pawns cut off leave; the placer inherits
            stamp = np.zeros(n + 1, np.int64)
            stack = np.zeros(n + 1, np.int64)
            gen = 0
            for p in range(num):
                if p != seat and E.is_alive(state, p):
                    gen += 1
                    if not _reaches_goal(state, params, p, stamp, gen, stack):
                        state[Q_OCC + state[Q_PAWNS + p]] = 0
                        state[Q_PAWNS + p] = -1
                        state[Q_LEFT + seat] += state[Q_LEFT + p]
                        state[Q_LEFT + p] = 0
                        E.eliminate(state, p)
    nxt = E.next_alive_seat(state, seat)
    E.end_turn(state, params, nxt)
    # HQ-13: a seat without a legal action passes (a turn of its own)
    alive = 0
    for p in range(num):
        alive += E.is_alive(state, p)
    checked = 0
    while state[E.H_STATUS] == E.PLAYING and not _has_legal(state, params, nxt):
        checked += 1
        if checked >= alive:  # ruling: nobody can act; the game is drawn
            E.draw(state, REASON_STUCK)
            break
        nxt = E.next_alive_seat(state, nxt)
        E.end_turn(state, params, nxt)


@njit(cache=True)
def observe(state, params, seat, obs):
    obs[:] = 0
    n = params[P_N]
    num = params[E.P_NUM_PLAYERS]
    k = _frame(params, seat)
    planes = 5 * num + 7
    grid = params[P_TGRID] + k * n
    goal = _goal_off(params, seat)
    blk = params[P_BLK]
    for i in range(n):
        g = params[grid + i] * planes
        obs[g] = 1
        o = state[Q_OCC + i]
        if o:
            obs[g + 1 + (o - 1 - seat) % num] = 1
        for d in range(6):
            obs[g + num + 1 + (d + k) % 6] = state[blk + i * 6 + d]
        obs[g + num + 7] = params[goal + i]
        for r in range(num):
            s = (seat + r) % num
            obs[g + num + 8 + r] = state[Q_LEFT + s]
            obs[g + 2 * num + 8 + r] = (state[E.H_ALIVE] >> s) & 1
            if r > 0:
                obs[g + 3 * num + 7 + r] = params[_goal_off(params, s) + i]
            obs[g + 4 * num + 7 + r] = (params[P_TEAM + seat] >> s) & 1


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (HQ-7: the first pawn on its goal
    side wins): the shortest distance to the goal (fences count, pawns do
    not) of the nearest opponent in the game minus that of the nearest
    pawn of the mover's team (the mover's own in games without teams)."""
    n = params[P_N]
    dist = np.empty(n + 1, np.int64)
    queue = np.empty(n + 1, np.int64)
    own = FAR
    other = FAR
    team = params[P_TEAM + seat]
    for s in range(params[E.P_NUM_PLAYERS]):
        if (state[E.H_ALIVE] >> s) & 1 == 0 or state[Q_PAWNS + s] < 0:
            continue
        _goal_distances(state, params, s, dist, queue)
        d = dist[state[Q_PAWNS + s]]
        if (team >> s) & 1:
            own = min(own, d)
        else:
            other = min(other, d)
    return float(other - own)

_CELL = r"([a-zA-Z]\d{1,2})"
_FENCE_RE = re.compile(rf"^{_CELL}{_CELL}/{_CELL}{_CELL}$")
_CELL_RE = re.compile(rf"^{_CELL}$")


class HexQuoridorGame(Game):
    """Hex Quoridor with its options fixed (see the module docstring for the card)."""

    env_id = "hex_quoridor_v0"
    title = "Hex Quoridor"
    rules_file = "hex_quoridor.md"
    kernels = KERNELS
    layout = LAYOUT
    option_specs = (
        num_players_option(2, (2, 3, 4, 6)),  # HQ-4
        Option("teams", "none", "team play (HQ-15): 'none', '2v2' (4 players), '3x2' or '2x3' (6 players)",
               kind="choice", choices=tuple(TEAMS)),  # fmt: skip
        Option("radius", 4, "board radius (HQ-1), even: 61 cells at 4", choices=tuple(range(2, MAX_RADIUS + 1, 2))),
        Option("fences_per_player", -1, "fences each player starts with; -1: 9/6/4/3 for 2/3/4/6 players (HQ-5)",
               low=-1, high=MAX_FENCES_PER_PLAYER),  # fmt: skip
        first_player_option("random"),  # C-2: chosen freely in the original
        max_turns_option(1000),  # HQ-16
    )
    reason_names = {REASON_GOAL: "goal", REASON_STUCK: "no_legal_move"}
    eliminations = True
    action_class_names = ("move", "fence")
    heuristic = staticmethod(heuristic)
    variants = (
        {"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 6},
        {"num_players": 4, "teams": "2v2"}, {"num_players": 6, "teams": "3x2"}, {"num_players": 6, "teams": "2x3"},
        {"radius": 2},
    )  # fmt: skip

    def configure(self, o):
        n, teams = o["num_players"], o["teams"]
        if TEAMS[teams] is not None and TEAMS[teams][0] != n:
            raise OptionError(f"{self.env_id}: option teams={teams!r} needs num_players={TEAMS[teams][0]}, got {n} (HQ-15)")
        team_ids = TEAMS[teams][1] if TEAMS[teams] else tuple(range(n))
        self.geo = geo = Geometry.of(o["radius"])
        self.board = geo.board
        self.num_cells, self.num_fences = geo.n, geo.F
        fpp = FENCES[n] if o["fences_per_player"] < 0 else o["fences_per_player"]
        self.fences_per_player = fpp
        self.sides = SIDES[n]
        sides = list(SIDES[n]) + [0] * (E.MAX_PLAYERS - n)
        masks = [sum(1 << t for t in range(n) if team_ids[t] == team_ids[s]) for s in range(n)] + [0] * (E.MAX_PLAYERS - n)
        blk = Q_OCC + geo.n + 1
        fen = blk + 6 * (geo.n + 1)
        self.blk_offset, self.fence_offset = blk, fen
        elim = 1 if n > 2 and TEAMS[teams] is None else 0
        head = [geo.n, geo.F, elim, blk, fen, fpp, *sides, *masks, *geo.offsets]
        assert len(head) == P_TABLES - E.P_GAME
        planes = 5 * n + 7
        high = [1] * (n + 8) + [n * fpp] * n + [1] * (3 * n - 1)  # fences left: counts up to every fence
        return dict(num_players=n, num_actions=geo.n + geo.F, obs_shape=(geo.board.side, geo.board.side, planes),
                    obs_high_per_plane=high, params=np.concatenate([head, geo.tables]),
                    sizes={"cells1": geo.n + 1, "slots": 6 * (geo.n + 1), "fences": geo.F}, teams=team_ids)  # fmt: skip

    # -- reading a state -------------------------------------------------------
    def pawns(self, state) -> list:
        """Cell of each seat's pawn (-1 once eliminated)."""
        return [int(c) for c in state[Q_PAWNS : Q_PAWNS + self.num_players]]

    def fences_left(self, state) -> list:
        return [int(c) for c in state[Q_LEFT : Q_LEFT + self.num_players]]

    def placed_fences(self, state) -> list:
        """Indices of the placed fences (absolute, ascending)."""
        return [int(f) for f in np.flatnonzero(state[self.fence_offset : self.fence_offset + self.num_fences])]

    def blocked(self, state) -> np.ndarray:
        """``(C, 6)`` 0/1: edge of cell ``i`` in direction ``d`` blocked (fence or rim)."""
        return state[self.blk_offset : self.blk_offset + 6 * self.num_cells].reshape(self.num_cells, 6)

    def frame(self, seat: int) -> int:
        """The frame (sixths of a turn) of ``seat``: its start side."""
        return self.sides[seat]

    def fence_name(self, f: int) -> str:
        name = self.board.name
        (a, b), (c, d) = fence_pairs(self.geo.fences[f])
        return f"{name(a)}{name(b)}/{name(c)}{name(d)}"

    def _mover(self, state) -> int:
        return max(int(state[E.H_CURRENT]), 0)

    # -- notation ----------------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        k = self.frame(self._mover(state))
        if action < self.num_cells:
            return self.board.name(int(self.geo.cmap[k, action]))
        return self.fence_name(int(self.geo.fmap[k, action - self.num_cells]))

    def parse_fence(self, text: str) -> int:
        """The absolute index of a fence in notation (NotationError if none)."""
        m = _FENCE_RE.match(text.strip())
        if not m:
            raise NotationError(f"{self.env_id}: malformed fence {text!r}; expected two facing pairs like 'd3d4/e4e5'")
        c = [self.board.cell(g) for g in m.groups()]
        pairs = tuple(sorted((tuple(sorted(c[:2])), tuple(sorted(c[2:])))))
        f = self.geo.fence_by_pairs.get(pairs)
        if f is None:
            raise NotationError(
                f"{self.env_id}: {text!r} is no fence: a fence separates two adjacent pairs of a rhombus of four "
                "cells on the board (HQ-6/7)"
            )
        return f

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(f"{self.env_id}: a move is a str like 'e5' (pawn) or 'd3d4/e4e5' (fence), got {move!r}")
        text = move.strip()
        k = self.frame(self._mover(state))
        if _CELL_RE.match(text):
            return int(self.geo.cinv[k, self.board.cell(text)])
        if "/" in text:
            return self.num_cells + int(self.geo.finv[k, self.parse_fence(text)])
        raise NotationError(f"{self.env_id}: malformed move {move!r}; expected a cell like 'e5' or a fence like 'd3d4/e4e5'")

    def action_classes(self, state) -> np.ndarray:
        classes = np.full(self.num_actions, FENCE, np.int64)
        classes[: self.num_cells] = MOVE
        return classes

    # -- text form -----------------------------------------------------------------
    def body_to_text(self, state) -> list[str]:
        name = self.board.name
        pawns = " ".join("x" if c < 0 else name(c) for c in self.pawns(state))
        fences = " ".join(self.fence_name(f) for f in self.placed_fences(state)) or "-"
        return [f"pawns: {pawns}", "fences_left: " + " ".join(map(str, self.fences_left(state))), f"fences: {fences}"]

    def body_from_text(self, lines: list[str], state) -> None:
        env, n, C = self.env_id, self.num_players, self.num_cells
        keys = ("pawns", "fences_left", "fences")
        fields = {}
        for line in lines:
            key, sep, value = line.partition(":")
            if not sep or key.strip() not in keys or key.strip() in fields:
                raise NotationError(f"{env}: unexpected line {line!r}; the body is the lines {', '.join(keys)}")
            fields[key.strip()] = value.split()
        if len(fields) != len(keys):
            raise NotationError(f"{env}: the body needs the lines {', '.join(k + ':' for k in keys)}")
        head = state[: E.HEADER].copy()  # init lays out the empty board; the header stays
        self.kernels.init(state, self.params, 0)
        state[: E.HEADER] = head
        for s in range(E.MAX_PLAYERS):
            state[Q_PAWNS + s] = -1
            state[Q_LEFT + s] = 0
        state[Q_OCC : Q_OCC + C] = 0
        pawns, left, fences = fields["pawns"], fields["fences_left"], fields["fences"]
        if len(pawns) != n or len(left) != n:
            raise NotationError(f"{env}: pawns and fences_left need {n} values each (one per seat)")
        for s, tok in enumerate(pawns):
            alive = (int(state[E.H_ALIVE]) >> s) & 1
            if tok == "x":
                if alive:
                    raise NotationError(f"{env}: player_{s} is in the game (alive 1) but its pawn is 'x'")
                continue
            if not _CELL_RE.match(tok):
                raise NotationError(f"{env}: pawn of player_{s} must be a cell like 'e5' (or 'x' once out), got {tok!r}")
            c = self.board.cell(tok)
            if not alive:
                raise NotationError(f"{env}: player_{s} is out of the game (alive 0), so its pawn is 'x', not {tok!r} (HQ-9)")
            if state[Q_OCC + c]:
                raise NotationError(f"{env}: two pawns on {tok}")
            state[Q_PAWNS + s] = c
            state[Q_OCC + c] = s + 1
        for s, tok in enumerate(left):
            if not re.fullmatch(r"[0-9]{1,3}", tok):
                raise NotationError(f"{env}: fences_left of player_{s} must be a count, got {tok!r}")
            state[Q_LEFT + s] = int(tok)
        placed = [] if fences == ["-"] else fences
        blk, fen = self.blk_offset, self.fence_offset
        used = {}
        for tok in placed:
            f = self.parse_fence(tok)
            if state[fen + f]:
                raise NotationError(f"{env}: fence {tok} is listed twice")
            for j in range(6):
                slot = int(self.geo.fence_slots[f, j])
                if slot in used:
                    raise NotationError(f"{env}: fences {used[slot]} and {tok} share an edge (HQ-7)")
                used[slot] = tok
            state[fen + f] = 1
            for j in range(6):
                state[blk + self.geo.fence_slots[f, j]] = 1
        total, fpp = n * self.fences_per_player, self.fences_per_player
        have = len(placed) + sum(self.fences_left(state))
        if have != total:
            raise NotationError(
                f"{env}: {len(placed)} fences placed and {sum(self.fences_left(state))} left make {have}; the game has "
                f"{total} ({fpp} per player, HQ-5)"
            )
        if not self.params[P_ELIM] and any(c > fpp for c in self.fences_left(state)):
            raise NotationError(f"{env}: a player has more than its {fpp} fences; only eliminations hand fences over (HQ-9)")
        if not self.params[P_ELIM] and int(state[E.H_ALIVE]) != (1 << n) - 1:
            raise NotationError(f"{env}: alive must be all 1: nobody is eliminated with 2 players or in team play (HQ-8, HQ-15)")
        for s in range(n):
            if state[Q_PAWNS + s] < 0 and state[Q_LEFT + s]:
                raise NotationError(f"{env}: player_{s} is out, so its fences went to the placer (HQ-9); its fences_left is 0")

    def check_state(self, state) -> None:
        env, n = self.env_id, self.num_players
        status, mover = int(state[E.H_STATUS]), int(state[E.H_CURRENT])
        if mover == E.CHANCE:
            raise NotationError(f"{env}: there are no chance nodes; to_move must be a player")
        placed = len(self.placed_fences(state))
        if placed > int(state[E.H_TURN]):
            raise NotationError(f"{env}: {placed} fences placed in {int(state[E.H_TURN])} turns (one per turn)")
        on_goal = [s for s in range(n) if state[Q_PAWNS + s] >= 0 and self.geo.on_side[(self.sides[s] + 3) % 6, state[Q_PAWNS + s]]]
        stamp, stack = np.zeros(self.num_cells + 1, np.int64), np.zeros(self.num_cells + 1, np.int64)
        for s in range(n):
            if state[Q_PAWNS + s] >= 0 and not _reaches_goal(state, self.params, s, stamp, s + 1, stack):
                raise NotationError(f"{env}: player_{s}'s pawn has no path to its goal side (HQ-8/HQ-9)")
        if status == E.PLAYING:
            if not E.is_alive(state, mover):
                raise NotationError(f"{env}: to_move player_{mover} is out of the game")
            if on_goal:
                raise NotationError(f"{env}: player_{on_goal[0]} stands on its goal side, so the game is over (HQ-14)")
        elif status == E.TERMINATED and state[E.H_REASON] == REASON_GOAL:
            rets = [int(state[E.H_RET + s]) for s in range(n)]
            if len(on_goal) != 1:
                raise NotationError(f"{env}: reason goal needs exactly one pawn on its goal side (HQ-14)")
            w = on_goal[0]
            want = [1 if self.team_of(s) == self.team_of(w) and E.is_alive(state, s) else -1 for s in range(n)]
            if rets != want:
                raise NotationError(f"{env}: player_{w} reached its goal, so the returns are {' '.join(map(str, want))} (HQ-14/15)")
        elif status == E.TERMINATED and state[E.H_REASON] == REASON_STUCK:
            if any(_has_legal(state, self.params, s) for s in range(n) if E.is_alive(state, s)):
                raise NotationError(f"{env}: reason no_legal_move, but a player in the game has a legal move (HQ-13)")

    # -- pictures ----------------------------------------------------------------------
    def board_lines(self, state) -> list[str]:
        """The board as text: pawns as seat digits, '|' a fence between
        neighbours in a row, '-' under a cell a fence on its SW / SE edge."""
        board = self.board
        R = board.radius
        blocked = self.blocked(state)
        rim = self.geo.rim[: self.num_cells]
        occ = state[Q_OCC : Q_OCC + self.num_cells]
        width = 4 * (2 * R + 1) + 2
        lines = []
        for row, members in enumerate(board.rows()):
            line = [" "] * width
            under = [" "] * width
            for i in members:
                q, r = board.coords[i]
                x = 2 * (2 * q + r) + 4 * R + 2
                line[x] = "." if occ[i] == 0 else str(int(occ[i]) - 1)
                if blocked[i, 0] and not rim[i, 0]:
                    line[x + 2] = "|"
                if blocked[i, 4] and not rim[i, 4]:
                    under[x - 1] = "-"
                if blocked[i, 5] and not rim[i, 5]:
                    under[x + 1] = "-"
            lines.append(f"{chr(ord('a') + row)} " + "".join(line).rstrip())
            if row < 2 * R:
                lines.append("  " + "".join(under).rstrip())
        return lines

    def turn_notes(self, state) -> list[str]:
        """The fences each seat has left (HQ-5, inherited ones included)."""
        return ["fences left " + " ".join(f"player_{s}:{c}" for s, c in enumerate(self.fences_left(state)))]

    def render_ansi(self, state) -> str:
        return "\n".join(self.board_lines(state))

    def render_rgb(self, state) -> np.ndarray:
        """The board (goal sides, fences, pawns) under a strip of the fences
        each seat has left."""
        image, _, _ = self.board_picture(state)
        return np.asarray(image, dtype=np.uint8).copy()

    def board_picture(self, state):
        """``(image, pic, top)``: the picture (Pillow), and the
        :class:`~boardenvs.render.HexPicture` of the board pasted ``top``
        pixels down in it, under the strip of fences left.  Each live seat's
        goal side (HQ-2, HQ-14) is a band in its colour outside the rim; the
        fences are thick zig-zag lines along the cell sides."""
        from ..render import PALETTE, HexPicture, _pil, font, seat_colour

        Image, ImageDraw = _pil()
        n = self.num_players
        pic = HexPicture(self.board, label_gap=1.55)  # the row labels clear of the goal bands
        pawns = self.pawns(state)
        for s in range(n):
            if pawns[s] >= 0:
                pic.side_band((self.sides[s] + 3) % 6, seat_colour(s))
        for f in self.placed_fences(state):
            for u, v in fence_edges(self.geo.fences[f]):
                pic.edge(u, self.board.direction(u, v), "edge", width=5)
        for s, c in enumerate(pawns):
            if c >= 0:
                pic.piece(c, s)
        # the strip: "fences left" and, per seat, a disc in its colour and its count ("out" once out)
        f = font(13)
        width, height = pic.image.size
        measure = ImageDraw.Draw(pic.image)
        label = "fences left:"
        entry = 16 + max(measure.textlength(t, font=f) for t in ("out", str(n * max(self.fences_per_player, 1)))) + 12
        x0 = 8 + measure.textlength(label, font=f) + 10
        per_row = max(1, int((width - x0 - 4) // entry))
        top = STRIP_LINE * -(-n // per_row) + 6
        image = Image.new("RGB", (width, height + top), PALETTE["board"])
        image.paste(pic.image, (0, top))
        draw = ImageDraw.Draw(image)
        draw.text((8, 4 + STRIP_LINE // 2), label, fill=PALETTE["label"], font=f, anchor="lm")
        for s, left in enumerate(self.fences_left(state)):
            row, col = divmod(s, per_row)
            x, y = x0 + col * entry, 4 + row * STRIP_LINE + STRIP_LINE // 2
            draw.ellipse((x, y - 6, x + 12, y + 6), fill=seat_colour(s), outline=PALETTE["edge"])
            out = pawns[s] < 0
            draw.text((x + 16, y), "out" if out else str(left), fill=PALETTE["grid"] if out else PALETTE["label"], font=f, anchor="lm")
        return image, pic, top


STRIP_LINE = 20  # pixels per line of the fences-left strip above the board
