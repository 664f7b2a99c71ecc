# Every target creates .venv and installs the project on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RLLIB_STAMP := $(VENV)/.installed-rllib

.PHONY: run test test-slow test-browser screenshots lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU torch first, so that nothing below pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,dev,play]'
	touch $(STAMP)

# The tests also cover the optional Ray RLlib backend (Ray pins gymnasium 1.2.2).
$(RLLIB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,rllib]'
	touch $(RLLIB_STAMP)

# A short training (configs/quick_hungry_2p.yaml), then its evaluation table against random,
# greedy and expert (200 games each) beside the shipped agent's in the same games. The full
# default configs stay for `hunger-rl train configs/hungry_2p.yaml`.
run: $(STAMP)
	$(BIN)/hunger-rl train configs/quick_hungry_2p.yaml --beside pretrained:hungry_2p --out runs/make_run

test: $(RLLIB_STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not slow"

test-slow: $(RLLIB_STAMP)
	$(BIN)/python -m pytest -q -n auto -m slow

# The viewer and the play page in headless Chromium: Debian's chromium, driven by Playwright
# (which is told to use it: no browser download).
BROWSER_STAMP := $(VENV)/.installed-browser
$(BROWSER_STAMP): $(STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,browser]'
	touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP)
	$(BIN)/python -m pytest -q -n 0 -m browser

screenshots: $(BROWSER_STAMP)
	$(BIN)/python scripts/screenshots.py

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python scripts/bench_envs.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
