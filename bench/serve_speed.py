"""The server over loopback: requests/s and latency at 1, 8 and 64 concurrent clients, and
the gRPC overhead (p50 over the wire minus p50 in-process, at one client).

    python bench/serve_speed.py [--requests 64] [--json docs/eval/serve_speed.json] [--markdown]

Starts `decider serve` (shipped model, prefix cache off so that every request pays its
prefix pass, as it does in-process) in a child process and drives it with the real client.
The in-process figure runs the same requests through an EngineCore in this process,
alternating with the calls over the wire so that both see the same machine load; the
per-request figure subtracts, from each call's wall time, the engine time the server reports
in the response (queue + prefix + denoise).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import threading
import time
from pathlib import Path

import torch
from decider_client import DeciderClient, DeciderError, build_request, pb
from local_server import serving
from stats import pct

from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request


def to_pb(s, rid: str) -> pb.DecideRequest:
    qs = [pb.Question(id=q.id, text=q.text, type=pb.Question.BOOLEAN if q.kind == "boolean"
                      else pb.Question.CATEGORICAL, options=list(q.options)) for q in s.questions]
    return build_request(s.context, qs, request_id=rid)


def load(target: str, sets, clients: int, per_client: int) -> dict:
    latencies, errors = [], []

    def worker(k):
        with DeciderClient(target, timeout=120) as c:
            for j in range(per_client):
                s = sets[(k * per_client + j) % len(sets)]
                t = time.perf_counter()
                try:
                    c.decide_request(to_pb(s, f"{clients}-{k}-{j}"))
                    latencies.append(time.perf_counter() - t)
                except DeciderError as e:
                    errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"clients": clients, "requests": len(latencies), "errors": len(errors),
            "requests_per_s": round(len(latencies) / wall, 2),
            "p50_ms": round(pct(latencies, 0.5) * 1e3, 2), "p99_ms": round(pct(latencies, 0.99) * 1e3, 2)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--requests", type=int, default=64, help="requests per concurrency level")
    p.add_argument("--overhead-pairs", type=int, default=60)
    p.add_argument("--levels", default="1,8,64", help="concurrency levels to load-test (empty for none)")
    p.add_argument("--json")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()

    sets = [s for s in make_sets(CorpusSpec(split="test", max_links=5), 600) if len(s.questions) == 8][:64]
    pairs = sets[:args.overhead_pairs]

    # in-process and over the wire in alternation, so that the shared machine's load drifts
    # over both alike; the pause lets one side's torch threads go idle before the other runs
    core = EngineCore(load_checkpoint(), EngineConfig(prefix_cache_bytes=0))
    core.decide([as_request(s.context, s.questions) for s in pairs[:2]])
    with serving() as (target, info):
        local, wire, handler, engine, info_rtt = [], [], [], [], []
        with DeciderClient(target, timeout=60) as c:
            for _ in range(50):  # a bare round trip: no model, a tiny message each way
                t = time.perf_counter()
                c.model_info()
                info_rtt.append(time.perf_counter() - t)
            idle_rtt = []  # the same after the pause a decision call follows: both sides idle
            for _ in range(30):
                time.sleep(0.05)
                t = time.perf_counter()
                c.model_info()
                idle_rtt.append(time.perf_counter() - t)
            for i, s in enumerate(sets[:2] + pairs):
                t = time.perf_counter()
                core.decide([as_request(s.context, s.questions)])
                t_local = time.perf_counter() - t
                time.sleep(0.05)
                t = time.perf_counter()
                r, call = c.stub.Decide.with_call(to_pb(s, f"o{i}"), timeout=60)
                t_wire = time.perf_counter() - t
                time.sleep(0.05)
                if i >= 2:  # the first two warm both sides
                    local.append(t_local)
                    wire.append(t_wire)
                    handler.append(float(dict(call.trailing_metadata())["x-handler-ms"]) / 1e3)
                    engine.append((r.timings.queue_ms + r.timings.prefix_ms + r.timings.denoise_ms) / 1e3)
        del core
        levels = [load(target, sets, n, max(1, args.requests // n)) for n in map(int, filter(None, args.levels.split(",")))]

    report = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(), "threads": torch.get_num_threads(),
        "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"), "model": info.name, "device": info.device,
        "levels": levels,
        "p50_wire_ms": round(statistics.median(wire) * 1e3, 2),
        "p50_in_process_ms": round(statistics.median(local) * 1e3, 2),
        "grpc_overhead_ms": round((statistics.median(wire) - statistics.median(local)) * 1e3, 2),
        # the same set over the wire and in-process: the median of the differences is steadier
        "grpc_overhead_ms_paired": round(statistics.median(w - l for w, l in zip(wire, local)) * 1e3, 2),
        "p50_engine_in_server_ms": round(statistics.median(engine) * 1e3, 2),
        # per request: wall time at the client minus the engine time the server reports for it
        "model_info_rtt_ms_p50": round(statistics.median(info_rtt) * 1e3, 2),
        "model_info_rtt_after_idle_ms_p50": round(statistics.median(idle_rtt) * 1e3, 2),
        "grpc_overhead_ms_per_request": round(statistics.median(w - e for w, e in zip(wire, engine)) * 1e3, 2),
        # the same, split at the server's handler (x-handler-ms): transport and serialisation
        # on both sides, then validation, the hand-offs to and from the engine thread, conversion
        "transport_ms_per_request": round(statistics.median(w - h for w, h in zip(wire, handler)) * 1e3, 2),
        "in_server_ms_per_request": round(statistics.median(h - e for h, e in zip(handler, engine)) * 1e3, 2),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        print("\n| concurrent clients | requests/s | p50 ms | p99 ms |\n|---|---|---|---|")
        for lv in levels:
            print(f"| {lv['clients']} | {lv['requests_per_s']} | {lv['p50_ms']} | {lv['p99_ms']} |")
        print(f"\ngRPC overhead at one client: p50 over the wire {report['p50_wire_ms']} ms - p50 in-process "
              f"{report['p50_in_process_ms']} ms = **{report['grpc_overhead_ms']} ms** (median of the paired "
              f"differences {report['grpc_overhead_ms_paired']} ms; target <= 1 ms); per request, client wall "
              f"time minus the server's own engine time: {report['grpc_overhead_ms_per_request']} ms = "
              f"transport {report['transport_ms_per_request']} ms + in the server outside the engine "
              f"{report['in_server_ms_per_request']} ms; a bare GetModelInfo round trip "
              f"{report['model_info_rtt_ms_p50']} ms back to back, {report['model_info_rtt_after_idle_ms_p50']} ms "
              f"after a 50 ms pause")


if __name__ == "__main__":
    main()
