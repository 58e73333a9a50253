"""MkDocs hook: the site's generated pages, made at build time from the one
source each has in the repository (nothing generated is committed).

* ``index.md``: the repository's ``README.md`` (its links to repository
  files turned into links to the site's pages);
* ``games/index.md`` and ``games/<env id>.md``: an env card per registered
  game, from its declaration (:func:`boardenvs.cards.env_card`), with the
  game's picture (``boardenvs/rules/<game>.png``, drawn from the game's
  ``doc_picture`` when it has none yet);
* ``rules/``: the package's rules files (``boardenvs/rules/*.md``, or a
  game's own ``rules_path()``) and their pictures;
* ``api/*.md``: the API reference, one mkdocstrings entry per public name of
  ``boardenvs``, ``boardenvs.wrappers`` and ``boardenvs.baselines`` (their
  ``__all__``) and the modules a game author reads;
* the tables of ``benchmarks.md`` and ``baselines.md``: written pages whose
  ``<!-- generated: ... -->`` markers are replaced with the tables of
  ``benchmarks/results/results.md`` / ``baselines/results.md`` and the machine, load,
  date and command of each run from their ``results.json``.

The games come from ``boardenvs.ENV_IDS`` (the catalog), so a sixth game
gets its card, rules page and API entry for free; the nav's "Games" and
"Rules" sections are filled here too.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
BENCH_RESULTS = ROOT / "benchmarks" / "results"  # what the benchmark scripts wrote (benchmarks/README.md)

# pages whose nav entry (mkdocs.yml) is replaced with a section that lists the generated pages
SECTIONS = {"games/index.md", "rules/index.md", "api/index.md"}
API_PAGES = {  # page -> (title, the modules whose public names it documents, modules documented whole)
    "api/boardenvs.md": (
        "boardenvs",
        "boardenvs",
        ("boardenvs.jsonform", "boardenvs.textagent", "boardenvs.torchrl", "boardenvs.traces"),
    ),
    "api/wrappers.md": (
        "boardenvs.wrappers",
        "boardenvs.wrappers",
        ("boardenvs.wrappers.dice", "boardenvs.wrappers.html_replay"),
    ),
    "api/baselines.md": (
        "boardenvs.baselines",
        "boardenvs.baselines",
        (
            "boardenvs.baselines.train",
            "boardenvs.baselines.distill",
            "boardenvs.baselines.tournament",
            "boardenvs.baselines.ladder",
            "boardenvs.baselines.ratings",
            "boardenvs.baselines.greedy",
            "boardenvs.baselines.mcts",
            "boardenvs.baselines.extractors",
        ),
    ),
    "api/core.md": (
        "The core, for game authors",
        None,
        (
            "boardenvs.spec",
            "boardenvs.game",
            "boardenvs.engine",
            "boardenvs.vector",
            "boardenvs.device",
            "boardenvs.retarget",
            "boardenvs.aec",
            "boardenvs.opponents",
            "boardenvs.registry",
            "boardenvs.records",
            "boardenvs.cards",
            "boardenvs.svgpicture",
        ),
    ),
}


def _games():
    import boardenvs
    from boardenvs.registry import game_class

    return [(env_id, game_class(env_id)) for env_id in boardenvs.ENV_IDS]


def _rules_files() -> dict[str, Path]:
    """site path under rules/ -> file: the package's rules folder, and each game's own rules file."""
    folder = ROOT / "boardenvs" / "rules"
    out = {p.name: p for p in sorted(folder.iterdir()) if p.suffix in (".md", ".png", ".gif")}
    out["index.md"] = out.pop("README.md")
    for _, cls in _games():
        path = cls.rules_path()
        out.setdefault(path.name, path)
        if path.with_suffix(".png").is_file():
            out.setdefault(path.with_suffix(".png").name, path.with_suffix(".png"))
    return out


def _picture(cls) -> tuple[str, bytes | None]:
    """(file name under rules/, bytes or None when the file is already there) of a game's picture."""
    name = Path(cls.rules_file).stem + ".png"
    if cls.rules_path().with_suffix(".png").is_file():
        return name, None
    import io

    from PIL import Image

    import boardenvs
    from boardenvs.cards import doc_picture
    from boardenvs.pictures import random_moves

    shown = doc_picture(cls)
    _, pos = random_moves(boardenvs.position(cls.env_id, **shown.options), shown.decisions, shown.seed)
    buf = io.BytesIO()
    Image.fromarray(pos.render("rgb_array")).save(buf, format="PNG")
    return name, buf.getvalue()


