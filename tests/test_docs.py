"""The documentation site and the README, checked like code.

* the site (``mkdocs build --strict``: no broken link, no missing page, no
  page left out of the nav) builds, every env id has its card page, every
  game its rules page, every picture on the home page resolves;
* every public name of ``boardenvs``, ``boardenvs.wrappers`` and
  ``boardenvs.baselines`` has a docstring, and the API reference renders it;
* the benchmark and baseline pages show the tables of the results files;
* the tutorial notebook runs in a Jupyter kernel (mkdocs-jupyter runs it at
  every build) and the site shows it executed;
* every ``python`` block of the tutorials, the guides and the README runs
  (page by page, in a fresh interpreter, with the step counts a ``# tests: N``
  comment gives; a block marked ``<!-- no-test: why -->`` is skipped, and
  such blocks stay rare);
* the README is a front page (at most 8 KB, the two commands first, no block a
  tool rewrites), and no prose or table line exists twice across the README,
  the site's written pages, the rules and the games' notes.
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop

import boardenvs

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PUBLIC = ("boardenvs", "boardenvs.wrappers", "boardenvs.baselines")
# NAME = value  # tests: small   (or NAME, OTHER = a, b  # tests: c, d)
BUDGET = re.compile(
    r"^(?P<head>[ \t]*\w+(?:,[ \t]*\w+)*[ \t]*=[ \t]*)(?P<value>[^#\n]+?)(?P<tail>[ \t]*#[ \t]*tests:[ "
    r"\t]*(?P<small>[^#\n]*?)[ \t]*)$",
    re.M,
)
BLOCK = re.compile(r"(?P<skip><!-- no-test: (?P<why>[^>]*?) -->\s*\n)?```python\n(?P<code>.*?)```", re.S)
MAX_NO_TEST = 2  # blocks that cannot run in a test (a window): few, each with its reason


# a page whose code needs an environment of its own (Ray pins its gymnasium) says which test runs it
RUNS_ELSEWHERE = re.compile(r"<!-- code runs in: (?P<test>tests/[\w/]+\.py)\b[^>]*-->")


def _pages_with_code(elsewhere: bool = False) -> list[Path]:
    """The README and the site's pages with python blocks: those this file
    runs, or (``elsewhere``) those another test file runs."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "```python" in p.read_text())
    pages = [ROOT / "README.md", *pages]
    return [p for p in pages if bool(RUNS_ELSEWHERE.search(p.read_text())) == elsewhere]


def code_of(page: Path) -> tuple[str, int, int]:
    """(the page's python blocks joined, with ``# tests: N`` budgets applied;
    the blocks run; the budgets applied)."""
    text = page.read_text()
    blocks = [m for m in BLOCK.finditer(text)]
    run = [m.group("code") for m in blocks if not m.group("skip")]
    code = "\n".join(run)
    budgets = len(re.findall(r"#\s*tests:", code))
    applied = BUDGET.subn(lambda m: f"{m.group('head')}{m.group('small')}{m.group('tail')}", code)
    assert applied[1] == budgets, f"{page}: a '# tests: N' comment not on a 'NAME = value' line"
    return applied[0], len(run), budgets


# --- the site ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    import shutil

    out = tmp_path_factory.mktemp("site")
    shutil.rmtree(ROOT / "build" / "docs-src", ignore_errors=True)  # as on a fresh clone: the build makes it
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return out


def test_every_env_id_has_a_card_page_with_its_declaration(site):
    from boardenvs.registry import game_class, gym_id_of

    for env_id in boardenvs.ENV_IDS:
        cls = game_class(env_id)
        page = (site / "games" / f"{env_id}.html").read_text()
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        assert gym_id_of(cls) in text and f"boardenvs.make('{env_id}')" in text
        for option in cls.option_specs:
            assert f"{option.name}" in text, (env_id, option.name)
        for variant in cls.variants:
            assert f"Discrete({cls(**variant).num_actions})" in text
        for reason in cls.reason_names.values():
            assert reason in text
        assert "illegal_action" in text
        pictures = re.findall(r'<img[^>]+src="([^"]+)"', page)
        assert pictures and all((site / "games" / p).resolve().is_file() for p in pictures), (env_id, pictures)
        rules = site / "rules" / cls.rules_path().name.replace(".md", ".html")
        assert rules.is_file() and f"{cls.rule_prefix}-1" in rules.read_text()
        assert f'href="../rules/{rules.name}"' in page  # the card links its rules page
    index = (site / "games" / "index.html").read_text()
    assert all(f"{env_id}.html" in index for env_id in boardenvs.ENV_IDS)


def test_every_image_of_every_page_resolves(site):
    missing = []
    for page in site.rglob("*.html"):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', page.read_text()):
            if not re.match(r"[a-z]+:", src) and not (page.parent / src.split("#")[0]).resolve().is_file():
                missing.append((str(page.relative_to(site)), src))
    assert not missing
    home = (site / "index.html").read_text()
    assert home.count('<img src="rules/') == len(boardenvs.ENV_IDS)  # the README's table of games


def test_the_api_reference_renders_every_public_name(site):
    import sys as _sys

    _sys.path.insert(0, str(DOCS))
    try:
        hooks = importlib.import_module("hooks")
    finally:
        _sys.path.remove(str(DOCS))
    pages = {
        "boardenvs": "boardenvs.html",
        "boardenvs.wrappers": "wrappers.html",
        "boardenvs.baselines": "baselines.html",
    }
    for module_name in PUBLIC:
        page = (site / "api" / pages[module_name]).read_text()
        names = hooks.api_names(module_name)
        assert {n for n, _ in names} | set(getattr(importlib.import_module(module_name), "ENV_IDS", ())) == set(
            importlib.import_module(module_name).__all__
        )
        for name, path in names:
            entry = re.search(rf'id="{re.escape(path)}".*?<div class="doc doc-contents[^"]*">(.*?)</div>', page, re.S)
            assert entry, f"{module_name}.{name}: no entry {path!r} in api/{pages[module_name]}"
            assert re.sub(r"<[^>]+>", "", entry.group(1)).strip(), f"{module_name}.{name}: its entry shows no docstring"
    core = (site / "api" / "boardenvs.html").read_text()
    assert all(f"boardenvs.{env_id}" in core for env_id in boardenvs.ENV_IDS)
    authors = (site / "api" / "core.html").read_text()  # the modules listed whole: every name they export
    for module_name in hooks.API_PAGES["api/core.md"][2]:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            assert f'id="{module_name}.{name}"' in authors, f"{module_name}.{name}: not in api/core.html"
    assert 'id="boardenvs.svgpicture.svg_document"' in authors
    shown = html.unescape(re.sub(r"<[^>]+>", "", core))  # every function shows how it is called
    for call in ("boardenvs.make(env_id", "boardenvs.make_vec(env_id", "boardenvs.position(env_id"):
        assert call in shown, call


def test_the_benchmark_and_baseline_pages_show_the_results_files(site):
    bench = json.loads((ROOT / "benchmarks" / "results" / "results.json").read_text())
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "benchmarks.html").read_text()))
    table_rows = [
        line
        for line in (ROOT / "benchmarks" / "results" / "results.md").read_text().splitlines()
        if line.startswith("| ")
    ]
    first_cell = table_rows[2].split("|")[1].strip()
    assert bench["machine"]["date"] in page and bench["machine"]["command"] in page and first_cell in page
    assert "load" in page and 'src="benchmarks/results/throughput.png"' in (site / "benchmarks.html").read_text()
    assert (site / "benchmarks" / "results" / "throughput.png").is_file()
    entries = json.loads((ROOT / "baselines" / "results.json").read_text())
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "baselines.html").read_text()))
    for name, entry in entries.items():
        assert entry["command"] in page and f"{name}" in page
    assert "95% CI" in page and "Elo" in page
    strength = json.loads((ROOT / "baselines" / "strength.json").read_text())
    assert strength["run"]["command"] in page and strength["run"]["finished"]
    assert all(f"{r['wins']}-{r['draws']}-{r['losses']}" in page for r in strength["rows"])  # every row
    rllib = json.loads((ROOT / "benchmarks" / "results" / "rllib_results.json").read_text())
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "tutorials" / "rllib.html").read_text()))
    assert rllib["machine"]["date"] in page and rllib["machine"]["command"] in page and "load average" in page
    assert all(f"{r['trained_steps_s']:,.0f}" in page for r in rllib["rows"])  # every row of the RLlib table


# --- docstrings ----------------------------------------------------------------------------------


def _own_doc(obj) -> str | None:
    if inspect.isclass(obj):
        return obj.__dict__.get("__doc__")
    if inspect.isfunction(obj) or inspect.ismodule(obj) or isinstance(obj, types.ModuleType):
        return obj.__doc__
    return None


def _attribute_doc(module_name: str, name: str) -> str | None:
    """The docstring under a module-level assignment (what the API reference shows for data)."""
    import griffe

    loader = griffe.GriffeLoader(
        search_paths=[str(ROOT / "build" / "docs-src")] if (ROOT / "build" / "docs-src").is_dir() else None
    )
    module = loader.load(module_name)
    member = module.members.get(name)
    return member.docstring.value if member is not None and member.docstring else None


def test_every_public_name_has_a_docstring(site):
    """``site``: the build lays out the installed sources that griffe reads."""
    missing = []
    for module_name in PUBLIC:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            doc = _own_doc(obj)
            if doc is None and not (
                inspect.isclass(obj) or inspect.isfunction(obj) or isinstance(obj, types.ModuleType)
            ):
                doc = _attribute_doc(module_name, name)
            if not (doc or "").strip():
                missing.append(f"{module_name}.{name}")
                continue
            if inspect.isclass(obj):  # its public methods and properties: their own docstring, or the one they override
                for attr, value in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    target = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                    if inspect.isfunction(target) and not (target.__doc__ or inspect.getdoc(getattr(obj, attr, None))):
                        missing.append(f"{module_name}.{name}.{attr}")
    assert not missing, f"no docstring: {missing}"


# --- the code blocks -----------------------------------------------------------------------------


@pytest.mark.parametrize("page", _pages_with_code(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pages_code_blocks_run(page, tmp_path):
    code, blocks, _ = code_of(page)
    assert blocks > 0
    env = {**os.environ, "MPLBACKEND": "Agg", "SDL_VIDEODRIVER": "dummy"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=HANG_S
    )
    assert done.returncode == 0, f"{page.relative_to(ROOT)}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


def test_pages_run_elsewhere_are_run_there():
    """A page marked ``<!-- code runs in: tests/X.py -->`` is named by a test
    of that file that runs its blocks with :func:`code_of`, and the Makefile
    runs that file in its environment: the Ray tutorial (tests/test_rllib.py,
    in .venv-rllib, which ``make check`` runs), AgileRL's and BenchMARL's
    (tests/test_agilerl.py, tests/test_benchmarl.py, in environments of their
    own that ``make check-trainers`` builds: their pages say why CI does not)."""
    elsewhere = _pages_with_code(elsewhere=True)
    assert [p.name for p in elsewhere] == ["agilerl.md", "benchmarl.md", "rllib.md"]
    makefile = (ROOT / "Makefile").read_text()
    for page in elsewhere:
        name = RUNS_ELSEWHERE.search(page.read_text()).group("test")
        text = (ROOT / name).read_text()
        assert str(page.relative_to(ROOT)) in text and "code_of(" in text, (page, name)
        assert code_of(page)[1] > 0 and code_of(page)[2] >= 1  # it has code, and budgets for the test
        assert name in makefile, name
    for page in elsewhere[:2]:  # not run by CI: the page says so
        assert "CI does not" in page.read_text(), page


def test_the_tutorial_pages_are_all_checked_and_skips_are_rare():
    pages = _pages_with_code() + _pages_with_code(elsewhere=True)
    for name in (
        "README.md",
        "aec.md",
        "position.md",
        "make_vec.md",
        "gymnasium.md",
        "selfplay.md",
        "torchrl.md",
        "tianshou.md",
        "cleanrl.md",
        "skrl.md",
        "pufferlib.md",
        "agilerl.md",
        "benchmarl.md",
        "watching.md",
        "dice.md",
        "clock.md",
    ):
        assert any(p.name == name for p in pages), name
    skipped = [(p.name, m.group("why")) for p in pages for m in BLOCK.finditer(p.read_text()) if m.group("skip")]
    assert len(skipped) <= MAX_NO_TEST and all(why.strip() for _, why in skipped), skipped
    # training pages run with small budgets: each names one
    for name in ("README.md", "gymnasium.md", "selfplay.md"):
        (page,) = [p for p in pages if p.name == name]
        assert code_of(page)[2] >= 1, name
    assert code_of(ROOT / "docs" / "tutorials" / "gymnasium.md")[0].count("STEPS = 256") == 1
    # the training pages show progress (a first run that is silent for minutes reads as a hang)
    for name in ("README.md", "gymnasium.md", "selfplay.md"):
        (page,) = [p for p in pages if p.name == name]
        assert all("progress_bar=True" in line for line in page.read_text().splitlines() if ".learn(" in line), name


def test_a_budget_comment_off_an_assignment_is_refused(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```python\nmodel.learn(20_000)  # tests: 256\n```\n")
    with pytest.raises(AssertionError, match="tests: N"):
        code_of(page)
    page.write_text(
        "```python\nSTEPS = 20_000  # tests: 256\n```\n<!-- no-test: a window -->\n```python\nimport nothing\n```\n"
    )
    assert code_of(page) == ("STEPS = 256  # tests: 256\n", 1, 1)


