"""Quess pictures: the text board and the RGB picture (the board only;
``boardenvs/render.py`` adds legend, turn and result): :class:`QuessPicture`,
a mixin of :class:`~boardenvs.games.quess.QuessGame`."""

from __future__ import annotations

import numpy as np

from ... import engine as E
from .rules import DARK, LIGHT_ZONE, ZONE, _frame, square_name


class QuessPicture:
    """The pictures (the ``Game`` hooks of those names)."""

    def render_ansi(self, state) -> str:
        """Files 1..6 above, rows A..F on the left (the notation's
        coordinates); Light upper case ``T C S``, Dark lower case."""
        return "\n".join(self.body_to_text(state)[1:8])

    def last_move(self, state) -> str:
        last = int(state[E.H_LAST_ACTION])
        if last < 0:
            return ""
        lseat = int(state[E.H_LAST_SEAT])
        return f"{square_name(_frame(last // 36, lseat))}-{square_name(_frame(last % 36, lseat))}"

    def cell_at(self, x, y):
        from ...render import GridPicture

        rc = GridPicture(rows=6, cols=6).cell_at(x, y)
        return None if rc is None else square_name(rc[0] * 6 + rc[1])

    def render_rgb(self, state) -> np.ndarray:
        """Rows A..F down, files 1..6 across (the notation's coordinates on
        every edge), the starting zones tinted, the last move's squares
        outlined, triangles / circles / squares in the seat colours."""
        from ...render import GridPicture

        pic = GridPicture(rows=6, cols=6, row_labels="ABCDEF", col_labels="123456")
        for i in range(36):
            if LIGHT_ZONE[i]:
                pic.tint(i // 6, i % 6, "zone_0")
            elif ZONE[DARK, i]:
                pic.tint(i // 6, i % 6, "zone_1")
        last = int(state[E.H_LAST_ACTION])
        if last >= 0:
            lseat = int(state[E.H_LAST_SEAT])
            for sq in (_frame(last // 36, lseat), _frame(last % 36, lseat)):
                pic.outline(sq // 6, sq % 6)
        for i, v in enumerate(self.board_cells(state)):
            if v:
                pic.piece(i // 6, i % 6, ("triangle", "circle", "square")[(v - 1) % 3], (v - 1) // 3)
        return pic.to_array()
