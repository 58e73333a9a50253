"""Hex Quoridor's rules (``boardenvs/rules/hex_quoridor.md``, HQ-1..HQ-16) as
numba kernels: the state row, the params and every kernel.  The tables the
kernels read from ``params`` (one set per radius) are built in ``geometry.py``;
notation and the text form are in ``text.py``, the pictures in ``picture.py``.

Board indexing (:mod:`boardenvs.hexboard`, C-5): cells in reading order, named
by row letter from the top and place from the left.  Radius 2 (19 cells; the
default radius 4 has 61) with the sides ``k`` (HQ-2) and the directions ``d``::

                       side 3                       NW 2   NE 1
          side 2     0   1   2     side 4         W 3   cell   E 0
                   3   4   5   6                    SW 4   SE 5
                 7   8   9  10  11
          side 1  12  13  14  15   side 5         (d + 3) % 6 is the opposite
                    16  17  18
                       side 0

The state row keeps absolute cells (pawns, occupants, then the sentinel cell
``C`` for off the board; blocked edge slots ``6 c + d`` and placed fences at
the offsets ``P_BLK`` / ``P_FEN``, and as bits at ``P_FBITS``).  Actions and observations are in the
seat's frame ``k = params[P_SIDE + seat]``, its start side: the board turned
``k`` sixths counter-clockwise, that side at the bottom.  Action ``i < C``
moves the pawn to frame cell ``i``, board cell ``cmap[k, i]`` (``P_TCMAP``:
radius 2, frame 1's cells 16 17 18 are board cells 7 12 16); ``C + i``
places frame fence ``i`` (``P_TFMAP``; fences in ``fence_geometry`` order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E
from .fences import _fences_bits
from .layout import (  # noqa: F401 - the row's and params' names, read here and by text.py / picture.py
    FAR,
    LAYOUT,
    MAX_BIT_CELLS,
    P_BLK,
    P_ELIM,
    P_F,
    P_FBITS,
    P_FEN,
    P_FPP,
    P_N,
    P_OBSW,
    P_SIDE,
    P_TABLES,
    P_TCBIT,
    P_TCINV,
    P_TCMAP,
    P_TCONF,
    P_TEAM,
    P_TFBLK,
    P_TFCELL,
    P_TFE,
    P_TFMAP,
    P_TFVERT,
    P_TGRID,
    P_TNB,
    P_TOBS,
    P_TON,
    P_TOPEN,
    P_TORD,
    P_TRIM,
    P_TRIM2,
    P_TSHIFT,
    P_TSIDEB,
    P_TSTART,
    P_TVINC,
    P_VERTS,
    P_WORDS,
    Q_LEFT,
    Q_OCC,
    Q_PAWNS,
    REASON_GOAL,
    REASON_STUCK,
    SENTINEL,
)

# --- kernels -------------------------------------------------------------------


@njit(cache=True)
def _frame(params, seat):
    return params[P_SIDE + seat]


@njit(cache=True)
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


@njit(cache=True)
def _upper(params, slot, dist):
    """The end of the edge ``slot`` one step farther from the goal, or -1."""
    u = slot // 6
    v = params[params[P_TNB] + slot]
    if dist[v] == dist[u] - 1:
        return u
    if dist[u] == dist[v] - 1:
        return v
    return -1


@njit(cache=True)
def _escapes(state, params, e, dist, x, s0, s1, s2):
    """Has the stranded cell ``x`` an edge, open and not one of fence ``e``'s,
    to a cell at its own distance that is not stranded (``s0..s2``)?"""
    nb = params[P_TNB]
    blk = params[P_BLK]
    for d in range(6):
        slot = x * 6 + d
        if state[blk + slot]:
            continue
        if (
            slot == params[e]
            or slot == params[e + 1]
            or slot == params[e + 2]
            or slot == params[e + 3]
            or slot == params[e + 4]
            or slot == params[e + 5]
        ):
            continue
        w = params[nb + slot]
        if dist[w] == dist[x] and w != s0 and w != s1 and w != s2:
            return True
    return False


@njit(cache=True)
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
    """Legal fences of ``seat`` (HQ-6..9, HQ-15) on boards of more than
    ``MAX_BIT_CELLS`` cells (:func:`_fences_bits` on the others): with ``write`` mark them in
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
    scratch = E.scratch(state, (8 + 2 * num) * n1)
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
                if (touch >> p) & 1 and _keeps_descent(
                    state, params, e, dists[p * n1 : (p + 1) * n1], downs[p * n1 : (p + 1) * n1]
                ):
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
def _fence_moves(state, params, seat, mask, write):
    """The legal fences (:func:`_fences`), bit-parallel on boards up to radius 4."""
    if params[P_N] <= MAX_BIT_CELLS:
        return _fences_bits(state, params, seat, mask, write)
    return _fences(state, params, seat, mask, write)