# --- the notebook -----------------------------------------------------------------------------------

NOTEBOOK = DOCS / "tutorials" / "notebook.ipynb"


def test_the_notebook_is_committed_without_outputs():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"


def test_the_site_shows_the_executed_notebook(site):
    """The tutorial notebook as the docs build ran it (mkdocs-jupyter executes
    it in a Jupyter kernel at every build, and a failing cell fails the
    build): the Positions and the env's frame show as PNG pictures
    (``Position._repr_png_``), the animation inline, the JSON round trip and
    the text agent's game print."""
    page = (site / "tutorials" / "notebook.html").read_text()
    assert page.count("data:image/png;base64,") >= 3 and "data:image/gif;base64," in page
    assert "Traceback" not in page
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "'schema': 'boardenvs/position'" in text and "Your " in text and " turns" in text


# --- the README ------------------------------------------------------------------------------------


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text()
    assert len(text.encode()) <= 8_000  # a page that reads in a minute: what changed lives on the changes page
    assert "New in this version" not in text
    first = text.split("```bash\n", 1)[1].splitlines()
    assert first[0].startswith("make demo ") and first[1].startswith("make test ")
    assert "pip install .  " in text and "pip install '.[" in text  # from a clone (not on PyPI yet)
    for marker in ("bench:begin", "baselines:begin", "learning:begin"):
        assert marker not in text
    for section in (
        "## Install",
        "## PettingZoo",
        "## Gymnasium + MaskablePPO",
        "## make_vec",
        "## The games",
        "## Results",
        "## Documentation",
    ):
        assert section in text, section
    for env_id in boardenvs.ENV_IDS:
        assert f"`{env_id}`" in text


