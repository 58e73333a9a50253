"""The HTML replay page in a real browser: headless Chromium from Debian's
packages (``chromium`` and ``chromium-driver``, which ``make browser``
installs where they are missing), driven by selenium (the ``test`` extra).

tests/test_html_replay.py runs the page's script over a stand-in document;
this is what only a browser shows: the page parses as HTML, its script runs
with no error in the browser's log, the SVG frames are laid out and drawn,
the keys the page binds (left / right arrow, Home, End) reach it, its move
list and its ASCII buttons take clicks, and a player name written to break
the page (``<!--<script>``, ``</script>``) leaves it working.

The pages are recorded the way users record them, by the command line
(``boardenvs watch ... --html``, ``boardenvs replay TRACE.jsonl --html``),
and a 325-decision Tryasina game's by ``save_replay_html`` (the issue's
target: at most 3.3 MB, and working in headless Chromium).
Nothing here waits on the clock: each check waits for a condition
(selenium's explicit waits) with a backstop far beyond any machine's load,
and the frame a step shows is compared, element for element, with that
step's frame in the page's data as the browser itself reads it."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from backstop import HANG_S
from boardenvs.wrappers.html_replay import save_replay_html
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from test_html_replay import data_of, frames_of, seeded_moves

from boardenvs.opponents import make_opponent
from boardenvs.traces import play_matches, write_traces

WAIT_S = 120  # a backstop for each condition, never a measure: a step shows within milliseconds
CLI = [sys.executable, "-c", "from boardenvs.cli import main; raise SystemExit(main())"]
HOSTILE = "<!--<script>x</script><script>window.pwned = 1</script><!-- & \u2028"


def _browser_paths() -> tuple[str, str]:
    """Chromium and its driver (Debian's paths, or the first on PATH); a
    failure, not a skip, where they are missing and the file was collected
    (``make check`` installs them first, ``make browser``; the suite's
    conftest leaves this file out, saying so, where no browser is found)."""
    found = []
    for names in (("chromium", "chromium-browser"), ("chromedriver",)):
        path = next((p for n in names if (p := shutil.which(n) or shutil.which(n, path="/usr/bin"))), None)
        if path is None:
            pytest.fail(
                f"{names[0]} is not installed: `make browser` installs it (apt-get install chromium chromium-driver)"
            )
        found.append(path)
    return found[0], found[1]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the module, its console log kept (every
    level), its profile in a fresh folder."""
    chromium, chromedriver = _browser_paths()
    options = Options()
    options.binary_location = chromium
    profile = tmp_path_factory.mktemp("chromium-profile")
    for arg in (
        "--headless=new",
        "--no-sandbox",  # (root in CI: Chromium's sandbox refuses to run as root)
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(WAIT_S)
    driver.set_script_timeout(WAIT_S)
    yield driver
    driver.quit()


def _record(*args, cwd: Path) -> None:
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr


class Page:
    """A replay page open in the browser, and the frames its data holds,
    each as the browser serialises it (so the board's markup compares exactly)."""

    def __init__(self, driver, path: Path):
        self.driver, self.log = driver, []
        self.data = data_of(path.read_text(encoding="utf-8"))
        self.last = len(self.data["steps"]) - 1
        self.drain_log()  # (entries of a page before this one)
        driver.get(path.resolve().as_uri())
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete")
        self.frames = [
            driver.execute_script(
                "var d = document.createElement('div'); d.innerHTML = arguments[0]; return d.innerHTML;", f
            )
            for f in frames_of(self.data)
        ]

    def wait(self, condition, what: str = "the page"):
        return WebDriverWait(self.driver, WAIT_S).until(condition, f"{what} never came")

    def drain_log(self) -> list[dict]:
        self.log += self.driver.get_log("browser")
        return self.log

    def el(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def view(self) -> dict:
        """What the page shows now."""
        return self.driver.execute_script(
            """var items = document.querySelectorAll('#moves li');
            var current = [];
            items.forEach(function (li) {
              if (li.className === 'current') current.push(li.getAttribute('data-step'));
            });
            return {board: document.getElementById('board').innerHTML,
                    svgs: document.querySelectorAll('#board svg').length,
                    counter: document.getElementById('counter').textContent,
                    status: document.getElementById('status').textContent,
                    returns: document.getElementById('returns').textContent,
                    slider: document.getElementById('slider').value,
                    items: items.length, current: current};"""
        )

    def counter(self, k: int) -> str:
        step = self.data["steps"][k]
        return f"step {k} of {self.last} - " + (f"{step['by']}: {step['move']}" if k else "the start")

    def shows(self, k: int) -> dict:
        """Wait until the page shows step ``k`` whole (counter, slider, frame,
        marked move); return the view."""
        self.wait(lambda d: self.view()["counter"] == self.counter(k), f"step {k}")
        v = self.view()
        assert v["slider"] == str(k) and v["board"] == self.frames[k] and v["svgs"] == 1
        assert v["status"] == self.data["steps"][k]["status"]
        assert v["current"] == ([str(k)] if k else [])
        assert v["returns"] == ("returns: " + self.data["returns"] if k == self.last and self.data["returns"] else "")
        return v

    def key(self, key: str) -> None:
        ActionChains(self.driver).send_keys(key).perform()

    def click(self, css: str) -> None:
        self.el(css).click()

    def picture(self) -> np.ndarray:
        """The board as the browser drew it (pixels)."""
        return np.asarray(Image.open(io.BytesIO(self.el("#board").screenshot_as_png)).convert("RGB"))

    def errors(self) -> list[dict]:
        return [e for e in self.drain_log() if e["level"] == "SEVERE"]


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    """A real game, played and recorded by ``boardenvs watch --html``."""
    folder = tmp_path_factory.mktemp("watched")
    _record(
        "watch", "quess_v0", "--players", "random", "greedy", "--seed", "3", "--quiet", "--html", "g.html", cwd=folder
    )
    return folder / "g.html"


def test_the_page_draws_its_first_frame_with_no_error(browser, watched):
    page = Page(browser, watched)
    assert page.data["over"] and page.last > 10
    v = page.shows(0)
    assert v["items"] == page.last  # one entry per decision in the move list
    box = browser.execute_script(
        "var r = document.querySelector('#board svg').getBoundingClientRect(); return [r.width, r.height];"
    )
    assert min(box) > 100, box  # laid out at its size
    drawn = page.picture()
    assert len(np.unique(drawn.reshape(-1, 3), axis=0)) > 3  # drawn: more than a background and a border
    page.key(Keys.END)
    page.shows(page.last)
    assert not np.array_equal(page.picture(), drawn)  # the last position looks different from the first
    assert page.errors() == []


def test_the_buttons_show_their_ascii_labels(browser, watched):
    """Each button draws its own label: the symbols they once had drew as
    identical empty boxes in a headless browser's fonts."""
    page = Page(browser, watched)
    page.shows(0)
    buttons = {b: page.el(f"#{b}") for b in ("first", "prev", "next", "end")}
    assert {b: e.text for b, e in buttons.items()} == {"first": "|<", "prev": "<", "next": ">", "end": ">|"}
    looks = [np.asarray(Image.open(io.BytesIO(e.screenshot_as_png)).convert("RGB")) for e in buttons.values()]
    for i in range(len(looks)):
        for j in range(i):
            assert looks[i].shape != looks[j].shape or not np.array_equal(looks[i], looks[j]), (i, j)
    assert page.errors() == []


def test_the_keys_step_through_the_game(browser, watched):
    page = Page(browser, watched)
    page.shows(0)
    page.key(Keys.ARROW_RIGHT)
    page.shows(1)
    page.key(Keys.ARROW_RIGHT)
    page.shows(2)
    page.key(Keys.ARROW_LEFT)
    page.shows(1)
    page.key(Keys.END)
    page.shows(page.last)
    page.key(Keys.ARROW_RIGHT)  # no step past the end: a step back from there is the one before the last
    page.key(Keys.ARROW_LEFT)
    page.shows(page.last - 1)
    page.key(Keys.HOME)
    page.shows(0)
    page.key(Keys.ARROW_LEFT)  # no step before the start
    page.key(Keys.ARROW_RIGHT)
    page.shows(1)
    assert browser.execute_script("return window.scrollY") == 0  # the keys' own scrolling prevented
    assert page.errors() == []


def test_the_move_list_and_the_buttons_take_clicks(browser, watched):
    page = Page(browser, watched)
    page.shows(0)
    for k in (5, 1, page.last, page.last // 2):  # the last entry is below the list's fold: scrolled to and clicked
        page.click(f"#moves li[data-step='{k}']")
        page.shows(k)
    k = page.last // 2
    page.click("#next")
    page.shows(k + 1)
    page.click("#prev")
    page.click("#prev")
    page.shows(k - 1)
    page.click("#end")
    page.shows(page.last)
    page.click("#next")  # nothing past the end
    page.click("#first")
    page.shows(0)
    page.click("#prev")  # nothing before the start
    page.click("#next")
    page.shows(1)
    assert page.errors() == []


def test_the_log_check_sees_errors(browser, watched):
    """The error checks above are not vacuous: an error the page throws
    reaches the log they read."""
    page = Page(browser, watched)
    page.shows(0)
    browser.execute_script("setTimeout(function () { throw new Error('boardenvs-probe'); }, 0);")
    page.wait(lambda d: any("boardenvs-probe" in e["message"] for e in page.errors()), "the probe's error")


def test_a_hostile_player_name_leaves_the_page_working(browser, tmp_path):
    """A trace whose player is named to end the page's script or comment it
    out (the page was dead) replays to a page that runs: the name shows as
    text, the script it carries never runs, the keys and the list work."""
    agents = [make_opponent("greedy"), make_opponent("random")]
    names = [{"name": HOSTILE, "sha256": None}, {"name": "random", "sha256": None}]
    traces = play_matches("quess_v0", {}, [(0, 1)], [11], agents, np.random.default_rng(11), names=names)
    write_traces(traces, tmp_path / "t.jsonl")
    _record("replay", "t.jsonl", "--html", "hostile.html", cwd=tmp_path)
    page = Page(browser, tmp_path / "hostile.html")
    assert page.data["players"] == [HOSTILE, "random"]
    page.shows(0)
    assert HOSTILE in browser.execute_script("return document.querySelector('small').textContent")  # as text
    assert browser.execute_script("return document.scripts.length") == 2  # the data and the code, nothing injected
    assert browser.execute_script("return window.pwned === undefined")
    page.key(Keys.END)
    page.shows(page.last)
    page.click("#moves li[data-step='3']")
    page.shows(3)
    assert page.errors() == []


def test_a_long_tryasina_game_s_page_works(browser, tmp_path):
    """The issue's target: a 325-decision Tryasina game (its rolls between
    the decisions) makes a page of at most 3.3 MB that works in the browser,
    every frame built from the shared elements as the data says."""
    start, moves, _ = seeded_moves("tryasina_v0", seed=2, decisions=325)
    path = save_replay_html(start, moves, tmp_path / "long.html", players=["me", "random"])
    assert path.stat().st_size <= 3_300_000
    page = Page(browser, path)
    assert page.last == 325
    page.shows(0)
    page.key(Keys.END)
    page.shows(325)
    page.click("#moves li[data-step='200']")
    page.shows(200)
    page.key(Keys.ARROW_LEFT)
    page.shows(199)
    for k in range(199, 150, -1):  # a run of steps back, each frame the data's
        page.shows(k)
        page.click("#prev")
    page.shows(150)
    assert page.errors() == []
