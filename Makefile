# typofix: `make help` lists the targets. Everything runs inside .venv, created by `make install`.
PYTHON ?= python3
TORCH ?= torch==2.13.0
# A PyTorch wheel index for TORCH, e.g. https://download.pytorch.org/whl/cpu (the CPU-only build, a fraction of the
# default CUDA one's size). Empty: pip's configured index (here that serves torch==2.13.0 from a local file).
TORCH_INDEX ?=
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EVAL ?= data/eval
LIMIT ?= 5000
PROSE ?= ../shared/eval/prose ../shared/eval/informal

.DEFAULT_GOAL := help
.PHONY: help install test test-all test-spark test-browser test-emacs test-editors train train-gpu train-fast onnx demo plots serve screenshot bench bench-peers informal-dev bench-check bench-wild network-value startup recall coverage ablation clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'

# setuptools adds a note to every editable install with a package-dir mapping (conf/ and data/ ship as
# typofix.conf and typofix.wordlist) to mind same-named folders: information, not a packaging problem.
$(STAMP): export PYTHONWARNINGS = ignore:Editable installation
$(STAMP): pyproject.toml bin/typofix
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) "$(TORCH)"
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## create .venv, install torch (TORCH=torch==2.13.0, from TORCH_INDEX if set) then typofix[dev]; idempotent

TEST_JOBS ?= 2

test: $(STAMP) ## run the fast test suite in TEST_JOBS processes (pytest-xdist; installs first if needed)
	$(BIN)/python -m pytest -q -n $(TEST_JOBS)

test-all: $(STAMP) ## run every test, the slow ones too
	$(BIN)/python -m pytest -q -m ''

# Java for Spark: Debian's JRE (pyspark 4 needs Java 17 or later) where no java is on PATH.
test-spark: $(STAMP) ## install Java (Debian's JRE) if missing and the spark extra, then run the Spark tests on local[2]
	command -v java >/dev/null || (apt-get update -q && apt-get install -y -q default-jre-headless)
	$(BIN)/python -m pip install -q -e '.[spark]'
	$(BIN)/python -m pytest -q -m spark tests/test_spark.py

CHROMIUM := /usr/bin/chromium

$(CHROMIUM):
	apt-get update -q && apt-get install -y -q chromium

test-browser: $(STAMP) $(CHROMIUM) ## the attention explorer in headless Chromium (installs Debian's chromium if missing)
	$(BIN)/python -m pytest -q tests/test_browser.py

EDITOR_TESTS := tests/test_ispell.py tests/test_lsp.py tests/test_lsp_neovim.py

test-editors: $(STAMP) ## install Emacs, Neovim and Aspell (Debian emacs-nox, neovim, aspell-en) if missing, then run the editor tests: Emacs flyspell with typofix-ispell, the Ispell protocol table against aspell -a, Neovim's LSP client with typofix lsp
	command -v emacs >/dev/null && command -v nvim >/dev/null && command -v aspell >/dev/null && \
		test -e /usr/lib/aspell/en.multi || \
		(apt-get update -q && apt-get install -y -q emacs-nox neovim aspell aspell-en)
	$(BIN)/python -m pytest -q $(EDITOR_TESTS)

test-emacs: test-editors ## the editor tests (kept for its old name: make test-editors)

train: $(STAMP) ## the bundled model's recipe, two stages, in outputs/bundled and outputs/bundled-stage2; ARGS="key=value ..." goes to both
	$(BIN)/typofix-train experiment=default hydra.run.dir=outputs/bundled $(ARGS)
	$(BIN)/typofix-train experiment=default_stage2 init_weights=outputs/bundled/checkpoints/last.ckpt \
		hydra.run.dir=outputs/bundled-stage2 $(ARGS)

STAGE2 ?= outputs/bundled-stage2/checkpoints/last.ckpt

train-gpu: $(STAMP) ## stages 3-5 of the bundled model on a GPU (mixed noise model) from STAGE2's weights, in outputs/bundled-stage3..5
	$(BIN)/typofix-train experiment=default_stage3 init_weights=$(STAGE2) hydra.run.dir=outputs/bundled-stage3 $(ARGS)
	$(BIN)/typofix-train experiment=default_stage4 init_weights=outputs/bundled-stage3/checkpoints/last.ckpt \
		hydra.run.dir=outputs/bundled-stage4 $(ARGS)
	$(BIN)/typofix-train experiment=default_stage5 init_weights=outputs/bundled-stage4/checkpoints/last.ckpt \
		hydra.run.dir=outputs/bundled-stage5 $(ARGS)

train-fast: $(STAMP) ## the fast preset's smaller model (experiment=fast, one stage, under an hour on one core) in outputs/fast
	$(BIN)/typofix-train experiment=fast hydra.run.dir=outputs/fast $(ARGS)

