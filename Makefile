# Hearth — the two commands a new user needs:
#   make run    install what is missing, start a local Redis (unless REDIS_URL is set), serve the web chat
#   make test   install what is missing and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.hearth-installed

.PHONY: run test install lint worker clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,local]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m adapters.devrun

worker: $(STAMP)
	$(PY) -m adapters.worker

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
