"""Where numba caches this package's compiled code, checked once at import.

Every kernel and driver is compiled with ``cache=True``: numba writes its
cache beside the sources (``__pycache__``), or under ``$NUMBA_CACHE_DIR``, or
under the user's cache folder.  Where none of these can be written (a
read-only site-packages and home, a locked-down container), numba refuses
to define a cached function at all, and ``import boardenvs`` would fail.
Then this module points numba's cache at a folder of this process's own
(a temporary folder, removed at exit) and says so once: everything works,
compiled for this process only.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import warnings

from numba.core import caching, config


def _probe():
    """A function in this package's folder, for numba's cache locators."""


def ensure() -> str | None:
    """Make numba able to cache this package's functions; returns the
    temporary folder it was pointed at, or None when it needed none."""
    try:
        caching.FunctionCache(_probe)
        return None
    except RuntimeError:
        pass
    folder = tempfile.mkdtemp(prefix="boardenvs-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    config.CACHE_DIR = folder
    warnings.warn(
        "boardenvs: numba can write its cache neither beside the package nor under the home folder "
        f"(nor NUMBA_CACHE_DIR); compiling for this process only, into {folder} (removed at exit). "
        "Set NUMBA_CACHE_DIR to a writable folder to keep compiled code between processes.",
        RuntimeWarning,
        stacklevel=3,
    )
    return folder
