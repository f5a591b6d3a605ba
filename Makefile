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

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

# the train extra too: CI runs the training smoke test (torch's CPU wheel, ray)
install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,train]'

serve: install
	$(BIN)/fouronefour serve

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[bench,rl]'
	$(BIN)/python bench/engine.py
