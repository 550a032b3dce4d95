# The two commands a new user runs; both set everything up first.
.PHONY: demo test setup lint unit integration bench

VENV := .venv
PYTEST := $(VENV)/bin/pytest

setup:
	./scripts/bootstrap.sh

demo: setup
	$(VENV)/bin/actui demo

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy --strict src

unit: setup
	$(PYTEST) -q -m "not slow" tests/unit

integration: setup
	$(PYTEST) -q tests/integration

test: lint
	$(PYTEST) -q -p no:cacheprovider tests

bench: setup
	$(VENV)/bin/python bench/run_all.py
