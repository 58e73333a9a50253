"""Hex Quoridor's geometry in plain Python, built once per radius: the fences
(HQ-6/7), the sides (HQ-2), the frames (the board turned to each side) and
the flat tables the kernels in ``rules.py`` read from ``params``."""
from __future__ import annotations

import numpy as np

from ...hexboard import hex_board
from .rules import P_TABLES


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
