"""numba's BLAS probe without importing SciPy's linear algebra.

The first time numba compiles or loads a cached function in a process it
imports its NumPy support (``numba.np.arraymath``), which asks "is a BLAS
there?" by importing ``scipy.linalg.cython_blas`` -- that is, all of
``scipy.linalg`` (0.3 to 0.6 s, about half of boardenvs' warm start-up where
SciPy is installed; the kernels use no BLAS).  Installed at ``import
boardenvs`` (when numba's NumPy support is not loaded yet), this answers that
one question from the files, without the import: SciPy's ``cython_blas``
extension is present and numba's own integer-width check passes.  It then
puts numba's own ``ensure_blas`` back at once, so every later caller -- a
``np.dot`` in someone's kernel, numba's linear algebra -- imports and checks
SciPy as before.  Where numba's internals differ from what this expects, it
does nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def install() -> bool:
    """Answer numba's next BLAS probe from the files; True if installed."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return False  # numba's NumPy support (or SciPy's linalg) is already loaded: nothing to save
    try:
        from numba.np import linalg
    except ImportError:  # pragma: no cover - another numba layout
        return False
    real = getattr(linalg, "ensure_blas", None)
    check_width = getattr(linalg, "_check_lapack_int_width", None)
    if real is None or check_width is None:  # pragma: no cover - another numba layout
        return False

    def probe():
        linalg.ensure_blas = real  # one answer only: later callers get numba's own check
        if not _has_cython_blas():
            raise ImportError("scipy 0.16+ is required for linear algebra")
        check_width()

    linalg.ensure_blas = probe
    return True


def _has_cython_blas() -> bool:
    """Is SciPy's ``scipy/linalg/cython_blas`` extension installed (found
    without importing ``scipy.linalg``)?"""
    try:
        spec = importlib.util.find_spec("scipy")
    except (ImportError, ValueError):
        return False
    for folder in (spec.submodule_search_locations or ()) if spec else ():
        try:
            names = os.listdir(os.path.join(folder, "linalg"))
        except OSError:
            continue
        if any(n.startswith("cython_blas.") and not n.endswith((".pxd", ".pyx", ".pyi")) for n in names):
            return True
    return False
