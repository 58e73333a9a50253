"""Hex Quoridor's geometry in plain Python, built once per radius: the fences
(HQ-6/7), the sides (HQ-2), the frames (the board turned to each side) and
the flat tables the kernels in ``rules.py`` read from ``params``."""

from __future__ import annotations

import numpy as np

from ...hexboard import DIRECTIONS, hex_board
from .layout import MAX_BIT_CELLS, P_TABLES


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
        self._bit_tables()
        tables = [
            self.nb,
            self.on_side,
            self.fence_slots,
            self.cmap,
            self.cinv,
            self.fmap,
            self.grid,
            self.order,
            self.rim,
            self.start,
            self.cell_bit,
            self.shift,
            self.open0,
            self.fence_blk,
            self.fence_cells,
            self.side_bits,
            self.fence_verts,
            self.vert_fences,
            self.rim_twice,
            self.fence_conflicts,
        ]
        self.offsets = []
        flat = []
        at = P_TABLES
        for t in tables:
            self.offsets.append(at)
            flat.append(t.ravel())
            at += t.size
        self.tables = np.concatenate(flat)

    def _bit_tables(self):
        """The tables of the bit-parallel fence check (``rules._fences_bits``),
        for boards of at most ``MAX_BIT_CELLS`` cells (empty otherwise).

        Cell sets are one 64-bit word: cell ``(q, r)`` is bit
        ``(q + (3R + 2) r) mod C``, a one-to-one map (the hex-hex board tiles
        the plane), under which a step in direction ``d`` turns every bit by
        the same ``shift[d]`` (a rotation within ``C`` bits).  Fence sets are
        ``words`` 64-bit words per frame, bit ``fr`` for frame fence ``fr``.
        The wall graph's vertices are the cell corners; every corner on the
        rim is vertex 0 (the outside), the inner ones ``1..V-1``."""
        board, n, F = self.board, self.n, self.F
        self.words = (F + 63) // 64
        if n > MAX_BIT_CELLS:
            self.num_verts = 0
            for name in (
                "cell_bit",
                "shift",
                "open0",
                "fence_blk",
                "fence_cells",
                "side_bits",
                "fence_verts",
                "vert_fences",
                "rim_twice",
                "fence_conflicts",
            ):
                setattr(self, name, np.zeros(0, np.int64))
            return
        R, W = board.radius, self.words
        bit = [(q + (3 * R + 2) * r) % n for q, r in board.coords]
        assert sorted(bit) == list(range(n))
        self.cell_bit = np.array([1 << b for b in bit], np.uint64).view(np.int64)
        self.shift = np.zeros(6, np.int64)
        self.open0 = np.zeros(6, np.uint64)
        for d in range(6):
            shifts = {(bit[int(self.nb[c, d])] - bit[c]) % n for c in range(n) if self.nb[c, d] < n}
            assert len(shifts) == 1
            self.shift[d] = shifts.pop()
            for c in range(n):
                if self.nb[c, d] < n:
                    self.open0[d] |= np.uint64(1 << bit[c])
        self.open0 = self.open0.view(np.int64)
        blk = np.zeros((F, 6), np.uint64)
        cells = np.zeros((F, 4), np.uint64)
        for f, (x, y, m1, m2, _o) in enumerate(self.fences):
            for slot in self.fence_slots[f]:
                blk[f, slot % 6] |= np.uint64(1 << bit[slot // 6])
            cells[f] = [1 << bit[c] for c in (x, y, m1, m2)]
        self.fence_blk, self.fence_cells = blk.view(np.int64), cells.view(np.int64)
        sides = np.zeros(6, np.uint64)
        for k in range(6):
            for c in np.flatnonzero(self.on_side[k, :n]):
                sides[k] |= np.uint64(1 << bit[c])
        self.side_bits = sides.view(np.int64)
        # the wall graph: corner (c, d) lies between directions d and d + 1 of cell c
        ids = {}

        def corner(c, d):
            q, r = board.coords[c]
            return frozenset((q + dq, r + dr) for dq, dr in ((0, 0), DIRECTIONS[d], DIRECTIONS[(d + 1) % 6]))

        verts = np.zeros((F, 4), np.int64)
        rim_count = np.zeros(F, np.int64)
        for f in range(F):
            keys = set()
            for slot in self.fence_slots[f][::2]:
                c, d = divmod(int(slot), 6)
                keys |= {corner(c, (d - 1) % 6), corner(c, d)}
            assert len(keys) == 4  # a zig-zag of three edges has four corners
            inner = sorted(
                ids.setdefault(key, len(ids) + 1) for key in keys if all(board.index_of(*x) >= 0 for x in key)
            )
            rim_count[f] = 4 - len(inner)
            verts[f] = inner + [0] * (4 - len(inner))
        V = self.num_verts = len(ids) + 1
        self.fence_verts = verts
        incid = np.zeros((6, V, W), np.uint64)
        twice = np.zeros((6, W), np.uint64)
        conf = np.zeros((6, F, W), np.uint64)
        by_slot = {}
        for f in range(F):
            for s in self.fence_slots[f]:
                by_slot.setdefault(int(s), set()).add(f)
        for k in range(6):
            for f in range(F):
                w, b = divmod(int(self.finv[k, f]), 64)
                one = np.uint64(1 << b)
                for v in set(verts[f].tolist()) if rim_count[f] else verts[f]:
                    incid[k, v, w] |= one
                if rim_count[f] >= 2:
                    twice[k, w] |= one
                for g in set().union(*(by_slot[int(s)] for s in self.fence_slots[f])):
                    conf[k, g, w] |= one
        self.vert_fences = incid.view(np.int64)
        self.rim_twice = twice.view(np.int64)
        self.fence_conflicts = conf.view(np.int64)
