"""The HTML replay: a recorded game as one self-contained page
(boardenvs.wrappers.html_replay), written by ``record_game(..., "g.html")``,
``Recorder.save`` and ``boardenvs watch / replay --html``.

The page is checked as data (it parses, refers to nothing outside itself, and
its steps are the game's positions and moves, each frame the SVG of the very
drawing calls of the position's picture) and as a program: its script runs in
QuickJS (an embedded JavaScript engine, the ``test`` extra) over a stand-in
document, and the tests press its keys, move its slider and click its moves.
What only a browser shows (the page parsed as HTML, its SVG laid out and
drawn, real key presses and clicks, no error in the browser's log) is
tests/test_browser_replay.py's, in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from html.parser import HTMLParser

import numpy as np
import pytest
import quickjs
from backstop import HANG_S
from boardenvs.wrappers.html_replay import SCHEMA, replay_page, save_replay_html, script_json
from boardenvs.wrappers.recording import Recorder, record_game

import boardenvs
from boardenvs.render import frame_canvas, rgb_frame
from boardenvs.svgpicture import svg_document, to_pil


def seeded_moves(env_id, seed, decisions=10, **options):
    """The start, ``decisions`` seeded random decisions as action ids
    (chance outcomes drawn by their probabilities and listed among them), and
    the position they reach."""
    start = pos = boardenvs.position(env_id, **options)
    rng = np.random.default_rng(seed)
    moves, made = [], 0
    while made < decisions and not (pos.is_terminal or pos.is_truncated):
        if pos.is_chance:
            probs = pos.game.chance_probs(pos.state)
            a = int(rng.choice(len(probs), p=probs))
        else:
            a, made = int(rng.choice(pos.legal_actions())), made + 1
        moves.append(a)
        pos = pos.play(a)
    return start, moves, pos


class _Page(HTMLParser):
    """What the tests read of a page: tags with their attributes, and the scripts' text."""

    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self._in = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in = dict(attrs)
            self.scripts.append([dict(attrs), ""])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self.scripts[-1][1] += data


def parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


def data_of(page: str) -> dict:
    (block,) = [text for attrs, text in parse(page).scripts if attrs.get("id") == "replay-data"]
    return json.loads(block)


def frames_of(data: dict) -> list[str]:
    """Each step's picture, an ``<svg>`` element, decoded from the JSON block
    as the page's script decodes it (a frame keeps a count of the elements
    of the one before, then lists its own)."""
    parts, out, shared = data["picture"]["parts"], [], []
    for step in data["steps"]:
        keep, *own = step["frame"]
        shared = shared[:keep] + own
        out.append(data["picture"]["head"] + "".join(parts[i] for i in shared) + "</svg>")
    return out


def picture(pos, notes=None) -> str:
    """The SVG of ``pos``'s frame, legend included."""
    return svg_document(frame_canvas(pos.game, pos.state, notes))


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("quess_v0", {}),
        ("quagmire_v0", {"radius": 2}),
        ("quicksand_v0", {}),
        ("tryasina_v0", {"num_players": 3}),
        ("hex_quoridor_v1", {"num_players": 3, "radius": 2}),
    ],
)
def test_the_page_holds_the_game_and_nothing_from_outside(env_id, options):
    start, moves, final = seeded_moves(env_id, seed=7, **options)
    page = replay_page(start, moves, players=["me"] + ["random"] * (start.game.num_players - 1))
    tree = parse(page)
    # self-contained: no file, server or network is named (pictures are data: URIs, scripts inline)
    for tag, attrs in tree.tags:
        for key in ("src", "href"):
            assert attrs.get(key) in (None, "") or attrs[key].startswith("data:"), (tag, attrs)
    assert not re.search(r"https?:|ftp:|file:|url\(|@import|fetch\(|XMLHttpRequest|import\(", page), (
        "a reference outside the page"
    )
    data = data_of(page)
    first, k0 = start, 0
    while first.is_chance:  # the rolls before the first decision show in the first picture
        first, k0 = first.play(moves[k0]), k0 + 1
    assert data["format"] == SCHEMA and data["env_id"] == env_id and data["start"] == first.to_text()
    # one step per decision (chance outcomes show in the next picture), each move as the game writes it
    steps = data["steps"]
    pos, k = start, 0
    for move in moves:
        if pos.is_chance:
            pos = pos.play(move)
            continue
        k += 1
        assert (steps[k]["move"], steps[k]["action"], steps[k]["by"]) == (
            pos.action_to_move(move),
            move,
            f"player_{pos.to_move}",
        )
        pos = pos.play(move)
    assert len(steps) == k + 1 and steps[0]["move"] is None
    # the first and last pictures are the positions' pictures, legend included
    notes = {0: "me", **{s: "random" for s in range(1, start.game.num_players)}}
    frames = frames_of(data)
    assert frames[0] == picture(first, notes) and frames[-1] == picture(final, notes)
    assert len(set(frames)) > 1
    assert data["over"] == bool(final.is_terminal or final.is_truncated)


