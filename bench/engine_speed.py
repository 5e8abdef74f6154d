"""Engine speed on this machine, in one process: batching, prefix cache, denoising cost.

    python bench/engine_speed.py [--rounds 3] [--json docs/eval/engine_speed.json] [--markdown]

With the shipped checkpoint and held-out 8-question sets of the test split:
  batching     32 concurrent requests through one engine vs the same 32 one at a time
  prefix cache the same request with its prefix cached vs cold (context of 200+ tokens)
  floor        one request at batch 1, end to end in the engine, vs a single prefix pass
               of the same request (the denoising steps should cost little next to it)
  passes       mean forward passes per 8-question set, parallel policy, with and without
               declared constraints (two true implications per set)
Timings alternate between the variants in every round and report medians, so that the
noise of a shared machine hits both sides of each ratio alike.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.decode import Batch
from decider.engine.request import as_request


def eight_question_sets(n: int, min_tokens: int = 0, tok=None):
    out = []
    for s in make_sets(CorpusSpec(split="test", max_links=5), 4000):
        if len(s.questions) == 8 and (not min_tokens or len(tok.encode(s.context, s.questions).prefix_ids) >= min_tokens):
            out.append(s)
        if len(out) == n:
            return out
    raise RuntimeError("not enough 8-question sets")


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def with_constraints(s) -> dict:
    """The request plus two implications that the true answers satisfy."""
    req = as_request(s.context, s.questions).model_dump()
    lit = lambda i: {"question": s.questions[i].id, "option": s.questions[i].choices[s.answers[i]]}  # noqa: E731
    req["constraints"] = [{"kind": "implies", "literals": [lit(0), lit(1)]},
                          {"kind": "implies", "literals": [lit(2), lit(3)]}]
    return req


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--concurrent", type=int, default=32)
    p.add_argument("--passes-sets", type=int, default=200)
    p.add_argument("--json")
    p.add_argument("--markdown", action="store_true", help="also print the BENCHMARKS.md table")
    args = p.parse_args()

    ckpt = load_checkpoint()
    tok, model = ckpt.tokenizer, ckpt.model
    no_cache = EngineConfig(prefix_cache_bytes=0, max_running=args.concurrent)
    sets = eight_question_sets(args.concurrent)
    requests = [as_request(s.context, s.questions) for s in sets]
    long_set = eight_question_sets(1, min_tokens=200, tok=tok)[0]
    long_req = as_request(long_set.context, long_set.questions)
    enc = tok.encode(long_set.context, long_set.questions)
    single = Batch.collate([enc], tok.pad, model.cfg.n_answers)

    EngineCore(ckpt, no_cache).decide(requests[:4])  # warm-up
    t_one, t_batch, t_cold, t_warm, t_engine, t_prefix = [], [], [], [], [], []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", flush=True)
        t_one.append(timed(lambda: [EngineCore(ckpt, no_cache).decide([q]) for q in requests]))
        t_batch.append(timed(lambda: EngineCore(ckpt, no_cache).decide(requests)))
        cached = EngineCore(ckpt)
        cached.decide([long_req])
        for _ in range(5):
            t_cold.append(timed(lambda: EngineCore(ckpt, no_cache).decide([long_req])))
            t_warm.append(timed(lambda: cached.decide([long_req])))
            t_engine.append(timed(lambda: EngineCore(ckpt, no_cache).decide([long_req])))
            with torch.no_grad():
                t_prefix.append(timed(lambda: single.prefix_forward(model)))

    plain = eight_question_sets(args.passes_sets)
    core = EngineCore(ckpt, no_cache)
    out_plain = core.decide([as_request(s.context, s.questions) for s in plain])
    out_cons = core.decide([with_constraints(s) for s in plain])

    def accuracy(results):
        return sum(a.index == t for r, s in zip(results, plain) for a, t in zip(r.answers, s.answers)) / (8 * len(plain))

    med = statistics.median
    n = args.concurrent
    report = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "threads": torch.get_num_threads(), "torch": torch.__version__,
        "device": str(next(model.parameters()).device),
        "date": time.strftime("%Y-%m-%d"),
        "concurrent": n,
        "one_at_a_time_requests_per_s": round(n / med(t_one), 2),
        "batched_requests_per_s": round(n / med(t_batch), 2),
        "batching_speedup": round(med(t_one) / med(t_batch), 2),
        "long_prefix_tokens": len(enc.prefix_ids),
        "cold_ms": round(med(t_cold) * 1e3, 1), "cached_ms": round(med(t_warm) * 1e3, 1),
        "cache_speedup": round(med(t_cold) / med(t_warm), 2),
        "engine_batch1_ms": round(med(t_engine) * 1e3, 1), "prefix_pass_ms": round(med(t_prefix) * 1e3, 1),
        "engine_over_prefix": round(med(t_engine) / med(t_prefix), 2),
        "passes_sets": len(plain),
        "passes_mean": round(statistics.mean(r.forward_passes for r in out_plain), 3),
        "passes_mean_constrained": round(statistics.mean(r.forward_passes for r in out_cons), 3),
        "accuracy": round(accuracy(out_plain), 4), "accuracy_constrained": round(accuracy(out_cons), 4),
        "forced_per_set_constrained": round(sum(a.status == "forced" for r in out_cons for a in r.answers)
                                            / len(plain), 3),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        r = report
        print(f"""
| measure | figure | target |
|---|---|---|
| {n} concurrent 8-question requests, batched vs one at a time | {r['batched_requests_per_s']} vs {r['one_at_a_time_requests_per_s']} requests/s: **{r['batching_speedup']}x** | >= 6x |
| cached vs cold prefix ({r['long_prefix_tokens']}-token prefix) | {r['cached_ms']} vs {r['cold_ms']} ms: **{r['cache_speedup']}x** | >= 3x |
| one request at batch 1 vs one prefix pass | {r['engine_batch1_ms']} vs {r['prefix_pass_ms']} ms: **{r['engine_over_prefix']}x** | <= 1.5x |
| forward passes per 8-question set, parallel ({r['passes_sets']} sets) | {r['passes_mean']} (accuracy {r['accuracy']}) | |
| the same with two declared implications per set | {r['passes_mean_constrained']} (accuracy {r['accuracy_constrained']}, {r['forced_per_set_constrained']} answers forced per set) | |
""")


if __name__ == "__main__":
    main()
