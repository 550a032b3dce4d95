# The two commands a new user runs; both set everything up first.
.PHONY: demo test setup lint unit integration bench image

VENV := .venv
# Debian packages of the apps the container image's desktops may start (make image APPS=...).
APPS ?= zenity
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

# The container image of deploy/Containerfile, built only when its inputs changed (docs/deploy.md).
image:
	APPS="$(APPS)" ./scripts/image.sh
