"""Pictures as drawing calls: a frame of :func:`boardenvs.render.rgb_frame`
kept as the calls that drew it, and written as SVG.

Every picture of the package is drawn through ``render._pil()`` (Pillow's
``Image`` and ``ImageDraw``): the board by the game's ``render_rgb``, the
panel under it by ``rgb_frame``.  While :func:`recording` is on, ``_pil()``
hands out :class:`Canvas` and :class:`Draw` instead, which keep each call
(``rectangle``, ``rounded_rectangle``, ``ellipse``, ``polygon``, ``line``,
``text``, ``paste``) rather than setting pixels; measuring text
(``textlength``, ``textbbox``) is Pillow's own, so every layout decision is
the same as in the raster picture.  A recorded frame can be

* played back onto a Pillow image (:func:`to_pil`): the very pixels of
  ``rgb_frame`` (the tests check this, so the recording misses nothing);
* written as SVG elements (:func:`svg_parts`), one str each, for the replay
  page, which draws its frames from them: a frame costs the few elements
  that changed, not a picture.

A game that draws some part without ``_pil()`` (its own raster code) still
gets a page: that part is an embedded PNG (``<image>``) in the SVG.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import html
import io
import re

import numpy as np

# what a game author or a page uses (the API reference lists these); render.py reaches the rest
__all__ = ["recording", "Canvas", "Draw", "to_pil", "svg_parts", "svg_head", "svg_document"]

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("boardenvs_svg_recording", default=None)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")  # not allowed in XML text


class _Session:
    """What one :func:`recording` saw: the last canvas turned into an array
    (``np.asarray(canvas)``: what ``render_rgb`` and ``rgb_frame`` return)."""

    def __init__(self):
        self.last = None


@contextlib.contextmanager
def recording():
    """While on, ``render._pil()`` gives :class:`Canvas` / :class:`Draw`;
    yields the session, whose ``last`` is the last canvas made an array."""
    session = _Session()
    token = _ACTIVE.set(session)
    try:
        yield session
    finally:
        _ACTIVE.reset(token)


def active() -> bool:
    """Whether a :func:`recording` is on (``render._pil()`` asks)."""
    return _ACTIVE.get() is not None


class Canvas:
    """Stands in for a Pillow ``Image``: a size and the drawing calls made on
    it, in order (``ops``: ``(name, args, kwargs)``)."""

    mode = "RGB"

    def __init__(self, size, colour=0, ops=None):
        self.size = (int(size[0]), int(size[1]))
        w, h = self.size
        self.ops = ops if ops is not None else [("rectangle", ((0, 0, w - 1, h - 1),), {"fill": colour})]

    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]

    def copy(self) -> Canvas:
        """A canvas with the same calls so far (``Image.copy``)."""
        return Canvas(self.size, ops=list(self.ops))

    def paste(self, image, box=None, mask=None) -> None:
        """``Image.paste`` kept as a call: a canvas as its calls, pixels as a :class:`Raster`."""
        if mask is not None:
            raise NotImplementedError("a recorded picture pastes without a mask")
        x, y = (box or (0, 0))[:2]
        if not isinstance(image, Canvas):
            image = Raster(np.asarray(image, dtype=np.uint8))
        self.ops.append(("paste", (image, (int(x), int(y))), {}))

    def __array__(self, dtype=None, copy=None):
        """A blank array of the picture's shape; the session notes this canvas
        as the picture just finished (``rgb_frame`` pastes it under its panel)."""
        session = _ACTIVE.get()
        if session is not None:
            session.last = self
        return np.zeros((self.size[1], self.size[0], 3), dtype=dtype or np.uint8)


class Raster(Canvas):
    """A picture that came as pixels (an array): played back as it is,
    written into SVG as an embedded PNG."""

    def __init__(self, pixels: np.ndarray):
        self.pixels = pixels
        super().__init__((pixels.shape[1], pixels.shape[0]), ops=[])


class _ImageModule:
    """The part of ``PIL.Image`` the pictures use."""

    @staticmethod
    def new(mode, size, color=0):
        return Canvas(size, color)

    @staticmethod
    def fromarray(array):
        """The canvas that an ``np.asarray(canvas)`` just stood for (blank,
        of its size), else the pixels as a :class:`Raster`."""
        array = np.asarray(array)
        session = _ACTIVE.get()
        last = session.last if session is not None else None
        if last is not None and last.size == (array.shape[1], array.shape[0]) and not array.any():
            return last
        return Raster(array.astype(np.uint8))


class _DrawModule:
    """The part of ``PIL.ImageDraw`` the pictures use."""

    @staticmethod
    def Draw(canvas):  # noqa: N802 - Pillow's name
        return Draw(canvas)


_MEASURE = []


def _measure():
    """A real Pillow draw for measuring text (fonts do not depend on the image)."""
    if not _MEASURE:
        from PIL import Image, ImageDraw

        _MEASURE.append(ImageDraw.Draw(Image.new("RGB", (1, 1))))
    return _MEASURE[0]


class Draw:
    """Stands in for ``ImageDraw.Draw(canvas)``: each shape is kept on the
    canvas, not drawn (its methods take Pillow's arguments); text is measured
    by Pillow itself, so a layout is the raster picture's."""

    def __init__(self, canvas: Canvas):
        if not isinstance(canvas, Canvas):
            raise TypeError(f"a recording draws on a Canvas, got {type(canvas).__name__}")
        self.canvas = canvas

    def _keep(self, name, args, kwargs):
        self.canvas.ops.append((name, args, kwargs))

    def rectangle(self, xy, fill=None, outline=None, width=1):
        """``ImageDraw.rectangle``, kept."""
        self._keep("rectangle", (xy,), {"fill": fill, "outline": outline, "width": width})

    def rounded_rectangle(self, xy, radius=0, fill=None, outline=None, width=1):
        """``ImageDraw.rounded_rectangle``, kept."""
        self._keep("rounded_rectangle", (xy,), {"radius": radius, "fill": fill, "outline": outline, "width": width})

    def ellipse(self, xy, fill=None, outline=None, width=1):
        """``ImageDraw.ellipse``, kept."""
        self._keep("ellipse", (xy,), {"fill": fill, "outline": outline, "width": width})

    def polygon(self, xy, fill=None, outline=None, width=1):
        """``ImageDraw.polygon``, kept."""
        self._keep("polygon", (list(xy),), {"fill": fill, "outline": outline, "width": width})

    def line(self, xy, fill=None, width=0):
        """``ImageDraw.line``, kept."""
        self._keep("line", (list(xy),), {"fill": fill, "width": width})

    def text(self, xy, text, fill=None, font=None, anchor=None):
        """``ImageDraw.text``, kept."""
        self._keep("text", (xy, text), {"fill": fill, "font": font, "anchor": anchor})

    def textlength(self, text, font=None):
        """``ImageDraw.textlength``, measured by Pillow."""
        return _measure().textlength(text, font=font)

    def textbbox(self, xy, text, font=None, anchor=None):
        """``ImageDraw.textbbox``, measured by Pillow."""
        return _measure().textbbox(xy, text, font=font, anchor=anchor)


def modules():
    """``(Image, ImageDraw)`` stand-ins for ``render._pil()`` while recording."""
    return _ImageModule, _DrawModule


# --- playing back ---------------------------------------------------------------------------------


def to_pil(canvas: Canvas):
    """The canvas drawn by Pillow: the raster picture the same calls make."""
    from PIL import Image, ImageDraw

    if isinstance(canvas, Raster):
        return Image.fromarray(canvas.pixels)
    image = Image.new("RGB", canvas.size)
    draw = ImageDraw.Draw(image)
    for name, args, kwargs in canvas.ops:
        if name == "paste":
            sub, at = args
            image.paste(to_pil(sub), at)
        else:
            getattr(draw, name)(*args, **kwargs)
    return image


# --- SVG ------------------------------------------------------------------------------------------


def _n(v) -> str:
    text = f"{float(v):.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return "0" if text == "-0" else text


def _colour(c) -> str:
    if c is None:
        return "none"
    if isinstance(c, str):
        return html.escape(c, quote=True)
    if isinstance(c, (int, np.integer)):
        c = (int(c),) * 3
    return "#" + "".join(f"{int(v) & 255:02x}" for v in tuple(c)[:3])


def _points(xy, dx, dy) -> list:
    """``[(x, y), ...]`` of Pillow's coordinate forms (pairs or a flat sequence)."""
    xy = list(xy)
    if xy and not isinstance(xy[0], (tuple, list, np.ndarray)):
        xy = [(xy[i], xy[i + 1]) for i in range(0, len(xy) - 1, 2)]
    return [(float(x) + dx, float(y) + dy) for x, y in xy]


def _box(xy, dx, dy) -> tuple:
    (x0, y0), (x1, y1) = _points(xy, dx, dy)[:2]
    return x0, y0, x1, y1


def _paint(fill, outline, width) -> str:
    if fill is None and outline is None:
        outline = (255, 255, 255)  # Pillow's default ink on an RGB image
    out = f' fill="{_colour(fill)}"'
    if outline is not None and width:
        out += f' stroke="{_colour(outline)}" stroke-width="{_n(width)}"'
    return out


_ANCHOR_X = {"l": "start", "m": "middle", "r": "end"}
_ANCHOR_Y = {
    "a": "text-before-edge",
    "t": "text-before-edge",
    "m": "central",
    "s": "alphabetic",
    "d": "text-after-edge",
}


def _element(name, args, kw, dx, dy) -> str:
    if name in ("rectangle", "rounded_rectangle", "ellipse"):
        x0, y0, x1, y1 = _box(args[0], dx, dy)
        fill, outline = kw.get("fill"), kw.get("outline")
        w = kw.get("width", 1) if outline is not None else 0
        inset = w / 2  # Pillow draws an outline inside the box; SVG strokes centre on the path
        x, y = x0 + inset, y0 + inset
        width, height = max(0.0, x1 - x0 + 1 - w), max(0.0, y1 - y0 + 1 - w)
        paint = _paint(fill, outline, w)
        if name == "ellipse":
            return (
                f'<ellipse cx="{_n(x + width / 2)}" cy="{_n(y + height / 2)}" '
                f'rx="{_n(width / 2)}" ry="{_n(height / 2)}"{paint}/>'
            )
        radius = f' rx="{_n(kw["radius"])}"' if name == "rounded_rectangle" and kw.get("radius") else ""
        return f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_n(height)}"{radius}{paint}/>'
    if name == "polygon":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in _points(args[0], dx, dy))
        return f'<polygon points="{pts}"{_paint(kw.get("fill"), kw.get("outline"), kw.get("width", 1))}/>'
    if name == "line":
        pts = " ".join(f"{_n(x + 0.5)},{_n(y + 0.5)}" for x, y in _points(args[0], dx, dy))
        width = max(1, kw.get("width") or 1)
        return f'<polyline points="{pts}" fill="none" stroke="{_colour(kw.get("fill"))}" stroke-width="{_n(width)}"/>'
    if name == "text":
        (x, y), text = _points(args[0], dx, dy)[0], _CONTROL.sub("", str(args[1]))
        anchor = kw.get("anchor") or "la"
        size = getattr(kw.get("font"), "size", 11)
        align = _ANCHOR_X.get(anchor[0], "start")
        baseline = _ANCHOR_Y.get(anchor[1:2], "text-before-edge")
        return (
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" fill="{_colour(kw.get("fill"))}" '
            f'text-anchor="{align}" dominant-baseline="{baseline}">{html.escape(text, quote=False)}</text>'
        )
    raise ValueError(f"no SVG for the drawing call {name!r}")


