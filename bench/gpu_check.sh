#!/usr/bin/env bash
# On one CUDA GPU with PyTorch and Triton preinstalled and no network: the CUDA tests of
# the kernels, then kernel and end-to-end timings (bench/kernel_speed.py), in one table.
# What the CLI imports beyond torch travels as wheels in .whl/ (bench/gpu_wheels.sh); no install of
# this package: it is made importable through a symlink tree, as in bench/gpu_train.sh.
#
#   bash bench/gpu_check.sh TABLE.md [JSON]      (under 5 minutes on an H100/H200)
set -euo pipefail
TABLE=${1:?usage: bench/gpu_check.sh TABLE.md [JSON]}
JSON=${2:-}
PY=${PY:-python3}
source bench/importable.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 150 $PY -m pytest -q -p no:cacheprovider tests/kernels
timeout 150 $PY bench/kernel_speed.py --out "$TABLE" ${JSON:+--json "$JSON"}
