"""`decider batch` against a loop of single Decide calls over loopback, on generated sets.

    python bench/batch_speed.py [--sets 10000] [--loop 500] [--json docs/eval/batch_speed.json] [--markdown]

1. batch: `decider batch` (local engines, its defaults: one single-threaded engine process
   per core on a CPU) on --sets generated test-split sets written as JSONL; decisions/s over
   the whole job, model loading included; then the same with one engine in this process
   using every core (--workers 1).
2. loop: `decider serve` (shipped model; prefix cache off, as the sets repeat between this
   and the next run) in a child process, one client calling
   Decide once per set, one call after another, over the first --loop sets; decisions/s.
3. remote: `decider batch --remote` against that server on the same --loop sets (client-side
   concurrency, the server batching what is in flight).
4. ceiling: the compute one decision needs (torch's FlopCounterMode, --flop-sets of the
   loop's sets decided one at a time, so without padding) and the rate of a large fp32
   matmul on this machine. The loop's GFLOP/s against that rate bounds what any batching
   could gain here.
The batch and the ceiling run before the server starts: two processes running torch on a
small machine slow each other down.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

import torch
from decider_client import DeciderClient
from local_server import serving
from torch.utils.flop_counter import FlopCounterMode

from decider.batch import BatchConfig, local_layout, run
from decider.convert import pb_from_json, request_from_json
from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets


def write_requests(path: Path, count: int) -> list[dict]:
    requests = []
    for s in make_sets(CorpusSpec(split="test"), count + count // 20 + 10):
        if s.context.strip() and len(requests) < count:  # the service refuses an empty context
            requests.append({"context": s.context, "questions": [
                {"id": q.id, "text": q.text, "type": q.kind.upper(), **({"options": list(q.options)} if q.options else {})}
                for q in s.questions]})
    path.write_text("".join(json.dumps(r) + "\n" for r in requests))
    return requests


def compute_ceiling(requests: list[dict], size: int = 2048) -> dict:
    """GFLOP per decision, unpadded, and the GFLOP/s of a size^3 fp32 matmul here."""
    core = EngineCore(load_checkpoint(), EngineConfig(prefix_cache_bytes=0))
    flops = 0
    for r in requests:
        with FlopCounterMode(display=False) as counter:
            core.decide([request_from_json(r)])
        flops += counter.get_total_flops()
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    t = time.perf_counter()
    for _ in range(10):
        a @ b
    matmul = 10 * 2 * size**3 / (time.perf_counter() - t)
    return {"gflop_per_decision": round(flops / len(requests) / 1e9, 3), "matmul_gflop_per_s": round(matmul / 1e9, 1)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", type=int, default=10_000)
    p.add_argument("--loop", type=int, default=500, help="sets for the single-call loop and the --remote run")
    p.add_argument("--max-running", type=int, default=BatchConfig.max_running)
    p.add_argument("--flop-sets", type=int, default=100, help="sets whose FLOPs are counted (from the loop's)")
    p.add_argument("--json")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="decider-batch-bench-"))
    src = folder / "requests.jsonl"
    requests = write_requests(src, args.sets)
    questions = sum(len(r["questions"]) for r in requests)

    workers, threads = local_layout(len(requests), "auto", None, None)
    batch = run(BatchConfig(src, folder / "batch.jsonl", max_running=args.max_running), log=print)
    print(batch.line())
    single = run(BatchConfig(src, folder / "single.jsonl", max_running=args.max_running, workers=1), log=print)
    print(single.line())
    ceiling = compute_ceiling(requests[:min(args.flop_sets, args.loop)])

    loop_src = folder / "loop.jsonl"
    loop_src.write_text("".join(json.dumps(r) + "\n" for r in requests[:args.loop]))
    with serving() as (target, info):
        with DeciderClient(target, timeout=120) as client:
            messages = [pb_from_json(r) for r in requests[:args.loop]]
            t = time.perf_counter()
            for m in messages:
                client.decide_request(m)
            loop_s = time.perf_counter() - t
        remote = run(BatchConfig(loop_src, folder / "remote.jsonl", remote=target, concurrency=16), log=print)
        print(remote.line())

    batch_rate = batch.answered / batch.seconds
    loop_rate = args.loop / loop_s
    report = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(), "threads": torch.get_num_threads(),
        "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"), "model": info.name,
        "sets": len(requests), "questions": questions, "max_running": args.max_running,
        "batch": {"answered": batch.answered, "refused": batch.errors, "seconds": round(batch.seconds, 1),
                  "decisions_per_s": round(batch_rate, 2), "workers": workers, "threads": threads},
        "batch_one_engine": {"answered": single.answered, "seconds": round(single.seconds, 1),
                             "decisions_per_s": round(single.answered / single.seconds, 2)},
        "loop": {"sets": args.loop, "seconds": round(loop_s, 1), "decisions_per_s": round(loop_rate, 2)},
        "remote": {"sets": args.loop, "seconds": round(remote.seconds, 1),
                   "decisions_per_s": round(remote.answered / remote.seconds, 2)},
        "speedup_batch_vs_loop": round(batch_rate / loop_rate, 2),
        # what the loop already gets out of the CPU, and the most batching could gain over it
        "gflop_per_decision": ceiling["gflop_per_decision"],
        "loop_gflop_per_s": round(ceiling["gflop_per_decision"] * loop_rate, 1),
        "batch_gflop_per_s": round(ceiling["gflop_per_decision"] * batch_rate, 1),
        "matmul_gflop_per_s": ceiling["matmul_gflop_per_s"],
        "speedup_ceiling": round(ceiling["matmul_gflop_per_s"] / (ceiling["gflop_per_decision"] * loop_rate), 2),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        print("\n| way | sets | decisions/s |\n|---|---|---|")
        print(f"| `decider batch` ({workers} engine processes x {threads or 'default'} threads, max_running "
              f"{args.max_running}) | {len(requests)} | {report['batch']['decisions_per_s']} |")
        print(f"| `decider batch --workers 1` (one engine in the process) | {len(requests)} | "
              f"{report['batch_one_engine']['decisions_per_s']} |")
        print(f"| loop of single `Decide` calls over loopback | {args.loop} | {report['loop']['decisions_per_s']} |")
        print(f"| `decider batch --remote` (16 calls in flight) | {args.loop} | {report['remote']['decisions_per_s']} |")
        print(f"\nbatch vs loop: **{report['speedup_batch_vs_loop']}x** (target >= 3x)")
        print(f"\ncompute: {report['gflop_per_decision']} GFLOP per decision; the loop runs at "
              f"{report['loop_gflop_per_s']} GFLOP/s, the batch at {report['batch_gflop_per_s']} GFLOP/s, a "
              f"2048^3 fp32 matmul at {report['matmul_gflop_per_s']} GFLOP/s: batching could gain at most "
              f"{report['speedup_ceiling']}x here")


if __name__ == "__main__":
    main()
