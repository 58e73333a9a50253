"""Start-up: ``import boardenvs`` registers every id without
importing any game module; a game loads (and its kernels load from numba's
cache) when it is first made; numba's BLAS probe does not import
scipy.linalg, and numba's own check is back in place afterwards.  Each check
runs in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop

import boardenvs
from boardenvs.catalog import GAMES
from boardenvs.registry import LazyGame, game_class, gym_id_of


def _fresh(code: str, env: dict | None = None, cwd=None, said: list | None = None) -> dict:
    """Run ``code`` in a new interpreter (in folder ``cwd``); it prints one
    JSON object.  ``said`` gets the package's lines on stderr."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=HANG_S, env=env, cwd=cwd
    )
    assert out.returncode == 0, out.stderr
    if said is not None:
        said += [line for line in out.stderr.splitlines() if line.startswith("boardenvs:")]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_registers_every_id_and_loads_no_game():
    got = _fresh(
        """
        import json, sys
        import gymnasium
        import boardenvs
        loaded = sorted(m for m in sys.modules if m.startswith("boardenvs.games."))
        heavy = sorted(m for m in ("pygame", "PIL", "torch", "stable_baselines3", "scipy.linalg") if m in sys.modules)
        ids = list(boardenvs.ENV_IDS)
        gym_ids = [i for i in gymnasium.registry if i.startswith("boardenvs/")]
        modules = [hasattr(getattr(boardenvs, i), "env") for i in ids]
        print(json.dumps({"loaded": loaded, "heavy": heavy, "ids": ids, "gym_ids": gym_ids, "modules": modules}))
        """
    )
    assert got["loaded"] == [] and got["heavy"] == []
    assert got["ids"] == [g.env_id for g in GAMES] and all(got["modules"])
    assert sorted(got["gym_ids"]) == sorted(gym_id_of(g) for g in GAMES)


def test_making_one_game_loads_that_game_only_with_its_kernels_from_the_cache():
    code = """
        import json, sys
        import boardenvs
        env = boardenvs.make("quagmire_v0")
        env.reset(seed=0)
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
        game = env.unwrapped.game
        one = game.one_row()  # the engine's step and settle on one row (legal and apply linked in)
        used = [game.kernels.init, game.kernels.observe, one.step.func, one.settle.func]
        loaded = sorted(m for m in sys.modules if m.startswith("boardenvs.games."))
        stats = [(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())) for k in used]
        print(json.dumps({"loaded": loaded, "stats": stats, "scipy_linalg": "scipy.linalg" in sys.modules}))
        """
    _fresh(code)  # compiles into numba's cache if this checkout has not yet
    got = _fresh(code)
    assert got["loaded"] == [
        "boardenvs.games.quagmire",
        "boardenvs.games.quagmire.picture",
        "boardenvs.games.quagmire.rules",
        "boardenvs.games.quagmire.text",
    ]
    assert got["stats"] == [[1, 0]] * 4  # each kernel and the engine's step loaded from the cache, none compiled
    assert not got["scipy_linalg"]  # numba's BLAS probe answered without importing it


def test_numbas_blas_probe_answers_as_numba_would_and_hands_back_its_check():
    got = _fresh(
        """
        import json, sys
        import boardenvs
        boardenvs.make("quess_v0").reset(seed=0)  # numba loads its NumPy support here
        import numba, numpy as np
        from numba.np import arraymath, linalg
        deferred = "scipy.linalg" not in sys.modules
        answer = arraymath._HAVE_BLAS
        own = linalg.ensure_blas.__qualname__ == "ensure_blas"
        try:
            arraymath._check_blas.__globals__["ensure_blas"] = linalg.ensure_blas
            real = arraymath._check_blas()  # numba's own probe, importing SciPy
        except Exception as exc:
            real = repr(exc)

        @numba.njit
        def dot(a, b):
            return np.dot(a, b)

        try:  # numba's own behaviour: compiles with SciPy, refuses clearly without it
            value = float(dot(np.arange(3.0), np.arange(3.0)))
        except Exception as exc:
            value = repr(exc)
        print(json.dumps({"deferred": deferred, "answer": answer, "real": real, "own": own, "dot": value}))
        """
    )
    assert got["answer"] == got["real"] and got["own"]
    try:
        import scipy.linalg  # noqa: F401

        have_scipy = True
    except ImportError:
        have_scipy = False
    if have_scipy:  # np.dot compiles as numba would without the probe
        assert got["dot"] == 5.0 and got["deferred"]
    else:  # no SciPy (make test installs none): numba's own refusal, not the probe's
        assert got["real"] is False and "scipy" in str(got["dot"]).lower()