def _prose_lines(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"::\n\n(?:(?:    .*)?\n)+", "\n", text)  # RST literal blocks
    return [
        " ".join(line.split())
        for line in text.splitlines()
        if len(line.strip()) >= 60 and not re.fullmatch(r"[|=: -]+", line.strip())
    ]


def test_no_text_exists_twice():
    """Env cards live in the game modules, rules in boardenvs/rules, tables in the
    results files; the README and the written pages say each thing once."""
    sources = {"README.md": (ROOT / "README.md").read_text()}
    sources |= {str(p.relative_to(ROOT)): p.read_text() for p in DOCS.rglob("*.md")}
    sources |= {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "boardenvs" / "rules").glob("*.md")}
    sources |= {
        f"results {p}": (ROOT / p).read_text()
        for p in ("benchmarks/results/results.md", "baselines/results.md", "benchmarks/results/rllib_results.md")
    }
    from boardenvs.registry import game_class

    for env_id in boardenvs.ENV_IDS:
        module = sys.modules[game_class(env_id).__module__]
        sources[module.__name__] = module.__doc__
    seen: dict[str, str] = {}
    twice = []
    for name, text in sources.items():
        for line in set(_prose_lines(text)):
            if line in seen and seen[line] != name:
                twice.append((seen[line], name, line[:80]))
            seen.setdefault(line, name)
    assert not twice, twice[:10]


