"""numba's threads for ``make_vec``'s threaded drivers.

numba picks its threading layer once per process, when the first threaded
(``parallel=True``) function runs.  On Linux its default is GNU OpenMP, which
is not fork-safe: once it ran, a forked child that runs a threaded driver
hangs or dies, and a ``multiprocessing`` fork pool hangs — every user of SB3's
``SubprocVecEnv`` or a Ray worker would meet that.  So, at import, unless
the user chose a layer (``NUMBA_THREADING_LAYER``, or
``numba.config.THREADING_LAYER`` set before importing boardenvs), we ask
numba for its ``"forksafe"`` layers: TBB first (the pip package ``tbb``, a
dependency where it has wheels; measured as fast as OpenMP here), else
``workqueue`` (fork-safe, but slow on small batches and not thread-safe:
threaded calls then take turns under a lock).  pip puts ``libtbb`` in ``<prefix>/lib``, off the loader's
path, so it is loaded here first and numba then finds it by its soname.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

import numba
from numba import config

_LIBTBB = {"linux": "libtbb.so.12", "darwin": "libtbb.12.dylib", "win32": "tbb12.dll"}.get(sys.platform)


def started_layer() -> str | None:
    """The layer numba launched (``"tbb"``, ``"omp"``, ``"workqueue"``), or
    None before its first threaded run."""
    try:
        return numba.threading_layer()
    except ValueError:
        return None


def _load_tbb() -> str | None:
    """Load libtbb where numba will look for it; its path, or None."""
    if _LIBTBB is None:
        return None
    try:
        ctypes.CDLL(_LIBTBB)  # already on the loader's path (system, conda)
        return _LIBTBB
    except OSError:
        pass
    try:
        from importlib.metadata import PackageNotFoundError, files

        for f in files("tbb") or ():
            if f.name == _LIBTBB:
                path = str(f.locate())
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                return path
    except (PackageNotFoundError, OSError):
        pass
    return None


def _user_chose() -> bool:
    return "NUMBA_THREADING_LAYER" in os.environ or str(config.THREADING_LAYER).lower() != "default"


_TBB = None  # where libtbb was loaded from, if it was


def configure() -> None:
    """Choose the fork-safe layers (see the module docstring); idempotent."""
    global _TBB
    if started_layer() is not None or _user_chose():
        return
    _TBB = _load_tbb()
    config.THREADING_LAYER = "forksafe"


def expected_layer() -> str | None:
    """The layer numba runs or will run, as far as can be told before its
    pool starts (None: the user's choice, not known here)."""
    started = started_layer()
    if started is not None:
        return started
    if str(config.THREADING_LAYER).lower() == "forksafe":
        return "tbb" if _TBB else ("workqueue" if sys.platform.startswith("linux") else None)
    return None


# Rows from which the threaded driver beats the serial one, per layer (measured
# for each layer; workqueue's every call is costly, so it starts late).
PARALLEL_FROM = {"tbb": 128, "omp": 128, "workqueue": 4096}


def parallel_from() -> int:
    return PARALLEL_FROM.get(expected_layer(), 256)


# numba's workqueue layer aborts the process when two Python threads run
# threaded code at once: such calls take turns (TBB and OpenMP need not)
_WORKQUEUE_LOCK = threading.Lock()


@contextlib.contextmanager
def exclusive():
    layer = started_layer()
    if layer == "workqueue" or (layer is None and expected_layer() in ("workqueue", None)):
        with _WORKQUEUE_LOCK:
            yield
    else:
        yield


@contextlib.contextmanager
def limit(num_threads):
    """Run the block with ``num_threads`` numba threads (None: as they are)."""
    if num_threads is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(num_threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


configure()
