"""Hex-hex boards (rules C-5), shared by Quagmire and Hex Quoridor.

Pointy-top hexes in axial coordinates ``(q, r)`` with ``|q|, |r|, |q + r| <= R``.
Cells are numbered in reading order (row ``r = -R`` at the top first, left to
right inside a row), which is also the order of their names: row letters
``a, b, c, ...`` from the top, numbers from 1 at the left of each row.  Radius
3 has rows ``a..g`` of 4, 5, 6, 7, 6, 5, 4 cells and centre ``d4``::

    a    a1  a2  a3  a4
    b  b1  b2  b3  b4  b5
    ...

Directions, in the order of C-5 (counter-clockwise from east): E (+1, 0),
NE (+1, -1), NW (0, -1), W (-1, 0), SW (-1, +1), SE (0, +1); direction
``d`` and ``(d + 3) % 6`` are opposite.  Observation planes use the
``(2R + 1) x (2R + 1)`` axial grid: cell ``(q, r)`` sits at row ``r + R``,
column ``q + R``; the grid's corners are off the board.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .errors import NotationError
from .spec import is_int

DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
MAX_RADIUS = 12  # rows are named a..y


def opposite(d: int) -> int:
    return (d + 3) % 6


class HexBoard:
    """The geometry of one hex-hex board of radius ``radius``.

    Tables are numpy ``int64`` arrays (``-1`` = off the board) so numba
    kernels can take them as they are:

    * ``neighbours[i, d]``: the cell next to ``i`` in direction ``d``;
    * ``lines[i, d, k]``: the cell ``k + 1`` steps from ``i`` in direction
      ``d`` (``lines[i, d, 1]`` is the cell directly beyond the neighbour:
      two steps in the same direction form a straight line);
    * ``grid_index[i]``: the cell's place in the flattened observation grid.
    """

    def __init__(self, radius: int):
        if not is_int(radius) or not 1 <= radius <= MAX_RADIUS:
            raise ValueError(f"a hex board radius is an int in 1..{MAX_RADIUS}, got {radius!r}")
        R = self.radius = int(radius)
        self.side = 2 * R + 1
        self.coords = [(q, r) for r in range(-R, R + 1) for q in range(max(-R, -r - R), min(R, -r + R) + 1)]
        self.num_cells = len(self.coords)
        self._index = {c: i for i, c in enumerate(self.coords)}
        self.names = [self._name_of(q, r) for q, r in self.coords]
        self._by_name = {name: i for i, name in enumerate(self.names)}
        self._rotations: dict = {}

        n = self.num_cells
        self.lines = np.full((n, 6, 2 * R), -1, np.int64)
        for i, (q, r) in enumerate(self.coords):
            for d, (dq, dr) in enumerate(DIRECTIONS):
                for k in range(2 * R):
                    j = self._index.get((q + (k + 1) * dq, r + (k + 1) * dr), -1)
                    if j < 0:
                        break
                    self.lines[i, d, k] = j
        self.neighbours = np.ascontiguousarray(self.lines[:, :, 0])
        self.grid_index = np.array([(r + R) * self.side + (q + R) for q, r in self.coords], np.int64)

    # -- names -------------------------------------------------------------
    def _name_of(self, q: int, r: int) -> str:
        return chr(ord("a") + r + self.radius) + str(q - max(-self.radius, -r - self.radius) + 1)

    def name(self, i: int) -> str:
        return self.names[i]

    def cell(self, name: str) -> int:
        """The index of the cell called ``name`` (e.g. ``"d4"``; case-insensitive)."""
        i = self._by_name.get(name.lower()) if isinstance(name, str) else None
        if i is None:
            raise NotationError(
                f"{name!r} is not a cell of the radius-{self.radius} hex board "
                f"(rows a..{chr(ord('a') + 2 * self.radius)}, centre {self.names[self.num_cells // 2]})"
            )
        return i

    def row_of(self, i: int) -> int:
        """Row number 0..2R (row ``a`` is 0)."""
        return self.coords[i][1] + self.radius

    def rows(self) -> list[list[int]]:
        """Cell indices row by row, top to bottom."""
        out = [[] for _ in range(self.side)]
        for i in range(self.num_cells):
            out[self.row_of(i)].append(i)
        return out

    # -- geometry ------------------------------------------------------------
    def index_of(self, q: int, r: int) -> int:
        """Cell at axial ``(q, r)``, or -1 off the board."""
        return self._index.get((q, r), -1)

    def direction(self, a: int, b: int) -> int:
        """The direction from ``a`` to its neighbour ``b``, or -1 if not adjacent."""
        for d in range(6):
            if self.neighbours[a, d] == b:
                return d
        return -1

    def distance(self, a: int, b: int) -> int:
        (qa, ra), (qb, rb) = self.coords[a], self.coords[b]
        return max(abs(qa - qb), abs(ra - rb), abs(qa + ra - qb - rb))

    def rotate(self, i: int, k: int = 1) -> int:
        """Cell ``i`` turned ``k`` x 60 degrees clockwise about the centre."""
        q, r = self.coords[i]
        for _ in range(k % 6):
            q, r = -r, q + r
        return self._index[(q, r)]

    def rotation(self, k: int = 1) -> np.ndarray:
        """The permutation ``p`` with ``p[i] = rotate(i, k)`` (read-only, made once per ``k``)."""
        k %= 6
        if k not in self._rotations:
            p = np.array([self.rotate(i, k) for i in range(self.num_cells)], np.int64)
            p.flags.writeable = False
            self._rotations[k] = p
        return self._rotations[k]

    @staticmethod
    def rotate_direction(d: int, k: int = 1) -> int:
        """Direction ``d`` turned ``k`` x 60 degrees clockwise (E becomes SE)."""
        return (d - k) % 6

    def on_board_grid(self) -> np.ndarray:
        """``bool (2R+1, 2R+1)``: which grid squares are cells."""
        grid = np.zeros(self.side * self.side, bool)
        grid[self.grid_index] = True
        return grid.reshape(self.side, self.side)

    def pixel_center(self, i: int, size: float) -> tuple[float, float]:
        """Centre of cell ``i`` for hexes of circumradius ``size``, with the
        board's centre at (0, 0) and y growing downwards."""
        q, r = self.coords[i]
        return size * math.sqrt(3) * (q + r / 2), size * 1.5 * r

    def __repr__(self) -> str:
        return f"HexBoard(radius={self.radius}, cells={self.num_cells})"

    def __eq__(self, other) -> bool:
        return isinstance(other, HexBoard) and other.radius == self.radius

    def __hash__(self) -> int:
        return hash(("HexBoard", self.radius))


@functools.cache
def hex_board(radius: int) -> HexBoard:
    """The shared (cached) board of a radius; treat its tables as read-only."""
    return HexBoard(radius)