# --- the nav ----------------------------------------------------------------------------------


def _section(title: str, index: str) -> dict:
    if index == "games/index.md":
        pages = [{"All games": index}] + [{cls.title: f"games/{env_id}.md"} for env_id, cls in _games()]
    elif index == "rules/index.md":
        pages = [{"Conventions (C-1..C-6)": index}] + [
            {cls.title: f"rules/{cls.rules_path().name}"} for _, cls in _games()
        ]
    else:
        pages = [{"Overview": index}] + [{title: page} for page, (title, _, _) in API_PAGES.items()]
    return {title: pages}


def source_tree() -> Path:
    """The package's sources as they are installed, for mkdocstrings to read:
    ``boardenvs/`` with ``wrappers/`` and ``baselines/`` inside it (the
    repository keeps them top-level and setuptools' ``package-dir`` maps
    them), copied into ``build/docs-src/`` (ignored; griffe follows links to
    where they point, so they are copies)."""
    import shutil

    tree = ROOT / "build" / "docs-src"
    shutil.rmtree(tree, ignore_errors=True)
    keep = shutil.ignore_patterns("__pycache__", "*.png", "*.gif", "*.pt", "*.nbi", "*.nbc")
    shutil.copytree(ROOT / "boardenvs", tree / "boardenvs", ignore=keep)
    for name in ("wrappers", "baselines"):
        shutil.copytree(ROOT / name, tree / "boardenvs" / name, ignore=keep)
    for path in tree.rglob("*.py"):  # the docstrings' Sphinx roles as the code spans mkdocstrings renders
        path.write_text(plain_roles(path.read_text(encoding="utf-8")), encoding="utf-8")
    return tree


