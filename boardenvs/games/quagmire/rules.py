"""Quagmire's rules (``boardenvs/rules/quagmire.md``, QM-1..QM-9) as numba
kernels: the move tables, the state row and every kernel.  Notation and the
text form are in ``text.py``, the pictures in ``picture.py``, the declaration
(:class:`~boardenvs.games.quagmire.QuagmireGame`) in ``__init__.py``.

Board indexing (:mod:`boardenvs.hexboard`, C-5): cells in reading order,
rows ``a, b, ...`` from the top, named by row letter and place from the left
(``d4`` the centre at radius 3).  Radius 3, 37 cells (the default)::

                0   1   2   3             a1 a2 a3 a4
              4   5   6   7   8           b1 .. b5
            9  10  11  12  13  14         c1 .. c6
          15  16  17  18  19  20  21      d1 .. d4 (centre) .. d7
            22  23  24  25  26  27        e1 .. e6
              28  29  30  31  32          f1 .. f5
                33  34  35  36            g1 g2 g3 g4

    directions d:      NW 2   NE 1        axial (q, r): E (+1, 0), NE (+1, -1),
                    W 3    cell    E 0     NW (0, -1), W (-1, 0), SW (-1, +1),
                       SW 4   SE 5        SE (0, +1); d + 3 is the opposite

Absolute indices everywhere (the board has no front): one cell code per cell
in the state row (0 empty, 1 water, 2 + seat a piece), then the sentinel cell
``C`` (code ``OFF``) that stands for every off-board neighbour, so the move
table needs no bounds checks.  The move table, in ``params`` from
``P_TABLES``: for cell ``a`` (the sentinel too) and direction ``d``, 8 entries
at ``P_TABLES + 48 a + 8 d``: the neighbour ``B``, then the cells one step
beyond ``B`` turning 0, +1, +2, -2, -1 sixths (``RUN_TURNS``), 2 unused; then
the observation grid index of every cell.  Actions: ``0 .. C-1`` place on cell
``i``; ``C + 42 p + 7 d + k`` move piece ``p`` (0: the lower cell index) in
direction ``d``, ``k`` = 0 walk, 1..5 run (``RUN_TURNS`` order), 6 jump.
Observation ``(2R+1, 2R+1, 5)`` over the axial grid: cell ``(q, r)`` at row
``r + R``, column ``q + R``, so the grid's corners are off the board::

    radius 3:   -  -  -  a1 a2 a3 a4
                -  -  b1 b2 b3 b4 b5
                -  c1 c2 c3 c4 c5 c6
                d1 d2 d3 d4 d5 d6 d7
                e1 e2 e3 e4 e5 e6 -
                f1 f2 f3 f4 f5 -  -
                g1 g2 g3 g4 -  -  -
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import engine as E

EMPTY, WATER, PIECE = 0, 1, 2  # cell codes; a piece of seat s is PIECE + s
OFF = 4  # the code of the sentinel cell that stands for "off the board"
CELL_CHARS = ".~xo"

# the state row after the generic header
LAYOUT = E.HEADER_LAYOUT.extend("quagmire_v0")
M_PLACED = LAYOUT.add("placed", 1, "placements made so far (0..4)")
M_PIECES = LAYOUT.add("pieces", 4, "2 * seat + p: cells of the pieces, -1 before placed")
M_LAST = LAYOUT.add("last_move", 4, "kind, from, via (run middle / jumped cell), to")
M_CELLS = LAYOUT.add("cells", "cells", "one code per cell, then the sentinel cell (OFF)")

# game options after the generic ones.  The geometry travels in params, so
# the kernels serve every radius; off-board cells are the sentinel cell C,
# whose code OFF blocks every move, so the move table needs no bounds checks.
P_NCELLS = E.P_GAME
P_TABLES = E.P_GAME + 1
# tables, one after the other: for every cell (the sentinel included) and
# direction d, 8 entries: the neighbour B, then the cells one step beyond B
# turning 0, +1, +2, -2, -1 sixths of a turn (RUN_TURNS), then 2 unused; then
# the grid index of every cell
TABLE_STRIDE = 48
RUN_TURNS = (0, 1, 2, 4, 5)  # (d2 - d1) % 6 of the five runs; 3 would turn back

NONE, PLACE, WALK, RUN, JUMP = 0, 1, 2, 3, 4  # move kinds (M_LAST)
MOVES_PER_PIECE = 42
PER_DIRECTION = 7  # walk, five runs (RUN_TURNS order), jump
OBS_PLANES = 5

REASON_TRAPPED = E.REASON_GAME


def move_tables(board) -> np.ndarray:
    """The flat geometry tables the kernels read from ``params``."""
    n = board.num_cells
    nb = np.full((n + 1, 6), n, np.int64)
    nb[:n] = np.where(board.neighbours >= 0, board.neighbours, n)
    table = np.full((n + 1, 6, 8), n, np.int64)
    for a in range(n + 1):
        for d in range(6):
            table[a, d, 0] = nb[a, d]
            table[a, d, 1:6] = nb[nb[a, d], [(d + t) % 6 for t in RUN_TURNS]]
    return np.concatenate([table.ravel(), board.grid_index])


# --- kernels -----------------------------------------------------------------
# Indices are cast to uint64 in the hot loops: numba then skips the
# negative-index wraparound it adds to every signed index.


@njit(cache=True)
def _mark_moves(state, params, seat, mask):
    """Write the move entries of ``mask`` for ``seat``'s pieces, walks (QM-4),
    runs (QM-5) and jumps (QM-6), without branches; return how many are legal."""
    n = params[P_NCELLS]
    cells = state[M_CELLS:]
    count = 0
    for p in range(2):
        t = np.uint64(P_TABLES + TABLE_STRIDE * state[M_PIECES + 2 * seat + p])
        o = np.uint64(n + MOVES_PER_PIECE * p)
        for _d in range(6):
            on_b = cells[np.uint64(params[t])]
            walk = on_b == EMPTY
            # the start floods as the piece leaves it, and no run turns back to it
            straight = cells[np.uint64(params[t + np.uint64(1)])] == EMPTY
            run1 = cells[np.uint64(params[t + np.uint64(2)])] == EMPTY
            run2 = cells[np.uint64(params[t + np.uint64(3)])] == EMPTY
            run4 = cells[np.uint64(params[t + np.uint64(4)])] == EMPTY
            run5 = cells[np.uint64(params[t + np.uint64(5)])] == EMPTY
            # a jump lands beyond B, passing over water, never over a piece
            jump = (on_b <= WATER) & straight
            mask[o] = walk
            mask[o + np.uint64(1)] = walk & straight
            mask[o + np.uint64(2)] = walk & run1
            mask[o + np.uint64(3)] = walk & run2
            mask[o + np.uint64(4)] = walk & run4
            mask[o + np.uint64(5)] = walk & run5
            mask[o + np.uint64(6)] = jump
            count += np.int64(walk) * (1 + np.int64(straight) + run1 + run2 + run4 + run5) + np.int64(jump)
            t += np.uint64(8)
            o += np.uint64(PER_DIRECTION)
    return count


@njit(cache=True)
def _has_move(state, params, seat):
    """QM-8: does ``seat`` have any walk or jump (a run starts with a walk)?"""
    for p in range(2):
        t = P_TABLES + TABLE_STRIDE * state[M_PIECES + 2 * seat + p]
        for d in range(6):
            on_b = state[M_CELLS + params[t + 8 * d]]
            if on_b == EMPTY:
                return True
            if on_b == WATER and state[M_CELLS + params[t + 8 * d + 1]] == EMPTY:
                return True
    return False


@njit(cache=True)
def decode_move(params, a, m):
    """Move ``m`` (0..41) of the piece on cell ``a``: ``(kind, b, c)`` with
    ``c`` the landing, ``b`` the run's middle or the jumped cell (-1 for a
    walk); off-board cells are the sentinel ``C``."""
    t = P_TABLES + TABLE_STRIDE * a + 8 * (m // PER_DIRECTION)
    k = m % PER_DIRECTION
    if k == 0:
        return WALK, -1, params[t]
    if k < PER_DIRECTION - 1:
        return RUN, params[t], params[t + k]
    return JUMP, params[t], params[t + 1]  # QM-6: the jumped cell stays as it is


@njit(cache=True)
def _sort_pieces(state, seat):
    s = M_PIECES + 2 * seat
    if state[s + 1] >= 0 and (state[s] < 0 or state[s + 1] < state[s]):
        state[s], state[s + 1] = state[s + 1], state[s]


@njit(cache=True)
def _set_last(state, kind, a, b, c):
    state[M_LAST] = kind
    state[M_LAST + 1] = a
    state[M_LAST + 2] = b
    state[M_LAST + 3] = c


@njit(cache=True)
def init(state, params, first_seat):
    E.new_game(state, params, first_seat)  # QM-3: every cell empty, no water
    state[M_PIECES : M_PIECES + 4] = -1
    state[M_CELLS + params[P_NCELLS]] = OFF
    _set_last(state, NONE, -1, -1, -1)


@njit(cache=True)
def legal(state, params, mask):
    n = params[P_NCELLS]
    if state[M_PLACED] < 4:  # QM-2: place on any empty cell
        mask[n:] = 0
        count = 0
        for i in range(n):
            free = state[M_CELLS + i] == EMPTY
            mask[i] = free
            count += free
        return count
    mask[:n] = 0
    return _mark_moves(state, params, state[E.H_CURRENT], mask)


@njit(cache=True)
def apply(state, params, action):
    seat = state[E.H_CURRENT]
    n = params[P_NCELLS]
    if state[M_PLACED] < 4:
        state[M_CELLS + action] = PIECE + seat
        slot = M_PIECES + 2 * seat
        state[slot if state[slot] < 0 else slot + 1] = action
        _sort_pieces(state, seat)
        _set_last(state, PLACE, -1, -1, action)
        state[M_PLACED] += 1
        # QM-2: first, other, other, first, and the first player moves next
        nxt = seat if state[M_PLACED] % 2 == 0 else 1 - seat
    else:
        p, m = divmod(action - n, MOVES_PER_PIECE)
        a = state[M_PIECES + 2 * seat + p]
        kind, b, c = decode_move(params, a, m)
        if kind == RUN:
            state[M_CELLS + b] = WATER  # QM-5/QM-7: the middle cell floods too
        state[M_CELLS + a] = WATER  # QM-7: the cell left floods, for good
        state[M_CELLS + c] = PIECE + seat
        state[M_PIECES + 2 * seat + p] = c
        _sort_pieces(state, seat)
        _set_last(state, kind, a, b, c)
        nxt = 1 - seat
    E.record_action(state, seat, action)
    # QM-8: no legal move at the start of one's turn loses
    if state[M_PLACED] == 4 and not _has_move(state, params, nxt):
        E.win_seat(state, 1 - nxt, REASON_TRAPPED)
    E.end_turn(state, params, nxt)


@njit(cache=True)
def observe(state, params, seat, obs):
    obs[:] = 0
    n = params[P_NCELLS]
    grid = P_TABLES + TABLE_STRIDE * (n + 1)
    setup = state[M_PLACED] < 4
    own, opp = PIECE + seat, PIECE + 1 - seat
    for i in range(n):
        g = params[grid + i] * OBS_PLANES
        v = state[M_CELLS + i]
        obs[g] = 1
        obs[g + 1] = v == WATER
        obs[g + 2] = v == own
        obs[g + 3] = v == opp
        obs[g + 4] = setup


KERNELS = E.Kernels(init, legal, apply, observe, E.no_chance_probs)


@njit(cache=True)
def _mobility(state, params, seat):
    """How many walks, runs and jumps ``seat``'s placed pieces have (QM-4..6)."""
    count = 0
    for p in range(2):
        a = state[M_PIECES + 2 * seat + p]
        if a < 0:
            continue
        t = P_TABLES + TABLE_STRIDE * a
        for _d in range(6):
            on_b = state[M_CELLS + params[t]]
            straight = state[M_CELLS + params[t + 1]] == EMPTY
            if on_b == EMPTY:
                count += 1 + straight
                for k in range(2, 6):
                    count += state[M_CELLS + params[t + k]] == EMPTY
            elif on_b == WATER and straight:
                count += 1
            t += 8
    return count


@njit(cache=True)
def heuristic(state, params, seat, mask):
    """The greedy opponent's evaluation (QM-8: who cannot move loses): the
    mover's moves minus the opponent's."""
    return float(_mobility(state, params, seat) - _mobility(state, params, 1 - seat))
