#!/usr/bin/env bash
# The GPU checks of issue 39 in one go, on a lent GPU machine (the shared notes' GPU.md): the gpu tests and the GPU
# speed tables. Run from the project root with .whl/ carried (hydra-core, omegaconf, antlr4 wheels):
#     bash bench/gpu_check.sh            # writes $OUT/gpu-tests.txt and $OUT/train-speed-cuda.md
# About 4-6 minutes on one H100. Each part's output is kept even if another part fails.
set -u
OUT=${OUT:-/tmp/typofix-gpu-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/install.txt" 2>&1 || { cat "$OUT/install.txt"; exit 1; }
export TYPOFIX_CACHE_DIR=/tmp/typofix-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"

status=0
timeout 240 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_train.py 2>&1 | tee "$OUT/gpu-tests.txt"
test "${PIPESTATUS[0]}" -eq 0 || status=1
timeout 300 python3 bench/train_speed.py --device cuda --e2e-steps 40 2>&1 | tee "$OUT/train-speed-cuda.md"
test "${PIPESTATUS[0]}" -eq 0 || status=1
exit $status
