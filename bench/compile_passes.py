"""torch.compile (inductor, weights frozen) of the model's two passes at batch 1 on the CPU,
against the eager engine: what compiling would buy an edge box, and what it changes.

    python bench/compile_passes.py [--checkpoint DIR] [--calls 30]

For the bf16 CPU engine (where bf16 is fast; else fp32): the shipped model's prefix pass and
one block pass for an 8-question v2 test set of about 100 and about 240 prefix tokens, timed
alternately (median of `--calls`) eager with packed weights (the engine's default), eager
unpacked (what inductor starts from) and compiled (`dynamic=True`: one graph for every
prefix length); the compile time, and the largest difference of the compiled pass from the
eager one (block logits and prefix keys). CPU model and flags go into the output.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from decider.cli import ONEDNN_CACHE

os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", ONEDNN_CACHE)  # as `decider serve` runs: before any matmul
import torch
from edge_latency import cpu, sets_near

from decider.engine.core import build_engine
from decider.engine.decode import Batch


def _median_ms(fns: dict, calls: int) -> dict:
    times = {name: [] for name in fns}
    for _ in range(calls):
        for name, f in fns.items():
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    return {name: round(statistics.median(t) * 1e3, 2) for name, t in times.items()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--calls", type=int, default=30)
    args = p.parse_args()
    packed = build_engine(args.checkpoint, prefix_cache_bytes=0)
    plain = build_engine(packed.ckpt, precision=packed.precision, runtime="torch", prefix_cache_bytes=0,
                         packed_weights=False)
    model, tok = plain.model, plain.tok
    prefix_c = torch.compile(model.prefix_forward, dynamic=True, options={"freezing": True})
    block_c = torch.compile(model.block_forward, dynamic=True, options={"freezing": True})
    report = {"cpu": cpu(), "torch": torch.__version__, "precision": plain.precision, "rows": []}
    with torch.no_grad():
        cases = []
        for n in (100, 240):
            s = sets_near(n, tok)[0]
            batch = Batch.collate([tok.encode(s.context, s.questions)], tok.pad, model.cfg.n_answers)
            choices = batch.answer_vectors(model, batch.prefix_forward(model))
            cases.append((batch, torch.full(batch.positions.shape, model.mask_token), choices))
        t0 = time.perf_counter()
        for batch, answers, choices in cases:
            kv = prefix_c(batch.ids, batch.valid, batch.segments, batch.numbers, batch.links)
            kv.exact = plain.exact
            block_c(answers, batch.positions, batch.slot_valid, kv, choices)
        report["compile_s"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({"compile_s": report["compile_s"]}), flush=True)
        for batch, answers, choices in cases:
            args_ = (batch.ids, batch.valid, batch.segments, batch.numbers, batch.links)
            kv, kv_c, kv_p = model.prefix_forward(*args_), prefix_c(*args_), packed.model.prefix_forward(*args_)
            for k in (kv, kv_c, kv_p):
                k.exact = plain.exact
            ref = model.block_forward(answers, batch.positions, batch.slot_valid, kv, choices)
            got = block_c(answers, batch.positions, batch.slot_valid, kv_c, choices)
            row = {"prefix_tokens": batch.ids.shape[1],
                   "max_logit_diff": round((ref - got).abs().max().item(), 4),
                   "max_key_diff": round(max((a.float() - b.float()).abs().max().item()
                                             for a, b in zip(kv.k, kv_c.k)), 4)}
            row |= _median_ms({
                "prefix_packed_ms": lambda: packed.model.prefix_forward(*args_),
                "prefix_unpacked_ms": lambda: model.prefix_forward(*args_),
                "prefix_compiled_ms": lambda: prefix_c(*args_),
                "block_packed_ms": lambda: packed.model.block_forward(answers, batch.positions, batch.slot_valid, kv_p,
                                                                      choices),
                "block_unpacked_ms": lambda: model.block_forward(answers, batch.positions, batch.slot_valid, kv,
                                                                 choices),
                "block_compiled_ms": lambda: block_c(answers, batch.positions, batch.slot_valid, kv_c, choices)},
                args.calls)
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
