"""Training throughput on this machine: sets per second of `decider train`'s step (prefix pass,
reveal patterns, backward, AdamW) from the shipped checkpoint, per corpus and precision.

    python bench/train_speed.py [--steps 6] [--json docs/eval/train_speed.json] [--copied-prefix]

`--copied-prefix` times each row a second time with every reveal pattern reading its own copy
of the prefix's keys and values (the step before PrefixKV.shared), on the same batches.

Batches are built before timing (generation runs beside the step in a real run), so the
figure is the step's own rate; the mean prefix length of the batches is printed with it.
bf16 rows run only where bf16 is fast (CUDA, CPUs with AMX or AVX512-BF16).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from pathlib import Path

import torch

from decider.engine.checkpoint import load_checkpoint
from decider.engine.device import bf16_is_fast
from decider.engine.training.corpus import V2_MIX
from decider.engine.training.train import Stage, TrainConfig, batch_loss, batches


def cpu_name() -> str:
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name")),
                platform.processor())


def rate(mix: dict, precision: bool, steps: int, batch_size: int, block_samples: int,
         shared_prefix: bool = True) -> dict:
    ckpt = load_checkpoint()
    model = ckpt.model.float().train()
    model.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    cfg = TrainConfig(batch_size=batch_size, block_samples=block_samples, seed=3,
                      stages=[Stage(max_links=3, examples=batch_size * (steps + 1), mix=mix)])
    tbs = list(batches(cfg, ckpt.tokenizer, model.cfg.n_answers))
    tokens = sum(int(tb.batch.valid.sum()) for tb in tbs[1:]) / sum(len(tb) for tb in tbs[1:])
    times = []
    for tb in tbs:
        t0 = time.perf_counter()
        loss, _, _ = batch_loss(model, tb, precision, shared_prefix=shared_prefix)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    seconds = sum(times[1:])  # the first step warms up
    return {"sets_per_s": round(sum(len(tb) for tb in tbs[1:]) / seconds, 2), "prefix_tokens_mean": round(tokens),
            "seconds_per_step": round(seconds / (len(tbs) - 1), 3)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--block-samples", type=int, default=8)
    p.add_argument("--json", type=Path)
    p.add_argument("--copied-prefix", action="store_true", help="also time the step with a prefix copy per pattern")
    args = p.parse_args()
    report = {"cpu": cpu_name(), "threads": torch.get_num_threads(), "batch_size": args.batch_size,
              "block_samples": args.block_samples, "rows": []}
    precisions = [("fp32", False)] + ([("bf16 autocast", True)] if bf16_is_fast("cpu") else [])
    for corpus, mix in (("v1", {"v1": 1.0}), ("v2", dict(V2_MIX))):
        for name, flag in precisions:
            row = {"corpus": corpus, "precision": name, **rate(mix, flag, args.steps, args.batch_size,
                                                              args.block_samples)}
            if args.copied_prefix:
                copied = rate(mix, flag, args.steps, args.batch_size, args.block_samples, shared_prefix=False)
                row["copied_prefix_sets_per_s"] = copied["sets_per_s"]
                row["shared_over_copied"] = round(row["sets_per_s"] / copied["sets_per_s"], 2)
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
