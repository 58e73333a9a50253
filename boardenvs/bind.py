"""Binding a game's kernels into compiled code: one way, for every driver.

The compiled loops over rows (``make_vec``'s drivers in
:mod:`boardenvs._drivers`; the reference opponents' in ``boardenvs.baselines``)
are written once, for any game: each takes, as its first argument, a
:class:`Bound` -- a game's kernels as a value -- and calls the kernels
through it::

    from boardenvs.bind import apply, legal

    @njit(cache=True)
    def play(g, state, params, action, mask):
        apply(g, state, params, action)
        legal(g, state, params, mask)

    play(bound(game.kernels), state, game.params, action, mask)

numba types each ``Bound`` as a type of its own, ``Bound[<key>]`` (an empty
struct: nothing is passed at run time), so ``play`` is compiled once per
game, with that game's kernels linked in and optimised together with it as
if it had called them by name, and cached on disk by numba's own cache
(``cache=True``; it follows ``NUMBA_CACHE_DIR``) under that type: nothing
else is written anywhere.  The key names the kernels (module and name) and
hashes the sources of what the compiled code links: the kernels' own
package (an edited game gets new compiled code: numba's cache alone checks
a driver's own file), the engine's files (:data:`ENGINE_FILES`) and the
modules of any extra functions bound with them; nothing else, so editing
the command line or a face recompiles nothing.

Kernels that no import reaches (defined in a function or in ``__main__``)
get a key of their own in this process, and :func:`uncached` copies of the
drivers for them (numba would otherwise write entries no later process can
use).  With ``NUMBA_DISABLE_JIT=1`` the calls below call the kernels
directly: the same code runs as plain Python.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import types as pytypes
import uuid
from pathlib import Path

import numpy as np
from numba import config, njit
from numba.core import cgutils, types
from numba.core.imputils import lower_constant
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from . import engine as E

_KERNELS: dict = {}  # key -> the Kernels (or extra functions) it names, for the compiler


class Bound:
    """A game's kernels (a :class:`boardenvs.engine.Kernels`, plus any extra
    compiled functions a driver calls through :func:`extra`) as a value that
    compiled code is specialised on (see the module docstring).  Build it
    with :func:`bound`."""

    __slots__ = ("key", "kernels", "extras", "cached", "opponent", "_numba_type_")

    def __init__(self, key: str, kernels, extras: tuple = (), cached: bool = True, opponent: bool = False):
        self.key, self.kernels, self.extras, self.cached, self.opponent = key, kernels, tuple(extras), cached, opponent
        _KERNELS.setdefault(key, (kernels, self.extras, opponent))
        # numba reads the type here (a call from Python types it far faster than through typeof_impl)
        self._numba_type_ = BoundType(key)

    def __repr__(self) -> str:
        return f"<Bound {self.key}>"

    def __reduce__(self):  # a copy or a pickle binds the same kernels again
        return bound, (self.kernels, self.extras, self.opponent)


class BoundType(types.Type):
    """The numba type of a :class:`Bound`: one per key."""

    def __init__(self, key: str):
        self.bound_key = key
        super().__init__(name=f"Bound[{key}]")


@typeof_impl.register(Bound)
def _typeof_bound(value, context):
    return value._numba_type_  # (the Bound registered its kernels for the compiler when it was made)


@register_model(BoundType)
class _BoundModel(models.StructModel):
    """No members: a ``Bound`` argument adds no parameter to compiled code
    (so a driver compiled for one is called by address without it,
    :mod:`boardenvs._threaded`)."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [])


@unbox(BoundType)
def _unbox_bound(typ, obj, c):
    return NativeValue(cgutils.get_null_value(c.context.get_value_type(typ)))


@lower_constant(BoundType)
def _constant_bound(context, builder, ty, pyval):
    """A ``Bound`` a compiled closure captures (it holds nothing at run time)."""
    return cgutils.get_null_value(context.get_value_type(ty))


_BOUND: dict = {}  # id(kernels), extras -> Bound (the kernels kept alive with it)
# the files of this package whose compiled code a Bound's drivers link (the kernels' helpers, the calls, the drivers)
ENGINE_FILES = ("engine.py", "intrinsics.py", "bind.py", "_drivers.py")