def _raster_element(raster: Raster, dx, dy) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(raster.pixels).save(buf, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    w, h = raster.size
    return f'<image x="{_n(dx)}" y="{_n(dy)}" width="{w}" height="{h}" href="{uri}"/>'


def svg_parts(canvas: Canvas, dx: float = 0, dy: float = 0, memo: dict | None = None) -> list[str]:
    """The canvas as SVG elements in drawing order (pasted canvases flattened
    in at their offsets), one str each.  ``memo`` (a dict the caller keeps
    for a series of frames) writes each drawing call once at each offset:
    the calls frames share (a copied board such as Tryasina's map) cost
    nothing after the first frame."""
    if isinstance(canvas, Raster):
        return [_raster_element(canvas, dx, dy)]
    memo = {} if memo is None else memo
    out = []
    for op in canvas.ops:
        name, args, kwargs = op
        if name == "paste":
            sub, (x, y) = args
            out += svg_parts(sub, dx + x, dy + y, memo)
            continue
        key = (id(op), dx, dy)
        if key not in memo:
            memo[key] = (op, _element(name, args, kwargs, dx, dy))  # (op kept: its id stays its own)
        out.append(memo[key][1])
    return out


def svg_head(size) -> str:
    """The opening ``<svg>`` tag of a picture of ``size`` (inline in a page: no namespace needed)."""
    w, h = size
    return (
        f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'font-family="DejaVu Sans, Verdana, sans-serif">'
    )


def svg_document(canvas: Canvas) -> str:
    """The whole picture as one ``<svg>`` element."""
    return svg_head(canvas.size) + "".join(svg_parts(canvas)) + "</svg>"
