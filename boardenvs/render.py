"""Board pictures shared by the games (Pillow); ``rgb_array`` renders use these."""
from __future__ import annotations

import math

import numpy as np

PALETTE = {
    "board": (238, 225, 196),
    "cell": (214, 190, 140),
    "water": (70, 130, 190),
    "grid": (120, 100, 80),
    "zone_0": (250, 240, 215),
    "zone_1": (205, 190, 160),
    "player_0": (250, 250, 245),
    "player_1": (40, 40, 48),
    "player_2": (200, 60, 50),
    "player_3": (50, 110, 200),
    "player_4": (60, 160, 80),
    "player_5": (220, 170, 40),
    "edge": (20, 20, 20),
    "last": (220, 40, 40),
    "label": (60, 50, 40),
}


def _pil():
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("rgb_array rendering needs Pillow: pip install 'boardenvs[render]'") from exc
    return Image, ImageDraw


class GridPicture:
    """A square-grid board with labels, tinted cells, outlines and pieces."""

    def __init__(self, rows: int, cols: int, row_labels: str = "", col_labels: str = "", cell: int = 64):
        Image, ImageDraw = _pil()
        self.cell, self.margin = cell, cell // 2
        size = (cols * cell + 2 * self.margin, rows * cell + 2 * self.margin)
        self.image = Image.new("RGB", size, PALETTE["board"])
        self.draw = ImageDraw.Draw(self.image)
        self.rows, self.cols = rows, cols
        for r in range(rows):
            for c in range(cols):
                self.draw.rectangle(self._box(r, c), outline=PALETTE["grid"])
        for r, text in enumerate(row_labels):
            self.draw.text((self.margin // 3, self.margin + r * cell + cell // 2 - 5), text, fill=PALETTE["label"])
        for c, text in enumerate(col_labels):
            self.draw.text((self.margin + c * cell + cell // 2 - 3, self.margin // 4), text, fill=PALETTE["label"])

    def _box(self, r, c, inset=0):
        x0 = self.margin + c * self.cell + inset
        y0 = self.margin + r * self.cell + inset
        return (x0, y0, x0 + self.cell - 2 * inset, y0 + self.cell - 2 * inset)

    def tint(self, r, c, colour):
        self.draw.rectangle(self._box(r, c), fill=PALETTE[colour], outline=PALETTE["grid"])

    def outline(self, r, c):
        self.draw.rectangle(self._box(r, c, 2), outline=PALETTE["last"], width=3)

    def piece(self, r, c, shape, seat):
        x0, y0, x1, y1 = self._box(r, c, self.cell // 6)
        style = dict(fill=PALETTE[f"player_{seat}"], outline=PALETTE["edge"], width=2)
        if shape == "circle":
            self.draw.ellipse((x0, y0, x1, y1), **style)
        elif shape == "square":
            self.draw.rectangle((x0, y0, x1, y1), **style)
        else:
            self.draw.polygon([((x0 + x1) // 2, y0), (x1, y1), (x0, y1)], **style)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


class HexPicture:
    """A hex-hex board (pointy-top hexes, C-5) with row labels, tinted cells,
    outlines and round pieces."""

    def __init__(self, board, cell: int = 30):
        Image, ImageDraw = _pil()
        self.board, self.size = board, cell
        width = math.sqrt(3) * cell * board.side
        height = 1.5 * cell * (board.side - 1) + 2 * cell
        self.margin = cell
        self.origin = (width / 2 + self.margin, height / 2 + self.margin // 2)
        self.image = Image.new("RGB", (int(width + 2 * self.margin), int(height + self.margin)), PALETTE["board"])
        self.draw = ImageDraw.Draw(self.image)
        for i in range(board.num_cells):
            self.tint(i, "cell")
        for row, members in enumerate(board.rows()):
            x, y = self._centre(members[0])
            self.draw.text((x - 1.3 * cell - 4, y - 6), chr(ord("a") + row), fill=PALETTE["label"])

    def _centre(self, i):
        x, y = self.board.pixel_center(i, self.size)
        return x + self.origin[0], y + self.origin[1]

    def _corners(self, i, scale=1.0):
        x, y = self._centre(i)
        r = self.size * scale
        return [(x + r * math.cos(math.radians(60 * k + 30)), y + r * math.sin(math.radians(60 * k + 30))) for k in range(6)]

    def tint(self, i, colour):
        self.draw.polygon(self._corners(i, 0.97), fill=PALETTE[colour], outline=PALETTE["grid"])

    def outline(self, i):
        self.draw.polygon(self._corners(i, 0.82), outline=PALETTE["last"], width=3)

    def edge(self, i, d, colour="edge", width=5):
        """The side of cell ``i``'s hex facing its neighbour in direction ``d`` (C-5 order)."""
        corners = self._corners(i)
        self.draw.line([corners[-d % 6], corners[(-d - 1) % 6]], fill=PALETTE[colour], width=width)

    def piece(self, i, seat):
        x, y = self._centre(i)
        r = self.size * 0.55
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=PALETTE[f"player_{seat}"], outline=PALETTE["edge"], width=2)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()
