# Two commands on a fresh machine with Python >= 3.10 and pip:
#   make demo   - create .venv, install, train a short Quess baseline, evaluate it, record a game (GIF)
#   make test   - create .venv, install with the test, training, interop and docs extras, run the test suite
#                 there, a pytest-xdist worker per core (at most 4); it installs nothing outside the clone
# and make check: what needs other environments or system packages (CI runs it after make test, .ci/run):
# Ray RLlib's tests in .venv-rllib (its own gymnasium pin), the oldest releases the package declares (PettingZoo,
# numba, numpy) in .venv-oldest, the device code compiled to PTX in .venv-cuda, the wheel as users get it, the
# replay page in headless Chromium (make browser installs it) and the pages' training claims (make check-claims)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# constraints.txt pins torch to the CPU build available on our machines
PIP_INSTALL := $(BIN)/python -m pip install --no-compile --quiet --disable-pip-version-check -c constraints.txt
STAMP := $(VENV)/.installed
# the suite's workers: one per core the process may use, at most 4 (each holds torch and the compiled games)
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; n = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count(); print(max(1, min(4, n or 1)))" 2>/dev/null || echo 1)
BENCH_STAMP := $(VENV)/.installed-bench
PUFFERL_STAMP := $(VENV)/.installed-pufferl
# Ray RLlib pins another gymnasium than the other extras: its own environment
RLLIB_VENV ?= .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
RLLIB_PIP := $(RLLIB_VENV)/bin/python -m pip install --no-compile --quiet --disable-pip-version-check -c constraints.txt
# the oldest releases the package declares, where trainers' pins put users (PettingZoo) and where numba's
# internals the engine uses are oldest (numba, and the numpy it supports): a third, small environment, with a
# numba cache of its own (another numba's cache files beside the sources would be rewritten by each)
OLDEST_VENV ?= .venv-oldest
OLDEST_STAMP := $(OLDEST_VENV)/.installed
OLDEST_PIP := $(OLDEST_VENV)/bin/python -m pip install --no-compile --quiet --disable-pip-version-check -c constraints.txt
OLDEST_PINS := pettingzoo==1.24.0 numba==0.60.0 numpy==2.0.2
# numba-cuda and the CUDA 12 toolkit's wheels (the cuda extra): the device code compiled to PTX, with no GPU
CUDA_VENV ?= .venv-cuda
CUDA_STAMP := $(CUDA_VENV)/.installed
CUDA_PIP := $(CUDA_VENV)/bin/python -m pip install --no-compile --quiet --disable-pip-version-check -c constraints.txt

# AgileRL and BenchMARL pin what the main environment cannot hold (pettingzoo<1.27 with 2.5 GB of
# dependencies; torchrl<0.12): an environment each, built and checked by make check-trainers, not by CI
AGILERL_VENV ?= .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed
BENCHMARL_VENV ?= .venv-benchmarl
BENCHMARL_STAMP := $(BENCHMARL_VENV)/.installed

.PHONY: demo test check check-wheel check-rllib check-oldest check-ptx check-browser test-nojit check-claims check-trainers bench install rllib-env agilerl-env benchmarl-env clean pictures docs playthroughs lint browser

# one line naming what is missing where the Python or its venv module is not there
CHECK_PYTHON = @command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: no $(PYTHON) on PATH: boardenvs needs Python >= 3.10 \
	(or name one: make $(MAKECMDGOALS) PYTHON=python3.11)" >&2; exit 1; }; \
	$(PYTHON) -c "import sys; sys.exit(sys.version_info < (3, 10))" || { echo "make: $(PYTHON) is Python \
	$$($(PYTHON) -c 'import platform; print(platform.python_version())'), boardenvs needs >= 3.10 (name another: \
	make $(MAKECMDGOALS) PYTHON=python3.11)" >&2; exit 1; }; \
	$(PYTHON) -c "import venv, ensurepip" 2>/dev/null || { echo "make: $(PYTHON) has no venv module with pip \
	(Debian and Ubuntu: apt-get install python3-venv)" >&2; exit 1; }

