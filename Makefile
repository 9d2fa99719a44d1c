# typofix: `make help` lists the targets. Everything runs inside .venv, created by `make install`.
PYTHON ?= python3
TORCH ?= torch==2.13.0
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EVAL ?= data/eval
LIMIT ?= 5000

.DEFAULT_GOAL := help
.PHONY: help install test test-all train demo plots bench bench-peers ablation clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## create .venv, install torch (TORCH=torch==2.13.0 by default) then typofix[dev]; idempotent

test: $(STAMP) ## run the fast test suite (installs first if needed)
	$(BIN)/python -m pytest -q

test-all: $(STAMP) ## run every test, the slow ones too
	$(BIN)/python -m pytest -q -m ''

train: $(STAMP) ## train the default recipe (the bundled model's); override with ARGS="key=value ..."
	$(BIN)/typofix-train experiment=default $(ARGS)

clean: ## remove caches and generated outputs (keeps .venv)
	rm -rf outputs multirun lightning_logs .pytest_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

ablation: $(STAMP) ## attention ablation: 6 kinds x 2 seeds on one budget (~10 CPU-min), then docs/ablation.md + plots
	OMP_NUM_THREADS=1 $(BIN)/typofix-train -m experiment=ablation \
		model.attention=additive,dot,general,scaled_dot,multihead,none seed=1,2 $(ARGS)
	OMP_NUM_THREADS=1 $(BIN)/python -m bench.ablation
