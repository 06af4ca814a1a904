# sciwrite: `make quickstart` runs the main job offline, `make test` runs the tests.
# Both create .venv on first use and install torch as a CPU wheel first (see README).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1

.PHONY: install quickstart leaderboard test test-quick lint bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	bash scripts/install_wordnet.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade "pip>=25"
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,scale]"
	touch $@

quickstart: install
	$(OFFLINE) $(BIN)/sciwrite quickstart

leaderboard: install
	$(OFFLINE) $(BIN)/sciwrite leaderboard serve

test: install
	$(OFFLINE) $(BIN)/python -m pytest -q

test-quick: install
	$(OFFLINE) $(BIN)/python -m pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python scripts/bench/retrieval.py

clean:
	rm -rf $(VENV) outputs .pytest_cache
