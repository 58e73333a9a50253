"""An independent, pure-Python model of Hex Quoridor's move rules
(boardenvs/rules/hex_quoridor.md), written from the rules text: axial
coordinates, fences as sets of three blocked edges, and the brute-force path
check (a search for every pawn after every candidate fence).  It reads a
position through its text form only, and lists the legal moves in notation."""

from __future__ import annotations

from collections import deque

DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # E NE NW W SW SE (C-5)
SIDES = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}


class Board:
    def __init__(self, radius):
        R = self.R = radius
        self.cells = [(q, r) for r in range(-R, R + 1) for q in range(-R, R + 1) if abs(q + r) <= R]
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.names = {}
        for q, r in self.cells:
            first = max(-R, -r - R)
            self.names[(q, r)] = chr(ord("a") + r + R) + str(q - first + 1)
        self.by_name = {v: k for k, v in self.names.items()}

    def on(self, c):
        return c in self.index

    def nbr(self, c, d):
        return (c[0] + DIRS[d % 6][0], c[1] + DIRS[d % 6][1])

    def on_side(self, c, k):
        q, r = c
        R = self.R
        return (r == R, q == -R, q + r == -R, r == -R, q == R, q + r == R)[k]

    def fences(self):
        """Every fence: (notation, frozenset of three edges), from HQ-6/7."""
        out = {}
        for x in self.cells:
            for d in range(6):
                y = self.nbr(x, d)
                m1, m2 = self.nbr(x, d + 1), self.nbr(x, d - 1)
                if not all(self.on(c) for c in (y, m1, m2)):
                    continue
                for a, b in (((x, m1), (y, m2)), ((y, m1), (x, m2))):
                    edges = frozenset(frozenset((u, v)) for u in a for v in b if self.adjacent(u, v))
                    assert len(edges) == 3
                    out[self.fence_name(a, b)] = edges
        return out

    def adjacent(self, u, v):
        return (v[0] - u[0], v[1] - u[1]) in DIRS

    def fence_name(self, a, b):
        pa = tuple(sorted(a, key=self.index.get))
        pb = tuple(sorted(b, key=self.index.get))
        pa, pb = sorted((pa, pb), key=lambda p: (self.index[p[0]], self.index[p[1]]))
        return "".join(self.names[c] for c in pa) + "/" + "".join(self.names[c] for c in pb)


def parse(text):
    """What the model needs from a position text."""
    f = {}
    for line in text.strip().splitlines():
        k, _, v = line.partition(":")
        f[k.strip()] = v.strip()
    opts = dict(item.split("=") for item in f["options"].split())
    return f, opts


def legal_moves(text):
    """The legal moves of the mover (a set of notations), from scratch."""
    f, opts = parse(text)
    n = int(opts["num_players"])
    teams = opts["teams"]
    board = Board(int(opts["radius"]))
    fence_table = board.fences()
    mover = int(f["to_move"].split("_")[1])
    alive = [a == "1" for a in f["alive"].split()]
    pawns = [None if t == "x" else board.by_name[t] for t in f["pawns"].split()]
    left = [int(t) for t in f["fences_left"].split()]
    blocked = set()
    for name in f["fences"].split():
        if name != "-":
            blocked |= fence_table[name]
    occupied = {p for p in pawns if p is not None}
    goal = [(SIDES[n][s] + 3) % 6 for s in range(n)]

    def open_edge(u, v):
        return board.on(v) and frozenset((u, v)) not in blocked

    moves = set()
    a = pawns[mover]
    for d in range(6):
        b = board.nbr(a, d)
        if not open_edge(a, b):
            continue
        if b not in occupied:
            moves.add(board.names[b])  # HQ-11
            continue
        for tier in ((0,), (1, -1), (2, -2)):  # HQ-12
            landings = [board.nbr(b, d + t) for t in tier]
            landings = [c for c in landings if open_edge(b, c) and c not in occupied]
            if landings:
                moves.update(board.names[c] for c in landings)
                break

    def has_path(s, extra):
        start = pawns[s]
        seen = {start}
        todo = deque([start])
        while todo:
            c = todo.popleft()
            if board.on_side(c, goal[s]):
                return True
            for d in range(6):
                v = board.nbr(c, d)
                if (
                    v not in seen
                    and board.on(v)
                    and frozenset((c, v)) not in blocked
                    and frozenset((c, v)) not in extra
                ):
                    seen.add(v)
                    todo.append(v)
        return False

    if left[mover] > 0:
        live = [s for s in range(n) if alive[s]]
        elimination = n > 2 and teams == "none" and len(live) > 2
        for name, edges in fence_table.items():
            if edges & blocked:
                continue  # HQ-7
            cut = [s for s in live if not has_path(s, edges)]
            if not cut:
                moves.add(name)
            elif elimination and mover not in cut and len(live) - len(cut) >= 2:
                moves.add(name)  # HQ-9
    return moves or {"pass"}  # HQ-13: a seat with no move is asked, and passes
