# Hearth — the two commands a new user needs:
#   make run    install what is missing, start a local Redis (unless REDIS_URL is set), run the web
#               process and the worker (the Procfile's two processes) until Ctrl-C
#   make test   install what is missing and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.hearth-installed

.PHONY: run test install lint worker web clean

$(STAMP): pyproject.toml
	@echo "hearth: installing Hearth and its Python packages into $(VENV) (the first time takes a few minutes)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade --progress-bar on pip
	$(PY) -m pip install --progress-bar on -e '.[test,local]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m adapters.devrun

# One process of the Procfile; without REDIS_URL it finds the Redis of a running `make run`.
worker: $(STAMP)
	$(PY) -m adapters.devrun worker

web: $(STAMP)
	$(PY) -m adapters.devrun web

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m tests.fixtures.browser
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