@pytest.fixture(scope="module")
def finished():
    """A whole seeded Quess game, its page."""
    start, moves, final = seeded_moves("quess_v0", seed=3, decisions=500)
    return start, moves, final, replay_page(start, moves)


def test_a_finished_game_ends_with_its_result_and_returns(finished):
    start, moves, final, page = finished
    assert final.is_terminal
    data = data_of(page)
    assert data["over"] and data["steps"][-1]["status"].startswith("game over")
    assert data["returns"] == ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(final.returns))


# --- the page's script, run in QuickJS over a stand-in document -----------------------------------

STAND_IN = r"""
function El(tag) { this.tag = tag; this.listeners = {}; this.children = []; this.attrs = {};
                   this.className = ""; this.textContent = ""; this.innerHTML = "";
                   this.value = ""; this.max = ""; }
El.prototype.addEventListener = function (type, f) { (this.listeners[type] = this.listeners[type] || []).push(f); };
El.prototype.appendChild = function (c) { this.children.push(c); };
El.prototype.setAttribute = function (k, v) { this.attrs[k] = v; };
El.prototype.fire = function (type, e) {
  var ev = e || {}; ev.prevented = false; ev.preventDefault = function () { ev.prevented = true; };
  (this.listeners[type] || []).forEach(function (f) { f(ev); }); return ev.prevented; };
var els = {};
["board", "slider", "status", "counter", "returns", "moves", "prev", "next", "first", "end", "replay-data"].forEach(
  function (id) { els[id] = new El(id); });
var document = new El("document");
document.getElementById = function (id) { return els[id]; };
document.createElement = function (tag) { return new El(tag); };
function view() {
  return JSON.stringify({src: els.board.innerHTML, label: els.board.attrs["aria-label"],
    slider: els.slider.value, max: els.slider.max,
    status: els.status.textContent, counter: els.counter.textContent, returns: els.returns.textContent,
    current: els.moves.children.map(function (li) { return li.className; }).indexOf("current"),
    items: els.moves.children.map(function (li) { return li.textContent; })});
}
"""


class PageScript:
    """The page's own script, run over the stand-in document."""

    def __init__(self, page: str):
        tree = parse(page)
        (code,) = [text for attrs, text in tree.scripts if "type" not in attrs]
        (block,) = [text for attrs, text in tree.scripts if attrs.get("id") == "replay-data"]
        self.js = quickjs.Context()
        self.js.eval(STAND_IN)
        self.js.set("block", block)
        self.js.eval('els["replay-data"].textContent = block;')
        self.js.eval(code)  # the script as the browser runs it: the function, then its call on the document

    def view(self) -> dict:
        return json.loads(self.js.eval("view()"))

    def key(self, name: str) -> bool:
        return self.js.eval(f"document.fire('keydown', {{key: {json.dumps(name)}}})")

    def fire(self, element: str, event: str, **props) -> None:
        if "value" in props:
            self.js.eval(f"els[{json.dumps(element)}].value = {json.dumps(props['value'])};")
        self.js.eval(f"els[{json.dumps(element)}].fire({json.dumps(event)})")

    def click_move(self, k: int) -> None:
        self.js.eval(f"els.moves.children[{k}].fire('click')")


