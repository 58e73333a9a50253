"""Hex Quoridor's bit-parallel fence check (HQ-7/8/9/15) on boards of at most
``MAX_BIT_CELLS`` cells (radius 4 and less), apart from the other kernels
in ``rules.py`` for its size: a fence can only cut a pawn off when it closes
a loop of walls, so only the fences that close one are tried, each by a
flood fill over the board held in one 64-bit word (see ``_fences_bits``).
The tables it reads are built by ``geometry.Geometry._bit_tables``."""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E
from .layout import (
    P_ELIM,
    P_F,
    P_FBITS,
    P_N,
    P_SIDE,
    P_TCBIT,
    P_TCONF,
    P_TFBLK,
    P_TFCELL,
    P_TFMAP,
    P_TFVERT,
    P_TOPEN,
    P_TRIM2,
    P_TSHIFT,
    P_TSIDEB,
    P_TVINC,
    P_VERTS,
    P_WORDS,
    Q_PAWNS,
)


@njit(cache=True)
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
    scratch = E.scratch(state, PS + 3 * V + 2 * W * (P + 1) + 3 * W + n + 2 * num)
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
            f = 64 * w + np.int64(E.lowest_bit(x))
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
            t = np.int64(E.lowest_bit(x))
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