@pytest.mark.parametrize("entry", GAMES, ids=lambda g: g.env_id)
def test_each_catalog_line_matches_its_class(entry):
    assert isinstance(entry, LazyGame)
    cls = entry.load()
    assert cls.env_id == entry.env_id and gym_id_of(cls) == gym_id_of(entry)
    assert game_class(entry.env_id) is cls
    assert getattr(boardenvs, entry.env_id).GAME is cls
    assert getattr(boardenvs, entry.env_id).__doc__ == cls.__doc__


def test_a_catalog_line_that_disagrees_with_its_class_fails_when_it_loads():
    wrong = LazyGame("quess_v1", "Quess", "boardenvs.games.quess:QuessGame")
    with pytest.raises(ValueError, match="quess_v1"):
        wrong.load()


def test_make_vec_drivers_load_from_the_cache_in_a_new_interpreter(tmp_path):
    """make_vec's serial drivers (``boardenvs/_drivers.py``, one module for
    every game, each driver taking the game's kernels as a ``Bound``) are
    compiled once per game into numba's own cache, and a second interpreter
    loads them from there instead of compiling; nothing is written but
    numba's cache (no copy of the drivers anywhere).  The threaded ones are
    one set for every game (``boardenvs/_threaded.py``): a second game
    compiles nothing for threads, and they load from the cache too.

    The first compile of each game says so, in one line on stderr naming
    the game and that it happens once (boardenvs/compile_notice.py, with
    the notice on as users have it: the suite silences it elsewhere); the
    second interpreter, loading from the cache, says nothing."""
    code = """
        import json, os, sys
        import boardenvs
        from boardenvs._threaded import run_chunks
        from boardenvs.vector import drivers_for
        threaded = []
        for env_id in ("quagmire_v0", "quess_v0"):
            for parallel in (False, True):
                v = boardenvs.make_vec(env_id, num_envs=40, parallel=parallel)
                v.reset(seed=0)
                v.step(v.random_actions())
            threaded.append(len(run_chunks.overloads))
        b = drivers_for(v.game.kernels)
        used = [b.serial.step.func, b.serial.reset.func, run_chunks]
        stats = [(sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())) for d in used]
        print(json.dumps({"stats": stats, "module": b.serial.step.func.py_func.__module__,
                          "step_overloads": len(b.serial.step.func.overloads), "threaded_overloads": threaded}))
        """
    import os

    home = tmp_path / "home"
    home.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if k != "BOARDENVS_COMPILE_NOTICE"},
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    said_first, said_second = [], []
    first = _fresh(code, env, said=said_first)
    second = _fresh(code, env, said=said_second)
    assert [line.split()[2] for line in said_first] == ["quagmire_v0", "quess_v0"], said_first
    assert all(line.startswith("boardenvs: compiling ") and "once" in line for line in said_first), said_first
    assert said_second == []  # loaded from the cache: quiet
    assert first["module"] == second["module"] == "boardenvs._drivers"
    assert first["step_overloads"] == 2  # quagmire's and quess's: one driver, specialised per game
    kinds = first["threaded_overloads"][0]  # the threaded runner's types: one per kind of driver used
    assert kinds >= 2 and first["threaded_overloads"] == [kinds, kinds]  # quagmire's served quess's
    serial, threaded = first["stats"][:2], first["stats"][2]
    assert all(hits == 0 and misses == 2 for hits, misses in serial)  # compiled for each game the first time...
    assert sum(threaded) == kinds  # (the threaded runner once per kind, for quagmire)
    # ...all loaded the second time (numba's own counters: deterministic, where the two runs' times
    # would depend on the machine's load)
    assert second["stats"] == [[2, 0], [2, 0], [kinds, 0]], second
    assert not any(home.rglob("*")), sorted(home.rglob("*"))  # nothing written under the home folder