def test_the_script_shows_the_start_then_steps_back_and_forth(finished):
    page = finished[3]
    steps = data_of(page)["steps"]
    last = len(steps) - 1
    for step, svg in zip(steps, frames_of(data_of(page))):
        step["image"] = svg  # what the script must put in the board element at that step
    start, moves, final = finished[:3]
    assert steps[0]["image"] == picture(start) and steps[-1]["image"] == picture(final)
    js = PageScript(page)
    v = js.view()  # it loads and shows the first position
    assert v["label"] == steps[0]["status"]
    assert (v["src"], v["slider"], v["max"], v["status"], v["current"]) == (
        steps[0]["image"],
        "0",
        str(last),
        steps[0]["status"],
        -1,
    )
    assert v["items"] == [f"{s['by']}: {s['move']}" for s in steps[1:]] and v["returns"] == ""
    assert js.key("ArrowRight")  # a step on (the key's default action prevented: the page does not scroll)
    v = js.view()
    assert (v["src"], v["slider"], v["current"]) == (steps[1]["image"], "1", 0) and steps[1]["move"] in v["counter"]
    assert not js.key("a")  # other keys are the browser's
    assert js.view()["slider"] == "1"
    js.key("End")  # the last position, with the returns
    v = js.view()
    assert (v["src"], v["slider"], v["current"]) == (steps[last]["image"], str(last), last - 1)
    assert v["status"].startswith("game over") and v["returns"] == "returns: " + data_of(page)["returns"]
    js.key("ArrowRight")  # no step past the end
    assert js.view()["slider"] == str(last)
    js.fire("slider", "input", value="2")  # the slider
    v = js.view()
    assert (v["src"], v["slider"], v["current"], v["returns"]) == (steps[2]["image"], "2", 1, "")
    js.click_move(4)  # a move in the list: the position after it
    assert (js.view()["src"], js.view()["slider"]) == (steps[5]["image"], "5")
    js.fire("prev", "click")
    assert js.view()["slider"] == "4"
    js.key("Home")
    js.key("ArrowLeft")  # no step before the start
    assert (js.view()["src"], js.view()["slider"]) == (steps[0]["image"], "0")
    js.fire("end", "click")
    assert js.view()["slider"] == str(last)
    js.fire("slider", "input", value="x")  # a value that is no step shows the start
    assert js.view()["slider"] == "0"


@pytest.mark.parametrize(
    "name",
    ["</script><b>x", "<!--<script>", "<!--<script>\u2028</script>-->", "a & b > c", "\u2029\ud800 lone"],
)
def test_moves_that_hold_markup_stay_text(name):
    """A game's data cannot end the page's JSON block early, open a comment
    in it that swallows the page's own script (``<!--<script>``: the page
    was dead), or inject markup: whatever a name holds stays text, the
    script runs, and the data reads back the very strings."""
    start, moves, _ = seeded_moves("quess_v0", seed=1, decisions=3)
    page = replay_page(start, moves, players=[name, "random"], title="<i>t</i>")
    assert "<i>t</i>" not in page and "&lt;i&gt;t&lt;/i&gt;" in page
    tree = parse(page)
    (block,) = [text for attrs, text in tree.scripts if attrs.get("id") == "replay-data"]
    assert not re.search(r"[<>&\u2028\u2029]", block) and block.isascii()  # nothing the HTML parser reads
    assert len(tree.scripts) == 2  # the data and the code, nothing more, nothing swallowed
    data = data_of(page)
    assert data["players"] == [name, "random"]
    js = PageScript(page)
    assert js.view()["slider"] == "0" and js.key("End") and js.view()["slider"] == str(len(data["steps"]) - 1)
    assert json.loads(script_json({"s": name})) == {"s": name}


def test_the_controls_are_ascii():
    """The buttons' labels are plain ASCII, which every font draws (symbols
    such as U+23EE drew as empty boxes in a headless browser's fonts)."""
    start, moves, _ = seeded_moves("quess_v0", seed=1, decisions=3)
    page = replay_page(start, moves)
    buttons = re.findall(r"<button[^>]*>(.*?)</button>", page)
    assert len(buttons) == 4 and all(label.isascii() and label.strip() for label in buttons)
    assert page.isascii()


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("quess_v0", {}),
        ("quagmire_v0", {}),
        ("quicksand_v0", {}),
        ("tryasina_v0", {"num_players": 4}),
        ("hex_quoridor_v1", {"num_players": 4}),
    ],
)
def test_the_recorded_frames_are_the_raster_pictures(env_id, options):
    """A page's frame is the SVG of the very drawing calls of the position's
    picture: played back onto a Pillow image they make the pixels of
    ``rgb_frame`` exactly, so the recording misses no call."""
    start, moves, final = seeded_moves(env_id, seed=4, decisions=12, **options)
    notes = {0: "a name far too long for the legend " * 20}
    for pos in (start, final):
        canvas = frame_canvas(pos.game, pos.state, notes)
        assert np.array_equal(np.asarray(to_pil(canvas)), rgb_frame(pos.game, pos.state, notes))
        svg = svg_document(canvas)
        assert svg.startswith("<svg") and svg.endswith("</svg>") and "<image" not in svg  # no picture embedded


def test_a_long_tryasina_game_makes_a_small_page():
    """A 325-decision Tryasina game: at most 10 KB a decision (3.3 MB in all),
    where a PNG a frame made 9.8 MB."""
    start, moves, final = seeded_moves("tryasina_v0", seed=2, decisions=325)
    page = replay_page(start, moves, players=["me", "random"])
    decisions = len(data_of(page)["steps"]) - 1
    assert decisions == 325
    size = len(page.encode("utf-8"))
    assert size <= 10_000 * decisions <= 3_300_000, size
    assert frames_of(data_of(page))[-1] == picture(final, {0: "me", 1: "random"})