def bound(kernels, extras: tuple = (), opponent: bool = False, modules: tuple = ()) -> Bound:
    """The :class:`Bound` of ``kernels`` (and ``extras``: more compiled
    functions, e.g. greedy's heuristic), one per process.  With
    ``opponent``, the last extra is an opponent's compiled decision
    ``decide(g, state, params, mask) -> action``, which the engine's learner
    loop plays for the other seats (:func:`opponent_action`; without one
    they play uniformly random legal actions).  ``modules``: more modules
    whose files the key hashes, those holding compiled functions that drivers
    bound with this call in other files (the guided search calls greedy's):
    numba's own cache checks a driver's file only."""
    extras = tuple(extras)
    if opponent and not extras:
        raise ValueError("bound(..., opponent=True) needs the opponent's decision as the last extra")
    slot = (id(kernels), tuple(id(f) for f in extras), bool(opponent), tuple(modules))
    found = _BOUND.get(slot)
    if found is None or found.kernels is not kernels:
        refs = [_importable(fn) for fn in (*kernels, *extras)]
        cached = all(refs)
        if cached:
            names = ",".join(f"{m}:{n}" for m, n in refs) + (" +opponent" if opponent else "")
            digest = _sources(
                [m for m, _ in refs[: len(kernels)]], [m for m, _ in refs[len(kernels) :]] + list(modules)
            )
            key = f"{refs[1][0]}.{hashlib.sha1((names + digest).encode()).hexdigest()[:16]}"
        else:
            # this process only, never the same twice: no later process can load what it compiled
            key = f"unimported.{uuid.uuid4().hex}"
        found = _BOUND[slot] = Bound(key, kernels, extras, cached, bool(opponent))
    return found


def _importable(fn):
    """``(module, name)`` of a module-level kernel that importing by name
    gives back, else None."""
    py = getattr(fn, "py_func", fn)
    module, name = getattr(py, "__module__", None), getattr(py, "__qualname__", "")
    if not module or module == "__main__" or not name.isidentifier():
        return None
    return (module, name) if getattr(sys.modules.get(module), name, None) is fn else None


def package_dir(module: str):
    """The folder of ``module``'s file (imported if it is not yet), whose
    sources a key hashes."""
    if module not in sys.modules:
        importlib.import_module(module)
    path = getattr(sys.modules.get(module), "__file__", None)
    return Path(path).parent if path else None


def key_files(kernel_modules, modules) -> list:
    """The files a key hashes: every source of the kernels' packages (of a
    kernel that is one of ``boardenvs``' own functions, its file alone), the
    engine's files (:data:`ENGINE_FILES`) and the files of ``modules``."""
    files, here = set(), package_dir(__name__)
    for m in set(kernel_modules):
        folder = package_dir(m)
        if folder == here:  # an engine function serving as a kernel (engine.no_chance_probs): its file only
            files.add(folder / Path(sys.modules[m].__file__).name)
        elif folder is not None:
            files |= set(folder.glob("*.py"))
    files |= {here / name for name in ENGINE_FILES}
    for m in modules:
        folder = package_dir(m)
        if folder is not None:
            files.add(folder / Path(sys.modules[m].__file__).name)
    return sorted(files)


def _sources(kernel_modules, modules) -> str:
    """A digest of the files of :func:`key_files`."""
    digest = hashlib.sha1()
    for f in key_files(kernel_modules, modules):
        digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()


def uncached(module) -> pytypes.SimpleNamespace:
    """The compiled functions of ``module`` (its ``COMPILED`` names, each a
    plain function there) compiled without numba's cache, for kernels no
    import reaches: each function is rebuilt over a namespace of its own, so
    the functions they call are the uncached copies too."""
    space = dict(vars(module))
    out = {}
    for name in module.COMPILED:
        fn = getattr(module, name)
        py = getattr(fn, "py_func", fn)
        copy = pytypes.FunctionType(py.__code__, space, py.__name__, py.__defaults__, py.__closure__)
        if hasattr(fn, "py_func"):  # the same compiler options (parallel, inline), without the cache
            options = {k: v for k, v in fn.targetoptions.items() if k != "nopython"}  # (njit sets it)
            copy = njit(**options, cache=False)(copy)
        out[name] = space[name] = copy
    return pytypes.SimpleNamespace(**out)


