"""Pictures of a game: each game draws its board, this module adds the rest.

**The hook interface** (what a game module provides; everything else is
generic, so a new game gets legend, turn indicator, result and clock without
extra work):

``Game.render_ansi(state) -> str``
    the board only, as text, with the coordinates of the rules' notation on
    its edges (Quess: files ``1..6`` above, rows ``A..F`` on the left).  No
    status line: whose turn, the last move and the result are added here
    (``str(Position)`` and ``render()`` show the whole frame).
``Game.render_rgb(state) -> np.ndarray``
    the board only, ``uint8 (H, W, 3)``, the same size for every state of a
    configured game, drawn with :class:`GridPicture` / :class:`HexPicture`
    (or your own Pillow code): coordinates on the edges (``row_labels`` /
    ``col_labels``, hex row letters and numbers), pieces in the seat colours
    (``piece(..., seat)`` uses :func:`seat_colour`), the cells of the last move
    outlined (``outline``).  A game without a picture leaves it out of
    ``Game.render_modes``.
``Game.seat_labels`` (optional tuple)
    what each seat is called in the rules (``("Light", "Dark")``,
    ``("x", "o")``); shown beside the agent names in the legend.
``Game.seat_symbols`` (optional tuple)
    how each seat's pieces are written in the text board where the label
    does not say it (Quess: ``("T C S", "t c s")``); shown in the ANSI legend.
``Game.last_move(state) -> str`` (optional)
    the last move in notation; the default decodes the header's last decision
    (``H_LAST_ACTION`` by ``H_LAST_SEAT``) as if its seat were to act, so a game
    whose notation depends on the board before the move overrides it
    (Quagmire keeps its last move in its own fields).
``Game.cell_at(x, y) -> str | None`` (optional)
    the name of the cell under pixel ``(x, y)`` of the board picture (the
    pictures' ``cell_at`` helpers give it): ``boardenvs play --window`` then
    lets a player click cells, narrowing the legal moves to those whose
    notation names the clicked cells in that order.
``Game.turn_notes(state) -> list[str]`` (optional)
    extra lines for the state of the turn: the roll at chance games, the
    decisions left in a chain, the setup phase.
``Game.chance_status(state) -> str`` (optional)
    the turn indicator while chance is to act: ``chance to play`` by default,
    ``player_1 (B, top) to roll`` where the chance event is a seat's die
    (Tryasina).

The generic layer (:func:`ansi_frame`, :func:`rgb_frame`, used by the AEC
env's ``render()``, ``str(Position)``, the recorder and the CLI) adds under
the board: the legend (a colour swatch per seat, its agent name and label,
a marker on the one to act, ``out`` for eliminated seats, per-seat notes such
as a chess clock's time left), the turn indicator and turn notes, the last
move, and the result once the game is over.  ``render_mode="human"`` shows
:func:`rgb_frame` in a pygame :class:`Window` (PettingZoo classic's
convention).

Notes per seat come from the env (:meth:`boardenvs.aec.BoardEnv.add_seat_note`:
the chess clock registers one), as ``{seat: "text"}``.
"""

from __future__ import annotations

import math

import numpy as np

from . import engine as E
from .errors import install_line

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
    "panel": (250, 246, 236),
    "text": (30, 30, 30),
    "to_act": (220, 40, 40),
}

RENDER_EXTRA = ".[render]"  # (pip install from a clone: boardenvs is on no index)


def _pil():
    """``(Image, ImageDraw)``: Pillow's, or, while a replay page records its
    frames (:func:`boardenvs.svgpicture.recording`), stand-ins that keep the
    drawing calls."""
    from . import svgpicture

    if svgpicture.active():
        return svgpicture.modules()
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"rgb_array rendering needs Pillow: {install_line('render')}") from exc
    return Image, ImageDraw


_FONTS: dict = {}