def test_a_changed_game_file_gets_new_drivers_and_unimportable_kernels_still_run(tmp_path, monkeypatch):
    """A game's key hashes its package's files (numba's cache alone would
    keep drivers compiled against an older kernel); kernels defined where
    no import reaches them get drivers compiled in the process, uncached."""
    from boardenvs import bind
    from boardenvs import engine as E
    from boardenvs._drivers import batched

    game = boardenvs.make_game("quagmire_v0", radius=2)
    k = game.kernels
    key = lambda kernels: (bind._BOUND.clear(), bind.bound(kernels).key)[1]  # noqa: E731
    before = key(k)
    assert key(k) == before  # the same files, the same key
    package = tmp_path / "package"  # the game's folder, as a copy we can edit
    package.mkdir()
    for f in bind.package_dir(k.legal.py_func.__module__).glob("*.py"):
        (package / f.name).write_bytes(f.read_bytes())
    real = bind.package_dir
    monkeypatch.setattr(
        bind, "package_dir", lambda module: package if module.startswith("boardenvs.games.") else real(module)
    )
    copied = key(k)
    assert key(k) == copied
    (package / "rules.py").write_text((package / "rules.py").read_text() + "\n# edited\n")
    assert key(k) != copied
    monkeypatch.undo()
    bind._BOUND.clear()
    inner = k.legal

    @E.njit
    def legal_here(state, params, mask):  # defined in a function: no import reaches it
        return inner(state, params, mask)

    local = k._replace(legal=legal_here)
    drivers = batched(local)
    assert bind._importable(local.legal) is None and bind._importable(k.legal) == (
        "boardenvs.games.quagmire.rules",
        "legal",
    )
    assert not bind.bound(local).cached and bind.bound(k).cached
    step = drivers.serial.reset.func
    assert step is not batched(k).serial.reset.func and step._cache.__class__.__name__ == "NullCache"
    states = np.zeros((3, game.info.state_size), np.int64)
    obs = np.zeros((3, game.info.obs_size), np.int8)
    masks = np.zeros((3, game.info.mask_size), np.int8)
    out = np.zeros((3, game.num_actions), np.int8)
    probs = np.zeros((3, max(1, game.info.num_chance_outcomes)), np.float64)
    from boardenvs import _parts

    part = _parts.ResetPart(states, probs, masks, np.arange(1, 4, dtype=np.int64), obs, out, np.zeros(3, np.int64))
    drivers.serial.reset(_parts.Engine(states, probs, masks), part, game.params, (0, 0, 0, 0))
    assert (out.sum(axis=1) > 0).all()


def test_a_read_only_install_still_imports_and_steps_with_one_warning(tmp_path):
    """Where numba can write its cache nowhere (a read-only
    site-packages and home; simulated by leaving numba only the locator of
    NUMBA_CACHE_DIR, unset), ``import boardenvs`` points numba's cache at a
    folder of the process's own, says so once, and every face works; the
    folder is gone after the process.  (Checked by hand with read-only bind
    mounts of the package and the home folder: the same warning, and the
    same games.)"""
    import os

    code = """
        import json, warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import boardenvs
            from numba.core import config
            env = boardenvs.make("quagmire_v0")
            env.reset(seed=0)
            vec = boardenvs.make_vec("quagmire_v0", num_envs=4)
            vec.reset(seed=0)
            vec.step(vec.random_actions())
        said = [str(w.message) for w in caught if "numba can write its cache" in str(w.message)]
        print(json.dumps({"said": said, "folder": config.CACHE_DIR}))
        """
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["NUMBA_CACHE_LOCATOR_CLASSES"] = "UserProvidedCacheLocator"  # no folder numba may write to
    got = _fresh(code, env)
    assert len(got["said"]) == 1 and got["folder"] in got["said"][0] and "NUMBA_CACHE_DIR" in got["said"][0]
    assert got["folder"] and not os.path.exists(got["folder"])  # this process's own, removed at exit
    plain = _fresh(code)  # where numba can write (this checkout): nothing said, numba's own folders
    assert plain["said"] == [] and plain["folder"] == os.environ.get("NUMBA_CACHE_DIR", "")


