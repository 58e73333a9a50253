"""Hex Quoridor's state row and params: where each field lives (the kernels
in ``rules.py`` and ``fences.py``, the text form and the pictures read them
by these names)."""

from __future__ import annotations

from ... import engine as E

SENTINEL = 7  # occupant code of the off-board sentinel cell
FAR = 1 << 30  # distance of a cell with no path to the goal

# --- the state row after the generic header -----------------------------------
LAYOUT = E.HEADER_LAYOUT.extend("hex_quoridor_v1")
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
