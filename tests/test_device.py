"""``make_vec(..., device="cuda")``: the same rules on a CUDA device, from the
same kernel source (:mod:`boardenvs.retarget`).

The device face is checked here without a GPU, under numba's CUDA
simulator: ``tests/device_sim.py`` runs in a subprocess with
``NUMBA_ENABLE_CUDASIM=1`` (numba picks the simulator as it starts) and
compares the device's rows with the CPU's step for step, for every
registered id and variant, and replays the golden playthroughs on the
device face; each case below checks its line of that run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from registry_cases import variant_cases

import boardenvs
from boardenvs import device as D

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import playthrough as P  # noqa: E402

CASES = variant_cases()
PLAYTHROUGHS = [c.name for c in P.cases() if not c.dice and c.illegal in (None, "lose")]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """The simulator's run of tests/device_sim.py (one subprocess for the module)."""
    out = tmp_path_factory.mktemp("device") / "sim.json"
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run(
        [sys.executable, str(HERE / "device_sim.py"), str(out)], env=env, capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


def _label(env_id, variant) -> str:
    return f"{env_id}[{'-'.join(f'{k}={v}' for k, v in variant.items()) or 'default'}]"


@pytest.mark.parametrize("env_id, variant", CASES)
def test_the_device_steps_the_cpu_rows(simulated, env_id, variant):
    """C-3, C-6 on the device: the same seeds deal the same games, and every
    step (random, given, illegal under ``lose`` and ``random``, auto-reset
    at the ends) leaves the same rows, observations, masks, rewards, ends
    and flags as the CPU's."""
    assert simulated["rows"][_label(env_id, variant)] == "ok"


@pytest.mark.parametrize("env_id, variant", CASES)
def test_the_device_learner_loop_is_the_cpus(simulated, env_id, variant):
    """The learner loop against random opponents, in the device kernel:
    the same seats drawn, opponents' moves, ends and next episodes as the
    CPU's ``play_learners(..., draw_seats=True)``."""
    assert simulated["learners"][_label(env_id, variant)] == "ok"


@pytest.mark.parametrize("name", PLAYTHROUGHS)
def test_the_device_replays_the_golden_file(simulated, name):
    """The golden playthrough replayed on the device face shows what the
    file says (as ``make_vec`` shows it: decisions, masks, observations,
    rolls drawn inside, the end)."""
    assert simulated["playthroughs"][name] == "ok"


def test_every_case_ran_under_the_simulator(simulated):
    """The run covered every id and variant and every file (no case was dropped)."""
    assert sorted(simulated["rows"]) == sorted(_label(*c.values) for c in CASES)
    assert sorted(simulated["playthroughs"]) == sorted(PLAYTHROUGHS)


@pytest.mark.parametrize(
    "name",
    [
        "raise mode",
        "actions shape",
        "actions dtype",
        "actions text",
        "device actions dtype",
        "python opponent",
        "loop before start",
        "loop after a step",
        "pickle",
        "row index",
    ],
)
def test_the_device_refuses_bad_input_and_changes_nothing(simulated, name):
    """C-6 at the device's boundary: each bad input is a one-line error and
    no row changes."""
    assert simulated["boundaries"][name] == "ok"


def test_without_a_device_the_error_names_the_extra(monkeypatch):
    """No numba-cuda or no driver: one line naming the ``cuda`` extra, installed from a clone or its wheel."""
    from numba import cuda

    monkeypatch.setattr(cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"pip install '\.\[cuda\]' in a clone") as caught:
        boardenvs.make_vec("quess_v0", 4, device="cuda")
    assert "\n" not in str(caught.value)


def test_a_device_is_cpu_or_cuda():
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda'"):
        boardenvs.make_vec("quess_v0", 4, device="tpu")
    vec = boardenvs.make_vec("quess_v0", 2, device="cpu")
    obs, _ = vec.reset(seed=0)
    assert isinstance(obs["observation"], np.ndarray)


def test_the_device_copies_share_one_source():
    """The device copies run the kernels' own code objects (one source):
    the copy of a game's ``apply`` is built from the dispatcher's
    ``py_func.__code__``, over a namespace where the engine's compiled
    helpers are copies too."""
    from boardenvs import engine as E
    from boardenvs.games.quess import rules
    from boardenvs.retarget import for_game

    copies = for_game(rules.KERNELS, lambda fn: fn)  # (the identity compiler: the plain copies)
    apply = copies.function(rules.apply)
    assert apply.__code__ is rules.apply.py_func.__code__
    assert apply.__globals__["E"] is not E and apply.__globals__["E"].rand_u64.__code__ is E.rand_u64.py_func.__code__
    assert D.DEVICES == ("cpu", "cuda")


def test_the_device_benchmark_runs_its_flow_in_the_simulator(tmp_path):
    """benchmarks/gpu.py, the one prepared command for a GPU machine, runs
    end to end (``--smoke``: N = 8, in the simulator) and writes its tables:
    a row per game, the CPU anchor, the PPO update; the simulator's figures
    are marked as such, and nothing is filled in where nothing ran."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    script = HERE.parent / "benchmarks" / "gpu.py"
    done = subprocess.run(
        [sys.executable, str(script), "--smoke", "--out", str(tmp_path)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "gpu_results.json").read_text())
    assert result["device"] == "numba CUDA simulator" and result["smoke"] is True
    games = [r["game"] for r in result["rows"] if r["what"].startswith("boardenvs make_vec(device")]
    assert games == ["quess_v0", "quagmire_v0", "hex_quoridor_v1", "quicksand_v0", "tryasina_v0"]
    assert all(r["steps_per_s"] > 0 for r in result["rows"] if "steps_per_s" in r)
    assert all("steps_per_s" in r or r["note"].startswith("not measured") for r in result["rows"])
    assert result["ppo"]["update_ms"] > 0 and result["ppo"]["no_host_copy"] == "not checked: simulator"
    assert "| boardenvs make_vec(device='cuda') | quess_v0 | 8 |" in (tmp_path / "gpu_results.md").read_text()