_ROLE = re.compile(
    r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const|data|term|ref):`(~?)([^`<]*?)(?:\s*<([^`>]*)>)?`"
)


def plain_roles(text: str) -> str:
    """``:class:`~boardenvs.game.Game``` -> ```Game```, ``:func:`make``` -> ```make```
    (mkdocstrings' Markdown shows Sphinx roles raw: issue 50)."""

    def plain(m) -> str:
        tilde, title, target = m.groups()
        name = title.strip() or (target or "")
        if tilde:
            name = name.rsplit(".", 1)[-1]
        return f"``{name}``"

    return _ROLE.sub(plain, text)


@event_priority(100)  # before mkdocstrings sets up its handler, which keeps only search paths that exist
def on_config(config):
    source_tree()  # mkdocs.yml's mkdocstrings paths: [build/docs-src]

    def walk(items):
        out = []
        for item in items:
            if isinstance(item, dict):
                ((title, value),) = item.items()
                if isinstance(value, list):
                    out.append({title: walk(value)})
                elif value in SECTIONS:
                    out.append(_section(title, value))
                else:
                    out.append(item)
            else:
                out.append(item)
        return out

    config["nav"] = walk(config["nav"] or [])
    return config


# --- the generated pages ----------------------------------------------------------------------


def site_path(target: str) -> str:
    """Where a link of the README (a repository path, with an optional
    ``#anchor``) points in the site: ``docs/x.md`` -> ``x.md``, the rules
    folder -> ``rules/``, a game's module -> its card, a results file (or the
    benchmarks' index) -> its page; addresses (``https:``, ``#anchor``) stay as they are."""
    path, _, anchor = target.partition("#")
    if re.match(r"[a-z]+:", path) or not path:
        return target
    games = {
        f"boardenvs/games/{cls.__module__.rsplit('.', 1)[-1]}/__init__.py": f"games/{env_id}.md"
        for env_id, cls in _games()
    }
    if path in games:
        path = games[path]
    elif path.startswith("docs/"):
        path = path[len("docs/") :]
    elif path.startswith("boardenvs/rules/"):
        path = "rules/" + path[len("boardenvs/rules/") :].replace("README.md", "index.md")
    else:
        path = {
            "benchmarks/results/results.md": "benchmarks.md",
            "benchmarks/README.md": "benchmarks.md",  # (the index of the scripts, outside the site: the page names it)
            "baselines/results.md": "baselines.md",
        }.get(path, path)
    return path + ("#" + anchor if anchor else "")


def readme_page() -> str:
    """The README as the site's home page, its links to repository files turned into links to their pages."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"(!?\[[^\]]*\])\(([^)\s]+)\)", lambda m: f"{m.group(1)}({site_path(m.group(2))})", text)
    return re.sub(r'(<img src=)"([^"]+)"', lambda m: f'{m.group(1)}"{site_path(m.group(2))}"', text)


def games_index() -> str:
    lines = [
        "# Games",
        "",
        "One env card per game, generated from the game's declaration (`boardenvs.cards.env_card`): "
        "ids, players and variants, options with their types, ranges and defaults, observation shapes "
        "and bounds, the action and observation encodings, end reasons, rules and picture.",
        "",
        "| game | env id | gymnasium id | players | picture |",
        "|---|---|---|---|---|",
    ]
    from boardenvs.registry import gym_id_of

    for env_id, cls in _games():
        name, _ = _picture(cls)
        lines.append(
            f"| [{cls.title}]({env_id}.md) | `{env_id}` | `{gym_id_of(cls)}` | "
            f"{', '.join(map(str, cls.player_counts()))} | ![{cls.title}](../rules/{name}){{ width=160 }} |"
        )
    return "\n".join(lines) + "\n"


def card_page(env_id: str, cls) -> str:
    from boardenvs.cards import env_card

    name, _ = _picture(cls)
    return env_card(env_id, picture=f"../rules/{name}", rules=f"../rules/{cls.rules_path().name}")


def _canonical(module_name: str, name: str) -> str:
    """The path mkdocstrings finds a public name under: where it is defined."""
    import importlib

    obj = getattr(importlib.import_module(module_name), name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    return f"{module_name}.{name}"


def api_names(module_name: str) -> list[tuple[str, str]]:
    """(public name, the path it is documented under) for every name in the module's ``__all__``."""
    import importlib
    import types

    module = importlib.import_module(module_name)
    return [
        (n, _canonical(module_name, n)) for n in module.__all__ if not isinstance(getattr(module, n), types.ModuleType)
    ]


def _signature(public: str, obj, name: str) -> list[str]:
    """A function's or class's call signature as a code block: mkdocstrings
    shows one only in a heading, and these entries sit under our own."""
    if not callable(obj):
        return []
    try:
        sig = inspect.signature(obj, eval_str=True)  # (the modules' annotations are strings: __future__)
    except (NameError, TypeError, ValueError):
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            return []
    return ["```python", f"{public}.{name}{sig}", "```", ""]


def api_page(page: str) -> str:
    import importlib

    import boardenvs

    title, public, whole = API_PAGES[page]
    lines = [f"# {title}", ""]
    if public:
        module = importlib.import_module(public)
        doc = inspect.cleandoc(module.__doc__ or "").split("\n\n")[0]
        lines += [
            plain_roles(doc).replace("``", "`"),
            "",
            "Every public name (`__all__`), documented where it is defined:",
            "",
        ]
        for name, path in api_names(public):
            lines += [f"## `{public}.{name}`", "", *_signature(public, getattr(module, name), name)]
            lines += [
                f"::: {path}",
                "    options:",
                "      show_root_heading: false",
                "      heading_level: 3",
                "",
            ]
    if public == "boardenvs":
        lines += [
            "## The PettingZoo modules",
            "",
            "Every registered id is also a module, `boardenvs.<env id>`, made when the game is registered "
            "(`boardenvs.register`), with PettingZoo's trio:",
            "",
        ]
        for env_id in boardenvs.ENV_IDS:
            mod = getattr(boardenvs, env_id)
            lines.append(
                f"- `boardenvs.{env_id}`: "
                + ", ".join(f"`{f}()`" for f in ("env", "raw_env", "parallel_env"))
                + f" (its [env card](../games/{env_id}.md))"
            )
            assert mod.env.__doc__ and mod.raw_env.__doc__ and mod.parallel_env.__doc__
        first = getattr(boardenvs, boardenvs.ENV_IDS[0])
        for f in ("env", "raw_env", "parallel_env"):
            lines += [
                "",
                f"### `{f}()`",
                "",
                plain_roles(inspect.cleandoc(getattr(first, f).__doc__)).replace("``", "`"),
            ]
        lines.append("")
    documented = {path for _, pub, _ in API_PAGES.values() if pub for _, path in api_names(pub)}
    for module_name in whole:
        members = [n for n in _module_members(module_name) if f"{module_name}.{n}" not in documented]
        lines += [
            f"## `{module_name}`",
            "",
            f"::: {module_name}",
            "    options:",
            "      show_root_heading: false",
            "      heading_level: 3",
            f"      members: {json.dumps(members)}",
            "",
        ]
    return "\n".join(lines)


def _module_members(module_name: str) -> list[str]:
    """The public classes and functions a module defines (its ``__all__`` if it has one), in source order."""
    import importlib

    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None) or [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == module_name
    ]
    return list(names)


def api_index() -> str:
    lines = ["# API reference", "", "Generated from the docstrings (mkdocstrings):", ""]
    for page, (title, public, _) in API_PAGES.items():
        lines.append(f"- [{title}]({Path(page).name})" + (f": every name in `{public}.__all__`" if public else ""))
    return "\n".join(lines) + "\n"


def _load(machine) -> str:
    load = machine.get("load") if isinstance(machine, dict) else None
    if not load:
        return "not recorded"
    if isinstance(load, str):
        return load
    start, end = load.get("start"), load.get("end")
    fmt = lambda x: "/".join(f"{v:.2f}" for v in x)  # noqa: E731
    return f"load average (1/5/15 min) {fmt(start)} at the start" + (f", {fmt(end)} at the end" if end else "")


def bench_results() -> str:
    results = json.loads((BENCH_RESULTS / "results.json").read_text())
    m = results["machine"]
    table = (BENCH_RESULTS / "results.md").read_text()
    head = [
        "| the run | |",
        "|---|---|",
        f"| date | {m['date']} |",
        f"| command | `{m['command']}` |",
        f"| machine | {m['cpu']}, {m['cores']} cores, "
        f"{m['ram_bytes'] / 2**30 if m.get('ram_bytes') else 0:.0f} GiB, {m['os']} |",
        f"| load | {_load(m)} |",
        f"| took | {results['elapsed_s'] / 60:.0f} minutes |",
        "",
        "",
    ]
    return "\n".join(head) + table


def baselines_results() -> str:
    entries = json.loads((ROOT / "baselines" / "results.json").read_text())
    table = (ROOT / "baselines" / "results.md").read_text().split("\n", 1)[1].lstrip("\n")  # without its title
    runs = [
        "",
        "Each model's round-robin (from `baselines/results.json`):",
        "",
        "| model | command | date | machine | load |",
        "|---|---|---|---|---|",
    ]
    for name, e in sorted(entries.items()):
        runs.append(
            f"| {name} | `{e.get('command', '-')}` | {e.get('date', '-')} | {e.get('machine', '-')} | {_load(e)} |"
        )
    return table.rstrip("\n") + "\n" + "\n".join(runs) + "\n"


def strength_results() -> str:
    """baselines/strength.md (the strength targets, ``python -m boardenvs.baselines.strength``) and its run."""
    results = json.loads((ROOT / "baselines" / "strength.json").read_text())
    run = results["run"]
    head = [
        "| the run | |",
        "|---|---|",
        f"| date | {run['date']} |",
        f"| command | `{run['command']}` |",
        f"| machine | {run['machine']} |",
        f"| load | {_load(run)} |",
        "",
        "",
    ]
    table = (ROOT / "baselines" / "strength.md").read_text().split("\n", 1)[1].lstrip("\n")  # without its title
    return "\n".join(head) + table


def rllib_results() -> str:
    """benchmarks/results/rllib_results.md (RLlib against SB3, ``benchmarks/rllib_bench.py``) and its run."""
    results = json.loads((BENCH_RESULTS / "rllib_results.json").read_text())
    m = results["machine"]
    table = (BENCH_RESULTS / "rllib_results.md").read_text()
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v)
    head = [
        "| the run | |",
        "|---|---|",
        f"| date | {m['date']} |",
        f"| command | `{m['command']}` |",
        f"| machine | {m['cpu']}, {m['cores']} cores, {m['os']} |",
        f"| versions | {versions} |",
        f"| load | {_load(m)} |",
        "",
        "",
    ]
    return "\n".join(head) + table