def font(size: int = 14):
    """Pillow's built-in font at ``size`` pixels (a scalable one where Pillow
    has FreeType, else its small bitmap font)."""
    if size not in _FONTS:
        from PIL import ImageFont

        try:
            _FONTS[size] = ImageFont.load_default(size=size)
        except (TypeError, OSError, ImportError):  # pragma: no cover - old Pillow / no FreeType
            _FONTS[size] = ImageFont.load_default()
    return _FONTS[size]


def seat_colour(seat: int) -> tuple:
    """The colour of ``seat``'s pieces and of its swatch in the legend."""
    return PALETTE[f"player_{seat}"]


class GridPicture:
    """A square-grid board with coordinates on its edges, tinted cells,
    outlines (the last move) and pieces in the seat colours."""

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
        f = font(max(10, cell // 4))
        for r, text in enumerate(row_labels):
            y = self.margin + r * cell + cell // 2
            self.draw.text((self.margin // 2, y), text, fill=PALETTE["label"], font=f, anchor="mm")
            self.draw.text((size[0] - self.margin // 2, y), text, fill=PALETTE["label"], font=f, anchor="mm")
        for c, text in enumerate(col_labels):
            x = self.margin + c * cell + cell // 2
            self.draw.text((x, self.margin // 2), text, fill=PALETTE["label"], font=f, anchor="mm")
            self.draw.text((x, size[1] - self.margin // 2), text, fill=PALETTE["label"], font=f, anchor="mm")

    def _box(self, r, c, inset=0):
        x0 = self.margin + c * self.cell + inset
        y0 = self.margin + r * self.cell + inset
        return (x0, y0, x0 + self.cell - 2 * inset, y0 + self.cell - 2 * inset)

    def centre(self, r, c) -> tuple[int, int]:
        """The pixel at the centre of cell (r, c) (for tests and click maps)."""
        x0, y0, x1, y1 = self._box(r, c)
        return (x0 + x1) // 2, (y0 + y1) // 2

    def cell_at(self, x, y):
        """The cell ``(r, c)`` under pixel ``(x, y)``, or None (for clicks)."""
        c, r = (x - self.margin) // self.cell, (y - self.margin) // self.cell
        return (int(r), int(c)) if 0 <= r < self.rows and 0 <= c < self.cols else None

    def tint(self, r, c, colour):
        self.draw.rectangle(self._box(r, c), fill=PALETTE[colour], outline=PALETTE["grid"])

    def outline(self, r, c):
        self.draw.rectangle(self._box(r, c, 2), outline=PALETTE["last"], width=3)

    def piece(self, r, c, shape, seat, text: str = ""):
        x0, y0, x1, y1 = self._box(r, c, self.cell // 6)
        style = dict(fill=seat_colour(seat), outline=PALETTE["edge"], width=2)
        if shape == "circle":
            self.draw.ellipse((x0, y0, x1, y1), **style)
        elif shape == "square":
            self.draw.rectangle((x0, y0, x1, y1), **style)
        else:
            self.draw.polygon([((x0 + x1) // 2, y0), (x1, y1), (x0, y1)], **style)
        if text:
            light = sum(seat_colour(seat)) > 380
            self.draw.text(
                ((x0 + x1) // 2, (y0 + y1) // 2),
                text,
                font=font(max(10, self.cell // 4)),
                fill=PALETTE["text"] if light else PALETTE["panel"],
                anchor="mm",
            )

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


class HexPicture:
    """A hex-hex board (pointy-top hexes, C-5) with its coordinates (row
    letters on both sides, ``label_gap`` cells from the row's end cells, each
    cell's name in it while empty), tinted cells, outlines (the last move),
    bands along a side (``side_band``: a goal) and round pieces in the seat
    colours."""

    def __init__(self, board, cell: int = 30, names: bool = True, label_gap: float = 1.3):
        Image, ImageDraw = _pil()
        self.board, self.size = board, cell
        width = math.sqrt(3) * cell * board.side
        height = 1.5 * cell * (board.side - 1) + 2 * cell
        self.margin = cell
        self.origin = (width / 2 + self.margin, height / 2 + self.margin // 2)
        self.image = Image.new("RGB", (int(width + 2 * self.margin), int(height + self.margin)), PALETTE["board"])
        self.draw = ImageDraw.Draw(self.image)
        self.names = names
        for i in range(board.num_cells):
            self.tint(i, "cell")
        f = font(max(10, int(cell * 0.5)))
        self.label_boxes = []  # (letter, pixel box) of each row label (for tests: nothing may cover them)
        for row, members in enumerate(board.rows()):
            letter = chr(ord("a") + row)
            for end, sign in ((members[0], -1), (members[-1], 1)):
                x, y = self._centre(end)
                at = (x + sign * label_gap * cell, y)
                self.draw.text(at, letter, fill=PALETTE["label"], font=f, anchor="mm")
                self.label_boxes.append((letter, self.draw.textbbox(at, letter, font=f, anchor="mm")))

    def _centre(self, i):
        x, y = self.board.pixel_center(i, self.size)
        return x + self.origin[0], y + self.origin[1]

    def centre(self, i) -> tuple[int, int]:
        """The pixel at the centre of cell ``i`` (for tests and click maps)."""
        x, y = self._centre(i)
        return int(round(x)), int(round(y))

    def cell_at(self, x, y):
        """The cell index under pixel ``(x, y)``, or None (for clicks)."""
        best, dist = None, self.size * 0.9
        for i in range(self.board.num_cells):
            cx, cy = self._centre(i)
            d = math.hypot(x - cx, y - cy)
            if d < dist:
                best, dist = i, d
        return best

    def _corners(self, i, scale=1.0):
        x, y = self._centre(i)
        r = self.size * scale
        return [
            (x + r * math.cos(math.radians(60 * k + 30)), y + r * math.sin(math.radians(60 * k + 30))) for k in range(6)
        ]

    def tint(self, i, colour):
        self.draw.polygon(self._corners(i, 0.97), fill=PALETTE[colour], outline=PALETTE["grid"])
        if self.names and colour == "cell":
            self.draw.text(
                self._centre(i),
                self.board.name(i),
                fill=PALETTE["grid"],
                font=font(max(8, int(self.size * 0.4))),
                anchor="mm",
            )

    def outline(self, i):
        self.draw.polygon(self._corners(i, 0.82), outline=PALETTE["last"], width=3)

    def edge(self, i, d, colour="edge", width=5):
        """The side of cell ``i``'s hex facing its neighbour in direction ``d`` (C-5 order)."""
        corners = self._corners(i)
        self.draw.line([corners[-d % 6], corners[(-d - 1) % 6]], fill=PALETTE[colour], width=width)

    def side_cells(self, k) -> list:
        """The cells on side ``k`` (sides clockwise from the bottom, 0 = the
        last row; a corner cell is on two sides): those whose two neighbours
        beyond that side are off the board."""
        a, b = (4 - k) % 6, (5 - k) % 6
        nb = self.board.neighbours
        return [i for i in range(self.board.num_cells) if nb[i, a] < 0 and nb[i, b] < 0]

    def side_normal(self, k) -> tuple:
        """The unit vector pointing out of the board across side ``k``."""
        angle = math.radians(90 + 60 * k)
        return math.cos(angle), math.sin(angle)

    def side_band(self, k, colour, width: float | None = None):
        """A band in ``colour`` just outside the rim of side ``k``, along the
        outer edges of its cells (a corner's edge shared with the next side
        is split between the two sides' bands at its middle)."""
        t = self.size * 0.3 if width is None else width
        nx, ny = (t * v for v in self.side_normal(k))
        a, b = (4 - k) % 6, (5 - k) % 6
        nb = self.board.neighbours
        for i in self.side_cells(k):
            corners = self._corners(i)
            joint = corners[-b % 6]  # where the cell's two outer edges of this side meet
            for d, shared in ((a, nb[i, (a - 1) % 6] < 0), (b, nb[i, (b + 1) % 6] < 0)):
                p, q = corners[-d % 6], corners[(-d - 1) % 6]
                if shared:  # a corner: this side's half of the edge it shares with the next side
                    mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
                    p, q = joint, mid
                self.draw.polygon([p, q, (q[0] + nx, q[1] + ny), (p[0] + nx, p[1] + ny)], fill=colour)
                self.draw.line([(p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny)], fill=PALETTE["edge"], width=1)
                if shared:
                    self.draw.line([q, (q[0] + nx, q[1] + ny)], fill=PALETTE["edge"], width=1)

    def piece(self, i, seat):
        x, y = self._centre(i)
        r = self.size * 0.55
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=seat_colour(seat), outline=PALETTE["edge"], width=2)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


# --- the generic layer: legend, turn, last move, result, notes -----------------------------


def seat_label(game, seat: int) -> str:
    labels = getattr(game, "seat_labels", ()) or ()
    return labels[seat] if seat < len(labels) else ""


def _who(game, seat: int) -> str:
    label = seat_label(game, seat)
    return f"{game.seat_name(seat)} ({label})" if label else game.seat_name(seat)


def result_text(game, state) -> str:
    """``game over (zone): player_0 (Light) wins`` / ``... draw`` / ``truncated (max_turns)``."""
    n = game.num_players
    reason = game.end_reason(state)
    if state[E.H_STATUS] == E.TRUNCATED:
        return f"game over ({reason}): truncated, no result"
    rets = [int(state[E.H_RET + s]) for s in range(n)]
    winners = [s for s in range(n) if rets[s] > 0]
    if winners:
        verb = "wins" if len(winners) == 1 else "win"
        return f"game over ({reason}): {', '.join(_who(game, s) for s in winners)} {verb}"
    if reason == "illegal_action":
        loser = next((s for s in range(n) if rets[s] < 0 and (int(state[E.H_ALIVE]) >> s) & 1), None)
        return f"game over ({reason}): {_who(game, loser) if loser is not None else '?'} forfeits"
    return f"game over ({reason}): draw"


def last_move_text(game, state) -> str:
    try:
        return game.last_move(state)
    except Exception:  # a picture never fails over its caption; Game.last_move's default may not fit a game
        return ""


def turn_status(game, state) -> str:
    """Who is to act: ``player_1 (o) to move``, or at a chance node the
    game's :meth:`~boardenvs.game.Game.chance_status` (``chance to play``,
    Tryasina's ``player_1 (B, top) to roll``)."""
    seat = int(state[E.H_CURRENT])
    return game.chance_status(state) if seat == E.CHANCE else f"{_who(game, seat)} to move"


def status_line(game, state) -> str:
    """``turn 5: player_1 (o) to move; last move d4-c4-c5`` (the turn
    indicator, or the result once the game is over, and the last move)."""
    if state[E.H_STATUS] == E.PLAYING:
        status = turn_status(game, state)
    else:
        status = result_text(game, state)
    last = last_move_text(game, state)
    if last:
        status += f"; last move {last}"
    return f"turn {int(state[E.H_TURN])}: {status}"


def turn_notes(game, state) -> list[str]:
    if state[E.H_STATUS] != E.PLAYING:
        return []
    return list(game.turn_notes(state))


def legend_lines(game, state, notes=None) -> list[str]:
    """One line per seat: a marker on the one to act, agent name, label, out, note."""
    notes = notes or {}
    seat_to_act = int(state[E.H_CURRENT]) if state[E.H_STATUS] == E.PLAYING else -2
    lines = []
    for s in range(game.num_players):
        label = seat_label(game, s)
        text = f"{'>' if s == seat_to_act else ' '} {game.seat_name(s)}" + (f" = {label}" if label else "")
        symbols = getattr(game, "seat_symbols", ()) or ()
        if s < len(symbols):
            text += f" ({symbols[s]})"
        if not (int(state[E.H_ALIVE]) >> s) & 1:
            text += "  (out)"
        if notes.get(s):
            text += f"  [{notes[s]}]"
        lines.append(text)
    return lines


def ansi_frame(game, state, notes=None) -> str:
    """The game's board text, then the legend, the turn notes and the status line."""
    board = game.render_ansi(state).rstrip("\n")
    extra = turn_notes(game, state)
    return "\n".join([board, *legend_lines(game, state, notes), *extra, status_line(game, state)])


LINE = 20  # pixels per text line in the panel under the board
MIN_WIDTH = 380


def player_notes(game, players) -> dict:
    """``{seat: name}`` for the legend from ``players`` (None, or one str per
    seat: who plays each seat); ValueError for anything else."""
    if players is None:
        return {}
    if (
        not isinstance(players, (list, tuple))
        or len(players) != game.num_players
        or not all(isinstance(p, str) for p in players)
    ):
        raise ValueError(f"{game.env_id}: players names who plays each seat: {game.num_players} strs, got {players!r}")
    return {s: name for s, name in enumerate(players)}


def rgb_frame(game, state, notes=None) -> np.ndarray:
    """The game's board picture with a panel under it: the legend (a swatch in
    each seat's colour, a marker on the one to act), the turn notes, the
    status line and the last move.  The size depends only on the configured
    game, so the frames of a game make a video."""
    Image, ImageDraw = _pil()
    board = np.asarray(game.render_rgb(state), dtype=np.uint8)
    h, w = board.shape[:2]
    n = game.num_players
    width = max(w, MIN_WIDTH)
    panel_lines = 1 + n + 3  # title, seats, notes, status, last move
    image = Image.new("RGB", (width, h + panel_lines * LINE + 8), PALETTE["panel"])
    image.paste(Image.fromarray(board), ((width - w) // 2, 0))
    draw = ImageDraw.Draw(image)
    f, fb = font(13), font(14)
    y = h + 4

    def text(x, s, colour=PALETTE["text"], fnt=f):
        draw.text((x, y), _fit(draw, s, fnt, width - x - 4), fill=colour, font=fnt)

    text(8, f"{game.title} ({game.env_id})", fnt=fb)
    notes = notes or {}
    playing = state[E.H_STATUS] == E.PLAYING
    current = int(state[E.H_CURRENT])
    for s in range(n):
        y += LINE
        alive = (int(state[E.H_ALIVE]) >> s) & 1
        if playing and s == current:
            draw.polygon([(4, y + 3), (12, y + 8), (4, y + 13)], fill=PALETTE["to_act"])
        draw.rectangle((16, y + 2, 30, y + 15), fill=seat_colour(s), outline=PALETTE["edge"])
        label = seat_label(game, s)
        line = game.seat_name(s) + (f" = {label}" if label else "") + ("  (out)" if not alive else "")
        if playing and s == current:
            line += "  <- to move"
        if notes.get(s):
            line += f"   {notes[s]}"
        text(36, line, PALETTE["text"] if alive else PALETTE["grid"])
    y += LINE
    text(8, "; ".join(turn_notes(game, state)))
    y += LINE
    if playing:
        text(8, f"turn {int(state[E.H_TURN])}: {turn_status(game, state)}")
    else:
        text(8, f"turn {int(state[E.H_TURN])}: {result_text(game, state)}", PALETTE["last"], fb)
    y += LINE
    last = last_move_text(game, state)
    text(8, f"last move: {last}" if last else "", PALETTE["last"])
    return np.asarray(image, dtype=np.uint8).copy()


def frame_for(mode, game, state, notes=None, window=None, fps=2):
    """What an env's ``render()`` gives in ``mode``: the text frame, the
    picture, or (``"human"``) the picture shown in ``window``, a
    :class:`Window` opened here on the first frame.  Returns ``(result,
    window)``; the env keeps the window and closes it in ``close()``."""
    if mode == "ansi":
        return ansi_frame(game, state, notes), window
    frame = rgb_frame(game, state, notes)
    if mode == "rgb_array":
        return frame, window
    if window is None:
        window = Window(f"boardenvs: {game.title}", fps=fps)
    window.show(frame)
    return None, window


def _fit(draw, s: str, fnt, room: float) -> str:
    """``s`` whole if it fits in ``room`` pixels, else its longest start that
    fits with ``...`` after it: found by halving (a few measurements of the
    text, not one per character cut) within the first ``4 * room + 16``
    characters (more than the room shows of any real text), so a name of any length
    costs time linear in its length at most."""
    if not s:
        return s
    cap = 4 * int(max(room, 0)) + 16  # longer text is cut there first: measuring it all would cost its length
    cut = len(s) > cap
    if not cut and draw.textlength(s, font=fnt) <= room:
        return s
    s = s[:cap]
    lo, hi = 0, len(s) - (0 if cut else 1)  # s[:lo] + "..." fits (or lo is 0); s[:hi + 1] + "..." does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if draw.textlength(s[:mid] + "...", font=fnt) <= room:
            lo = mid
        else:
            hi = mid - 1
    return s[:lo] + "..."


# --- the human mode: a pygame window ---------------------------------------------------------


def require_pygame():
    """pygame, or an ImportError that names the extra to install."""
    try:
        import pygame
    except ImportError as exc:
        raise ImportError(
            f"render_mode='human' opens a pygame window and needs pygame: {install_line('render')}"
        ) from exc
    return pygame


class Window:
    """A pygame window showing frames (``uint8 (H, W, 3)`` arrays), opened on
    the first :meth:`show` and released by :meth:`close`, at most ``fps``
    frames a second (PettingZoo classic's ``metadata["render_fps"]``).  Tests
    run it headless with ``SDL_VIDEODRIVER=dummy``."""

    def __init__(self, title: str = "boardenvs", fps: float = 2):
        self.pygame = require_pygame()
        self.title, self.fps = title, fps
        self.screen = None
        self.clock = None
        self.closed_by_user = False

    def show(self, frame: np.ndarray) -> None:
        pygame = self.pygame
        h, w = frame.shape[:2]
        if self.screen is None or self.screen.get_size() != (w, h):
            if self.screen is None:
                pygame.init()
                pygame.display.init()
                self.clock = pygame.time.Clock()
            pygame.display.set_caption(self.title)
            self.screen = pygame.display.set_mode((w, h))
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self.screen.blit(surface, (0, 0))
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.closed_by_user = True
        pygame.display.flip()
        if self.fps:
            self.clock.tick(self.fps)

    def wait_click(self, timeout_s: float | None = None):
        """Block until the user clicks (returns ``(x, y)``) or closes the
        window (returns None)."""
        pygame = self.pygame
        waited = 0
        while True:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    self.closed_by_user = True
                    return None
                if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                    return event.pos
            pygame.time.wait(20)
            waited += 0.02
            if timeout_s is not None and waited >= timeout_s:
                return None

    @property
    def is_open(self) -> bool:
        return self.screen is not None

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.pygame.quit()
            self.screen = None


def frame_canvas(game, state, notes=None):
    """:func:`rgb_frame` of ``state`` recorded as drawing calls (a
    :class:`boardenvs.svgpicture.Canvas`, which the replay pages write as
    SVG); here, beside the frame it records, so the recorder needs nothing
    of this module."""
    from . import svgpicture

    with svgpicture.recording() as session:
        rgb_frame(game, state, notes)
    if session.last is None:  # pragma: no cover - rgb_frame always ends with np.asarray(image)
        raise RuntimeError(f"{game.env_id}: its frame was not drawn through render._pil()")
    return session.last
