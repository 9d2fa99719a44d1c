#!/usr/bin/env bash
# Issue 38's smaller default model on a lent GPU machine (the shared notes' GPU.md), in one go: two runs of
# experiment=student side by side on the one GPU, the same seed and data, one distilled from the bundled model
# (model.teacher) and one on the gold letters alone, so that what distillation buys is measured. Run from the
# project root with .whl/ carried (the wheels of hydra-core, omegaconf, antlr4 and, for the data's word tools,
# rapidfuzz, regex and jellyfish, for the machine's Python):
#     bash bench/gpu_student.sh        # writes $OUT/{distilled,plain}-{last,best}.pt, their metrics.csv, log.txt
# About 8 minutes on one H100 (docs/model.md has its figures). Each run's exports are kept even if the other run
# fails. EXTRA adds overrides to both runs, e.g. for a dry run of the script on a CPU (the install lines left out):
#     EXTRA="trainer.accelerator=cpu trainer.precision=32-true data.epoch_size=4096 trainer.max_epochs=1"
set -u
OUT=${OUT:-/tmp/typofix-gpu-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/install.txt 2>&1 || { cat /tmp/install.txt; exit 1; }
export TYPOFIX_CACHE_DIR=/tmp/typofix-cache
python3 -c "import typofix.training.train, typofix.training.data, typofix.training.system" 2>&1 | tail -3 | tee "$OUT/log.txt"
test "${PIPESTATUS[0]}" -eq 0 || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >> "$OUT/log.txt"

run() {  # name, then the run's own overrides
  local name=$1; shift
  bin/typofix-train experiment=student hydra.run.dir="/tmp/runs/$name" "$@" ${EXTRA:-} > "/tmp/$name.log" 2>&1
  echo "$name: typofix-train exit $?" >> "$OUT/log.txt"
}
run distilled model.teacher=typofix/models/default.pt &
run plain model.teacher=null &
wait

status=0
for name in distilled plain; do
  dir=/tmp/runs/$name
  cp "$dir/logs/metrics.csv" "$OUT/$name-metrics.csv" || status=1
  bin/typofix export "$dir/checkpoints/last.ckpt" "$OUT/$name-last.pt" >> "$OUT/log.txt" 2>&1 || status=1
  best=$(ls "$dir"/checkpoints/epoch*.ckpt 2>/dev/null | head -1)
  [ -n "$best" ] && { echo "$name best: $best" >> "$OUT/log.txt"; bin/typofix export "$best" "$OUT/$name-best.pt" >> "$OUT/log.txt" 2>&1; }
  { echo "--- $name"; grep -v "it/s\]" "/tmp/$name.log" | tail -25; } >> "$OUT/log.txt"
done
exit $status