def ppo_settings() -> str:
    """benchmarks/results/ppo_settings.md (MaskablePPO's speed by setting, ``benchmarks/ppo_settings.py``) and its
    run."""
    results = json.loads((BENCH_RESULTS / "ppo_settings.json").read_text())
    m = results["machine"]
    head = [
        "| the run | |",
        "|---|---|",
        f"| date | {m['date']} |",
        "| command | `python benchmarks/ppo_settings.py --out benchmarks/results/ppo_settings` |",
        f"| machine | {m['cpu']}, {m['cores']} cores, {m['os']} |",
        f"| load | {_load(m)} |",
        "",
        "",
    ]
    return "\n".join(head) + (BENCH_RESULTS / "ppo_settings.md").read_text()


def time_to_strength() -> str:
    """benchmarks/results/time_to_strength.md (minutes from a fresh process to an agent that beats ``greedy``,
    ``benchmarks/time_to_strength.py``) and its picture."""
    table = (BENCH_RESULTS / "time_to_strength.md").read_text()
    return table + "\n![win rate against greedy by minutes of training](benchmarks/results/time_to_strength.png)\n"


def leaderboard() -> str:
    """The ladders' tables (``boardenvs.baselines.ladder.markdown``: every committed ladder's ratings, fitted to its
    committed match traces)."""
    from boardenvs.baselines.ladder import markdown

    return markdown()


