# Every target creates .venv and installs the project on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RLLIB_STAMP := $(VENV)/.installed-rllib
INTEROP_STAMP := $(VENV)/.installed-interop
OPENSPIEL_STAMP := $(VENV)/.installed-openspiel

AGILERL_VENV := .venv-agilerl

.PHONY: run test test-slow test-rllib test-agilerl test-browser screenshots docs lint bench clean

# The venv with an up-to-date pip and CPU torch first, so that nothing after it pulls a
# multi-GB CUDA build.
define VENV_WITH_TORCH
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
endef

$(STAMP): pyproject.toml
	$(VENV_WITH_TORCH)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,play]'
	touch $(STAMP)

# The tests also cover the optional Ray RLlib backend (Ray pins gymnasium 1.2.2).
$(RLLIB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,rllib]'
	touch $(RLLIB_STAMP)

# TorchRL, Tianshou and SuperSuit for tests/interop (about 30 s on top of the rest).
$(INTEROP_STAMP): $(RLLIB_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,rllib,interop,play]'
	touch $(INTEROP_STAMP)

# OpenSpiel for tests/openspiel (the python_hungry and python_hunger_show games).
$(OPENSPIEL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,openspiel]'
	touch $(OPENSPIEL_STAMP)

# The viewer and the play page in headless Chromium: Debian's chromium, driven by Playwright
# (which is told to use it: no browser download).
BROWSER_STAMP := $(VENV)/.installed-browser
$(BROWSER_STAMP): $(STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,browser]'
	touch $(BROWSER_STAMP)

# The documentation site's generator: MkDocs, Material and mkdocstrings (mkdocs.yml).
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev,docs]'
	touch $(DOCS_STAMP)

# A short training (the quick_hungry_2p config), then its evaluation table against random,
# greedy and expert (200 games each) beside the shipped agent's network (without its search) in
# the same games. The full default configs stay for `hunger-rl train hungry_2p`.
run: $(STAMP)
	$(BIN)/hunger-rl train quick_hungry_2p --beside pretrained:hungry_2p:network --out runs/make_run

# What make test needs, in one pip resolution where the stamps above would take six (each pip
# call costs seconds of its own on a fresh clone); it marks those stamps done as well.
TEST_EXTRAS := train,dev,play,rllib,interop,openspiel,browser,docs
TEST_STAMP := $(VENV)/.installed-test
$(TEST_STAMP): pyproject.toml
	$(VENV_WITH_TORCH)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/python -m pip install --quiet -e '.[$(TEST_EXTRAS)]'
	touch $(STAMP) $(RLLIB_STAMP) $(INTEROP_STAMP) $(OPENSPIEL_STAMP) $(BROWSER_STAMP) \
		$(DOCS_STAMP) $(TEST_STAMP)

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not slow" --durations=10

test-slow: $(INTEROP_STAMP)
	$(BIN)/python -m pytest -q -n auto -m slow

# Every RLlib check, the slow ones included: both games' end-to-end runs and the frozen
# snapshots, each on a local Ray instance (which takes both cores while it starts).
test-rllib: $(RLLIB_STAMP)
	$(BIN)/python -m pytest -q -n 0 tests/training/test_rllib.py

# AgileRL 2.58 pins pettingzoo<1.27 and tensordict 0.13 (TorchRL 0.14 needs 0.14), so it gets
# an environment of its own; its import also needs peft.
$(AGILERL_VENV)/.installed: pyproject.toml
	test -x $(AGILERL_VENV)/bin/python || $(PYTHON) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(AGILERL_VENV)/bin/python -m pip install --quiet -e '.[dev]' agilerl==2.58.0 peft
	touch $(AGILERL_VENV)/.installed

test-agilerl: $(AGILERL_VENV)/.installed
	$(AGILERL_VENV)/bin/python -m pytest -q tests/interop/test_agilerl.py


test-browser: $(BROWSER_STAMP)
	$(BIN)/python -m pytest -q -n 0 -m browser

screenshots: $(BROWSER_STAMP) $(DOCS_STAMP)
	$(BIN)/python scripts/screenshots.py

# The site from docs/ into site/ (strict: a broken link or reference fails), and its front page's
# screenshot is `make screenshots`; `$(BIN)/mkdocs serve` shows it while editing.
docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python scripts/bench_envs.py

clean:
	rm -rf $(VENV) $(AGILERL_VENV) build site *.egg-info .pytest_cache
