"""The core knows nothing above it, even by name:

* no core module names a module of the layers above in a string (the
  gymnasium ids are registered by ``boardenvs.wrappers.registration``
  through ``registry.on_register``; the opponents' plugins are found by
  their entry points, group ``boardenvs.opponents``);
* no generic module branches on a game's name (what differs between games
  comes from their declarations, e.g. chance nodes);
* the tools' settings (training, bench, docs picture, greedy's heuristic,
  the chess clock's decided draws) are no attributes of the core ``Game``:
  each game's module holds them in ``TOOLS``, each tool reads and checks
  its own;
* the packaging finds every package (no hand-kept list): the wheel holds
  every module of the repository's boardenvs/, wrappers/ and baselines/,
  and the plugins' entry points.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import boardenvs
from boardenvs.game import Game
from boardenvs.registry import game_class, registered_ids, tool_settings

REPO = Path(__file__).resolve().parent.parent
# a string that imports (a module path, or gymnasium's "module:attribute") of a layer above the core
UPPER = re.compile(r"\s*boardenvs\.(wrappers|baselines|rllib|cli|interactive)(\.\w+)*(:[\w.]+)?\s*")


def _code_strings(path: Path):
    """``(line, text)`` of every string constant in ``path`` but docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def _core_files():
    core = []
    for f in sorted((REPO / "boardenvs").rglob("*.py")):
        rel = f.relative_to(REPO / "boardenvs")
        if rel.parts[0] in ("cli.py", "commands.py", "interactive.py", "rllib", "__main__.py", "__init__.py"):
            continue  # the command line, the RLlib integration, the package's entry
        core.append(f)
    return core


def test_the_core_names_no_layer_above_it_even_by_string():
    files = _core_files()
    assert len(files) > 30 and REPO / "boardenvs" / "opponents.py" in files and REPO / "boardenvs" / "api.py" in files
    found = [
        f"{f.relative_to(REPO)}:{line}: {text!r}"
        for f in files
        for line, text in _code_strings(f)
        if UPPER.fullmatch(text)
    ]
    assert not found, f"the core names modules above it: {found}"


def test_the_string_check_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""boardenvs.wrappers in a docstring is fine."""\nVIEW = "boardenvs.wrappers.single_agent:X"\n'
        'PLUGINS = ("boardenvs.baselines", "boardenvs.rllib")\nHELP = "see python -m boardenvs.baselines.train"\n'
    )
    found = [t for _, t in _code_strings(probe) if UPPER.fullmatch(t)]
    assert found == ["boardenvs.wrappers.single_agent:X", "boardenvs.baselines", "boardenvs.rllib"]


def _names_a_game(text: str) -> bool:
    names = set()
    for env_id in boardenvs.ENV_IDS:
        cls = game_class(env_id)
        names |= {env_id, env_id.rpartition("_v")[0], cls.title.lower(), cls.title.lower().replace(" ", "_")}
    return any(n in text.lower() for n in names)


def _game_branches(path: Path) -> list:
    """Comparisons and ``startswith`` / ``endswith`` tests against a string that names a game."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        consts = []
        if isinstance(node, ast.Compare):
            consts = [c for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)]
            for c in [node.left, *node.comparators]:
                if isinstance(c, (ast.Tuple, ast.List, ast.Set)):
                    consts += [e for e in c.elts if isinstance(e, ast.Constant)]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
        ):
            for a in node.args:
                consts += (
                    [a]
                    if isinstance(a, ast.Constant)
                    else [e for e in getattr(a, "elts", []) if isinstance(e, ast.Constant)]
                )
        found += [
            f"{path.name}:{c.lineno}: {c.value!r}"
            for c in consts
            if isinstance(c.value, str) and _names_a_game(c.value)
        ]
    return found


def test_no_generic_module_branches_on_a_game():
    files = [
        *_core_files(),
        *(REPO / "wrappers").glob("*.py"),
        *(REPO / "baselines").glob("*.py"),
        REPO / "boardenvs" / "cli.py",
        *(REPO / "boardenvs" / "rllib").glob("*.py"),
    ]
    files = [f for f in files if "games" not in f.relative_to(REPO).parts and f.name != "catalog.py"]
    found = [b for f in files for b in _game_branches(f)]
    assert not found, f"generic code that branches on a game's name: {found}"


def test_the_branch_check_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        'def f(env_id):\n    return env_id.startswith("tryasina") or env_id == "quess_v0" or env_id in ("x",)\n'
    )
    assert len(_game_branches(probe)) == 2


@pytest.mark.parametrize("name", ["training", "bench", "doc_picture", "heuristic", "clock_decided_reasons"])
def test_the_core_game_holds_no_tool_settings(name):
    assert not hasattr(Game, name)
    assert not any(hasattr(game_class(env_id), name) for env_id in registered_ids())


def _bench_hints():
    if "bench_hints_module" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_hints_module", REPO / "benchmarks" / "lib" / "hints.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
    return sys.modules["bench_hints_module"]


@pytest.mark.parametrize("env_id", registered_ids())
def test_every_game_s_tool_settings_are_what_each_tool_takes(env_id):
    """Each tool reads and checks its own settings of every registered game."""
    from boardenvs.baselines.greedy import heuristic_of
    from boardenvs.baselines.networks import trainable_ids, training_defaults

    from boardenvs.cards import doc_picture
    from boardenvs.clock import decided_reasons

    tools = getattr(sys.modules[game_class(env_id).__module__], "TOOLS", {})
    assert set(tools) <= {"training", "bench", "doc_picture", "greedy", "clock"}, sorted(tools)
    if "training" in tools:
        assert env_id in trainable_ids() and training_defaults(env_id).steps > 0
    hints = _bench_hints()
    assert hints.bench_hints(env_id).warmup >= 0 and hints.bench_variants(env_id)
    shown = doc_picture(env_id)
    boardenvs.make_game(env_id, **shown.options)  # the options the docs picture uses build the game
    heuristic = heuristic_of(env_id)
    assert heuristic is None or callable(heuristic)
    reasons = decided_reasons(game_class(env_id))
    assert reasons <= set(game_class(env_id).reason_names.values())


