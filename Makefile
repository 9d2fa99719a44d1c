# typofix: `make help` lists the targets. Everything runs inside .venv, created by `make install`.
PYTHON ?= python3
TORCH ?= torch==2.13.0
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EVAL ?= data/eval
LIMIT ?= 5000
PROSE ?= ../shared/eval/prose

.DEFAULT_GOAL := help
.PHONY: help install test test-all test-emacs train onnx demo plots bench bench-peers ablation clean

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

test-emacs: $(STAMP) ## install Emacs (Debian emacs-nox) if missing, then run the Emacs client test of typofix-ispell
	command -v emacs >/dev/null || (apt-get update -q && apt-get install -y -q emacs-nox)
	$(BIN)/python -m pytest -q tests/test_ispell.py -k emacs

train: $(STAMP) ## the bundled model's recipe, two stages, in outputs/bundled and outputs/bundled-stage2; ARGS="key=value ..." goes to both
	$(BIN)/typofix-train experiment=default hydra.run.dir=outputs/bundled $(ARGS)
	$(BIN)/typofix-train experiment=default_stage2 init_weights=outputs/bundled/checkpoints/last.ckpt \
		hydra.run.dir=outputs/bundled-stage2 $(ARGS)

onnx: $(STAMP) ## regenerate the bundled ONNX models (default.onnxz, fp16; default-int8.onnxz, int8) from typofix/models/default.pt
	$(BIN)/typofix export typofix/models/default.pt typofix/models/default.onnxz
	$(BIN)/typofix export typofix/models/default.pt typofix/models/default-int8.onnxz --int8

demo: $(STAMP) ## correct a few words and a sentence with the bundled model
	$(BIN)/typofix correct speling recieve teh definately acommodate
	echo "Teh quik brown fox recieved 3 leters from http://exmaple.com." | $(BIN)/typofix correct -
	$(BIN)/typofix correct --explain recieve goverment

plots: $(STAMP) ## the README's pictures: attention alignments and the character-embedding map of the bundled model
	$(BIN)/typofix plot-attention recieve definately --out docs/attention.png
	$(BIN)/typofix plot-embeddings --out docs/embeddings.png

bench-peers: $(STAMP) ## install the peer spell checkers (Debian aspell/hunspell, pip symspellpy/pyspellchecker)
	command -v aspell >/dev/null && command -v hunspell >/dev/null || \
		(apt-get update -q && apt-get install -y -q aspell aspell-en hunspell hunspell-en-us)
	$(BIN)/python -m pip install -q -e '.[bench]'

bench: $(STAMP) ## benchmark typofix and the peers on EVAL (folders; default data/eval), LIMIT rows per set (empty: all), and the running text in PROSE (skipped when absent) -> BENCHMARKS.md
	$(BIN)/python -m bench.run --eval $(EVAL) $(if $(LIMIT),--limit $(LIMIT)) --prose $(PROSE) --out BENCHMARKS.md --plots docs

clean: ## remove caches and generated outputs (keeps .venv)
	rm -rf outputs multirun lightning_logs .pytest_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

ablation: $(STAMP) ## attention ablation: 6 kinds x 2 seeds on one budget (~10 CPU-min), then docs/ablation.md + plots
	OMP_NUM_THREADS=1 $(BIN)/typofix-train -m experiment=ablation \
		model.attention=additive,dot,general,scaled_dot,multihead,none seed=1,2 $(ARGS)
	OMP_NUM_THREADS=1 $(BIN)/python -m bench.ablation
