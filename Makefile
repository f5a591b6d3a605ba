# The two commands a new user needs:
#   make serve   install into .venv and start the server on http://127.0.0.1:8414
#   make test    install the test dependencies into .venv and run the whole suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install install-test serve test lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# the package with the server extra (the library alone is `pip install -e .`)
install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[server]'

# the train extra too: CI runs the training smoke test (torch's CPU wheel, ray)
install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[server,test,train]'

serve: install
	$(BIN)/fouronefour serve

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# whole files on 2 workers (pytest-xdist; the longest files first, tests/conftest.py): many
# tests wait on a server, a browser or a timer, which the other worker's tests fill; then
# the cluster's fault tests alone (they stop processes and databases and measure how soon
# tables are served again: beside the other worker's tests they measured the load instead);
# `.venv/bin/pytest -q` runs the same tests one at a time
test: lint
	$(BIN)/pytest -q -n 2 --dist loadfile --no-loadscope-reorder --ignore=tests/server/test_cluster.py
	$(BIN)/pytest -q tests/server/test_cluster.py

bench: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[bench,rl]'
	$(BIN)/python bench/engine.py
