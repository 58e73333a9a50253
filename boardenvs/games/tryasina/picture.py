"""Tryasina pictures: the text board and the RGB picture drawn as the
original's map, the turn notes and the last move: :class:`TryasinaPicture`,
a mixin of :class:`~boardenvs.games.tryasina.TryasinaGame`."""

from __future__ import annotations

import numpy as np

from ... import engine as E
from .rules import (
    CELL_XY,
    HOME0,
    LETTERS,
    LOC2CELL,
    LOC_C1,
    LOC_O,
    LOC_Q,
    NUM_CELLS,
    PASS,
    QUAGMIRE_XY,
    SIDE_NAMES,
    SWAMP0,
    T_LAST,
    T_ROLL,
    T_ROLLER,
    XY_CELL,
    _rot,
)
from .text import LOC_NAMES

# --- the picture's geometry and drawing (TR-1..TR-5 as the original's map draws them) ---------

PIC_CELL = 40  # pixels per square
PIC_MARGIN = 10
PIC_KEY = 34  # the strip under the board: what the colours mean
PIC_SIZE = 13 * PIC_CELL + 2 * PIC_MARGIN
PIC_DISC = 14  # a pawn's radius
PIC_COLOURS = {
    "channel": (117, 39, 8),  # under the tiles, and the shortcut bands
    "grass": (16, 117, 8),
    "tile": (154, 52, 12),
    "quagmire": (112, 104, 101),
    "swamp": (112, 104, 101),  # the frame of a swamp level
    "home": (236, 196, 84),  # the frame inside a home square
    "die": (252, 252, 250),
    "pip": (20, 20, 20),
}
ORIGIN_SPOT = (1, -5)  # the bottom side's (turned for the others): grass right of its home's H1
DIE_SPOT = (-1, -5)  # grass left of the home's H1
QUAGMIRE_SPOT = (0, -1)  # the bottom side's part of the quagmire
# TR-4: the bottom-left shortcut's band (turned for the others): the two transit squares next
# to its ends (8: (-2,-6), 16: (-6,-2)) joined by a diagonal strip one square wide
SHORTCUT_BAND = (
    (-2.5, -5.5),
    (-1.5, -5.5),
    (-1.5, -4.5),
    (-4.5, -1.5),
    (-5.5, -1.5),
    (-5.5, -2.5),
    (-4.5, -2.5),
    (-2.5, -4.5),
)
PIPS = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
KEY = ("track", "home", "swamp", "shortcut", "quagmire", "origin")


def pic_xy(x, y) -> tuple:
    """The pixel of board point ``(x, y)`` (a square's centre for integers)."""
    return PIC_MARGIN + (x + 6.5) * PIC_CELL, PIC_MARGIN + (6.5 - y) * PIC_CELL


def pic_box(x, y, inset: int = 0) -> tuple:
    """The pixel box of square ``(x, y)``, ``inset`` pixels inside its edges."""
    cx, cy = pic_xy(x, y)
    h = PIC_CELL // 2 - inset
    return (int(cx - h), int(cy - h), int(cx + h - 1), int(cy + h - 1))


def _tile(draw, box, kind: str, small: bool = False) -> None:
    """A square as the map draws it: a rounded tile on the channel; a swamp level framed
    in grey; a home with a gold frame inside (``small``: the key's swatch)."""
    x0, y0, x1, y1 = box
    c = PIC_COLOURS
    if kind == "swamp":
        draw.rectangle(box, fill=c["tile"], outline=c["swamp"], width=2 if small else 3)
        return
    gap, inner = (1, 5) if small else (2, 8)
    draw.rounded_rectangle((x0 + gap, y0 + gap, x1 - gap, y1 - gap), radius=3 if small else 5, fill=c["tile"])
    if kind == "home":
        draw.rounded_rectangle((x0 + inner, y0 + inner, x1 - inner, y1 - inner), radius=2, outline=c["home"], width=2)


