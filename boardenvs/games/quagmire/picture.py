"""Quagmire pictures: the text board and the RGB picture (the board only;
``boardenvs/render.py`` adds legend, turn and result): :class:`QuagmirePicture`,
a mixin of :class:`~boardenvs.games.quagmire.QuagmireGame`."""

from __future__ import annotations

import numpy as np

from .rules import M_LAST, M_PLACED, NONE, PIECE, WATER


class QuagmirePicture:
    """The pictures and the last move (the ``Game`` hooks of those names)."""

    def last_move(self, state) -> str:
        """The last move in notation, or '' before the first."""
        kind, a, b, c = (int(v) for v in state[M_LAST : M_LAST + 4])
        return "" if kind == NONE else self._notation(kind, a, b, c)

    # -- pictures (the board; boardenvs/render.py adds legend, turn, result) ----
    def turn_notes(self, state) -> list[str]:
        placed = int(state[M_PLACED])
        return [f"setup: placement {placed + 1} of 4 (QM-2)"] if placed < 4 else []

    def render_ansi(self, state) -> str:
        """Rows a..g from the top, cells numbered from 1 at the left of each
        row (``d4`` is the centre); ``x`` / ``o`` pieces, ``~`` water."""
        return "\n".join(self.board_lines(state))

    def cell_at(self, x, y):
        from ...render import HexPicture

        i = HexPicture(self.board, names=False).cell_at(x, y)
        return None if i is None else self.board.name(i)

    def render_rgb(self, state) -> np.ndarray:
        """Row letters on both sides, each empty cell's name in it, water
        blue, the last move's cells outlined, pieces in the seat colours."""
        from ...render import HexPicture

        pic = HexPicture(self.board)
        cells = self.cells(state)
        for i in range(self.num_cells):
            if cells[i] == WATER:
                pic.tint(i, "water")
        for c in state[M_LAST + 1 : M_LAST + 4]:
            if c >= 0:
                pic.outline(int(c))
        for i in range(self.num_cells):
            if cells[i] >= PIECE:
                pic.piece(i, int(cells[i]) - PIECE)
        return pic.to_array()