onnx: $(STAMP) ## regenerate the bundled ONNX models (default.onnxz, fp16; default-int8.onnxz and fast-int8.onnxz, int8) from typofix/models/*.pt
	$(BIN)/typofix export typofix/models/default.pt typofix/models/default.onnxz
	$(BIN)/typofix export typofix/models/default.pt typofix/models/default-int8.onnxz --int8
	$(BIN)/typofix export typofix/models/fast.pt typofix/models/fast-int8.onnxz --int8

demo: $(STAMP) ## correct a few words and a sentence with the bundled model
	$(BIN)/typofix correct speling recieve teh definately acommodate
	echo "Teh quick brown fox recieved 3 leters from http://exmaple.com." | $(BIN)/typofix correct -
	$(BIN)/typofix correct --explain recieve goverment

plots: $(STAMP) ## the README's pictures: attention alignments and the character-embedding map of the bundled model
	$(BIN)/typofix plot-attention recieve definately --out docs/attention.png
	$(BIN)/typofix plot-embeddings --out docs/embeddings.png

serve: $(STAMP) ## the attention explorer on http://127.0.0.1:8000/ with the bundled model (Ctrl-C stops)
	$(BIN)/typofix serve

screenshot: $(STAMP) $(CHROMIUM) ## docs/explorer.png: headless Chromium's picture of the explorer at /?q=recieve
	$(BIN)/python -m tests.explorer docs/explorer.png "/?q=recieve"

bench-peers: $(STAMP) ## install the peer spell checkers (Debian aspell/hunspell, pip symspellpy/pyspellchecker)
	command -v aspell >/dev/null && command -v hunspell >/dev/null || \
		(apt-get update -q && apt-get install -y -q aspell aspell-en hunspell hunspell-en-us)
	$(BIN)/python -m pip install -q -e '.[bench]'

bench: $(STAMP) ## benchmark typofix and the peers on EVAL (folders; default data/eval), LIMIT rows per set (empty: all), and the running text in PROSE (+ outputs/informal-all when made) -> BENCHMARKS.md
	$(BIN)/python -m bench.run --eval $(EVAL) $(if $(LIMIT),--limit $(LIMIT)) --prose $(PROSE) $(wildcard outputs/informal-all) --out BENCHMARKS.md --plots docs

informal-dev: $(STAMP) ## outputs/informal-all: the dev prose with every eligible token's informal slip (bench/informal.py), which make bench then adds
	$(BIN)/python -m bench.informal --clean $(firstword $(PROSE))/clean.txt --rate 1.0 --seed 1 --out outputs/informal-all

CSPELL ?= $(shell command -v cspell)

BIG ?= 50

bench-check: $(STAMP) ## typofix check beside codespell, typos-cli and cspell (CSPELL=path; npm install cspell@9) on this tree, the stdlib and a BIG MB text (0: not): time, CPU, peak RSS, findings -> docs/check.md
	$(BIN)/python -m pip install -q codespell typos
	$(BIN)/python -m bench.check_peers --out docs/check.md --big $(BIG) $(if $(CSPELL),--cspell $(CSPELL))

WILD ?= ../shared/eval/wild

bench-wild: $(STAMP) ## typofix beside Aspell, Hunspell, codespell and typos-cli on text as found in the wild (WILD; installs the missing peers) -> BENCHMARKS.md
	command -v aspell >/dev/null && command -v hunspell >/dev/null && test -e /usr/lib/aspell/en.multi && \
		test -e /usr/share/hunspell/en_US.dic || \
		(apt-get update -q && apt-get install -y -q aspell aspell-en hunspell hunspell-en-us)
	test -x $(BIN)/codespell && test -x $(BIN)/typos || $(BIN)/python -m pip install -q codespell typos
	$(BIN)/python -m bench.wild --wild $(WILD) --out BENCHMARKS.md

network-value: $(STAMP) ## what the network buys: the same search with no, an untrained, a tiny and the bundled network -> BENCHMARKS.md (~2 min)
	$(BIN)/python -m bench.network_value --out BENCHMARKS.md

startup: $(STAMP) ## start-up as users feel it: typofix correct on the (first) PROSE text and on one word, index cache cold, warm and off
	$(BIN)/python -m bench.startup --prose $(firstword $(PROSE))

recall: $(STAMP) ## candidate recall by edit distance on the dev sets, with 0 and 10 sound-alike candidates (the default)
	$(BIN)/python -m bench.candidate_recall --sound-candidates 0 10

coverage: ## how many of each dev set's rows and distinct targets (data/eval) data/words.tsv lists, and which it lacks
	$(PYTHON) data/build_words.py --coverage --out data/words.tsv

clean: ## remove caches and generated outputs (keeps .venv)
	rm -rf outputs multirun lightning_logs .pytest_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

ablation: $(STAMP) ## attention ablation: 6 kinds x 2 seeds on one budget (~10 CPU-min), then docs/ablation.md + plots
	OMP_NUM_THREADS=1 $(BIN)/typofix-train -m experiment=ablation \
		model.attention=additive,dot,general,scaled_dot,multihead,none seed=1,2 $(ARGS)
	OMP_NUM_THREADS=1 $(BIN)/python -m bench.ablation
