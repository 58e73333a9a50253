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
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import engine as E

SENTINEL = 7  # occupant code of the off-board sentinel cell
FAR = 1 << 30  # distance of a cell with no path to the goal

# --- the state row after the generic header -----------------------------------
LAYOUT = E.HEADER_LAYOUT.extend("hex_quoridor_v0")
Q_PAWNS = LAYOUT.add("pawns", E.MAX_PLAYERS, "cell of each seat's pawn, -1 once eliminated (or no such seat)")
Q_LEFT = LAYOUT.add("fences_left", E.MAX_PLAYERS, "unplayed fences per seat")
Q_OCC = LAYOUT.add("occupant", "cells1", "seat + 1 on each cell (0 empty), then the sentinel cell (SENTINEL)")
# the three fields below start at run-time offsets (params P_BLK / P_FEN / P_FBITS)
LAYOUT.add("blocked", "slots", "per cell (sentinel included) and direction: 1 if a fence or the rim blocks it")
LAYOUT.add("fences", "fences", "1 for each placed fence")
LAYOUT.add("fence_bits", "fence_words", "the placed fences again, bit f % 64 of word f // 64 (read in one go)")

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
# the bit-parallel fence check's tables (boards of at most MAX_BIT_CELLS cells;
# geometry.Geometry._bit_tables): cell sets are one word, fence sets P_WORDS words
P_TCBIT = E.P_GAME + 28  # C: the bit of each cell
P_TSHIFT = E.P_GAME + 29  # 6: the turn of a cell set one step in direction d
P_TOPEN = E.P_GAME + 30  # 6: cells with a neighbour in direction d (the empty board's open edges)
P_TFBLK = E.P_GAME + 31  # F x 6: per direction d, the cells whose edge d fence f blocks
P_TFCELL = E.P_GAME + 32  # F x 4: the cells x, y, m1, m2 of fence f (one bit each)
P_TSIDEB = E.P_GAME + 33  # 6: the cells of side k
P_TFVERT = E.P_GAME + 34  # F x 4: the corners of fence f in the wall graph (0: the rim, any corner on it)
P_TVINC = E.P_GAME + 35  # 6 x V x words: frame fences with a corner on vertex v (v = 0: any on the rim)
P_TRIM2 = E.P_GAME + 36  # 6 x words: frame fences with two or more corners on the rim
P_TCONF = E.P_GAME + 37  # 6 x F x words: frame fences sharing an edge with fence f (HQ-7), f included
P_WORDS = E.P_GAME + 38  # words of a fence set
P_VERTS = E.P_GAME + 39  # V: vertices of the wall graph
P_TOBS = E.P_GAME + 40  # per seat: the observation's fixed planes (int8, packed 8 to a slot)
P_OBSW = E.P_GAME + 41  # slots of one seat's P_TOBS: the packed planes, then F x 6 places of edge slots
P_FBITS = E.P_GAME + 42  # offset of the fence_bits field
P_TABLES = E.P_GAME + 43
MAX_BIT_CELLS = 63  # boards up to radius 4 (61 cells) take the bit-parallel fence check

REASON_GOAL = E.REASON_GAME
REASON_STUCK = E.REASON_GAME + 1  # ruling: nobody in the game has a legal move


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


@njit(cache=True, inline="always")
def _grow(a, o0, o1, o2, o3, o4, o5, s0, s1, s2, s3, s4, s5, m, full):
    """The cell set ``a`` and every cell one open edge away (``o_d``: the
    cells whose edge ``d`` is open; a step in direction ``d`` turns the bits
    by ``s_d`` within the ``m`` bits of the board)."""
    b = a & o0
    r = (b << s0) | (b >> (m - s0))
    b = a & o1
    r |= (b << s1) | (b >> (m - s1))
    b = a & o2
    r |= (b << s2) | (b >> (m - s2))
    b = a & o3
    r |= (b << s3) | (b >> (m - s3))
    b = a & o4
    r |= (b << s4) | (b >> (m - s4))
    b = a & o5
    r |= (b << s5) | (b >> (m - s5))
    return a | (r & full)