_UNCACHED: dict = {}  # module name -> its uncached copies


def compiled_for(module, g):
    """``module``'s compiled functions for ``g``: the module itself (cached
    by numba), or, for kernels no import reaches, its :func:`uncached`
    copies (made once per process)."""
    if g.cached or config.DISABLE_JIT:  # (without the JIT the functions are plain Python)
        return module
    if module.__name__ not in _UNCACHED:
        _UNCACHED[module.__name__] = uncached(module)
    return _UNCACHED[module.__name__]


# --- the calls: the game's kernels through its Bound ---------------------------------------------------------------


def init(g, state, params, first_seat):
    g.kernels.init(state, params, first_seat)


def legal(g, state, params, mask):
    return g.kernels.legal(state, params, mask)


def apply(g, state, params, action):
    g.kernels.apply(state, params, action)


def observe(g, state, params, seat, obs):
    g.kernels.observe(state, params, seat, obs)


def chance_probs(g, state, params, probs):
    g.kernels.chance_probs(state, params, probs)


def call_extra(g, k, *args):
    """Call the ``k``-th extra function bound with the kernels (``k`` a
    constant): ``call_extra(g, 0, state, params, seat, mask)``."""
    return g.extras[k](*args)


def opponent_action(g, state, params, mask):
    """The action the other seats play in the engine's learner loop: the
    bound opponent's decision (``bound(..., opponent=True)``), else
    ``RANDOM_ACTION`` (a uniformly random legal action, drawn by the step
    from the row's generator)."""
    if g.opponent:
        return g.extras[-1](g, state, params, mask)
    return -2  # engine.RANDOM_ACTION


def _kernel(g, index):
    return _KERNELS[g.bound_key][0][index]


@overload(init)
def _init(g, state, params, first_seat):
    fn = _kernel(g, 0)
    return lambda g, state, params, first_seat: fn(state, params, first_seat)


@overload(legal)
def _legal(g, state, params, mask):
    fn = _kernel(g, 1)
    return lambda g, state, params, mask: fn(state, params, mask)


@overload(apply)
def _apply(g, state, params, action):
    fn = _kernel(g, 2)
    return lambda g, state, params, action: fn(state, params, action)


@overload(observe)
def _observe(g, state, params, seat, obs):
    fn = _kernel(g, 3)
    return lambda g, state, params, seat, obs: fn(state, params, seat, obs)


@overload(chance_probs)
def _chance_probs(g, state, params, probs):
    fn = _kernel(g, 4)
    return lambda g, state, params, probs: fn(state, params, probs)


@overload(call_extra, prefer_literal=True)
def _call_extra(g, k, *args):
    if not isinstance(k, types.IntegerLiteral):
        return None
    fn = _KERNELS[g.bound_key][1][k.literal_value]
    return lambda g, k, *args: fn(*args)


@overload(opponent_action)
def _opponent_action(g, state, params, mask):
    _, extras, opponent = _KERNELS[g.bound_key]
    if not opponent:
        return lambda g, state, params, mask: np.int64(-2)  # engine.RANDOM_ACTION
    decide = extras[-1]
    return lambda g, state, params, mask: np.int64(decide(g, state, params, mask))


@njit(cache=True, inline="always")
def settle_chance(g, s, params, probs):
    """Roll the chance nodes of row ``s`` by the seeded die (each outcome
    drawn by its probability from the row's own generator,
    :func:`boardenvs.engine.sample_probs`) until a seat is to act or the game
    is over; ``probs``: a float64 scratch of the outcomes' size.  The die
    ``make_vec``, the AEC env and every face roll, for planners' compiled
    code to roll too (MCTS, the guided search)."""
    while s[E.H_STATUS] == E.PLAYING and s[E.H_CURRENT] == E.CHANCE:
        chance_probs(g, s, params, probs)
        apply(g, s, params, E.sample_probs(s, probs))