$(STAMP): pyproject.toml constraints.txt
	$(CHECK_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip "setuptools>=70.1"
	$(PIP_INSTALL) -e '.[test,render,train,interop,docs]'
	touch $(STAMP)

$(RLLIB_STAMP): pyproject.toml constraints.txt
	$(CHECK_PYTHON)
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_PIP) --upgrade pip "setuptools>=70.1"
	$(RLLIB_PIP) -e '.[test,render,train,rllib]'
	touch $(RLLIB_STAMP)

$(OLDEST_STAMP): pyproject.toml constraints.txt
	$(CHECK_PYTHON)
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_PIP) --upgrade pip "setuptools>=70.1"
	$(OLDEST_PIP) -e '.[test]' $(OLDEST_PINS)
	touch $(OLDEST_STAMP)

$(CUDA_STAMP): pyproject.toml constraints.txt
	$(CHECK_PYTHON)
	$(PYTHON) -m venv $(CUDA_VENV)
	$(CUDA_PIP) --upgrade pip "setuptools>=70.1"
	$(CUDA_PIP) -e '.[test,cuda]'
	touch $(CUDA_STAMP)

# AgileRL 2.58 imports peft without declaring it
$(AGILERL_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt --upgrade pip "setuptools>=70.1"
	$(AGILERL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]' 'agilerl==2.58.0' peft
	touch $(AGILERL_STAMP)

$(BENCHMARL_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(BENCHMARL_VENV)
	$(BENCHMARL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt --upgrade pip "setuptools>=70.1"
	$(BENCHMARL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]' 'benchmarl==1.5.2'
	touch $(BENCHMARL_STAMP)

# the benchmark's anchors (PettingZoo classic, OpenSpiel, Pgx + jax CPU) only for make bench
$(BENCH_STAMP): $(STAMP)
	$(PIP_INSTALL) -e '.[test,render,train,interop,docs,bench,pgx]'
	touch $(BENCH_STAMP)

install: $(STAMP)

# the AgileRL and BenchMARL environments (docs/tutorials/agilerl.md, benchmarl.md)
agilerl-env: $(AGILERL_STAMP)
benchmarl-env: $(BENCHMARL_STAMP)

# their pages' code at the small budgets of its `# tests:` comments, each in its environment (by hand:
# CI does not build them, see the pages)
check-trainers: $(AGILERL_STAMP) $(BENCHMARL_STAMP)
	$(AGILERL_VENV)/bin/python -m pytest -q tests/test_agilerl.py
	$(BENCHMARL_VENV)/bin/python -m pytest -q tests/test_benchmarl.py

# the Ray RLlib environment (docs/tutorials/rllib.md): .venv-rllib/bin/python runs the RLlib pages and tests
rllib-env: $(RLLIB_STAMP)

# boardenvs demo (torch's and numba's threads sized together for the cores: boardenvs.threads)
demo: $(STAMP)
	$(BIN)/boardenvs demo quess_v0 --minutes 3 --out runs/demo

# headless Chromium and its driver from Debian's packages, for tests/test_browser_replay.py (the replay page in a
# real browser): installed where either is missing (about 20 s: 26 packages, 120 MB), a loud failure where apt-get
# is missing (then install Chromium and a chromedriver of its version by hand). make check runs it; make test never
# installs a system package (its suite runs the browser test where Chromium is found, and says so where not)
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		command -v apt-get >/dev/null || { echo "make browser: no chromium or chromedriver, and no apt-get to" \
			"install them (Debian: chromium chromium-driver); the replay page's browser test needs them" >&2; exit 1; }; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends chromium chromium-driver fonts-dejavu-core; \
	fi

# the README's test command: the whole suite in the one environment, a worker per core (pytest-xdist; a test
# file's tests on one worker, so a module's fixture is made once); the replay page's browser test runs where
# Chromium is found (make browser installs it; make check runs it)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# what needs other environments or system packages, every part run and none skipped (make -k: a failure stops
# no other part), two parts at a time (make -j2 starts the next as one ends; each part's output in one piece):
# the pages' training claims (check-claims: two examples at a time, about 10 CPU-minutes); Ray RLlib's tests and
# the checkers under RLlib's gymnasium (check-rllib); the engine, contract and playthrough tests at the oldest
# releases declared, numba's floor among them (check-oldest); the wheel as users get it (check-wheel:
# tests/wheel_check.py builds the sdist and the wheel, installs it in a new environment and uses it from outside
# the checkout); the device code compiled to PTX (check-ptx); the replay page in headless Chromium (check-browser:
# make browser installs it).  The longest first, so that the two lanes end together
check: $(STAMP)
	$(MAKE) --no-print-directory -k -j2 --output-sync=target \
		check-claims check-rllib check-oldest check-wheel check-ptx check-browser

check-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -q tests/test_rllib.py tests/test_checkers.py \
		tests/test_playthroughs.py::test_the_rllib_env_replays_the_file
	$(RLLIB_VENV)/bin/python -m boardenvs.versions

# (TorchRL's playthroughs are the main environment's: torch is not installed here)
check-oldest: $(OLDEST_STAMP)
	NUMBA_CACHE_DIR=$(OLDEST_VENV)/numba-cache $(OLDEST_VENV)/bin/python -m pytest -q -k "not torchrl" \
		tests/test_numba_range.py tests/test_engine_contract.py tests/test_playthroughs.py \
		tests/test_pettingzoo_versions.py tests/test_infos.py tests/test_dice.py
	$(OLDEST_VENV)/bin/python -m boardenvs.versions

check-wheel: $(STAMP)
	$(BIN)/python tests/wheel_check.py

check-ptx: $(CUDA_STAMP)
	$(CUDA_VENV)/bin/python -m pytest -q tests/test_device_ptx.py

check-browser: browser $(STAMP)
	BOARDENVS_BROWSER=required $(BIN)/python -m pytest -q tests/test_browser_replay.py
	$(BIN)/python -m boardenvs.versions

# one formatter and linter for the whole tree (pyproject.toml's [tool.ruff]); `ruff format .` fixes the format
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

# PufferLib's trainer (docs/tutorials/pufferlib.md): the pufferlib-core wheel's compiled kernel links CUDA's
# runtime, so check-claims rebuilds it from its sdist against the installed CPU torch (about 30-50 s)
$(PUFFERL_STAMP): $(STAMP)
	PUFFERLIB_DISABLE_CUDA=1 $(PIP_INSTALL) --no-build-isolation --no-binary pufferlib-core --no-deps --force-reinstall 'pufferlib-core==3.0.19'
	touch $(PUFFERL_STAMP)

# the pages' training examples at full size, their claims checked (tests/claims_check.py: about
# 10 CPU-minutes, a third of them each Tianshou route), two examples at a time; make check runs it
check-claims: $(STAMP) $(PUFFERL_STAMP)
	$(BIN)/python tests/claims_check.py --jobs 2

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench.py

# each game's picture beside its rules (boardenvs/rules/<game>.png) and the README's GIF
pictures: $(STAMP)
	$(BIN)/python -c "from boardenvs.pictures import doc_pictures; print(*doc_pictures(), sep='\n')"

# the golden playthroughs (tests/playthroughs/: one seeded game per id, variant and dice variant, which
# tests/test_playthroughs.py replays on every face): rewritten after a rules change, their diff reviewed
playthroughs: $(STAMP)
	cd tests && ../$(BIN)/python playthrough.py

# the documentation site into site/ (mkdocs.yml; docs/hooks.py generates the cards, rules, API and result pages)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) $(RLLIB_VENV) $(OLDEST_VENV) $(CUDA_VENV) $(AGILERL_VENV) $(BENCHMARL_VENV) build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
