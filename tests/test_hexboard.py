"""The shared hex-board geometry (rules C-5), used by Quagmire and Hex Quoridor."""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs.errors import NotationError
from boardenvs.hexboard import DIRECTIONS, HexBoard, hex_board, opposite


@pytest.mark.parametrize("radius, cells, rows", [(3, 37, [4, 5, 6, 7, 6, 5, 4]), (4, 61, [5, 6, 7, 8, 9, 8, 7, 6, 5])])
def test_c5_cell_counts_and_row_lengths(radius, cells, rows):
    board = HexBoard(radius)
    assert board.num_cells == cells == 3 * radius * (radius + 1) + 1
    assert [len(r) for r in board.rows()] == rows
    assert all(max(abs(q), abs(r), abs(q + r)) <= radius for q, r in board.coords)


def test_c5_names_rows_top_down_numbers_left_to_right():
    board = HexBoard(3)
    assert board.names[:4] == ["a1", "a2", "a3", "a4"]
    assert board.names[-1] == "g4"
    assert board.name(board.index_of(0, 0)) == "d4"  # the centre
    assert board.coords[board.cell("a1")] == (0, -3)  # top row is r = -R, q increasing
    assert board.coords[board.cell("d1")] == (-3, 0) and board.coords[board.cell("d7")] == (3, 0)
    assert board.coords[board.cell("g1")] == (-3, 3)
    assert HexBoard(4).name(HexBoard(4).index_of(0, 0)) == "e5"
    assert HexBoard(4).names[-1] == "i5"


@pytest.mark.parametrize("radius", [2, 3, 4, 6])
def test_names_round_trip_and_reading_order(radius):
    board = HexBoard(radius)
    assert len(set(board.names)) == board.num_cells
    for i, name in enumerate(board.names):
        assert board.cell(name) == i
        assert board.cell(name.upper()) == i
    # cell indices follow reading order, which is the grid's raster order
    assert list(board.grid_index) == sorted(board.grid_index)


def test_unknown_cell_names_raise_notation_error():
    board = HexBoard(3)
    for bad in ["h1", "a5", "d8", "d0", "", "4d", "dd", None]:
        with pytest.raises(NotationError):
            board.cell(bad)


def test_c5_directions_in_order():
    board = HexBoard(3)
    centre = board.cell("d4")
    names = [board.name(j) for j in board.neighbours[centre]]
    # E, NE, NW, W, SW, SE
    assert names == ["d5", "c4", "c3", "d3", "e3", "e4"]
    assert DIRECTIONS[0] == (1, 0) and DIRECTIONS[5] == (0, 1)
    for d in range(6):
        assert np.add(DIRECTIONS[d], DIRECTIONS[opposite(d)]).tolist() == [0, 0]


@pytest.mark.parametrize("radius", [2, 3, 4])
def test_neighbours_interior_six_and_symmetric(radius):
    board = HexBoard(radius)
    for i, (q, r) in enumerate(board.coords):
        count = int((board.neighbours[i] >= 0).sum())
        interior = max(abs(q), abs(r), abs(q + r)) < radius
        if interior:
            assert count == 6
        else:
            assert count in (3, 4)  # corners 3, other edge cells 4
        for d in range(6):
            j = board.neighbours[i, d]
            if j >= 0:
                assert board.neighbours[j, opposite(d)] == i
                assert board.distance(i, j) == 1
                assert board.direction(i, j) == d
    corners = [i for i in range(board.num_cells) if (board.neighbours[i] >= 0).sum() == 3]
    assert len(corners) == 6


def test_c5_two_steps_in_one_direction_are_a_straight_line():
    board = HexBoard(3)
    d4 = board.cell("d4")
    assert board.name(board.lines[d4, 0, 1]) == "d6"
    assert board.lines[d4, 0, 3] == -1  # d7 is 3 steps east, the 4th is off the board
    for i in range(board.num_cells):
        for d in range(6):
            b = board.neighbours[i, d]
            c = board.lines[i, d, 1]
            assert c == (board.neighbours[b, d] if b >= 0 else -1)
            if c >= 0:
                assert board.distance(i, c) == 2


@pytest.mark.parametrize("radius", [2, 3, 4])
def test_rotation_by_six_sixty_degree_turns_is_the_identity(radius):
    board = HexBoard(radius)
    ident = np.arange(board.num_cells)
    p = board.rotation(1)
    assert sorted(p.tolist()) == ident.tolist()  # a permutation of the cells
    composed = ident
    for k in range(1, 7):
        composed = p[composed]
        assert np.array_equal(composed, board.rotation(k))
        assert np.array_equal(composed, ident) == (k == 6)
    centre = board.index_of(0, 0)
    assert p[centre] == centre
    # a turn keeps the geometry: neighbours in direction d become neighbours
    # in the turned direction
    for i in range(board.num_cells):
        for d in range(6):
            j = board.neighbours[i, d]
            if j >= 0:
                assert board.neighbours[p[i], HexBoard.rotate_direction(d)] == p[j]


def test_rotation_turns_corners_clockwise():
    board = HexBoard(3)
    assert board.name(board.rotate(board.cell("a1"))) == "a4"
    assert board.name(board.rotate(board.cell("a4"))) == "d7"
    assert board.name(board.rotate(board.cell("a1"), 3)) == "g4"
    assert board.rotate_direction(0) == 5  # E turns to SE


@pytest.mark.parametrize("radius", [3, 4])
def test_observation_grid_mapping(radius):
    board = HexBoard(radius)
    side = 2 * radius + 1
    grid = board.on_board_grid()
    assert grid.shape == (side, side) and grid.sum() == board.num_cells
    for i, (q, r) in enumerate(board.coords):
        assert board.grid_index[i] == (r + radius) * side + (q + radius)
    # the corners of the square grid that lie off the hexagon
    assert not grid[0, 0] and not grid[-1, -1] and grid[0, -1] and grid[-1, 0]


def test_pixel_centres_are_a_regular_hex_grid():
    board = HexBoard(3)
    d4 = board.cell("d4")
    assert board.pixel_center(d4, 10) == (0.0, 0.0)
    for j in board.neighbours[d4]:
        x, y = board.pixel_center(int(j), 10)
        assert np.hypot(x, y) == pytest.approx(10 * np.sqrt(3))


def test_bad_radius_and_shared_instances():
    for bad in [0, -1, 13, 2.0, "3", True, None]:
        with pytest.raises(ValueError):
            HexBoard(bad)
    assert hex_board(3) is hex_board(3)
    assert hex_board(3) == HexBoard(3) and hex_board(3) != HexBoard(4)
