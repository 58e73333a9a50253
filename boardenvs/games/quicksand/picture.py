"""Quicksand pictures: the text board and the RGB picture (the board only;
``boardenvs/render.py`` adds legend, turn and result), the turn notes and the
last move: :class:`QuicksandPicture`, a mixin of
:class:`~boardenvs.games.quicksand.QuicksandGame`."""

from __future__ import annotations

import numpy as np

from ... import engine as E
from .rules import (
    NCELLS,
    PH_HOP,
    PH_ROTATE,
    Q_JMASK,
    Q_LAST,
    Q_PHASE,
    Q_TURN,
    QUADRANT_ORIGINS,
    R_CELLS,
    R_N,
    R_ROT,
    SIZE_CHARS,
    cell_name,
    rotation_map,
)


class QuicksandPicture:
    """The pictures, the turn notes and the last move (the ``Game`` hooks of those names)."""

    def last_move(self, state) -> str:
        """The turn under way so far (its decisions made), else the last
        completed turn, in notation; '' before the first decision."""
        so_far = self._record_move(state, Q_TURN)
        return f"{so_far} (turn under way)" if so_far else self._record_move(state, Q_LAST)

    def turn_notes(self, state) -> list[str]:
        """What the seat to act is deciding, and the score (QS-11)."""
        scores = self.scores(state)
        note = f"score {scores[0]}-{scores[1]}"
        if state[E.H_STATUS] == E.PLAYING:
            phase = int(state[Q_PHASE])
            if phase == PH_HOP:
                note = f"jumping {':'.join(cell_name(c) for c in self.jump_path(state))}; " + note
            elif phase == PH_ROTATE:
                note = "rotating a quadrant; " + note
        return [note]

    # -- pictures ------------------------------------------------------------
    def render_ansi(self, state) -> str:
        res = [
            f"reserve player_{s}: " + " ".join(f"{SIZE_CHARS[z]}{v}" for z, v in enumerate(self.reserve(state, s)))
            for s in (0, 1)
        ]
        rows = []
        for line in self.board_lines(state)[:6]:
            rank, cells = line[0], line[2:].split()
            rows.append(f"{rank} " + " ".join(cells[:3]) + " | " + " ".join(cells[3:]))
            if rank == "4":
                rows.append("  ------+------")
        return "\n".join(rows + ["  a b c   d e f"] + res)

    def render_rgb(self, state) -> np.ndarray:
        from ...render import PALETTE, GridPicture

        pic = GridPicture(rows=6, cols=6, row_labels="654321", col_labels="abcdef")

        def rc(i):  # picture row and column of cell i
            return 5 - i // 6, i % 6

        # the last move's cells, where they are after its rotation; its quadrant
        last_rot = int(state[Q_LAST + R_ROT])
        moved = rotation_map(last_rot // 3, last_rot % 3) if last_rot >= 0 else {}
        n = int(state[Q_LAST + R_N])
        for c in state[Q_LAST + R_CELLS : Q_LAST + R_CELLS + n]:
            if c >= 0:
                pic.outline(*rc(moved.get(int(c), int(c))))
        for c in self.jump_path(state):
            pic.outline(*rc(c))
        jmask = int(state[Q_JMASK])
        cells = self.cells(state)
        cell, m = pic.cell, pic.margin
        for i in range(NCELLS):
            v = int(cells[i]) - 1
            if v < 0:
                continue
            r, c = rc(i)
            x0, y0 = m + c * cell, m + r * cell
            half = cell * (0.18 + 0.09 * (v % 3))  # pyramids of three sizes
            cx, cy = x0 + cell / 2, y0 + cell / 2
            colour = PALETTE[f"player_{v // 3}"]
            pic.draw.rectangle(
                (cx - half, cy - half, cx + half, cy + half), fill=colour, outline=PALETTE["edge"], width=2
            )
            for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):  # the ridges seen from above
                pic.draw.line((cx, cy, cx + dx * half, cy + dy * half), fill=PALETTE["edge"], width=1)
            if (jmask >> i) & 1:
                pic.draw.line((x0 + 6, y0 + 6, x0 + cell - 6, y0 + cell - 6), fill=PALETTE["last"], width=3)
        # quadrant borders, the last rotated quadrant's in red
        size = 6 * cell
        pic.draw.line((m + 3 * cell, m, m + 3 * cell, m + size), fill=PALETTE["edge"], width=4)
        pic.draw.line((m, m + 3 * cell, m + size, m + 3 * cell), fill=PALETTE["edge"], width=4)
        if last_rot >= 0:
            f0, r0 = QUADRANT_ORIGINS[last_rot // 3]
            x0, y0 = m + f0 * cell, m + (3 - r0) * cell
            pic.draw.rectangle((x0 + 2, y0 + 2, x0 + 3 * cell - 2, y0 + 3 * cell - 2), outline=PALETTE["last"], width=3)
        return pic.to_array()
