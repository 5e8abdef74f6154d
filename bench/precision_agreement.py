"""Does the CPU's bf16 path lose anything? Answers, accuracy, calibration and throughput of the
engine in bf16 against the fp32 reference, on the same sets, in one process.

    python bench/precision_agreement.py [--sets 2000] [--json docs/eval/precision_agreement.json]
                                        [--batched-too]

For `--sets` sets of the v2 test split, parallel policy, the shipped model: the share of
questions whose answer is the same in both precisions, per-item accuracy, ECE and forward
passes of each, and sets per second through the engine at batch 32 (the eval's continuous
batching) and at batch 1. Each precision runs as the engine runs it here ('fp32': ONNX Runtime
where it exports; 'bf16': each request's block pass alone where this CPU's bf16 rows are not
batch invariant, EngineConfig.block_pass). `--batched-too`: on such a CPU, also bf16 with one
block pass per cohort (what the per-request passes cost at batch 32, and how many answers the
batch-dependent sums move). The issue's bar for the fast path: agreement >= 99.5%, per-item
accuracy within 0.3 points, ECE within 0.005, batch throughput not worse.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import torch

from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import build_engine
from decider.engine.device import bf16_is_fast, bf16_rows_are_batch_invariant
from decider.engine.request import as_request
from decider.engine.training.evaluate import held_out_sets, run_policy, summarise

PRECISIONS = ("fp32", "bf16")


def cpu_model() -> str:
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name")), "?")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", type=int, default=2000)
    p.add_argument("--solo", type=int, default=40, help="sets timed one at a time (batch 1)")
    p.add_argument("--json", type=Path)
    p.add_argument("--batched-too", action="store_true", help="also bf16 with batched block passes")
    args = p.parse_args()
    ckpt = load_checkpoint()
    sets = held_out_sets("test", args.sets, "v2")
    report = {"cpu": cpu_model(), "threads": torch.get_num_threads(), "bf16_is_fast": bf16_is_fast("cpu"),
              "bf16_rows_batch_invariant": bf16_rows_are_batch_invariant(), "sets": len(sets)}
    scored, rate = {}, {}
    for precision in PRECISIONS:
        t0 = time.perf_counter()
        scored[precision] = run_policy(ckpt, sets, "parallel", 0.9, ckpt.temperature, 32, precision)
        rate[precision] = len(sets) / (time.perf_counter() - t0)
    solo = {p: [] for p in PRECISIONS}
    engines = {p: build_engine(ckpt, precision=p, prefix_cache_bytes=0) for p in PRECISIONS}
    report["fp32_runtime"] = engines["fp32"].runtime
    report["bf16_block_pass"] = "per_request" if engines["bf16"].block_alone else "batched"
    requests = [as_request(s.context, s.questions) for s in sets[:args.solo]]
    for r in requests[:3]:
        for e in engines.values():
            e.decide([r])
    for r in requests:  # alternate, so that both see the same machine load
        for p, e in engines.items():
            t0 = time.perf_counter()
            e.decide([r])
            solo[p].append((time.perf_counter() - t0) * 1e3)
    if args.batched_too:
        t0 = time.perf_counter()
        batched = run_policy(ckpt, sets, "parallel", 0.9, ckpt.temperature, 32, "bf16", block_pass="batched")
        rate_batched = len(sets) / (time.perf_counter() - t0)
        pairs = [(a, b) for xs, ys in zip(scored["bf16"].chosen, batched.chosen) for a, b in zip(xs, ys)]
        report["bf16_batched_block_pass"] = {
            "sets_per_s_batch32": round(rate_batched, 2),
            "answers_as_bf16_default": round(sum(a == b for a, b in pairs) / len(pairs), 4),
            "per_item_accuracy": summarise(batched)["per_item_accuracy"]}
    ref, fast = scored["fp32"], scored["bf16"]
    pairs = [(a, b) for xs, ys in zip(ref.chosen, fast.chosen) for a, b in zip(xs, ys)]
    report["agreement"] = round(sum(a == b for a, b in pairs) / len(pairs), 4)
    report["max_confidence_gap"] = round(max(abs(a - b) for xs, ys in zip(ref.confidence, fast.confidence)
                                             for a, b in zip(xs, ys)), 4)
    for p in PRECISIONS:
        s = summarise(scored[p])
        report[p] = {"per_item_accuracy": s["per_item_accuracy"], "ece": s["ece"],
                     "forward_passes_mean": s["forward_passes_mean"], "sets_per_s_batch32": round(rate[p], 2),
                     "batch1_p50_ms": round(statistics.median(solo[p]), 2)}
    report["accuracy_gap_points"] = round(100 * (report["bf16"]["per_item_accuracy"]
                                                 - report["fp32"]["per_item_accuracy"]), 2)
    report["ece_gap"] = round(report["bf16"]["ece"] - report["fp32"]["ece"], 4)
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
