# sciwrite: `make quickstart` runs the main job offline, `make test` runs the tests.
# Both create .venv on first use and install torch as a CPU wheel first (see README).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1

.PHONY: install quickstart leaderboard test test-slow test-all lint bench docs docs-serve clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	bash scripts/install_wordnet.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade "pip>=25"
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,scale,inspect]"
	touch $@

quickstart: install
	$(OFFLINE) $(BIN)/sciwrite quickstart

leaderboard: install
	$(OFFLINE) $(BIN)/sciwrite leaderboard serve

# Two pytest-xdist workers, a test file each at a time (--dist loadfile): the suite waits on servers, subprocesses
# and Ray actors as much as it computes, so two finish sooner on 2 cores. The tests that start the session's local
# Ray share one file (tests/scale/test_ray_equals_one_process.py), hence one worker and one Ray.
TEST_WORKERS ?= 2
PYTEST := $(OFFLINE) $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# `make test` leaves out the tests marked slow (each tens of seconds: Ray, the docs' examples, KeyBERT, the
# installed wheel, the annotation app in a browser) so that it stays under 6 minutes on 2 cores; `make test-slow`
# runs exactly those, and CI runs both. `make test-all` runs everything in one go.
test: install
	$(PYTEST) -m "not slow"

test-slow: install
	$(PYTEST) -m slow

test-all: install
	$(PYTEST)

# ruff over the tree; mypy over the whole package (pyproject.toml's [tool.mypy])
lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: install
	$(BIN)/python scripts/bench/retrieval.py

# The documentation site: the generated pages (CLI reference, metric pages), then a --strict build into site/.
docs: install
	$(BIN)/pip install -q -e ".[docs]"
	$(BIN)/python scripts/docs/build_pages.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) outputs .pytest_cache site docs/generated