@njit(cache=True)
def _fences_bits(state, params, seat, mask, write):
    """:func:`_fences` on boards of at most ``MAX_BIT_CELLS`` cells, bit-parallel.

    The fences are cut along cell sides, the edges of the wall graph whose
    vertices are the cell corners, with every corner on the rim one vertex
    (the outside).  Placing a fence cuts a region of cells in two (or more)
    only if it closes a loop of walls: two of its four corners are already
    joined by walls (HQ-8 holds before it, so it cuts no pawn off
    otherwise).  So the free fences (HQ-7) are those no placed fence
    conflicts with (``P_TCONF``), the fences that may close a loop those
    with two corners in one wall component (``P_TVINC``, ``P_TRIM2``), and
    only these are tried: the cells on the four sides of the fence are
    flooded at once, one step each in turn, until all but one flood have
    stopped (cell sets are one word, a flood step six shifts); a pawn's part
    is the flood that holds it, or the rest of its region, and the fence
    cuts it off if that part has no cell of its goal side.
    ``tests/test_hex_quoridor_rules.py`` checks the result against the
    brute-force search of every pawn after every fence."""
    n = params[P_N]
    F = params[P_F]
    W = params[P_WORDS]
    V = params[P_VERTS]
    num = params[E.P_NUM_PLAYERS]
    k = params[P_SIDE + seat]
    fblk = params[P_TFBLK]
    fvert = params[P_TFVERT]
    m = np.uint64(n)
    full = (np.uint64(1) << m) - np.uint64(1)
    sh = params[P_TSHIFT]
    s0, s1, s2 = np.uint64(params[sh]), np.uint64(params[sh + 1]), np.uint64(params[sh + 2])
    s3, s4, s5 = np.uint64(params[sh + 3]), np.uint64(params[sh + 4]), np.uint64(params[sh + 5])
    op = params[P_TOPEN]
    o0, o1, o2 = np.uint64(params[op]), np.uint64(params[op + 1]), np.uint64(params[op + 2])
    o3, o4, o5 = np.uint64(params[op + 3]), np.uint64(params[op + 4]), np.uint64(params[op + 5])
    fbits = params[P_FBITS]
    P = 0  # placed fences
    for w in range(W):
        x = np.uint64(state[fbits + w])
        while x:
            x &= x - np.uint64(1)
            P += 1
    # scratch: placed fences (later the live seats), vertex marks / parents /
    # list, per wall component the fences with one / two corners in it,
    # fence sets, cached regions, pawns
    PS = max(P, num)
    scratch = np.empty(PS + 3 * V + 2 * W * (P + 1) + 3 * W + n + 2 * num, np.int64)
    placed = scratch[:PS]
    mark = scratch[PS : PS + V]
    parent = scratch[PS + V : PS + 2 * V]
    vlist = scratch[PS + 2 * V : PS + 3 * V]
    at = PS + 3 * V
    comp = scratch[at : at + 2 * W * (P + 1)]
    at += 2 * W * (P + 1)
    taken = scratch[at : at + W]
    dang = scratch[at + W : at + 2 * W]
    legal = scratch[at + 2 * W : at + 3 * W]
    at += 3 * W
    regions = scratch[at : at + n]
    at += n
    pawnb = scratch[at : at + num]
    goalb = scratch[at + num : at + 2 * num]
    # placed fences: their edges closed, HQ-7's taken fences
    conf = params[P_TCONF] + k * F * W
    for w in range(W):
        taken[w] = 0
    nplaced = 0
    for w in range(W):
        x = np.uint64(state[fbits + w])
        while x:
            f = 64 * w + np.int64(trailing_zeros(x))
            x &= x - np.uint64(1)
            placed[nplaced] = f
            nplaced += 1
            b = fblk + 6 * f
            o0 &= ~np.uint64(params[b])
            o1 &= ~np.uint64(params[b + 1])
            o2 &= ~np.uint64(params[b + 2])
            o3 &= ~np.uint64(params[b + 3])
            o4 &= ~np.uint64(params[b + 4])
            o5 &= ~np.uint64(params[b + 5])
            c = conf + f * W
            for v in range(W):
                taken[v] |= params[c + v]
    # the wall graph's components (union-find), and per component the fences
    # with two corners in it
    mark[:] = 0
    mark[0] = 1
    parent[0] = 0
    vlist[0] = 0
    nv = 1
    for i in range(nplaced):
        fv = fvert + 4 * placed[i]
        for j in range(4):
            v = params[fv + j]
            if mark[v] == 0:
                mark[v] = 1
                parent[v] = v
                vlist[nv] = v
                nv += 1
        ra = params[fv]
        while parent[ra] != ra:
            parent[ra] = parent[parent[ra]]
            ra = parent[ra]
        for j in range(1, 4):
            rb = params[fv + j]
            while parent[rb] != rb:
                parent[rb] = parent[parent[rb]]
                rb = parent[rb]
            if rb != ra:
                parent[rb] = ra
    vinc = params[P_TVINC] + k * V * W
    ncomp = 0
    for i in range(nv):
        v = vlist[i]
        r = v
        while parent[r] != r:
            r = parent[r]
        if mark[r] == 1:
            mark[r] = 2 + ncomp
            for w in range(2 * W):
                comp[2 * W * ncomp + w] = 0
            ncomp += 1
        ci = 2 * W * (mark[r] - 2)
        inc = vinc + v * W
        for w in range(W):
            x = params[inc + w]
            comp[ci + W + w] |= comp[ci + w] & x
            comp[ci + w] |= x
    r = 0
    while parent[r] != r:
        r = parent[r]
    ci = 2 * W * (mark[r] - 2)
    rim2 = params[P_TRIM2] + k * W
    for w in range(W):
        comp[ci + W + w] |= params[rim2 + w]
    F64 = F - 64 * (W - 1)
    last = -1 if F64 == 64 else (1 << F64) - 1
    any_sure = False
    for w in range(W):
        x = 0
        for j in range(ncomp):
            x |= comp[2 * W * j + W + w]
        lg = ~taken[w]
        if w == W - 1:
            lg &= last
        legal[w] = lg
        dang[w] = lg & x
        if lg & ~x:
            any_sure = True
    if not write and any_sure:
        return 1
    # the fences that may close a loop: try them
    alive = 0
    for p in range(num):
        if E.is_alive(state, p):
            pawnb[alive] = params[params[P_TCBIT] + state[Q_PAWNS + p]]
            goalb[alive] = params[params[P_TSIDEB] + (params[P_SIDE + p] + 3) % 6]
            placed[alive] = p  # the seats, in the place of the fences (no longer needed)
            alive += 1
    elim = params[P_ELIM] == 1 and alive > 2  # HQ-9 (with two left, HQ-8 for both)
    nreg = 0
    fmap = params[P_TFMAP] + k * F
    fcell = params[P_TFCELL]
    for w in range(W):
        x = np.uint64(dang[w])
        while x:
            t = np.int64(trailing_zeros(x))
            x &= x - np.uint64(1)
            f = params[fmap + 64 * w + t]
            b = fblk + 6 * f
            p0 = o0 & ~np.uint64(params[b])
            p1 = o1 & ~np.uint64(params[b + 1])
            p2 = o2 & ~np.uint64(params[b + 2])
            p3 = o3 & ~np.uint64(params[b + 3])
            p4 = o4 & ~np.uint64(params[b + 4])
            p5 = o5 & ~np.uint64(params[b + 5])
            fc = fcell + 4 * f
            a0, a1 = np.uint64(params[fc]), np.uint64(params[fc + 1])
            a2, a3 = np.uint64(params[fc + 2]), np.uint64(params[fc + 3])
            # the region of the fence's cells before it (cached)
            reg = np.uint64(0)
            for j in range(nreg):
                if np.uint64(regions[j]) & a0:
                    reg = np.uint64(regions[j])
                    break
            if reg == 0:
                reg = a0
                while True:
                    nxt = _grow(reg, o0, o1, o2, o3, o4, o5, s0, s1, s2, s3, s4, s5, m, full)
                    if nxt == reg:
                        break
                    reg = nxt
                regions[nreg] = np.int64(reg)
                nreg += 1
            # race four floods; live: 1 growing, 2 stopped (a whole part), 0 merged away
            l0 = l1 = l2 = l3 = 1
            while True:
                if l0 == 1:
                    nxt = _grow(a0, p0, p1, p2, p3, p4, p5, s0, s1, s2, s3, s4, s5, m, full)
                    if nxt == a0:
                        l0 = 2
                    a0 = nxt
                if l1 == 1:
                    nxt = _grow(a1, p0, p1, p2, p3, p4, p5, s0, s1, s2, s3, s4, s5, m, full)
                    if nxt == a1:
                        l1 = 2
                    a1 = nxt
                if l2 == 1:
                    nxt = _grow(a2, p0, p1, p2, p3, p4, p5, s0, s1, s2, s3, s4, s5, m, full)
                    if nxt == a2:
                        l2 = 2
                    a2 = nxt
                if l3 == 1:
                    nxt = _grow(a3, p0, p1, p2, p3, p4, p5, s0, s1, s2, s3, s4, s5, m, full)
                    if nxt == a3:
                        l3 = 2
                    a3 = nxt
                # floods that meet are one part (a stopped one holds all of it)
                if l1 and l0 and a0 & a1:
                    a0 |= a1
                    l0 = max(l0, l1)
                    l1 = 0
                if l2 and l0 and a0 & a2:
                    a0 |= a2
                    l0 = max(l0, l2)
                    l2 = 0
                if l3 and l0 and a0 & a3:
                    a0 |= a3
                    l0 = max(l0, l3)
                    l3 = 0
                if l2 and l1 and a1 & a2:
                    a1 |= a2
                    l1 = max(l1, l2)
                    l2 = 0
                if l3 and l1 and a1 & a3:
                    a1 |= a3
                    l1 = max(l1, l3)
                    l3 = 0
                if l3 and l2 and a2 & a3:
                    a2 |= a3
                    l2 = max(l2, l3)
                    l3 = 0
                if (l0 == 1) + (l1 == 1) + (l2 == 1) + (l3 == 1) <= 1:
                    break
            done = np.uint64(0)
            if l0 == 2:
                done |= a0
            if l1 == 2:
                done |= a1
            if l2 == 2:
                done |= a2
            if l3 == 2:
                done |= a3
            rest = reg & ~done  # the part of the flood still growing, if any
            ok = True
            cut = 0
            for i in range(alive):
                pb = np.uint64(pawnb[i])
                if (pb & reg) == 0:
                    continue  # another region: untouched
                part = rest
                if l0 == 2 and a0 & pb:
                    part = a0
                elif l1 == 2 and a1 & pb:
                    part = a1
                elif l2 == 2 and a2 & pb:
                    part = a2
                elif l3 == 2 and a3 & pb:
                    part = a3
                if (part & np.uint64(goalb[i])) == 0:
                    if elim and placed[i] != seat:
                        cut += 1
                    else:
                        ok = False  # HQ-8 / HQ-15, or the placer itself (HQ-9)
                        break
            if ok and cut > alive - 2:
                ok = False  # HQ-9: at least two players stay
            if ok:
                if not write:
                    return 1
            else:
                legal[w] &= ~(np.int64(1) << t)
    if not write:
        return 0
    count = 0
    for w in range(W):
        x = legal[w]
        base = n + 64 * w
        for j in range(min(64, F - 64 * w)):
            v = (x >> j) & 1
            mask[base + j] = v
            count += v
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
    none = np.zeros(0, np.int8)
    if _pawn_moves(state, params, seat, none, False):
        return True
    return state[Q_LEFT + seat] > 0 and _fence_moves(state, params, seat, none, False) > 0


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
        count += _fence_moves(state, params, seat, mask, True)
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
        state[params[P_FBITS] + (f >> 6)] |= np.int64(1) << (f & 63)
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
            e = at + 6 * (64 * w + np.int64(trailing_zeros(x)))
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
