"""Batch-1 latency when every request has a length of its own: the bf16 CPU engine's prefix
passes at each request's own length against passes padded to a multiple of `prefix_pad`.

    python bench/length_buckets.py [--sets 60] [--rounds 3] [--pads 0 32 64] [--caches 32 256]
                                   [--json docs/eval/length_buckets.json] [--markdown]

oneDNN compiles a bf16 kernel for every row count it meets and keeps a bounded number
(ONEDNN_PRIMITIVE_CACHE_CAPACITY): a prefix pass at a length it has not met recently pays the
compile in every linear layer. This bench decides `--sets` v2 test sets one at a time, each
once (traffic where no two requests have the same length, as a robot or a review pipeline
sends it), after the engine's start-up warm-up (EngineCore.warm_up, as `decider serve` runs it)
and as many v2 validation sets (a server that has been serving), and reports p50 / p99 / mean; then one ~100-token and one ~240-token request
repeated (what bench/edge_latency.py times: the cost of the padding itself), the process's
resident memory after the warm-up and at the end, and how many answers equal those of the
first configuration. Each configuration (prefix_pad x cache capacity) runs in a process of its
own, since oneDNN's kernel cache is per process; the configurations alternate for `--rounds`
rounds and the medians over rounds are reported. The engine runs as it would here (prefix
cache off); where its precision is not bf16 on this CPU, `prefix_pad` changes nothing and the
report says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from decider.cli import ONEDNN_CACHE


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(pad: int, sets: int, checkpoint: str | None) -> dict:
    """One configuration, in this process (the cache capacity comes with the environment)."""
    import torch
    from edge_latency import sets_near
    from stats import pct

    from decider.engine.core import build_engine
    from decider.engine.request import as_request
    from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets

    engine = build_engine(checkpoint, prefix_cache_bytes=0, prefix_pad=pad)
    engine.warm_up()  # as `decider serve` does before SERVING
    def req(s):
        return as_request(s.context, s.questions)
    warm = [req(s) for s in make_sets(CorpusSpec(split="validation", mix=V2_MIX), sets)]
    timed = [req(s) for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), sets)]
    for r in warm:
        engine.decide([r])
    rss_warm = rss_mb()
    ms, answers = [], []
    for r in timed:
        t0 = time.perf_counter()
        (result,) = engine.decide([r])
        ms.append((time.perf_counter() - t0) * 1e3)
        answers.append([a.answer for a in result.answers])
    repeated = {}
    for tokens in (100, 240):
        r = req(sets_near(tokens, engine.tok, n=1)[0])
        engine.decide([r])
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            engine.decide([r])
            times.append((time.perf_counter() - t0) * 1e3)
        repeated[tokens] = round(statistics.median(times), 2)
    lengths = [len(engine.tok.encode(r.context, r.to_questions()).prefix_ids) for r in timed]
    return {"precision": engine.precision, "padded": engine.exact and pad > 0, "threads": torch.get_num_threads(),
            "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(pct(ms, 0.99), 2),
            "mean_ms": round(statistics.mean(ms), 2), "repeated_p50_ms": repeated,
            "rss_after_warmup_mb": round(rss_warm, 1), "rss_end_mb": round(rss_mb(), 1),
            "prefix_tokens": {"min": min(lengths), "median": statistics.median(lengths), "max": max(lengths),
                              "distinct": len(set(lengths))},
            "answers": answers}


def cpu() -> str:
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    flags = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in info.get("Flags", "").split()]
    return f"{info.get('Model name', '?').strip()} ({', '.join(flags)})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", type=int, default=60)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--pads", type=int, nargs="+", default=[0, 32, 64])
    p.add_argument("--caches", type=int, nargs="+", default=[32, int(ONEDNN_CACHE)],
                   help="ONEDNN_PRIMITIVE_CACHE_CAPACITY values")
    p.add_argument("--checkpoint", help="checkpoint folder (default: the shipped decider-small)")
    p.add_argument("--json", type=Path)
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.sets, args.checkpoint)))
        return 0
    configs = [(pad, cache) for cache in args.caches for pad in args.pads]
    runs: dict[tuple[int, int], list[dict]] = {c: [] for c in configs}
    for k in range(args.rounds):
        for pad, cache in configs:
            cmd = [sys.executable, __file__, "--child", str(pad), "--sets", str(args.sets)]
            cmd += ["--checkpoint", args.checkpoint] if args.checkpoint else []
            env = {**os.environ, "ONEDNN_PRIMITIVE_CACHE_CAPACITY": str(cache)}
            out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
            runs[(pad, cache)].append(out)
            print(json.dumps({"round": k + 1, "prefix_pad": pad, "cache": cache,
                              **{key: v for key, v in out.items() if key != "answers"}}), flush=True)
    first = runs[configs[0]][0]["answers"]
    rows = []
    for (pad, cache), outs in runs.items():
        def med(key, outs=outs):
            return round(statistics.median(o[key] for o in outs), 2)
        same = [sum(x == y for a, b in zip(first, o["answers"]) for x, y in zip(a, b)) for o in outs]
        rows.append({"prefix_pad": pad, "cache": cache, "padded": outs[0]["padded"], "p50_ms": med("p50_ms"),
                     "p99_ms": med("p99_ms"), "mean_ms": med("mean_ms"),
                     "repeated_p50_ms": {t: round(statistics.median(o["repeated_p50_ms"][t] for o in outs), 2)
                                         for t in outs[0]["repeated_p50_ms"]},
                     "rss_after_warmup_mb": med("rss_after_warmup_mb"), "rss_end_mb": med("rss_end_mb"),
                     "same_answers_as_first": round(min(same) / sum(map(len, first)), 4)})
    report = {"cpu": cpu(), "precision": runs[configs[0]][0]["precision"], "threads": runs[configs[0]][0]["threads"],
              "sets": args.sets, "rounds": args.rounds, "prefix_tokens": runs[configs[0]][0]["prefix_tokens"],
              "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}))
    if args.markdown:
        t = report["prefix_tokens"]
        print(f"\n{report['cpu']}, {report['threads']} threads, engine {report['precision']}; {args.sets} v2 test sets "
              f"each once after {args.sets} validation sets (prefix {t['min']}-{t['max']} tokens, {t['distinct']} "
              f"lengths), medians of {args.rounds} rounds\n")
        print("| prefix_pad | kernel cache | p50 / p99 / mean, every length new | repeated, ~100 / ~240 tokens "
              "| resident memory after warm-up / end | same answers as the first row |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            rep = r["repeated_p50_ms"]
            print(f"| {r['prefix_pad'] if r['padded'] or not r['prefix_pad'] else str(r['prefix_pad']) + ' (not used)'} "
                  f"| {r['cache']} | {r['p50_ms']} / {r['p99_ms']} / {r['mean_ms']} ms | "
                  f"{rep['100']} / {rep['240']} ms | {r['rss_after_warmup_mb']} / {r['rss_end_mb']} MB | "
                  f"{r['same_answers_as_first']:.2%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
