"""Kernels against their torch references and SDPA on one CUDA GPU, then end-to-end
decisions per second: the Python half of bench/gpu_check.sh.

    python bench/kernel_speed.py --out gpu_table.md [--json gpu.json]

Block attention at batch 256 and prefix 512 (bf16, decider-small's 12 heads of 32) is timed
as the Triton kernel, as the torch path the engine runs elsewhere, and as SDPA over the
same keys padded with a mask; achieved memory bandwidth is printed next to the device's
peak. The commit kernel is timed against its reference. End to end: 8-question decisions
per second through the engine core at batch 1, 32 and 256.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from triton.testing import do_bench

from decider.kernels.block_attention.triton import block_attention
from decider.kernels.commit.naive import commit as commit_reference
from decider.kernels.commit.triton import commit as commit_kernel

PEAK_BYTES_PER_S = {"H200": 4.8e12, "H100": 3.35e12, "A100": 2.0e12, "L40S": 0.864e12, "L4": 0.3e12}


def peak_bandwidth() -> float | None:
    name = torch.cuda.get_device_name()
    return next((bw for key, bw in PEAK_BYTES_PER_S.items() if key in name), None)


def attention_case(B=256, L=512, S=8, H=12, D=32, dtype=torch.bfloat16):
    dev = "cuda"
    q = torch.randn(B, S, H, D, device=dev, dtype=dtype)
    k, v = torch.randn_like(q), torch.randn_like(q)
    pk = torch.randn(B * L, H, D, device=dev, dtype=dtype)
    pv = torch.randn_like(pk)
    cu = torch.arange(0, B * L + 1, L, device=dev, dtype=torch.int32)
    valid = torch.ones(B, S, dtype=torch.bool, device=dev)
    return q, k, v, valid, pk, pv, cu


def torch_path(q, k, v, valid, pk, pv, cu):
    """What the engine runs without Triton: the torch block attention over the padded prefix."""
    from decider.kernels.dispatch import block_attention
    B, S, H, D = q.shape
    L = pk.shape[0] // B
    pkk = pk.view(B, L, H, D).transpose(1, 2)  # (B, H, L, D), a view as the engine keeps it
    pvv = pv.view(B, L, H, D).transpose(1, 2)
    prefix_valid = torch.ones(B, L, dtype=torch.bool, device=q.device)
    return block_attention(q, k, v, valid, pkk, pvv, prefix_valid=prefix_valid)


def sdpa_padded(q, k, v, valid, pk, pv, cu):
    B, S, H, D = q.shape
    L = pk.shape[0] // B
    keys = torch.cat([pk.view(B, L, H, D), k], 1).transpose(1, 2)    # (B, H, L + S, D)
    values = torch.cat([pv.view(B, L, H, D), v], 1).transpose(1, 2)
    mask = torch.cat([torch.ones(B, L, dtype=torch.bool, device=q.device), valid], 1)[:, None, None, :]
    return F.scaled_dot_product_attention(q.transpose(1, 2), keys, values, attn_mask=mask)


def end_to_end(batch: int, reps: int = 3) -> float:
    from decider.engine.checkpoint import load_checkpoint
    from decider.engine.core import EngineConfig, EngineCore
    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.request import as_request

    ckpt = load_checkpoint(device=torch.device("cuda"))
    sets = [s for s in make_sets(CorpusSpec(split="test", max_links=5), 4 * batch + 200)
            if len(s.questions) == 8][:batch]
    requests = [as_request(s.context, s.questions) for s in sets]
    core = EngineCore(ckpt, EngineConfig(max_running=max(batch, 1), prefix_cache_bytes=0))
    core.decide(requests)  # warm-up
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        core.decide(requests)
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    return len(requests) / best


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True, help="markdown table goes here")
    p.add_argument("--json")
    args = p.parse_args()
    x = attention_case()
    q, k, v, valid, pk, pv, cu = x
    moved = sum(t.numel() * t.element_size() for t in (q, k, v, pk, pv)) + q.numel() * q.element_size()
    peak = peak_bandwidth()
    rows = []
    for name, fn in (("block attention, triton", lambda: block_attention(*x, max_prefix_len=512)),
                     ("block attention, torch path", lambda: torch_path(*x)),
                     ("SDPA, padded mask", lambda: sdpa_padded(*x))):
        ms = do_bench(fn, warmup=25, rep=100)
        bw = moved / (ms / 1e3)
        rows.append({"op": name, "ms": round(ms, 4), "GB/s": round(bw / 1e9, 1),
                     "of peak": f"{100 * bw / peak:.0f}%" if peak else "n/a"})
    B, S, C = 256, 8, 18
    logits = torch.randn(B, S, C, device="cuda")
    allowed = torch.full((B, S), (1 << C) - 1, dtype=torch.int32, device="cuda")
    open_ = torch.ones(B, S, dtype=torch.bool, device="cuda")
    thr = torch.full((B,), 0.9, device="cuda")
    for name, fn in (("commit, triton", lambda: commit_kernel(logits, allowed, open_, thr, 1.1)),
                     ("commit, torch", lambda: commit_reference(logits, allowed, open_, thr, 1.1))):
        rows.append({"op": name, "ms": round(do_bench(fn, warmup=25, rep=100), 4), "GB/s": "", "of peak": ""})
    e2e = {n: round(end_to_end(n), 1) for n in (1, 32, 256)}
    lines = [f"Device: {torch.cuda.get_device_name()}, torch {torch.__version__}, date {time.strftime('%Y-%m-%d')}",
             "", "Block attention: batch 256, prefix 512, 8 slots, 12 heads of 32, bf16.", "",
             "| op | ms | GB/s | of peak |", "|---|---|---|---|"]
    lines += [f"| {r['op']} | {r['ms']} | {r['GB/s']} | {r['of peak']} |" for r in rows]
    lines += ["", "| end to end, 8-question decisions | decisions/s |", "|---|---|"]
    lines += [f"| batch {n} | {v} |" for n, v in e2e.items()]
    table = "\n".join(lines) + "\n"
    print(table)
    Path(args.out).write_text(table)
    if args.json:
        Path(args.json).write_text(json.dumps({"kernels": rows, "end_to_end": e2e}, indent=2) + "\n")


if __name__ == "__main__":
    main()
