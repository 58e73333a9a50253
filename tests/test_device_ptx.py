"""The device code compiles for a real GPU: every game's grid functions
(:func:`boardenvs.device.launch_sources`: the per-row reset, step, random
draw and learner loop over the device copies of its kernels) compiled to
PTX for an H100/H200 (compute capability 9.0) by numba-cuda's CUDA target
and NVVM, from the pip wheels of the ``cuda`` extra, on a machine with no
GPU.  The simulator (tests/test_device.py) runs the same copies as Python;
this checks that the CUDA compiler takes them: no allocation, no array
returned from a device function, only intrinsics it knows.

``make check`` runs this file in its own environment, ``.venv-cuda``
(``pip install -e '.[test,cuda]'``); tests/conftest.py leaves it out where
numba-cuda is not installed."""

from __future__ import annotations

import types

import numba
import numpy as np
import pytest
from numba import cuda
from numba.core import types as nt

from boardenvs import device as D
from boardenvs.registry import make_game, registered_ids

CC = (9, 0)  # H100 / H200


@pytest.fixture(autouse=True, scope="module")
def no_device_needed():
    """numba-cuda asks the current device for its compute capability when it
    compiles a device function called from a kernel; there is none here,
    so it is told the one the PTX is for."""
    import numba.cuda.dispatcher as dispatcher

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=CC)
    yield
    dispatcher.get_current_device = saved


@pytest.mark.parametrize("env_id", registered_ids())
def test_every_launch_compiles_to_ptx(env_id):
    game = make_game(env_id)
    rows = D.allocate(game, 2, np.zeros)
    buffers = {**{k: rows for k in ("reset", "step", "draw")}, "agent": D.allocate_loop(game, 2, np.zeros, rows)}
    for name, fn in D.launch_sources(game.kernels, cuda, intrinsics=True).items():
        signature = (
            nt.int64,
            numba.typeof(D.part(name, buffers[name])),
            numba.typeof(np.ascontiguousarray(game.params)),
            nt.UniTuple(nt.int64, 4),
        )
        ptx, _ = cuda.compile_ptx(fn, signature, cc=CC)
        assert f".target sm_{CC[0]}{CC[1]}" in ptx and ".entry" in ptx, f"{env_id} {name}: no kernel entry"