GENERATED_BLOCKS = {
    "benchmark-results": bench_results,
    "leaderboard": leaderboard,
    "baseline-results": baselines_results,
    "rllib-results": rllib_results,
    "strength-targets": strength_results,
    "ppo-settings": ppo_settings,
    "time-to-strength": time_to_strength,
}


def on_files(files, config):
    def add(uri: str, content):
        existing = files.get_file_from_path(uri)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, uri, content=content))

    add("index.md", readme_page())
    add("games/index.md", games_index())
    for env_id, cls in _games():
        add(f"games/{env_id}.md", card_page(env_id, cls))
        name, picture = _picture(cls)
        if picture is not None:
            add(f"rules/{name}", picture)
    for name, path in _rules_files().items():
        add(f"rules/{name}", path.read_bytes() if path.suffix != ".md" else path.read_text(encoding="utf-8"))
    add("api/index.md", api_index())
    for page in API_PAGES:
        add(page, api_page(page))
    for picture in ("throughput.png", "time_to_strength.png"):
        add(f"benchmarks/results/{picture}", (BENCH_RESULTS / picture).read_bytes())  # (the repository's paths)
    return files


def on_page_markdown(markdown, page, config, files):
    def fill(m):
        name = m.group(1)
        if name not in GENERATED_BLOCKS:
            raise ValueError(f"{page.file.src_uri}: no generated block {name!r} ({', '.join(GENERATED_BLOCKS)})")
        return GENERATED_BLOCKS[name]()

    markdown = re.sub(r"<!-- generated: ([\w-]+) -->", fill, markdown)
    # the test suite's budgets (``STEPS = 20_000  # tests: 256``) are for tests/test_docs.py, not readers
    return re.sub(r"[ \t]*#\s*tests:[^\n]*", "", markdown)
