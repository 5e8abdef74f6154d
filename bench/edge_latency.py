"""Batch-1 latency of an 8-question decision against this CPU's floor: what a robot or an edge
box asking one decision at a time gets.

    python bench/edge_latency.py [--calls 60] [--json docs/eval/edge_latency.json] [--markdown]
                                 [--checkpoint DIR]  (default: the shipped decider-small) [--cold]
                                 [--agree-sets 200] [--int8]

For 8-question test-split sets with prefixes of about 100 and about 240 tokens (prefix cache
off, so that every call pays its prefix pass): p50/p99 in-process (`EngineCore.decide([r])`,
the engine's default precision here), over gRPC to `decider serve` on this machine (with its
split: transport = client wall time minus the handler's own time from the x-handler-ms trailer,
and the handler's time beyond the engine's prefix and denoising passes: conversion, queueing,
the hand-off to the engine thread) and, where
the engine packs its weights, in-process without packing (the three alternate; each runs one
untimed call after a switch, because the server and this process each hold their own copy of
the weights, and the first call after the other process ran refills the caches: 5-7 ms that a
box running only the server never pays; `--cold` skips it, to see that cost), and 32 v2
test sets decided at once with and without packing (sets/s, median of 3 rounds); one
prefix pass and one block pass alone, each as the engine runs it for a request alone
(engine_prefix); the decision's FLOPs (torch's FlopCounterMode); this
CPU's best matmul rate (fp32 and, where fast, bf16, 2048^3); the floor (FLOPs / best rate) and
p50 / floor; this process's memory read rate and the block pass's weight bytes over it (a
batch-1 block pass reads every layer's weights for 8 rows: a bandwidth floor, not a FLOP one).
Then the runtimes side by side (compare_runtimes): torch in the engine's precision, torch fp32
and ONNX Runtime fp32, batch 1 and 32 sets at once, and how often ONNX Runtime's answers equal
torch fp32's. CPU model and flags go into the output.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from decider.cli import ONEDNN_CACHE

os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", ONEDNN_CACHE)  # as `decider serve` runs: before any matmul
import torch
from decider_client import DeciderClient
from local_server import serving
from stats import pct
from torch.utils.flop_counter import FlopCounterMode

from decider.convert import pb_from_json
from decider.engine import onnx_passes
from decider.engine.core import EngineCore, _stack, build_engine
from decider.engine.decode import Batch
from decider.engine.model import PrefixKV
from decider.engine.device import bf16_is_fast
from decider.engine.request import as_request
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_set, make_sets
from decider.engine.training.dataset import to_record


def cpu() -> dict:
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    flags = info.get("Flags", "").split()
    keep = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile", "avx512_vnni", "fma")
    return {"model": info.get("Model name", "?").strip(), "cores": torch.get_num_threads(),
            "flags": [f for f in keep if f in flags]}


def sets_near(tokens: int, tok, n: int = 16, tolerance: float = 0.15) -> list:
    """8-question test sets whose prefix is within `tolerance` of `tokens` (short ones come from
    the one-rule, no-distractor corner of the corpus)."""
    spec = CorpusSpec(split="test", eight_fraction=1.0, **({"max_links": 1, "max_extra": 0} if tokens < 150 else {}))
    out, i = [], 0
    while len(out) < n and i < 20000:
        s = make_set(spec, i)
        i += 1
        if len(s.questions) == 8 and abs(len(tok.encode(s.context, s.questions).prefix_ids) - tokens) <= tolerance * tokens:
            out.append(s)
    if len(out) < n:
        raise RuntimeError(f"found only {len(out)} 8-question sets near {tokens} tokens")
    return out


def best_matmul(dtype: torch.dtype, n: int = 2048, reps: int = 5) -> float:
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    a @ b
    t = min(_time(lambda: a @ b) for _ in range(reps))
    return 2 * n ** 3 / t / 1e9  # GFLOP/s


def read_bandwidth(mib: int = 512, reps: int = 5) -> float:
    """GB/s this process reads memory at (the sum of a tensor far larger than the caches)."""
    t = torch.ones(mib * 2**20 // 4)
    t.sum()
    return t.numel() * 4 / min(_time(t.sum) for _ in range(reps)) / 1e9


def block_weight_bytes(model) -> int:
    """Bytes of the weights a block pass reads: the layers and the head (not the embeddings)."""
    return sum(p.numel() * p.element_size() for n, p in model.named_parameters()
               if n.startswith(("layers.", "head_"))) + sum(
        b.numel() * b.element_size() for n, b in model.named_buffers() if n.startswith(("layers.", "head_")))


def engine_prefix(engine: EngineCore, batch: Batch) -> PrefixKV:
    """One request's prefix pass and the K/V its block passes read, made as the engine makes
    them: on the exact path (bf16 on a CPU) the pass at the padded length, the K/V stacked in
    fp32 once with room after them for the block's own (PrefixKV.tail); elsewhere the pass as
    it is."""
    if not engine.exact:
        return batch.prefix_forward(engine.model)
    kv = engine._prefix_alone(batch, 0, batch.ids.shape[1])
    kv = _stack([kv], batch.valid, torch.float32, batch.positions.shape[1] if engine.tail else 0)
    kv.exact, kv.tail = True, engine.tail
    return kv


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def agreement(reference: EngineCore, other: EngineCore, sets: list) -> dict:
    """How often `other` gives `reference`'s answer, one set at a time, and how far apart their
    confidences are at most."""
    same = total = 0
    worst = 0.0
    for s in sets:
        r = as_request(s.context, s.questions)
        (a,), (b,) = reference.decide([r]), other.decide([r])
        for x, y in zip(a.answers, b.answers):
            total += 1
            same += x.answer == y.answer
            worst = max(worst, abs(x.confidence - y.confidence))
    return {"sets": len(sets), "questions": total, "same_answer": round(same / total, 4),
            "max_confidence_diff": float(f"{worst:.2g}")}


def int8_engine(engine: EngineCore) -> EngineCore:
    """An ONNX Runtime engine on graphs quantised to int8 by onnxruntime.quantization's dynamic
    quantisation (weights int8 per channel, activations per call): measured, not shipped. Its
    sessions replace the fp32 ones after the start-up check, which int8 would not pass."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    e = build_engine(engine.ckpt, precision="fp32", runtime="onnxruntime", prefix_cache_bytes=0, max_running=32)
    folder = onnx_passes.cache_dir() / onnx_passes.graph_key(e.model.reference)
    options = ort.SessionOptions()  # as the fp32 sessions have them (engine/onnx_passes.py)
    options.intra_op_num_threads = torch.get_num_threads()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    for name in ("prefix", "block"):
        quantize_dynamic(folder / f"{name}.onnx", folder / f"{name}.int8.onnx", weight_type=QuantType.QInt8,
                         per_channel=True, extra_options={"MatMulConstBOnly": True})
        setattr(e.model, f"_{name}", ort.InferenceSession(folder / f"{name}.int8.onnx", options,
                                                          providers=["CPUExecutionProvider"]))
    return e