def test_the_install_page_states_each_requirement_as_pyproject_declares_it():
    """The install page's table of tested versions gives each
    package's requirement as pyproject.toml declares it (so the two cannot
    drift) and a version the suite ran with, at least that requirement."""
    import tomllib
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {}
    for line in [*meta["dependencies"], *(d for extra in meta["optional-dependencies"].values() for d in extra)]:
        req = Requirement(line)
        declared.setdefault(req.name, str(req.specifier))
    rows = {}
    for line in (ROOT / "docs" / "install.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in declared:
            rows[cells[0]] = cells[1:]
    for name in ("numba", "numpy", "gymnasium", "pettingzoo", "stable-baselines3", "torch", "ray", "envpool"):
        assert name in rows, f"docs/install.md's table of tested versions lacks {name}"
        requires, tested = rows[name]
        # (the same set of bounds: packaging spells them in its own order)
        assert SpecifierSet(requires.split(" ")[0]) == SpecifierSet(declared[name]), (name, requires, declared[name])
        assert Version(tested.split(" ")[0]) in Requirement(f"{name}{declared[name]}").specifier, (name, tested)


def test_no_page_shows_raw_sphinx_roles_and_the_api_lists_the_entry_points_first(site):
    """The docstrings' Sphinx roles (``:class:`X```) render as code,
    not raw (docs/hooks.py ``plain_roles``); the ``boardenvs`` page starts
    with the entry points (``make``, ``make_vec``, ``position``), not the errors."""
    for page in sorted(site.rglob("*.html")):  # the API reference, the env cards, every page
        text = page.read_text(encoding="utf-8")
        raw = re.findall(r":(?:py:)?(?:class|meth|func|mod|attr|exc|data|obj|const):(?:`|<code>)", text)
        assert not raw, f"{page.name}: {len(raw)} raw roles, e.g. {raw[:3]}"
    top = (site / "api" / "boardenvs.html").read_text(encoding="utf-8")
    order = [top.find(f"boardenvs.{name}</code>") for name in ("make", "make_vec", "position", "IllegalActionError")]
    assert all(k > 0 for k in order) and order == sorted(order), order


def test_every_card_explains_every_end_reason_and_the_faces_options():
    """An env card gives each end reason its meaning (the game's
    ``reason_docs``, the generic ones), every option a face adds
    (``render_mode``, ``max_cycles``, ``clock_seconds``, ...) and the flat
    gymnasium observation's layout; its notes table has a header."""
    from boardenvs.cards import env_card
    from boardenvs.registry import game_class, registered_ids

    for env_id in registered_ids():
        cls = game_class(env_id)
        card = env_card(env_id)
        assert set(cls.reason_names.values()) <= set(cls.reason_docs), (env_id, "reason_docs lacks a reason")
        rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", card.split("## End reasons")[1].split("##")[0], re.M)
        assert {"max_turns", "illegal_action", *cls.reason_names.values()} <= {n for n, _ in rows}
        assert all(len(meaning) > 20 for _, meaning in rows), (env_id, rows)
        for option in ("render_mode", "max_cycles", "clock_seconds", "opponent", "flatten", "autoreset_mode"):
            assert f"| `{option}` |" in card, (env_id, option)
        assert "flattened in C order" in card and "| | |" not in card


def test_no_page_shows_the_tests_budgets(site):
    """The ``# tests: N`` budgets the suite reads from the pages'
    code are dropped from the site (the home page, the tutorials)."""
    pages = sorted(site.rglob("*.html"))
    assert pages and not [p.name for p in pages if re.search(r"#\s*tests:", p.read_text(encoding="utf-8"))]
    assert "STEPS" in (site / "tutorials" / "gymnasium.html").read_text(encoding="utf-8")


def test_no_page_loops_by_the_clock():
    """A loop bounded by time (``while time.time() - start < ...``) runs as
    many iterations as fit, fewer on a busy machine, so a page's test would
    depend on load (the RLlib tutorial's did: a metric read after too few
    iterations was missing): the pages' loops count."""
    clocked = re.compile(r"while[^\n]*\b(time\.time|time\.perf_counter|time\.monotonic|perf_counter|monotonic)\(\)")
    pages = sorted((ROOT / "docs").rglob("*.md"))
    assert len(pages) > 10
    for page in pages:
        code, _, _ = code_of(page)
        assert not clocked.search(code), page
