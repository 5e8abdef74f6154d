#!/usr/bin/env bash
# Continue training decider-small on one CUDA GPU, then measure it there.
#
# Runs in the repository root of a machine that has torch, tokenizers, safetensors, pyyaml
# and tqdm but may have no network and no `pip install -e .`: the package is made
# importable through a symlink tree, and what else the CLI imports travels as wheels
# (`bash bench/gpu_wheels.sh` here, then carry .whl with the checkout).
# Results go to $OUT (8 files): train.log, config.json, calibration.json, test.json,
# novel.json and the bf16 weights in three parts
# (join with `cat model.safetensors.part-* > model.safetensors`). The weights are written
# before any evaluation starts, so a slow evaluation never costs the trained model.
#
#   OUT=/tmp/out bash bench/gpu_train.sh
#   INIT=runs/decider-small CONFIG=... TIME_LIMIT_MIN=5 SETS=2000 bash bench/gpu_train.sh
#   CORPUS=v2 CONFIG=engine/configs/decider-small-v2-gpu.yaml TIME_LIMIT_MIN=10 bash bench/gpu_train.sh
# With CORPUS=v2 the temperature is fitted on the v2 validation split and the reports (v2 test,
# held-out templates, v2 novel, v1 test) come back as one reports.tar, so that the files still
# number 8. CHECK=1 (v2 only) then runs bench/gpu_check.sh into the same tar (kernels.md and
# kernels.json): one lease for both, e.g. in about 9 minutes on an H200
#   CHECK=1 CORPUS=v2 CONFIG=engine/configs/decider-small-v16-gpu.yaml TIME_LIMIT_MIN=4.5 SETS=1000 \
#     bash bench/gpu_train.sh      (after `bash bench/gpu_wheels.sh`, carrying .whl)
set -euo pipefail
OUT=${OUT:-/tmp/decider-out}
CONFIG=${CONFIG:-engine/configs/decider-small-gpu.yaml}
CORPUS=${CORPUS:-v1}
INIT=${INIT:-engine/checkpoints/decider-small}
TIME_LIMIT_MIN=${TIME_LIMIT_MIN:-5}
SETS=${SETS:-2000}
RUN=${RUN:-/tmp/decider-run}
EXPORT=${EXPORT:-/tmp/decider-export}
PY=${PY:-python3}
mkdir -p "$OUT"

source bench/importable.sh
LOG="$OUT/train.log"

{
  date -u
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || echo "no nvidia-smi"
  echo "cpus $(nproc)"
  $PY -c "import torch, decider.engine as e; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), e.__file__)"
} 2>&1 | tee "$LOG"

$PY -m decider.cli train --config "$CONFIG" --init "$INIT" --out "$RUN" \
    --time-limit-min "$TIME_LIMIT_MIN" --quiet 2>&1 | tee -a "$LOG"
$PY -m decider.cli export --checkpoint "$RUN" --out "$EXPORT" 2>&1 | tee -a "$LOG"
split -n 3 -d "$EXPORT/model.safetensors" "$OUT/model.safetensors.part-"
cp "$EXPORT/config.json" "$OUT/"

evaluate() {  # timeout seconds, then eval arguments
  local limit=$1; shift
  timeout "$limit" $PY -m decider.cli eval --checkpoint "$EXPORT" --quiet "$@" 2>&1 | tail -n 3 | tee -a "$LOG" \
    || echo "eval $* did not finish within ${limit} s" | tee -a "$LOG"
}
evaluate "${FIT_TIMEOUT:-40}" --fit-temperature --corpus "$CORPUS" --sets 1000 --policies parallel --oracle-sets 0
cp "$EXPORT/calibration.json" "$OUT/"
if [ "$CORPUS" = v2 ]; then
  mkdir -p "$EXPORT/reports"
  for split in test heldout novel; do
    evaluate "${TEST_TIMEOUT:-120}" --corpus v2 --split "$split" --sets "$SETS" --policies parallel,independent \
      --oracle-sets 0 --json --out "$EXPORT/reports/$split.json"
  done
  evaluate "${TEST_TIMEOUT:-120}" --corpus v1 --split test --sets "$SETS" --policies parallel,independent \
    --oracle-sets 0 --json --out "$EXPORT/reports/v1-test.json"
  if [ "${CHECK:-0}" = 1 ]; then  # the kernels' CUDA tests and timings too, in the same lease
    bash bench/gpu_check.sh "$EXPORT/reports/kernels.md" "$EXPORT/reports/kernels.json" 2>&1 | grep -v DEBUG \
      | tail -n 30 | tee -a "$LOG" || echo "bench/gpu_check.sh failed" | tee -a "$LOG"
  fi
  tar -C "$EXPORT" -cf "$OUT/reports.tar" reports
else
  evaluate "${TEST_TIMEOUT:-120}" --split test --sets "$SETS" --json --out "$OUT/test.json"
  evaluate "${NOVEL_TIMEOUT:-80}" --split novel --sets "$((SETS / 2))" --json --out "$OUT/novel.json"
fi
ls -la "$OUT" | tee -a "$LOG"