def compare_runtimes(engine: EngineCore, groups: dict, calls: int, agree_sets: int, int8: bool = False) -> dict:
    """In-process, side by side in this run: torch in the engine's precision, torch fp32 and
    ONNX Runtime fp32 (engine/onnx_passes.py), and with `int8` ONNX Runtime on int8 graphs.
    Batch-1 p50 per prefix size (alternated call by call, each after one untimed call), 32 v2
    test sets at once (sets/s, best of 2), and how often ONNX Runtime's answers equal torch
    fp32's on `agree_sets` v2 test sets."""
    ways = {f"torch {engine.precision}": build_engine(engine.ckpt, precision=engine.precision, runtime="torch",
                                                      prefix_cache_bytes=0, max_running=32)}
    ways["torch fp32"] = build_engine(engine.ckpt, precision="fp32", runtime="torch", prefix_cache_bytes=0,
                                      max_running=32)
    out = {"batch1_p50_ms": {}, "batch32_sets_per_s": {}}
    reason = onnx_passes.unsupported(ways["torch fp32"].model)
    if reason:
        out["onnxruntime"] = reason
        print(json.dumps({"onnxruntime": reason}), flush=True)
    else:
        ways["onnxruntime fp32"] = build_engine(engine.ckpt, precision="fp32", runtime="onnxruntime",
                                                prefix_cache_bytes=0, max_running=32)
        if int8:
            ways["onnxruntime int8"] = int8_engine(engine)
    for tokens, sets in groups.items():
        requests = [as_request(s.context, s.questions) for s in sets]
        times = {name: [] for name in ways}
        for k in range(calls):
            for name, e in ways.items():
                e.decide([requests[k % len(requests)]])
                times[name].append(_time(lambda: e.decide([requests[k % len(requests)]])) * 1e3)
        out["batch1_p50_ms"][tokens] = {name: round(statistics.median(t), 2) for name, t in times.items()}
        print(json.dumps({"runtimes_batch1_p50_ms": {tokens: out["batch1_p50_ms"][tokens]}}), flush=True)
    batch = [as_request(s.context, s.questions) for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), 32)]
    for name, e in ways.items():
        out["batch32_sets_per_s"][name] = round(max(len(batch) / _time(lambda: e.decide(batch)) for _ in range(2)), 2)
    sets = make_sets(CorpusSpec(split="test", mix=V2_MIX), agree_sets)
    out["agreement"] = {name: agreement(ways["torch fp32"], ways[name], sets) for name in ways
                        if name.startswith("onnxruntime")}
    print(json.dumps({"runtimes": {k: out[k] for k in ("batch32_sets_per_s", "agreement")}}), flush=True)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=60)
    p.add_argument("--json", type=Path)
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--checkpoint", help="checkpoint folder (default: the shipped decider-small)")
    p.add_argument("--agree-sets", type=int, default=200, help="v2 test sets on which ONNX Runtime's answers "
                   "are compared with torch fp32's")
    p.add_argument("--int8", action="store_true", help="also ONNX Runtime on graphs quantised to int8 "
                   "(measured, not shipped)")
    p.add_argument("--cold", action="store_true", help="no untimed call after a switch between this process "
                   "and the server: every timed call starts with the caches the other process left")
    args = p.parse_args()
    engine = build_engine(args.checkpoint, prefix_cache_bytes=0, max_running=32)
    plain = build_engine(engine.ckpt, precision=engine.precision, runtime="torch", prefix_cache_bytes=0,
                         packed_weights=False, max_running=32)
    model, tok = engine.model, engine.tok
    rates = {"fp32": best_matmul(torch.float32)}
    if bf16_is_fast("cpu"):
        rates["bf16"] = best_matmul(torch.bfloat16)
    bandwidth = read_bandwidth()
    weights = block_weight_bytes(plain.model)  # packed weights are opaque to numel()
    report = {"cpu": cpu(), "torch": torch.__version__, "precision": engine.precision, "runtime": engine.runtime,
              "cold": args.cold,
              "model": f"{engine.ckpt.name} {engine.ckpt.version} ({model.cfg.n_layers} layers)",
              "packed_layers": engine.packed_layers,
              "matmul_gflops": {k: round(v, 1) for k, v in rates.items()}, "read_gbs": round(bandwidth, 1),
              "block_weight_mb": round(weights / 1e6, 1),
              "block_pass_floor_ms": round(weights / bandwidth / 1e6, 2), "rows": []}
    groups = {n: sets_near(n, tok) for n in (100, 240)}
    # a student in training may still fail the server's start-up self-test: speed is measured anyway
    flags = ("--checkpoint", args.checkpoint, "--no-self-test") if args.checkpoint else ()
    with serving(*flags) as (target, _), DeciderClient(target, timeout=30) as client:
        for tokens, sets in groups.items():
            requests = [as_request(s.context, s.questions) for s in sets]
            wire = [pb_from_json(to_record(s)) for s in sets]
            encs = [tok.encode(s.context, s.questions) for s in sets]
            with FlopCounterMode(display=False) as flops:  # oneDNN's packed linear is not counted
                plain.decide(requests[:1])
            gflop = flops.get_total_flops() / 1e9
            for r in requests[:4]:
                engine.decide([r])  # warm-up
            for r in requests[:4]:
                plain.decide([r])
            local, remote, unpacked, prefix, block = [], [], [], [], []
            transport, handler_extra = [], []
            for k in range(args.calls):  # alternate, so that all three see the same machine load
                request = requests[k % len(requests)]
                if not args.cold:
                    engine.decide([request])  # untimed: after a switch the first call refills the caches
                local.append(_time(lambda: engine.decide([request])) * 1e3)
                if not args.cold:
                    client.stub.Decide(wire[k % len(wire)])
                t0 = time.perf_counter()
                response, call = client.stub.Decide.with_call(wire[k % len(wire)])
                remote.append((time.perf_counter() - t0) * 1e3)
                handler_ms = float(dict(call.trailing_metadata())["x-handler-ms"])
                t = response.timings
                transport.append(remote[-1] - handler_ms)  # client, wire, gRPC's own threads
                handler_extra.append(handler_ms - t.prefix_ms - t.denoise_ms)  # conversion, hand-off to the engine
                if engine.packed_layers:
                    if not args.cold:
                        plain.decide([request])
                    unpacked.append(_time(lambda: plain.decide([request])) * 1e3)
            batch = Batch.collate(encs[:1], tok.pad, model.cfg.n_answers)
            answers = torch.full(batch.positions.shape, model.mask_token)
            with torch.no_grad():
                kv = engine_prefix(engine, batch)
                choices = batch.answer_vectors(model, kv)
                for _ in range(args.calls // 2):
                    prefix.append(_time(lambda: engine_prefix(engine, batch)) * 1e3)
                    block.append(_time(lambda: model.block_forward(answers, batch.positions, batch.slot_valid, kv,
                                                                   choices)) * 1e3)
            best = max(rates.values())
            floor_ms = gflop / best * 1e3
            row = {"prefix_tokens": round(statistics.mean(len(e.prefix_ids) for e in encs)), "gflop": round(gflop, 3),
                   "floor_ms": round(floor_ms, 2),
                   "in_process_p50_ms": round(statistics.median(local), 2), "in_process_p99_ms": round(pct(local, 0.99), 2),
                   "grpc_p50_ms": round(statistics.median(remote), 2), "grpc_p99_ms": round(pct(remote, 0.99), 2),
                   "grpc_transport_p50_ms": round(statistics.median(transport), 2),
                   "grpc_handler_over_engine_p50_ms": round(statistics.median(handler_extra), 2),
                   "unpacked_p50_ms": round(statistics.median(unpacked), 2) if unpacked else None,
                   "prefix_pass_ms": round(statistics.median(prefix), 2),
                   "block_pass_ms": round(statistics.median(block), 2)}
            row["p50_over_floor"] = round(row["in_process_p50_ms"] / floor_ms, 1)
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    if engine.packed_layers:  # packing must not cost batches what it saves batch 1
        batch = [as_request(s.context, s.questions) for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), 32)]
        rates = {"packed": [], "unpacked": []}
        for _ in range(3):
            for name, e in (("packed", engine), ("unpacked", plain)):
                rates[name].append(len(batch) / _time(lambda: e.decide(batch)))
        report["batch32_sets_per_s"] = {k: round(statistics.median(v), 2) for k, v in rates.items()}
        print(json.dumps({"batch32_sets_per_s": report["batch32_sets_per_s"]}), flush=True)
    if onnx_passes.available():
        report["runtimes"] = compare_runtimes(engine, groups, args.calls // 2, args.agree_sets, args.int8)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        print(f"\nCPU: {report['cpu']['model']} ({', '.join(report['cpu']['flags'])}), {report['cpu']['cores']} threads; "
              f"{report['model']}; engine precision {report['precision']}, {report['packed_layers']} packed layers; best 2048^3 matmul "
              + ", ".join(f"{k} {v} GFLOP/s" for k, v in report["matmul_gflops"].items())
              + f"; memory read {report['read_gbs']} GB/s, so a block pass that reads "
              f"{report['block_weight_mb']} MB of weights takes at least {report['block_pass_floor_ms']} ms"
              + (f"; 32 v2 test sets at once: {report['batch32_sets_per_s']['packed']} sets/s packed, "
                 f"{report['batch32_sets_per_s']['unpacked']} unpacked" if "batch32_sets_per_s" in report else "") + "\n")
        print("| prefix tokens | GFLOP | floor | in-process p50 / p99 | gRPC p50 / p99 | gRPC transport / handler "
              "beyond the engine | p50 / floor | prefix pass | block pass | unpacked weights p50 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in report["rows"]:
            print(f"| {r['prefix_tokens']} | {r['gflop']} | {r['floor_ms']} ms | {r['in_process_p50_ms']} / "
                  f"{r['in_process_p99_ms']} ms | {r['grpc_p50_ms']} / {r['grpc_p99_ms']} ms | "
                  f"{r['grpc_transport_p50_ms']} / {r['grpc_handler_over_engine_p50_ms']} ms | {r['p50_over_floor']}x | "
                  f"{r['prefix_pass_ms']} ms | {r['block_pass_ms']} ms | "
                  f"{r['unpacked_p50_ms'] if r['unpacked_p50_ms'] is not None else '-'} ms |")
        if "runtimes" in report:
            rt = report["runtimes"]
            names = list(rt["batch32_sets_per_s"])
            print("\n| runtime | " + " | ".join(f"batch-1 p50, {t} tokens" for t in rt["batch1_p50_ms"])
                  + " | 32 sets at once |")
            print("|---|" + "---|" * (len(rt["batch1_p50_ms"]) + 1))
            for name in names:
                print(f"| {name} | " + " | ".join(f"{row[name]} ms" for row in rt["batch1_p50_ms"].values())
                      + f" | {rt['batch32_sets_per_s'][name]} sets/s |")
            if "onnxruntime" in rt:
                print(f"\nNo ONNX Runtime rows: {rt['onnxruntime']}")
            for name, a in rt["agreement"].items():
                print(f"\n{name} vs torch fp32 on {a['sets']} v2 test sets: the same answer on "
                      f"{a['same_answer']:.2%} of {a['questions']} questions, confidences within "
                      f"{a['max_confidence_diff']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
