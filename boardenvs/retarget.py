"""One source, two targets: the kernels and the engine's per-row step,
compiled for the CPU as written (``@njit``) and for a CUDA device from the
same Python source.

A numba ``@njit`` dispatcher cannot be called from CUDA device code, and under
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, which runs device code
as plain Python) it cannot take the simulator's arrays either.  So the
device gets, for every compiled function the step reaches, a *copy* built
from the dispatcher's Python function (``py_func``: its code object, the
same source) over a namespace of its own, in which every compiled function
it calls is the device copy too, then compiled by the device's compiler
(``numba.cuda.jit(device=True)``, lazily, at the first launch):

* a function's globals are its module's namespace, copied once per target
  and game into a fresh module object (:class:`Retarget` keeps one per
  source module), every ``@njit`` dispatcher in it replaced by its device
  copy and every module that holds compiled functions (``engine as E``)
  by that module's copy, so ``E.rand_u64`` resolves to the device copy;
* the calls through a game's :class:`boardenvs.bind.Bound`
  (``apply(g, ...)``, ``legal(g, ...)``, ...) are replaced by per-game
  functions that call the game's device kernels directly (``g`` is an
  unused integer on the device: a ``Bound`` is a CPU compile-time value);
* plain functions with an ``@overload`` or an ``@intrinsic`` (the engine's
  ``row_view``, ``popcount``) are kept: numba's overloads are registered
  for every target, and under the simulator their plain-Python bodies run.

Nothing in a game or in the engine is written twice or marked for the
device; the CPU's compiled code is unchanged (the same dispatchers, cached
as before).  ``docs/architecture.md`` ("One source, two targets") says where
this sits in the engine.
"""

from __future__ import annotations

import types as pytypes

import numpy as np
from numba.core.dispatcher import Dispatcher

from . import bind


def _holds_compiled(module) -> bool:
    """Whether ``module``'s namespace holds ``@njit`` functions: the modules
    whose copies the device code reads (numpy, numba and the like hold none)."""
    return any(isinstance(v, Dispatcher) for v in vars(module).values())


class Retarget:
    """The device copies of one game's compiled code, for one compiler
    (``device``: a decorator making a device function of a plain Python
    function).  ``replace``: objects (by identity) that become something
    else in every copied namespace (the :mod:`boardenvs.bind` calls)."""

    def __init__(self, device, replace: dict):
        self.device = device
        self.replace = {id(k): v for k, v in replace.items()}
        self._keep = list(replace)  # (the keys stay alive while their ids are used)
        self.modules: dict = {}  # source module name -> its copy
        self.functions: dict = {}  # id(dispatcher) -> its device copy

    def function(self, fn):
        """The device copy of the ``@njit`` function ``fn``."""
        found = self.functions.get(id(fn))
        if found is not None:
            return found
        py = fn.py_func
        space = self.namespace(py.__globals__)
        closure = None
        if py.__closure__:
            closure = tuple(pytypes.CellType(self.value(c.cell_contents)) for c in py.__closure__)
        copy = pytypes.FunctionType(py.__code__, space, py.__name__, py.__defaults__, closure)
        copy.__qualname__, copy.__module__ = py.__qualname__, py.__module__
        found = self.functions[id(fn)] = self.device(copy)
        return found

    def namespace(self, source: dict) -> dict:
        """The copy of a module namespace: a new module's ``__dict__`` (so a
        module that reads another as ``E.name`` sees its copy filled in as
        it grows, cycles included)."""
        name = source.get("__name__", "?")
        module = self.modules.get(name)
        if module is None:
            module = self.modules[name] = pytypes.ModuleType(name)
            space = module.__dict__
            space.update(source)
            for key, value in source.items():
                space[key] = self.value(value)
        return module.__dict__

    def module(self, module):
        self.namespace(vars(module))
        return self.modules[module.__name__]

    def value(self, value):
        """What ``value`` (a global of copied code) is in the copies."""
        swapped = self.replace.get(id(value))
        if swapped is not None:
            return swapped
        if isinstance(value, Dispatcher):
            return self.function(value)
        if isinstance(value, pytypes.ModuleType) and _holds_compiled(value):
            return self.module(value)
        return value


# --- the bind calls, per game: the device kernels called directly ----------------------------------------------------


def _init(g, state, params, first_seat):
    _k(state, params, first_seat)  # noqa: F821 (_k: the game's device kernel, in this copy's globals)


def _legal(g, state, params, mask):
    return _k(state, params, mask)  # noqa: F821


def _apply(g, state, params, action):
    _k(state, params, action)  # noqa: F821


def _observe(g, state, params, seat, obs):
    _k(state, params, seat, obs)  # noqa: F821


def _chance_probs(g, state, params, probs):
    _k(state, params, probs)  # noqa: F821


def _random_opponent(g, state, params, mask):
    return np.int64(-2)  # engine.RANDOM_ACTION: the step draws a uniformly random legal action


def for_game(kernels, device, replace: dict | None = None) -> Retarget:
    """The device copies of a game's compiled code (its
    :class:`~boardenvs.engine.Kernels` and the engine's code the step
    reaches), ``device`` the device compiler: :func:`boardenvs.bind`'s
    calls become direct calls of the game's device kernels, the learner
    loop's opponent the random one.  ``replace``: more objects that become
    something else for this compiler (:func:`device_intrinsics`)."""
    replace = dict(replace or {})
    plain = Retarget(device, replace)
    calls = {}
    for name, template, kernel in (
        ("init", _init, kernels.init),
        ("legal", _legal, kernels.legal),
        ("apply", _apply, kernels.apply),
        ("observe", _observe, kernels.observe),
        ("chance_probs", _chance_probs, kernels.chance_probs),
    ):
        space = {"_k": plain.function(kernel), "np": np}
        calls[getattr(bind, name)] = device(pytypes.FunctionType(template.__code__, space, name))
    calls[bind.opponent_action] = device(pytypes.FunctionType(_random_opponent.__code__, {"np": np}, "opponent"))
    out = Retarget(device, {**replace, **calls})
    out.functions.update(plain.functions)  # (the kernels, and what they call, are the same copies)
    out.modules.update(plain.modules)
    return out


def device_intrinsics() -> dict:
    """What the CUDA compiler takes in place of the engine's borrowed views
    (``row_view``, ``no_mask``) and scratch memory (``scratch``): their
    intrinsics, called directly.  A CUDA
    device function may return no array but one it was passed, so the
    overloads' one-line functions that return the view are refused there;
    the intrinsic is code generated in place.  (Not for the simulator,
    which runs the plain-Python ``row_view``.)"""
    from . import intrinsics as I

    return {I.row_view: I._row_view_ir, I.no_mask: I._no_mask_ir, I.scratch: I._scratch_ir}
