# Every target creates .venv and installs the project on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-slow lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU torch first, so that nothing below pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hunger-rl demo hungry --players 2 --seed 0
	$(BIN)/hunger-rl evaluate --game hungry --players 2 --policies random random --games 200 --seed 0

test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not slow"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m slow

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python scripts/bench_envs.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
