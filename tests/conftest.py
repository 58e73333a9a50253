"""The tests' toy games are registered like a real one (one line each), so
every generic face and the parametrised suites (test_all_envs.py,
test_checkers.py, test_faces.py) reach them by id: the contract race
exercises what the engine contract carries (chance, several decisions a
turn, eliminations, teams, silent passes); tic-tac-toe is the sixth game a
newcomer would add (test_sixth_game.py)."""

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import background
import contract_game
import pytest
import tictactoe_game
from hypothesis import HealthCheck, settings

from boardenvs import register
from boardenvs.registry import registered_ids

# the Ray RLlib tests run where the rllib extra is installed: `make check` runs
# them in their own environment (.venv-rllib: ray pins another gymnasium)
collect_ignore = [] if importlib.util.find_spec("ray") else ["test_rllib.py"]
# the device code compiled to PTX runs where numba-cuda (the cuda extra) is installed: `make check` runs it in
# its own environment (.venv-cuda); everywhere, tests/test_device.py runs the same code in numba's simulator
if not importlib.util.find_spec("numba_cuda"):
    collect_ignore.append("test_device_ptx.py")
# the replay page in headless Chromium runs where Chromium and its driver are found (make browser installs
# them; make check runs it with BOARDENVS_BROWSER=required, where a missing browser is the test's own failure)
BROWSER = all(
    any(shutil.which(n) or shutil.which(n, path="/usr/bin") for n in names)
    for names in (("chromium", "chromium-browser"), ("chromedriver",))
)
if not BROWSER and os.environ.get("BOARDENVS_BROWSER") != "required":
    collect_ignore.append("test_browser_replay.py")
# AgileRL's and BenchMARL's pages run in their own environments (make check-trainers)
collect_ignore += [f"test_{name}.py" for name in ("agilerl", "benchmarl") if not importlib.util.find_spec(name)]

# the first compile of a game says so on stderr (boardenvs/compile_notice.py); silent here and in every
# subprocess the suite starts, so no test's output depends on what numba's cache held when it ran
# (tests/test_startup.py checks the line itself, with the notice on and an empty cache)
os.environ["BOARDENVS_COMPILE_NOTICE"] = "0"

register(contract_game.ContractRaceGame)
register(tictactoe_game.TicTacToeGame)

# hypothesis draws the same examples on every run (derandomize: no unseeded
# draw decides a test), with no time limits (a deadline or the too_slow health
# check would fail a test on a busy machine) and no example database
settings.register_profile(
    "boardenvs", derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("boardenvs")


_TIMELINE: dict = {}  # the controller's: when the warm-up started and ended (pytest_terminal_summary)


def _whole_suite(config) -> bool:
    """Whether this run is the suite, or a folder of it, unfiltered (what
    ``make test`` runs), which the controller of pytest-xdist cannot tell
    from the items: it collects none."""
    tests = Path(__file__).resolve().parent
    paths = [Path(a.split("::")[0]).resolve() for a in config.args]
    return not config.option.keyword and not config.option.markexpr and all(p in (tests, tests.parent) for p in paths)


WARM = "BOARDENVS_TESTS_WARM"  # the warm-up's lanes (names in the background folder), for the workers to wait on


def pytest_sessionstart(session):
    """Under pytest-xdist, in the controller, before the workers start: the
    background checks start (tests/background.py), and tests/warm_cache.py
    compiles what the tests share into numba's cache, in three processes
    that split the games, so that no two workers compile the same game at
    once.  The workers start and collect meanwhile, then wait for the
    warm-up before their first test (pytest_runtestloop)."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) or not _whole_suite(config):
        return
    folder = Path(tempfile.mkdtemp(prefix="boardenvs-tests-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _TIMELINE["start"] = time.time()
    background.start_shared(folder)
    ids = list(registered_ids())
    # (about equal thirds of the compiling, cold: Hex Quoridor's kernels and drivers take the longest)
    lanes = [["hex_quoridor_v1", "tictactoe_v0"], ["quess_v0", "quagmire_v0"]]
    lanes = [[i for i in lane if i in ids] for lane in lanes] + [[i for i in ids if not any(i in ln for ln in lanes)]]
    script = str(Path(__file__).resolve().parent / "warm_cache.py")
    names = []
    for lane in filter(None, lanes):
        names.append(f"warm{len(names)}")
        background.start_locked(folder, names[-1], [sys.executable, script, *lane], {})
    os.environ[WARM] = ",".join(names)
    _TIMELINE["folder"] = folder


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    """A pytest-xdist worker, collected, waits for the warm-up before its
    first test (a failure there is a test's to find: the workers compile
    whatever is missing)."""
    shared, names = os.environ.get(background.SHARED), os.environ.get(WARM)
    if hasattr(session.config, "workerinput") and shared and names:
        for name in names.split(","):
            background.wait(Path(shared), name)
    yield


def pytest_unconfigure(config):
    """The controller's background processes end with the run, even one cut
    short (they run in sessions of their own)."""
    if not hasattr(config, "workerinput"):
        background.stop_started()


def pytest_collection_finish(session):
    """The long subprocess checks of the selected tests start now and run on
    the second core beside the suite (tests/background.py); under
    pytest-xdist the controller started them (pytest_sessionstart)."""
    if not hasattr(session.config, "workerinput"):
        background.start_for([item.nodeid for item in session.items])


def pytest_terminal_summary(terminalreporter):
    """Under pytest-xdist, where the time went (information, never a
    measure a test asserts); one line where the browser test was left out
    for want of a browser."""
    if "folder" in _TIMELINE:
        start, folder = _TIMELINE["start"], _TIMELINE["folder"]
        games = ", ".join(line.strip() for f in sorted(folder.glob("warm*.out")) for line in f.read_text().splitlines())
        ended = [f.stat().st_mtime - start for f in folder.glob("warm*.rc")]
        warm = f"{max(ended):.0f} s" if ended else "not ended"
        rc = folder / "boundscheck.rc"
        probe = f"{rc.stat().st_mtime - start:.0f} s" if rc.exists() else "not ended"
        terminalreporter.write_line(
            f"timeline: numba's cache warmed by {warm} ({games}), while the workers started; "
            f"the bounds-checked probe ended at {probe}; the run ended at {time.time() - start:.0f} s"
        )
    if "test_browser_replay.py" in collect_ignore and _whole_suite(terminalreporter.config):
        terminalreporter.write_line(
            "tests/test_browser_replay.py did not run: no chromium and chromedriver found "
            "(make browser installs them; make check runs it)"
        )
