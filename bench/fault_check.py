"""A bounded fault-injection run against `decider serve`, and an overload probe.

    python bench/fault_check.py [--fuzz 2000] [--load-s 30] [--json docs/eval/fault_check.json] [--markdown]

Fuzz: canary requests asked alone, then `--fuzz` mixed calls from 8 clients at once (good
requests of every corpus family; requests with one field broken; raw bodies protobuf cannot
decode; streams with bad items; request ids that cannot travel as metadata), then the
canaries alone again. It fails if any call ends INTERNAL or UNKNOWN, any call hangs past
its deadline, a stream loses an answer, the server stops answering, or a canary's answers,
confidences or steps differ by a single bit.

Overload probe: the server's capacity (requests/s with 16 clients), its unloaded latency
(one client, one call at a time), then `--load-s` seconds of calls offered at twice the
capacity (open loop, 10 s deadlines), then 30 s idle and the unloaded latency again.
Targets: admitted p99 <= 3x unloaded p99; latency back within 10% of unloaded.
The server's resident memory is read from /proc before and after each part.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import grpc
from decider_client import AsyncDeciderClient, DeciderClient, DeciderError, pb
from decider_client.v1 import decider_pb2_grpc as pb_grpc
from local_server import serving
from stats import pct

from decider.convert import pb_from_json
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets
from decider.engine.training.dataset import to_record

FAILURES = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
CODES = {c.value[0]: c for c in grpc.StatusCode}


def good_requests(n: int, start: int = 0) -> list[pb.DecideRequest]:
    return [pb_from_json(to_record(s)) for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), n, start)]


def mutations(rng: random.Random, r: pb.DecideRequest) -> pb.DecideRequest:
    """One request with one thing broken (or harmlessly odd)."""
    m = pb.DecideRequest()
    m.CopyFrom(r)
    kind = rng.randrange(12)
    if kind == 0:
        m.context = ""
    elif kind == 1:
        m.context = m.context * 40  # over the window
    elif kind == 2:
        for k in range(9 - len(m.questions)):
            m.questions.add(id=f"extra{k}", text="Is it?", type=pb.Question.BOOLEAN)
    elif kind == 3:
        m.questions[0].id = m.questions[-1].id if len(m.questions) > 1 else ""
    elif kind == 4:
        m.questions.add(id="cat", text="Which?", type=pb.Question.CATEGORICAL, options=["only"])
    elif kind == 5:
        m.options.threshold = float("nan")
    elif kind == 6:
        m.options.policy = rng.choice([3, 7, 99])
    elif kind == 7:
        m.request_id = rng.choice(["é", "a\nb", "id\x00", "x" * 5000, " "])
    elif kind == 8:
        q = m.questions[0].id
        answer = "yes" if m.questions[0].type == pb.Question.BOOLEAN else (m.questions[0].options or ["?"])[0]
        m.constraints.add(kind=pb.Constraint.IMPLIES, literals=[pb.Literal(question=q, option=answer),
                                                                pb.Literal(question=q, option="nope")])
    elif kind == 9:
        m.questions[0].type = 0  # unspecified
    elif kind == 10:
        m.options.min_confidence = rng.choice([0.5, 0.99, 1.0])  # valid: undecided answers
    else:
        m.context = "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(200))  # odd but valid text
    return m


def raw_bodies(rng: random.Random, good: pb.DecideRequest) -> bytes:
    data = good.SerializeToString()
    kind = rng.randrange(3)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if kind == 1:
        return data[: rng.randrange(1, max(2, len(data) - 1))]  # truncated
    flipped = bytearray(data)
    for _ in range(4):
        flipped[rng.randrange(len(flipped))] = rng.randrange(256)
    return bytes(flipped)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def canary_answers(target: str, canaries: list[pb.DecideRequest]) -> list[tuple]:
    with DeciderClient(target, timeout=60) as c:
        return [tuple((a.choice, a.confidence, a.commit_step, a.status) for a in c.decide_request(r).answers)
                for r in canaries]


def fuzz(target: str, n: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    pool = good_requests(64, 1000)
    codes: Counter = Counter()
    problems: list[str] = []
    lock = threading.Lock()
    plan = [rng.randrange(10) for _ in range(n)]

    def note(code, what):
        with lock:
            codes[code.name if hasattr(code, "name") else str(code)] += 1
            if code in FAILURES or code == grpc.StatusCode.DEADLINE_EXCEEDED:
                problems.append(f"{what}: {code}")

    def worker(k: int):
        try:
            calls(k)
        except Exception as e:  # a bug of this script: say so rather than count fewer calls
            with lock:
                problems.append(f"client {k} stopped: {e!r}")

    def calls(k: int):
        local = random.Random(seed * 100 + k)
        channel = grpc.insecure_channel(target, options=[("grpc.enable_retries", 0)])
        stub = pb_grpc.DeciderStub(channel)
        raw = channel.unary_unary("/decider.v1.Decider/Decide", request_serializer=lambda b: b,
                                  response_deserializer=pb.DecideResponse.FromString)
        raw_stream = channel.stream_stream("/decider.v1.Decider/DecideStream", request_serializer=lambda b: b,
                                           response_deserializer=pb.DecideStreamResponse.FromString)
        for i in range(k, n, 8):
            kind = plan[i]
            good = local.choice(pool)
            try:
                if kind <= 3:
                    stub.Decide(good, timeout=30)
                    note(grpc.StatusCode.OK, "good")
                elif kind <= 6:
                    stub.Decide(mutations(local, good), timeout=30)
                    note(grpc.StatusCode.OK, "mutated")
                elif kind <= 8:
                    raw(raw_bodies(local, good), timeout=30)
                    note(grpc.StatusCode.OK, "raw")
                else:
                    items = [local.choice(pool).SerializeToString(), raw_bodies(local, good),
                             mutations(local, good).SerializeToString(), local.choice(pool).SerializeToString()]
                    replies = list(raw_stream(iter(items), timeout=60))
                    if len(replies) != len(items):
                        with lock:
                            problems.append(f"stream: {len(replies)} replies to {len(items)} items")
                    for r in replies:
                        note(grpc.StatusCode.OK if r.HasField("response") else CODES[r.error.code], "stream item")
            except grpc.RpcError as e:
                note(e.code(), ["good", "good", "good", "good", "mutated", "mutated", "mutated", "raw", "raw",
                                "stream"][kind])
        channel.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"calls": n, "seconds": round(time.perf_counter() - t0, 1), "codes": dict(codes.most_common()),
            "problems": problems[:20], "problem_count": len(problems)}


def unloaded(target: str, requests: list[pb.DecideRequest], seconds: float) -> dict:
    lat = []
    with DeciderClient(target, timeout=30) as c:
        end = time.perf_counter() + seconds
        k = 0
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            c.decide_request(requests[k % len(requests)])
            lat.append((time.perf_counter() - t0) * 1e3)
            k += 1
    return {"calls": len(lat), "p50_ms": round(statistics.median(lat), 2), "p99_ms": round(pct(lat, 0.99), 2)}


def capacity(target: str, requests: list[pb.DecideRequest], seconds: float, clients: int = 16) -> float:
    done = [0]
    end = time.perf_counter() + seconds

    def worker(k):
        with DeciderClient(target, timeout=60) as c:
            j = k
            while time.perf_counter() < end:
                try:
                    c.decide_request(requests[j % len(requests)])
                    done[0] += 1
                except DeciderError:
                    time.sleep(0.05)  # shed: back off, as a client should
                j += clients

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done[0] / (time.perf_counter() - t0)


async def offered(target: str, requests: list[pb.DecideRequest], rate: float, seconds: float) -> dict:
    """Open loop: one call every 1/rate s whatever the server does; 10 s deadlines."""
    lat, codes = [], Counter()

    async def one(r):
        t0 = time.perf_counter()
        try:
            await client.decide_request(r, timeout=10)
            lat.append((time.perf_counter() - t0) * 1e3)
            codes["OK"] += 1
        except DeciderError as e:
            codes[e.code.name] += 1

    async with AsyncDeciderClient(target, timeout=10) as client:
        tasks, t_start, k = [], time.perf_counter(), 0
        while time.perf_counter() - t_start < seconds:
            tasks.append(asyncio.ensure_future(one(requests[k % len(requests)])))
            k += 1
            await asyncio.sleep(max(0.0, t_start + k / rate - time.perf_counter()))
        await asyncio.gather(*tasks)
    return {"offered": k, "offered_per_s": round(rate, 2), "codes": dict(codes),
            "admitted_p50_ms": round(statistics.median(lat), 2) if lat else None,
            "admitted_p99_ms": round(pct(lat, 0.99), 2) if lat else None}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fuzz", type=int, default=2000)
    p.add_argument("--load-s", type=float, default=30.0)
    p.add_argument("--idle-s", type=float, default=30.0)
    p.add_argument("--json", type=Path)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((line.split(":", 1)[1].strip() for line in cpu.splitlines() if line.startswith("Model name")), "")
    report = {"machine": {"cpu": model or platform.processor(), "cores": len(__import__("os").sched_getaffinity(0))}}
    canaries = good_requests(8)
    probe = good_requests(32, 2000)
    with serving() as (target, _):
        pid = int(subprocess.run(["pgrep", "-n", "-f", "decider.cli serve"], capture_output=True,
                                 text=True).stdout.split()[0])
        report["rss_mb_start"] = round(rss_mb(pid), 1)
        before = canary_answers(target, canaries)
        report["fuzz"] = fuzz(target, args.fuzz)
        after = canary_answers(target, canaries)
        report["canaries_identical"] = before == after
        report["rss_mb_after_fuzz"] = round(rss_mb(pid), 1)
        report["unloaded_before"] = unloaded(target, probe, 10)
        cap = capacity(target, probe, 10)
        report["capacity_per_s"] = round(cap, 2)
        report["overload"] = asyncio.run(offered(target, probe, 2 * cap, args.load_s))
        report["rss_mb_after_overload"] = round(rss_mb(pid), 1)
        time.sleep(args.idle_s)
        report["unloaded_after"] = unloaded(target, probe, 10)
        report["rss_mb_end"] = round(rss_mb(pid), 1)
    u0, u1, o = report["unloaded_before"], report["unloaded_after"], report["overload"]
    report["targets"] = {
        "no_internal_unknown_or_hang": report["fuzz"]["problem_count"] == 0,
        "canaries_bit_identical": report["canaries_identical"],
        "admitted_p99_within_3x_unloaded_p99": (o["admitted_p99_ms"] or 0) <= 3 * u0["p99_ms"],
        "p50_back_within_10pct": u1["p50_ms"] <= 1.1 * u0["p50_ms"],
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        f = report["fuzz"]
        print(f"\n| check | figure |\n|---|---|\n"
              f"| fuzz calls (8 clients) | {f['calls']} in {f['seconds']} s: {f['codes']} |\n"
              f"| INTERNAL / UNKNOWN / hung | {f['problem_count']} |\n"
              f"| canaries alone before and after, bit-identical | {report['canaries_identical']} |\n"
              f"| unloaded p50 / p99 | {u0['p50_ms']} / {u0['p99_ms']} ms |\n"
              f"| capacity (16 clients) | {report['capacity_per_s']} requests/s |\n"
              f"| offered at 2x for {args.load_s:g} s | {o['offered']} calls: {o['codes']} |\n"
              f"| admitted p50 / p99 | {o['admitted_p50_ms']} / {o['admitted_p99_ms']} ms "
              f"(target p99 <= {3 * u0['p99_ms']:.1f}) |\n"
              f"| unloaded p50 / p99 {args.idle_s:g} s later | {u1['p50_ms']} / {u1['p99_ms']} ms "
              f"(target p50 <= {1.1 * u0['p50_ms']:.1f}) |\n"
              f"| server RSS start / after fuzz / after overload / end | {report['rss_mb_start']} / "
              f"{report['rss_mb_after_fuzz']} / {report['rss_mb_after_overload']} / {report['rss_mb_end']} MB |")
    return 0 if all(report["targets"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