def _draw_die(draw, centre, roll: int) -> None:
    """The die as a die: its face showing ``roll`` in pips, ``?`` before the roll."""
    from ...render import PALETTE, font

    cx, cy = centre
    h = 15
    draw.rounded_rectangle(
        (cx - h, cy - h, cx + h, cy + h), radius=5, fill=PIC_COLOURS["die"], outline=PALETTE["edge"], width=2
    )
    if not roll:
        draw.text((cx, cy), "?", fill=PALETTE["label"], font=font(18), anchor="mm")
        return
    for dx, dy in PIPS[roll]:
        px, py = cx + 8 * dx, cy + 8 * dy
        draw.ellipse((px - 3, py - 3, px + 3, py + 3), fill=PIC_COLOURS["pip"])


def _static_picture():
    """The board without pawns, die or seats (the same for every game), and
    the key; one per kind of picture ``render._pil()`` draws (a Pillow image,
    or the replay page's recorded canvas)."""
    from ...render import PALETTE, _pil, font

    Image, ImageDraw = _pil()
    if Image not in _STATIC:
        c = PIC_COLOURS
        image = Image.new("RGB", (PIC_SIZE, PIC_SIZE + PIC_KEY), PALETTE["board"])
        draw = ImageDraw.Draw(image)
        x0, y0, _, _ = pic_box(-6, 6)
        _, _, x1, y1 = pic_box(6, -6)
        draw.rectangle((x0, y0, x1, y1), fill=c["channel"])
        for y in range(-6, 7):
            for x in range(-6, 7):
                if (x, y) in QUAGMIRE_XY:
                    draw.rectangle(pic_box(x, y), fill=c["quagmire"])
                elif (x, y) not in XY_CELL:
                    draw.rectangle(pic_box(x, y), fill=c["grass"])
        for g in range(4):  # TR-4: one continuous band per shortcut
            draw.polygon([pic_xy(*_rot(x, y, g)) for x, y in SHORTCUT_BAND], fill=c["channel"])
        for cell in range(NUM_CELLS):
            kind = "track" if cell < HOME0 else "home" if cell < SWAMP0 else "swamp"
            _tile(draw, pic_box(*(int(v) for v in CELL_XY[cell])), kind)
        # the key: one swatch per colour that carries meaning
        f = font(13)
        step = PIC_SIZE // len(KEY)
        top = PIC_SIZE + (PIC_KEY - 20) // 2
        for k, name in enumerate(KEY):
            left = PIC_MARGIN + k * step
            box = (left, top, left + 19, top + 19)
            if name in ("track", "home", "swamp"):
                draw.rectangle(box, fill=c["channel"])
                _tile(draw, box, name, small=True)
            elif name == "shortcut":  # a piece of diagonal band on grass
                draw.rectangle(box, fill=c["grass"])
                draw.polygon(
                    [
                        (left, top + 12),
                        (left + 12, top),
                        (left + 19, top),
                        (left + 19, top + 7),
                        (left + 7, top + 19),
                        (left, top + 19),
                    ],
                    fill=c["channel"],
                )
            elif name == "quagmire":
                draw.rectangle(box, fill=c["quagmire"])
            else:  # origin: the ring of a seat's waiting pawns
                draw.ellipse(box, outline=PALETTE["label"], width=2)
            draw.text((left + 25, top + 10), name, fill=PALETTE["label"], font=f, anchor="lm")
        _STATIC[Image] = image
    return _STATIC[Image]


_STATIC: dict = {}