def test_long_player_names_cost_linear_time():
    """A player name of 5,000 or 200,000 characters is drawn cut to the
    legend's width with a few measurements, not one per character cut (a
    5,000-character name took over 30 s).  CPU time of this process, so
    load from others does not count."""
    start, moves, _ = seeded_moves("quess_v0", seed=1, decisions=20)
    for length in (5_000, 200_000):
        name = ("x" * 9 + " ") * (length // 10)
        begun = time.process_time()
        page = replay_page(start, moves, players=[name, "random"])
        assert time.process_time() - begun < 20.0, length
        assert data_of(page)["players"][0] == name
    legend = [p for p in data_of(page)["picture"]["parts"] if "xxxxxxxxx" in p]
    assert legend and all(len(p) < 400 and "...</text>" in p for p in legend)


# --- where pages are written from ------------------------------------------------------------------


def test_the_recorder_writes_the_page_of_the_game_it_saw(tmp_path):
    """``Recorder.save("x.html")`` on a live AEC env, chance resolved inside
    it (Tryasina's rolls show in the next picture): a step per decision, each
    the decision the agent sent and a position it leads to, each picture the
    recorder's frame."""
    env = Recorder(boardenvs.make("tryasina_v0", num_players=2))
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in env.agent_iter(max_iter=16):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    data = data_of(env.save(tmp_path / "live.html").read_text(encoding="utf-8"))
    steps, frames = data["steps"], frames_of(data)
    assert len(steps) == len(env.steps) == len(env.frames) > 10
    for k, ((before, _), (after, decision)) in enumerate(zip(env.steps, env.steps[1:]), start=1):
        by, move, action = decision
        assert (steps[k]["by"], steps[k]["move"], steps[k]["action"]) == decision
        assert by == f"player_{before.to_move}" and move == before.action_to_move(action)
        played = before.play(action)
        rolls = [played.play(r) for r in range(played.game.num_chance_outcomes)] if played.is_chance else [played]
        assert after in rolls
        canvas = frame_canvas(after.game, after.state)
        assert frames[k] == svg_document(canvas)  # the page draws the position the recorder saw
        assert np.array_equal(np.asarray(to_pil(canvas)), env.frames[k])  # whose picture is the recorder's frame
    path = record_game("quess_v0", seeded_moves("quess_v0", seed=2, decisions=4)[1], tmp_path / "moves.html")
    assert len(data_of(path.read_text(encoding="utf-8"))["steps"]) == 5


def test_bad_paths_are_refused_before_anything_is_drawn(tmp_path):
    with pytest.raises(ValueError, match=r"\.html"):
        save_replay_html("quess_v0", [], tmp_path / "game.txt")
    (tmp_path / "d.html").mkdir()
    with pytest.raises(ValueError, match="folder"):
        save_replay_html("quess_v0", [], tmp_path / "d.html")
    with pytest.raises(ValueError, match="no/such"):
        save_replay_html("quess_v0", [], tmp_path / "no" / "such" / "g.html")
    with pytest.raises(boardenvs.errors.IllegalMoveError):  # a move that is not legal: C-6, and no file
        save_replay_html("quess_v0", ["A1-A1"], tmp_path / "g.html")
    assert [p.name for p in tmp_path.iterdir()] == ["d.html"]


def test_the_command_line_writes_a_page_from_watch_and_replay(tmp_path):
    cli = [sys.executable, "-c", "from boardenvs.cli import main; raise SystemExit(main())"]
    done = subprocess.run(
        [
            *cli,
            "watch",
            "quess_v0",
            "--players",
            "random",
            "greedy",
            "--seed",
            "3",
            "--quiet",
            "--save",
            "g.json",
            "--html",
            "watched.html",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    watched = data_of((tmp_path / "watched.html").read_text(encoding="utf-8"))
    assert watched["players"] == ["random", "greedy"] and watched["over"]
    done = subprocess.run(
        [*cli, "replay", "g.json", "--html", "replayed.html"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    replayed = data_of((tmp_path / "replayed.html").read_text(encoding="utf-8"))
    assert [s["move"] for s in replayed["steps"]] == [s["move"] for s in watched["steps"]]
    done = subprocess.run(
        [*cli, "watch", "quess_v0", "--html", "w.png"], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode != 0 and "--html" in done.stderr and ".html" in done.stderr
