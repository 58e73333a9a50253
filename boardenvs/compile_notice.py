"""One line on stderr when a game's kernels are compiled on this machine.

The first use of a game compiles its kernels and the drivers bound to them
(seconds, silently otherwise); numba caches the result on disk, so later
processes load it and this says nothing.  The line names the game and that
this happens once: a first run that is silent for seconds reads as a hang.

numba announces every compile it does (and none it loads from its cache)
as a ``"numba:compile"`` event (``numba.core.event``, its event API); the
listener here maps the compiled function to its game by the function's
module, or by the :class:`boardenvs.bind.Bound` it was specialised on, and
speaks once per game and process.  ``BOARDENVS_COMPILE_NOTICE=0`` silences
it (the test suite does, so no test's output depends on the cache's state).
"""

from __future__ import annotations

import os
import sys

from numba.core import event

_SAID: set = set()


def _game_of(data) -> str | None:
    from .registry import env_id_of_module

    module = getattr(getattr(data.get("dispatcher"), "py_func", None), "__module__", None)
    # a driver specialised on a game's Bound (boardenvs.bind) names it by the key's module
    modules = [module] + [a.bound_key.rpartition(".")[0] for a in data.get("args") or () if hasattr(a, "bound_key")]
    return next((found for m in modules if m and (found := env_id_of_module(m))), None)


class _FirstCompile(event.Listener):
    def on_start(self, ev) -> None:
        if os.environ.get("BOARDENVS_COMPILE_NOTICE", "1") == "0":
            return
        env_id = _game_of(ev.data or {})
        if env_id is not None and env_id not in _SAID:
            _SAID.add(env_id)
            print(
                f"boardenvs: compiling {env_id} for this machine, once: numba caches it, "
                "and later processes load it in a moment",
                file=sys.stderr,
                flush=True,
            )

    def on_end(self, ev) -> None:
        pass


_LISTENER: list = []


def install() -> None:
    """Listen for compiles (once per process)."""
    if not _LISTENER:
        _LISTENER.append(_FirstCompile())
        event.register("numba:compile", _LISTENER[0])
