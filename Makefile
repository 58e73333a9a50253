# Two commands on a fresh machine with Python >= 3.10 and pip:
#   make demo   - create .venv, install, train a short Quess baseline, evaluate it, record a game (GIF)
#   make test   - create .venv, install with test, train, interop and docs extras, run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# constraints.txt pins torch to the CPU build available on our machines
PIP_INSTALL := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: demo test test-nojit bench install clean pictures docs

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip "setuptools>=69"
	$(PIP_INSTALL) -e '.[test,render,train,interop,docs]'
	touch $(STAMP)

# the benchmark's anchors (PettingZoo classic, OpenSpiel, Pgx + jax CPU) only for make bench
$(BENCH_STAMP): $(STAMP)
	$(PIP_INSTALL) -e '.[test,render,train,interop,docs,bench,pgx]'
	touch $(BENCH_STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m boardenvs.baselines.demo --game quess_v0 --steps 100000 --out runs/demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench.py

# each game's picture beside its rules (boardenvs/rules/<game>.png) and the README's GIF
pictures: $(STAMP)
	$(BIN)/python -c "from boardenvs.cli import doc_pictures; print(*doc_pictures(), sep='\n')"

# the documentation site into site/ (mkdocs.yml; docs/hooks.py generates the cards, rules, API and result pages)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
