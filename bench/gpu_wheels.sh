#!/usr/bin/env bash
# Wheels for a GPU machine that has torch, triton, tokenizers, safetensors, pyyaml and tqdm but
# no network: what the CLI imports beside them (pydantic, pydantic-settings, structlog, grpc and
# its status protos), at the versions of this checkout's venv, for the machine's Python. Run it
# here, where PyPI is reachable; the GPU scripts (bench/importable.sh) install .whl/ when it
# travels with the checkout.
#
#   bash bench/gpu_wheels.sh [PYTHON_VERSION]      (default 3.12; about 11 MiB)
set -euo pipefail
PYVER=${1:-3.12}
VENV_PY=${VENV_PY:-.venv/bin/python}
DEST=${DEST:-.whl}
PACKAGES=(pydantic pydantic-core annotated-types typing-inspection typing-extensions pydantic-settings
          python-dotenv structlog grpcio grpcio-status googleapis-common-protos protobuf)
pins=$("$VENV_PY" - "${PACKAGES[@]}" <<'PY'
import sys
from importlib.metadata import version
print(" ".join(f"{name}=={version(name)}" for name in sys.argv[1:]))
PY
)
mkdir -p "$DEST"
# shellcheck disable=SC2086
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$DEST" $pins
ls "$DEST"
