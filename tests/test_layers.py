"""The layers, read off the installed package's import graph (every import
statement, the ones inside functions included):

    command line  (boardenvs.cli and .commands, .interactive,   may use everything below
                  boardenvs.pictures: the docs' pictures and GIF)
                  and integrations (boardenvs.rllib and its modules, boardenvs.torchrl)
    package entry (boardenvs/__init__.py: registers the catalog's games and
                  imports the layer that adds their gymnasium ids)
    baselines     (boardenvs.baselines: training, evaluation, greedy/mcts, models)
    wrappers      (boardenvs.wrappers: gymnasium views, SB3, self-play, dice, recording)
    core          (every other boardenvs module: spec, engine, game, games, position,
                   aec, vector, registry, api, opponents, records, clock, render, ...)

* no import cycle anywhere, lazy imports included;
* the core imports nothing of wrappers or baselines, and names nothing above
  it even by string (the gymnasium ids are registered by the wrappers'
  ``registration`` module, the opponents' plugins are found by their entry
  points; tests/test_core_boundaries.py reads the strings); wrappers import
  nothing of baselines;
* wrappers/, baselines/ and benchmarks/ use no other module's underscore
  members: no ``from x import _name``, no private module, no ``obj._attr``
  on an object of another module.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMAND_LINE = {
    "boardenvs.cli",
    "boardenvs.commands",
    "boardenvs.interactive",
    "boardenvs.__main__",
    "boardenvs.pictures",
    "boardenvs.rllib",
    "boardenvs.torchrl",
}  # and integrations


def _package_files() -> dict:
    """module name -> file, for the installed layout (boardenvs, and its
    subpackages wherever they live: wrappers/ and baselines/ are top-level
    folders of the repository installed as boardenvs.wrappers / .baselines)."""
    out = {}
    for package in ("boardenvs", "boardenvs.wrappers", "boardenvs.baselines"):
        spec = importlib.util.find_spec(package)
        for folder in spec.submodule_search_locations:
            root = Path(folder)
            for f in root.rglob("*.py"):
                rel = f.relative_to(root).with_suffix("").parts
                if any(p in ("wrappers", "baselines") for p in rel[:-1]) and package == "boardenvs":
                    continue  # a nested copy would be the other package's
                parts = [*package.split("."), *rel]
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                name = ".".join(parts)
                if package == "boardenvs" and len(parts) > 1 and parts[1] in ("wrappers", "baselines"):
                    continue
                out.setdefault(name, f)
    return out


FILES = _package_files()


def _imports(name: str, path: Path) -> set:
    """The package modules ``name`` imports (anywhere in its file)."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    found = set()

    def add(target):
        # the deepest package module named by the target (boardenvs.engine.X -> boardenvs.engine)
        parts = target.split(".")
        for k in range(len(parts), 0, -1):
            cand = ".".join(parts[:k])
            if cand in FILES:
                if cand != name:
                    found.add(cand)
                return

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in FILES else module)
    return found


GRAPH = {name: _imports(name, path) for name, path in FILES.items()}


def _layer(name: str) -> str:
    if name == "boardenvs":
        return "package entry"
    if name in COMMAND_LINE or name.startswith("boardenvs.rllib."):
        return "command line"
    if name.startswith("boardenvs.baselines"):
        return "baselines"
    if name.startswith("boardenvs.wrappers"):
        return "wrappers"
    return "core"


def test_the_walk_sees_the_installed_layout():
    assert {
        "boardenvs",
        "boardenvs.engine",
        "boardenvs.api",
        "boardenvs.wrappers.vector",
        "boardenvs.baselines.train",
        "boardenvs.cli",
    } <= set(FILES)
    assert "boardenvs.vector" in GRAPH["boardenvs.api"] and "boardenvs.opponents" in GRAPH["boardenvs.wrappers.vector"]


def test_no_import_cycles_lazy_imports_included():
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_each_layer_imports_only_the_layers_below():
    order = ["core", "wrappers", "baselines", "package entry", "command line"]
    wrong = [(a, b) for a, deps in GRAPH.items() for b in deps if order.index(_layer(b)) > order.index(_layer(a))]
    assert not wrong, f"imports of a layer above: {sorted(wrong)}"


def _private_uses(path: Path) -> list:
    """``from x import _name``, private modules, and ``obj._attr`` on objects
    that are not this module's own (names the module defines are its own)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
    found = []

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if any(private(p) for p in (node.module or "").split(".")):
                found.append(f"{path.name}:{node.lineno} from {node.module} import ...")
            found += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names if private(a.name)]
        elif isinstance(node, ast.Import):
            found += [
                f"{path.name}:{node.lineno} import {a.name}"
                for a in node.names
                if any(private(p) for p in a.name.split("."))
            ]
        elif isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_wrappers_baselines_and_benchmarks_use_no_other_modules_privates():
    files = [FILES[n] for n in FILES if _layer(n) in ("wrappers", "baselines")]
    files += sorted((REPO / "benchmarks").rglob("*.py"))  # the entry scripts and lib/
    assert len(files) > 15
    found = [use for f in files for use in _private_uses(f)]
    assert not found, f"private members of other modules: {found}"


def test_the_privates_check_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from boardenvs._threads import limit\nimport boardenvs\nvec = None\nvec._masks\nself_ok = 1\n")
    assert len(_private_uses(probe)) == 2


def test_the_rllib_integration_imports_only_with_its_extra():
    """boardenvs.rllib is an integration on top: without Ray it refuses to
    import, naming the extra to install (and nothing else in the package
    imports it: the opponents' registry names it by string)."""
    import importlib

    import pytest

    if importlib.util.find_spec("ray") is None:
        with pytest.raises(ImportError, match=r"pip install '\.\[rllib\]' in a clone"):
            importlib.import_module("boardenvs.rllib")
    else:
        module = importlib.import_module("boardenvs.rllib")
        assert callable(module.ppo_config) and callable(module.opponent)
    assert not [a for a, deps in GRAPH.items() if "boardenvs.rllib" in deps]
