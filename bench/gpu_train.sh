#!/usr/bin/env bash
# Continue training decider-small on one CUDA GPU and measure it there.
#
# Runs in the repository root of a machine that has torch, tokenizers, safetensors, pyyaml
# and tqdm but may have no network and no `pip install -e .`: the package is made
# importable through a symlink tree. pydantic must be importable (carry its wheels if not).
# Results go to $OUT: eval reports and the bf16 checkpoint, its weights split in 15 MiB
# parts (join with `cat model.safetensors.part-* > model.safetensors`).
#
#   OUT=/tmp/out TIME_LIMIT_MIN=7 bash bench/gpu_train.sh
set -euo pipefail
OUT=${OUT:-/tmp/decider-out}
TIME_LIMIT_MIN=${TIME_LIMIT_MIN:-7}
SETS=${SETS:-2000}
mkdir -p "$OUT"

PKG=$(mktemp -d)
mkdir "$PKG/decider"
cp decider/*.py "$PKG/decider/"
ln -s "$PWD/engine" "$PKG/decider/engine"
ln -s "$PWD/kernels" "$PKG/decider/kernels"
export PYTHONPATH="$PKG${PYTHONPATH:+:$PYTHONPATH}"
PY=${PY:-python3}

# at most 8 files come back: train.log, test.json, novel.json, config.json, calibration.json, 3 parts
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$OUT/train.log"
$PY -m decider.cli train --config engine/configs/decider-small-gpu.yaml \
    --time-limit-min "$TIME_LIMIT_MIN" --quiet 2>&1 | tail -n 20 | tee -a "$OUT/train.log"
$PY -m decider.cli export --checkpoint /tmp/decider-run --out /tmp/decider-export
$PY -m decider.cli eval --checkpoint /tmp/decider-export --fit-temperature --sets 1000 --quiet
$PY -m decider.cli eval --checkpoint /tmp/decider-export --split test --sets "$SETS" --json --quiet --out "$OUT/test.json"
$PY -m decider.cli eval --checkpoint /tmp/decider-export --split novel --sets "$SETS" --json --quiet --out "$OUT/novel.json"
cp /tmp/decider-export/config.json /tmp/decider-export/calibration.json "$OUT/"
split -b 15M /tmp/decider-export/model.safetensors "$OUT/model.safetensors.part-"
ls -la "$OUT"
