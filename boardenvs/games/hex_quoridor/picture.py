"""Hex Quoridor pictures: the text board and the RGB picture (goal sides,
fences, pawns, and a strip of the fences each seat has left): :class:`HexQuoridorPicture`,
a mixin of :class:`~boardenvs.games.hex_quoridor.HexQuoridorGame`."""

from __future__ import annotations

import numpy as np

from .geometry import fence_edges
from .rules import Q_OCC

STRIP_LINE = 20  # pixels per line of the fences-left strip above the board


class HexQuoridorPicture:
    """The pictures and the turn notes (the ``Game`` hooks of those names)."""

    # -- pictures ----------------------------------------------------------------------
    def board_lines(self, state) -> list[str]:
        """The board as text: pawns as seat digits, '|' a fence between
        neighbours in a row, '-' under a cell a fence on its SW / SE edge."""
        board = self.board
        R = board.radius
        blocked = self.blocked(state)
        rim = self.geo.rim[: self.num_cells]
        occ = state[Q_OCC : Q_OCC + self.num_cells]
        width = 4 * (2 * R + 1) + 2
        lines = []
        for row, members in enumerate(board.rows()):
            line = [" "] * width
            under = [" "] * width
            for i in members:
                q, r = board.coords[i]
                x = 2 * (2 * q + r) + 4 * R + 2
                line[x] = "." if occ[i] == 0 else str(int(occ[i]) - 1)
                if blocked[i, 0] and not rim[i, 0]:
                    line[x + 2] = "|"
                if blocked[i, 4] and not rim[i, 4]:
                    under[x - 1] = "-"
                if blocked[i, 5] and not rim[i, 5]:
                    under[x + 1] = "-"
            lines.append(f"{chr(ord('a') + row)} " + "".join(line).rstrip())
            if row < 2 * R:
                lines.append("  " + "".join(under).rstrip())
        return lines

    def turn_notes(self, state) -> list[str]:
        """The fences each seat has left (HQ-5, inherited ones included)."""
        return ["fences left " + " ".join(f"player_{s}:{c}" for s, c in enumerate(self.fences_left(state)))]

    def render_ansi(self, state) -> str:
        return "\n".join(self.board_lines(state))

    def render_rgb(self, state) -> np.ndarray:
        """The board (goal sides, fences, pawns) under a strip of the fences
        each seat has left."""
        image, _, _ = self.board_picture(state)
        return np.asarray(image, dtype=np.uint8).copy()

    def board_picture(self, state):
        """``(image, pic, top)``: the picture (Pillow), and the
        :class:`~boardenvs.render.HexPicture` of the board pasted ``top``
        pixels down in it, under the strip of fences left.  Each live seat's
        goal side (HQ-2, HQ-14) is a band in its colour outside the rim; the
        fences are thick zig-zag lines along the cell sides."""
        from ...render import PALETTE, HexPicture, _pil, font, seat_colour

        Image, ImageDraw = _pil()
        n = self.num_players
        pic = HexPicture(self.board, label_gap=1.55)  # the row labels clear of the goal bands
        pawns = self.pawns(state)
        for s in range(n):
            if pawns[s] >= 0:
                pic.side_band((self.sides[s] + 3) % 6, seat_colour(s))
        for f in self.placed_fences(state):
            for u, v in fence_edges(self.geo.fences[f]):
                pic.edge(u, self.board.direction(u, v), "edge", width=5)
        for s, c in enumerate(pawns):
            if c >= 0:
                pic.piece(c, s)
        # the strip: "fences left" and, per seat, a disc in its colour and its count ("out" once out)
        f = font(13)
        width, height = pic.image.size
        measure = ImageDraw.Draw(pic.image)
        label = "fences left:"
        entry = 16 + max(measure.textlength(t, font=f) for t in ("out", str(n * max(self.fences_per_player, 1)))) + 12
        x0 = 8 + measure.textlength(label, font=f) + 10
        per_row = max(1, int((width - x0 - 4) // entry))
        top = STRIP_LINE * -(-n // per_row) + 6
        image = Image.new("RGB", (width, height + top), PALETTE["board"])
        image.paste(pic.image, (0, top))
        draw = ImageDraw.Draw(image)
        draw.text((8, 4 + STRIP_LINE // 2), label, fill=PALETTE["label"], font=f, anchor="lm")
        for s, left in enumerate(self.fences_left(state)):
            row, col = divmod(s, per_row)
            x, y = x0 + col * entry, 4 + row * STRIP_LINE + STRIP_LINE // 2
            draw.ellipse((x, y - 6, x + 12, y + 6), fill=seat_colour(s), outline=PALETTE["edge"])
            out = pawns[s] < 0
            draw.text(
                (x + 16, y),
                "out" if out else str(left),
                fill=PALETTE["grid"] if out else PALETTE["label"],
                font=f,
                anchor="lm",
            )
        return image, pic, top
