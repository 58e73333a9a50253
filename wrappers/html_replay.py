"""A recorded game as one self-contained web page: step through it in a
browser, back and forth.

:func:`replay_page` (the HTML as a str) and :func:`save_replay_html` (a
file), from a start (an env id with options, or a Position) and the moves
played (notation, whole turns, or action ids); ``record_game(..., "g.html")``,
``Recorder.save("g.html")`` and the command line's ``--html`` (``boardenvs
watch`` / ``replay``) write the same page.

The page needs no server and no network.  Its pictures are drawn by the
page itself from the game's own drawing (the pictures of
``boardenvs/render.py`` kept as SVG elements by
:mod:`boardenvs.svgpicture`): the elements every frame shares are written
once, and each decision adds the few that changed, so a page costs well
under 10 KB a decision (a 325-decision Tryasina game 217 KB).  The
game's data is one JSON block that cannot end or comment out its own script
element (every ``<``, ``>`` and ``&`` in it is written ``\\u003c`` and so
on, as are U+2028 and U+2029), and a few lines of JavaScript show one step
at a time:

* a slider over the steps, buttons (their labels plain ASCII, which every
  font has), and the keys left / right arrow (a step), ``Home`` / ``End``
  (the start, the end);
* the move list in notation, grouped by turn, with who played each; a click
  on a move shows the position after it, and the current one is marked;
* under the picture, who is to act (or the result) and, at the end, every
  seat's return.

The script is one function, ``boardenvsReplay(document, data)``, that reads
and writes nothing but the elements it is handed: the tests run it in an
embedded JavaScript engine over a stand-in document, and open the page in
headless Chromium to press its keys and click its moves and buttons.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .. import engine as E
from ..files import output_path, write_atomically
from ..render import frame_canvas, player_notes, result_text, turn_status
from ..svgpicture import svg_head, svg_parts

SCHEMA = "boardenvs-replay/2"  # the JSON block's "format"

# the page's behaviour, kept apart from its data: boardenvsReplay(document, data) -> the controller
SCRIPT = r"""
function boardenvsReplay(doc, data) {
  var steps = data.steps, last = steps.length - 1, at = 0;
  var img = doc.getElementById("board"), slider = doc.getElementById("slider");
  var status = doc.getElementById("status"), counter = doc.getElementById("counter");
  var returns = doc.getElementById("returns"), moves = doc.getElementById("moves");
  var items = [], parts = data.picture.parts, frames = [], shared = [];
  for (var f = 0; f <= last; f++) {  // a frame: how many elements it keeps of the one before, then its own
    var fr = steps[f].frame;
    shared = shared.slice(0, fr[0]).concat(fr.slice(1));
    frames.push(shared);
  }
  function picture(i) {
    var out = [data.picture.head], ids = frames[i];
    for (var j = 0; j < ids.length; j++) out.push(parts[ids[j]]);
    out.push("</svg>");
    return out.join("");
  }
  slider.max = String(last);
  for (var k = 1; k <= last; k++) {
    var li = doc.createElement("li");
    li.textContent = steps[k].by + ": " + steps[k].move;
    li.setAttribute("data-step", String(k));
    li.addEventListener("click", (function (j) { return function () { show(j); }; })(k));
    moves.appendChild(li);
    items.push(li);
  }
  function show(i) {
    i = Math.max(0, Math.min(last, Math.floor(Number(i)) || 0));
    at = i;
    var s = steps[i];
    img.innerHTML = picture(i);
    img.setAttribute("aria-label", s.status);
    slider.value = String(i);
    status.textContent = s.status;
    counter.textContent = "step " + i + " of " + last +
      (i > 0 ? " - " + s.by + ": " + s.move : " - the start");
    returns.textContent = (i === last && data.returns) ? "returns: " + data.returns : "";
    for (var k = 0; k < items.length; k++) {
      items[k].className = (k + 1 === i) ? "current" : "";
    }
    return at;
  }
  function key(name) {
    if (name === "ArrowRight") return show(at + 1);
    if (name === "ArrowLeft") return show(at - 1);
    if (name === "Home") return show(0);
    if (name === "End") return show(last);
    return at;
  }
  slider.addEventListener("input", function () { show(slider.value); });
  doc.getElementById("prev").addEventListener("click", function () { key("ArrowLeft"); });
  doc.getElementById("next").addEventListener("click", function () { key("ArrowRight"); });
  doc.getElementById("first").addEventListener("click", function () { key("Home"); });
  doc.getElementById("end").addEventListener("click", function () { key("End"); });
  doc.addEventListener("keydown", function (e) {
    if (["ArrowRight", "ArrowLeft", "Home", "End"].indexOf(e.key) >= 0) { key(e.key); e.preventDefault(); }
  });
  show(0);
  return {show: show, key: key, at: function () { return at; }, steps: last + 1};
}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="boardenvs {version}">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1em; color: #222; }}
main {{ display: flex; gap: 1.5em; align-items: flex-start; flex-wrap: wrap; }}
#board {{ display: inline-block; border: 1px solid #ccc; line-height: 0; }}
#board svg {{ max-width: 100%; height: auto; }}
#controls {{ margin: .5em 0; display: flex; gap: .3em; align-items: center; }}
#slider {{ flex: 1; min-width: 12em; }}
#moves {{ max-height: 80vh; overflow-y: auto; padding-left: 2.5em; margin: 0; }}
#moves li {{ cursor: pointer; font-family: ui-monospace, monospace; }}
#moves li.current {{ background: #ffe08a; }}
#status {{ font-weight: 600; }}
small {{ color: #666; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p><small>{subtitle}</small></p>
<main>
<section>
<div id="board" role="img" aria-label=""></div>
<div id="controls">
<button id="first" title="the start (Home)" aria-label="the start">|&lt;</button>
<button id="prev" title="a step back (left arrow)" aria-label="a step back">&lt;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<button id="next" title="a step on (right arrow)" aria-label="a step on">&gt;</button>
<button id="end" title="the end (End)" aria-label="the end">&gt;|</button>
</div>
<div id="counter"></div>
<div id="status"></div>
<div id="returns"></div>
</section>
<section>
<h2>Moves</h2>
<ol id="moves"></ol>
</section>
</main>
<script type="application/json" id="replay-data">{data}</script>
<script>{script}
boardenvsReplay(document, JSON.parse(document.getElementById("replay-data").textContent));
</script>
</body>
</html>
"""


def script_json(data) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: every
    ``<``, ``>`` and ``&`` (only ever inside strings) written as a
    ``\\uXXXX`` escape, and everything beyond ASCII too (U+2028 and U+2029
    among it, and lone surrogates), so that no string, whatever it holds
    (``</script>``, ``<!--<script>``), can end the element, open a comment
    in it or change how it parses; ``JSON.parse`` reads back the very
    strings."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class _Frames:
    """The SVG elements of a page's frames, each distinct element once
    (``parts``), and each frame as the count of elements it keeps from the
    frame before followed by the ids of its other elements."""

    def __init__(self):
        self.parts, self._ids, self._memo, self._before = [], {}, {}, []
        self.head = None

    def add(self, canvas) -> list:
        head = svg_head(canvas.size)
        if self.head is None:
            self.head = head
        elif head != self.head:  # pragma: no cover - a configured game draws one size
            raise RuntimeError("the frames of one game differ in size")
        ids = []
        for part in svg_parts(canvas, memo=self._memo):
            if part not in self._ids:
                self._ids[part] = len(self.parts)
                self.parts.append(part)
            ids.append(self._ids[part])
        keep = 0
        for a, b in zip(self._before, ids):
            if a != b:
                break
            keep += 1
        self._before = ids
        return [keep, *ids[keep:]]


def _ascii_html(text: str) -> str:
    """``text`` as HTML text in ASCII: markup escaped, everything else as
    character references (a lone surrogate from a trace's name included, so
    the page always writes as UTF-8)."""
    return html.escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _status(pos) -> str:
    game, state = pos.game, pos.state
    return result_text(game, state) if state[E.H_STATUS] != E.PLAYING else turn_status(game, state)


def steps_page(steps, *, players=None, title: str | None = None) -> str:
    """The page of ``steps`` (:func:`boardenvs.records.replay_decisions`'
    form: the first position, then each position with the decision that led
    to it).  The JSON block's
    ``start`` is the first step's position text (after any roll before the
    first decision), from which its moves replay."""
    from ..versions import version

    first, final = steps[0][0], steps[-1][0]
    game = first.game
    notes = player_notes(game, players)
    rows, frames = [], _Frames()
    for pos, decision in steps:
        by, move, action = decision or (None, None, None)
        rows.append(
            {
                "move": move,
                "action": action,
                "by": by,
                "turn": int(pos.turn),
                "status": _status(pos),
                "frame": frames.add(frame_canvas(game, pos.state, notes)),
            }
        )
    over = bool(final.state[E.H_STATUS] != E.PLAYING)
    returns = ", ".join(f"{game.seat_name(s)} {r:+g}" for s, r in enumerate(final.returns)) if over else ""
    data = {
        "format": SCHEMA,
        "env_id": game.env_id,
        "options": dict(game.options),
        "players": players,
        "start": first.to_text(),
        "steps": rows,
        "picture": {"head": frames.head, "parts": frames.parts},
        "returns": returns,
        "over": over,
    }
    title = title or f"{game.title} ({game.env_id})"
    who = ", ".join(f"{game.seat_name(s)}: {p}" for s, p in enumerate(players)) if players else ""
    subtitle = f"{len(rows) - 1} decisions" + (f"; {who}" if who else "") + ("; " + rows[-1]["status"] if over else "")
    blob = script_json(data)  # nothing in it can end or comment out its <script> element
    return _PAGE.format(
        version=version("boardenvs") or "",
        title=_ascii_html(title),
        subtitle=_ascii_html(subtitle),
        data=blob,
        script=SCRIPT,
    )


def replay_page(start, moves, *, players=None, title: str | None = None) -> str:
    """The page (a str) of the game of ``moves`` from Position ``start``."""
    from ..records import replay_decisions

    return steps_page(replay_decisions(start, moves), players=players, title=title)


def write_page(page: str, path) -> Path:
    """Write a page (:func:`steps_page`) to ``path`` (``.html``), whole or not at all."""
    path = output_path(path, "replay page", (".html", ".htm"))
    write_atomically(path, lambda tmp: Path(tmp).write_text(page, encoding="utf-8"), "replay page")
    return path


def save_replay_html(game, moves, path, *, players=None, title: str | None = None, **options) -> Path:
    """Write the page of the game of ``moves`` from the start of ``game`` (an
    env id, with ``options``, or a Position) to ``path`` (``.html``), whole
    or not at all; a path that cannot be written is a ValueError before
    anything is drawn."""
    from ..api import position
    from ..position import Position

    output_path(path, "replay page", (".html", ".htm"))
    start = game if isinstance(game, Position) else position(game, **options)
    return write_page(replay_page(start, moves, players=players, title=title), path)