class TryasinaPicture:
    """The pictures, the turn notes and the last move (the ``Game`` hooks of those names)."""

    # -- pictures ------------------------------------------------------------
    @property
    def seat_labels(self) -> tuple:
        """Each seat's pawn letter and side, for the legend."""
        return tuple(f"{LETTERS[s]}, {SIDE_NAMES[self.side_of(s)]}" for s in range(self.num_players))

    def _who(self, seat: int) -> str:
        return f"{self.seat_name(seat)} ({self.seat_labels[seat]})"

    def chance_status(self, state) -> str:
        """The turn indicator before the roll: whose die it is (TR-7, TR-17)."""
        return f"{self._who(int(state[T_ROLLER]))} to roll"

    def turn_notes(self, state) -> list[str]:
        """The roll of the turn under way and whose it is (and that it must
        pass when no pawn can move, TR-7); before a roll, a pass just played."""
        if state[E.H_STATUS] != E.PLAYING:
            return []
        if state[E.H_CURRENT] != E.CHANCE:
            note = f"{self._who(int(state[T_ROLLER]))} rolled {int(state[T_ROLL])}"
            if not self.legal_mask(state)[:PASS].any():
                note += ": no pawn can move, it passes"
            return [note]
        if state[E.H_LAST_ACTION] == PASS and state[E.H_LAST_SEAT] >= 0:
            return [f"{self._who(int(state[E.H_LAST_SEAT]))} passed: its roll moved no pawn"]
        return []

    def last_move(self, state) -> str:
        """The last pawn move, ``player_0 (A) C1->C7`` (its seat, and where
        the pawn stood and ended in that seat's track terms; the roll of the
        turn under way is a turn note, not a move); ``-`` while none is
        known after a decision (the first rolls)."""
        if state[T_LAST] < 0:
            return "-" if state[E.H_DECISIONS] > 0 else ""
        seat = int(state[T_LAST])
        return (
            f"{self.seat_name(seat)} ({LETTERS[seat]}) "
            f"{LOC_NAMES[int(state[T_LAST + 1])]}->{LOC_NAMES[int(state[T_LAST + 2])]}"
        )

    def render_ansi(self, state) -> str:
        n = self.num_players
        counts = [
            (self.pawn_locations(state, s).count(LOC_O), self.pawn_locations(state, s).count(LOC_Q)) for s in range(n)
        ]
        pools = "  ".join(f"{LETTERS[s]}: origin {o}, quagmire {q}" for s, (o, q) in enumerate(counts))
        return "\n".join([" ".join(r) for r in self.board_rows(state)] + [pools])

    def spot(self, seat: int, loc: int) -> tuple:
        """The square ``(x, y)`` where the picture draws ``seat``'s pawns at
        location ``loc``: its cell, or for the origin and the quagmire the
        seat's spot (on the grass beside its home's entry, in its side's part
        of the quagmire)."""
        side = self.side_of(seat)
        if loc == LOC_O:
            return _rot(*ORIGIN_SPOT, side)
        if loc == LOC_Q:
            return _rot(*QUAGMIRE_SPOT, side)
        return tuple(int(v) for v in CELL_XY[LOC2CELL[side, loc]])

    def die_spot(self, seat: int) -> tuple:
        """The square where the die lies while ``seat`` rolls (its side)."""
        return _rot(*DIE_SPOT, self.side_of(seat))

    def render_rgb(self, state) -> np.ndarray:
        """The board as the original's map draws it (tiles on a dark channel,
        the diagonal shortcut bands, the framed swamps, the grey quagmire),
        the pawns as discs in the seat colours (a count where several stand),
        the die on the roller's side, the last move outlined and a key to the
        colours under the board."""
        from ...render import PALETTE, _pil, font, seat_colour

        Image, ImageDraw = _pil()
        image = _static_picture().copy()
        draw = ImageDraw.Draw(image)
        n = self.num_players
        for s in range(n):  # each seat's origin: a ring in its colour (TR-2)
            cx, cy = pic_xy(*_rot(*ORIGIN_SPOT, self.side_of(s)))
            r = PIC_DISC + 4
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=seat_colour(s), width=3)
        if state[T_LAST] >= 0:  # the last pawn move's two ends
            seat = int(state[T_LAST])
            for loc in (int(state[T_LAST + 1]), int(state[T_LAST + 2])):
                draw.rounded_rectangle(pic_box(*self.spot(seat, loc), 1), radius=5, outline=PALETTE["last"], width=3)
        if state[E.H_STATUS] == E.PLAYING:
            _draw_die(draw, pic_xy(*self.die_spot(int(state[T_ROLLER]))), int(state[T_ROLL]))
        for s in range(n):
            locs = self.pawn_locations(state, s)
            for loc in sorted(set(locs)):
                cx, cy = pic_xy(*self.spot(s, loc))
                r = PIC_DISC
                colour = seat_colour(s)
                contrast = PALETTE["text"] if sum(colour) > 380 else PALETTE["panel"]
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=PALETTE["edge"], width=2)
                if locs.count(loc) > 1:  # several pawns on an origin or a quagmire spot
                    draw.text((cx, cy), str(locs.count(loc)), fill=contrast, font=font(18), anchor="mm")
                elif loc == LOC_C1 + 48:  # C49: back on its entry after a full lap (TR-3)
                    draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), outline=contrast, width=2)
        return np.asarray(image, dtype=np.uint8).copy()