@njit(cache=True)
def _has_legal(state, params, seat):
    """HQ-13: has ``seat`` any legal action?"""
    none = E.no_mask(state)  # (no allocation)
    # False, but not a literal: a literal False would compile a second copy of
    # the move generators beside legal's (numba specialises a call on literals)
    write = none.shape[0] > 0
    if _pawn_moves(state, params, seat, none, write):
        return True
    return state[Q_LEFT + seat] > 0 and _fence_moves(state, params, seat, none, write) > 0


@njit(cache=True)
def nobody_can_move(state, params):
    """HQ-13's ruling: no seat in the game has a legal action (a draw)."""
    for p in range(params[E.P_NUM_PLAYERS]):
        if E.is_alive(state, p) and _has_legal(state, params, p):
            return False
    return True


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
    write = mask.shape[0] > 0  # True, not a literal (see _has_legal)
    count = _pawn_moves(state, params, seat, mask, write)
    if state[Q_LEFT + seat] > 0:
        count += _fence_moves(state, params, seat, mask, write)
    else:
        mask[n:] = 0
    # HQ-13: a seat with no step, jump or fence is asked, and passes
    if write:
        mask[n + params[P_F]] = 1 if count == 0 else 0
    return count if count else 1


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    n = params[P_N]
    k = _frame(params, seat)
    num = params[E.P_NUM_PLAYERS]
    E.record_action(state, seat, action)
    if action == n + params[P_F]:  # HQ-13: the forced pass (its one legal action)
        pass
    elif action < n:  # HQ-11/12: the pawn goes to the cell
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
        state[params[P_FBITS] + (f >> 6)] |= np.int64(1) << (f & 63)
        state[Q_LEFT + seat] -= 1
        if params[P_ELIM] == 1:  # HQ-9: the pawns cut off leave; the placer inherits
            space = E.scratch(state, 2 * (n + 1))
            stamp, stack = space[: n + 1], space[n + 1 :]
            stamp[:] = 0
            stack[:] = 0
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
    # HQ-13: a seat without a step, jump or fence is asked all the same, with
    # one legal action, pass; when no seat in the game has a move, it is a draw
    if state[E.H_STATUS] == E.PLAYING and not _has_legal(state, params, nxt) and nobody_can_move(state, params):
        E.draw(state, REASON_STUCK)


@njit(cache=True)
def observe(state, params, seat, obs):
    """The planes of the start are copied from ``P_TOBS`` (built by the
    game's ``_fixed_planes``: the rim's blocked edges, the goals, the teams,
    everyone in), then the pawns, the edges the fences block (from the
    fence bits), the fences left and who is out are written over them: the
    few lines of the state row they need (a row of a big batch is seldom in
    the cache)."""
    n = params[P_N]
    num = params[E.P_NUM_PLAYERS]
    k = _frame(params, seat)
    planes = 5 * num + 7
    size = obs.shape[0]
    t = params[P_TOBS] + seat * params[P_OBSW]
    fixed = params[t : t + (size + 7) // 8].view(np.int8)
    for i in range(size):  # a loop: numba's slice copy is slower
        obs[i] = fixed[i]
    grid = params[P_TGRID] + k * n
    for r in range(num):  # the pawns (the occupants of their cells)
        c = state[Q_PAWNS + (seat + r) % num]
        if c >= 0:
            obs[params[grid + c] * planes + 1 + r] = 1
    # the edges the fences block (the rim's are in the copy; only fences block others)
    fbits = params[P_FBITS]
    at = t + (size + 7) // 8
    for w in range(params[P_WORDS]):
        x = np.uint64(state[fbits + w])
        while x:
            e = at + 6 * (64 * w + np.int64(E.lowest_bit(x)))
            x &= x - np.uint64(1)
            for j in range(6):
                obs[params[e + j]] = 1
    for r in range(num):
        s = (seat + r) % num
        left = state[Q_LEFT + s]
        if left:
            for i in range(n):
                obs[params[grid + i] * planes + num + 8 + r] = left
        if (state[E.H_ALIVE] >> s) & 1 == 0:  # the copy has everyone in
            for i in range(n):
                obs[params[grid + i] * planes + 2 * num + 8 + r] = 0


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
