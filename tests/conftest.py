"""The tests' toy games are registered like a real one (one line each), so
every generic face and the parametrised suites (test_all_envs.py,
test_checkers.py, test_faces.py) reach them by id: the contract race
exercises what the engine contract carries (chance, several decisions a
turn, eliminations, teams, silent passes); tic-tac-toe is the sixth game a
newcomer would add (test_sixth_game.py)."""

import importlib.util

import background
import contract_game
import tictactoe_game
from hypothesis import HealthCheck, settings

from boardenvs import register

# the Ray RLlib tests run where the rllib extra is installed: `make test` runs
# them in their own environment (.venv-rllib: ray pins another gymnasium)
collect_ignore = [] if importlib.util.find_spec("ray") else ["test_rllib.py"]
# the device code compiled to PTX runs where numba-cuda (the cuda extra) is installed: `make test` runs it in
# its own environment (.venv-cuda); everywhere, tests/test_device.py runs the same code in numba's simulator
if not importlib.util.find_spec("numba_cuda"):
    collect_ignore.append("test_device_ptx.py")
# AgileRL's and BenchMARL's pages run in their own environments (make check-trainers)
collect_ignore += [f"test_{name}.py" for name in ("agilerl", "benchmarl") if not importlib.util.find_spec(name)]

register(contract_game.ContractRaceGame)
register(tictactoe_game.TicTacToeGame)

# hypothesis draws the same examples on every run (derandomize: no unseeded
# draw decides a test), with no time limits (a deadline or the too_slow health
# check would fail a test on a busy machine) and no example database
settings.register_profile(
    "boardenvs", derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("boardenvs")


def pytest_collection_finish(session):
    """The long subprocess checks of the selected tests start now and run on
    the second core beside the suite (tests/background.py)."""
    background.start_for([item.nodeid for item in session.items])