def test_the_package_games_declare_their_tools():
    """The five games: trained baselines, bench anchors, a heuristic each, and Quess' clock-decided draw."""
    from boardenvs.baselines.greedy import heuristic_of

    from boardenvs.clock import decided_reasons

    hints = _bench_hints()
    for env_id in boardenvs.ENV_IDS:
        assert tool_settings(env_id, "training") is not None and heuristic_of(env_id) is not None
        assert hints.bench_hints(env_id).closest and hints.bench_hints(env_id).envpool
    assert decided_reasons(game_class("quess_v0")) == {"one_each"}
    assert tool_settings("quess_v0", "nothing") is None


def test_a_wrong_tool_setting_is_named(monkeypatch):
    """A key a tool does not take fails with the game and the tool named."""
    from boardenvs.baselines.networks import training_defaults

    from boardenvs.cards import doc_picture

    module = sys.modules[game_class("tictactoe_v0").__module__]
    monkeypatch.setattr(module, "TOOLS", {"training": {"extractr": "mlp"}, "doc_picture": {"seeds": 1}})
    with pytest.raises(TypeError, match=r"TOOLS\['training'\] of tictactoe_v0.*extractr"):
        training_defaults("tictactoe_v0")
    with pytest.raises(TypeError, match=r"TOOLS\['doc_picture'\].*seeds"):
        doc_picture("tictactoe_v0")


def test_the_gymnasium_ids_come_from_the_layer_above():
    """A game registered after import gets its gymnasium id from the
    wrappers' registration hook (the tests' toy games are such games)."""
    import gymnasium

    spec = gymnasium.spec("boardenvs/TicTacToe-v0")
    assert spec.entry_point == "boardenvs.wrappers.registration:tictactoe_v0"
    assert spec.vector_entry_point == "boardenvs.wrappers.registration:tictactoe_v0__vector"
    env = gymnasium.make("boardenvs/TicTacToe-v0", opponent="random")
    obs, _ = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape


def test_the_opponent_plugins_come_from_entry_points():
    from boardenvs import opponents

    assert opponents.plugins()[:2] == ("boardenvs.baselines", "boardenvs.rllib")
    assert type(opponents.make_opponent("greedy")).__module__ == "boardenvs.baselines.greedy"


def test_the_wheel_holds_every_module(tmp_path):
    """No hand-kept package list: the wheel built from this tree has every
    .py file of boardenvs/ (each game's package), wrappers/ and baselines/,
    the rules and models, and the opponents' entry points."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("boardenvs-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"boardenvs/{f.relative_to(REPO / 'boardenvs').as_posix()}" for f in (REPO / "boardenvs").rglob("*.py")}
    expected |= {f"boardenvs/{d}/{f.name}" for d in ("wrappers", "baselines") for f in (REPO / d).glob("*.py")}
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert {"boardenvs/rules/quess.md", "boardenvs/baselines/models/quess_v0.pt"} <= names
    entry_points = next(zipfile.ZipFile(wheel).read(n).decode() for n in names if n.endswith("entry_points.txt"))
    assert "[boardenvs.opponents]" in entry_points and "baselines = boardenvs.baselines" in entry_points


KERNEL_NAMES = ("init", "legal", "apply", "observe", "chance_probs")


def _applies(path: Path) -> list:
    """Where ``path`` reaches one of a game's kernels (``x.kernels.apply``,
    ``kernels.legal``, ...)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in KERNEL_NAMES:
            base = node.value
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            if name in ("kernels", "k") or name.endswith("kernels"):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_face_steps_a_game_s_kernels_itself():
    """Stepping a game (the action check under each illegal_action mode,
    apply, chance, the next mask) is the engine's one step
    (``boardenvs._drivers.step_row``): Position, the AEC env, make_vec's
    drivers, the single-agent and RLlib envs, the games' text forms call it;
    no other module of the core, the games' text forms, the wrappers or the
    command line calls a kernel (init, legal, apply, observe, chance_probs):
    the Game's own thin calls (``game.py``) and the binding are the only ways in
    (the CPU's, ``bind.py``, and the device's, ``retarget.py``, which names
    the kernels to copy them for the device and calls none)."""
    engine = {"engine.py", "_drivers.py", "bind.py", "game.py", "retarget.py"}
    files = [f for f in (REPO / "boardenvs").rglob("*.py") if f.name not in engine and "games" not in f.parts]
    files += sorted((REPO / "boardenvs" / "games").glob("*/text.py")) + sorted((REPO / "wrappers").glob("*.py"))
    assert len(files) > 40 and REPO / "boardenvs" / "games" / "quicksand" / "text.py" in files
    found = [a for f in files for a in _applies(f)]
    assert not found, f"modules that call a game's kernel themselves: {found}"
    assert (
        _applies(REPO / "boardenvs" / "_drivers.py") == []
        and "apply(g, s, params, a)" in (REPO / "boardenvs" / "_drivers.py").read_text()
    )


def test_the_apply_check_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(game, s):\n    game.kernels.apply(s, game.params, 0)\n    k.apply(s, p, 1)\n    x.apply(1)\n"
        "    game.kernels.legal(s, game.params, m)\n    kernels.observe(s, p, 0, o)\n"
    )
    assert len(_applies(probe)) == 4
