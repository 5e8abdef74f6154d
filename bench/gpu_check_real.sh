#!/usr/bin/env bash
# On one CUDA GPU, no network: a random diffusion LM of a real size (Qwen3-1.7B's shape, bf16)
# behind the engine, decisions/s at batch 1 / 32 / 256 with 8-question requests of about 300
# prompt tokens, and block attention's share of the time (bench/real_model_speed.py). The
# package is made importable through a symlink tree, as in bench/gpu_train.sh.
#
#   bash bench/gpu_check_real.sh OUT.json      (about 2 minutes on an H100/H200)
set -euo pipefail
OUT=${1:?usage: bench/gpu_check_real.sh OUT.json}
PY=${PY:-python3}
source bench/importable.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 400 $PY bench/real_model_speed.py --shape qwen3-1.7b --device cuda --batches 1,32,256 --seconds 20 --json "$OUT"