def test_the_reference_opponents_key_covers_their_own_package(tmp_path, monkeypatch):
    """The guided search's drivers call greedy's (another file): numba's
    cache checks only a driver's own file, so greedy's Bound hashes the
    baselines' sources too, and an edit there gives the search new code."""
    from boardenvs.baselines import greedy

    from boardenvs import bind

    cls = boardenvs.game_class("quagmire_v0")
    real = bind.package_dir
    folder = tmp_path / "baselines"
    folder.mkdir()
    for f in real("boardenvs.baselines.greedy").glob("*.py"):
        (folder / f.name).write_bytes(f.read_bytes())
    monkeypatch.setattr(bind, "package_dir", lambda m: folder if m.startswith("boardenvs.baselines") else real(m))

    def key():
        bind._BOUND.clear()
        greedy._BOUND.clear()
        return greedy.bound_for(cls).key

    before = key()
    (folder / "greedy.py").write_text((folder / "greedy.py").read_text() + "\n# edited\n")
    assert key() != before
    monkeypatch.undo()
    bind._BOUND.clear()
    greedy._BOUND.clear()


def test_editing_a_file_outside_the_engine_recompiles_nothing(tmp_path):
    """A Bound's key hashes the kernels' package and the engine's files
    (``bind.ENGINE_FILES``) only, so editing the command line (``cli.py``)
    leaves every compiled driver in numba's cache: in a copy of the package,
    a process after the edit loads each driver it uses and compiles nothing
    (numba's own cache counters: hits, no misses).  Checked by hand: before
    the binding key left out the files of ``boardenvs`` beside the engine's,
    the same test showed the drivers compiled again."""
    import os
    import shutil

    from boardenvs import bind

    repo = bind.package_dir("boardenvs")
    site = tmp_path / "site"
    skip = shutil.ignore_patterns("__pycache__", "*.pt", "*.zip", "ladders", "models")
    shutil.copytree(repo, site / "boardenvs", ignore=skip)
    for sub in ("wrappers", "baselines"):
        folder = bind.package_dir(f"boardenvs.{sub}")
        shutil.copytree(folder, site / "boardenvs" / sub, ignore=skip, dirs_exist_ok=True)
    code = """
        import json
        import boardenvs
        from boardenvs.vector import drivers_for
        vec = boardenvs.make_vec("quagmire_v0", num_envs=8, radius=2)
        vec.reset(seed=0)
        vec.step(vec.random_actions())
        b = drivers_for(vec.game.kernels)
        used = [b.serial.reset.func, b.serial.step.func, vec.game.kernels.legal, vec.game.kernels.apply]
        stats = [(sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())) for d in used]
        print(json.dumps({"stats": stats, "file": boardenvs.__file__}))
        """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(site)}
    first = _fresh(code, env, cwd=tmp_path)  # (not this checkout's folder: python -c puts it first on the path)
    assert first["file"] == str(site / "boardenvs" / "__init__.py")  # the copy, not this checkout
    assert all(misses >= 1 for _, misses in first["stats"][:2])  # the drivers compiled for the copy
    cli = site / "boardenvs" / "cli.py"
    cli.write_text(cli.read_text() + "\n# edited\n")
    after = _fresh(code, env, cwd=tmp_path)
    drivers, kernels = after["stats"][:2], after["stats"][2:]
    assert all(hits >= 1 and misses == 0 for hits, misses in drivers), after["stats"]  # loaded, not compiled
    assert all(misses == 0 for _, misses in kernels), after["stats"]  # (inside the loaded drivers: not even loaded)
