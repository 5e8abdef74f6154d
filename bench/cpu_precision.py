"""Is bf16 worth it on this CPU? Matmul throughput and one training step, fp32 vs bf16.

On CPUs with AMX or AVX512-BF16, bf16 matmuls run several times faster than fp32; on
AVX2-only CPUs bf16 is emulated and far slower. decider picks bf16 only where it is fast
(decider.engine.device.bf16_is_fast); this script shows why, on the machine it runs on.

    python bench/cpu_precision.py [--json docs/eval/cpu_precision.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import torch


def matmul_gflops(dtype: torch.dtype, n: int = 1024, m: int = 4096, reps: int = 5) -> float:
    a, b = torch.randn(m, n).to(dtype), torch.randn(n, n).to(dtype)
    a @ b
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    return 2 * m * n * n * reps / (time.perf_counter() - t) / 1e9


def train_step_sets_per_s(bf16: bool, batch: int = 16, reps: int = 2) -> float:
    from decider.engine.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint
    from decider.engine.training.train import Stage, TrainConfig, batch_loss, batches

    ckpt = load_checkpoint(DEFAULT_CHECKPOINT)
    model = ckpt.model.train()
    cfg = TrainConfig(batch_size=batch, stages=[Stage(max_links=5, examples=batch * (reps + 1))])
    data = list(batches(cfg, ckpt.tokenizer, model.cfg.n_answers))
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else torch.autocast("cpu", enabled=False)
    times = []
    for tb in data:
        t = time.perf_counter()
        with ctx:
            loss, _, _ = batch_loss(model, tb, bf16=False)
        loss.backward()
        times.append(time.perf_counter() - t)
    return batch / min(times[1:])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--json")
    p.add_argument("--skip-train", action="store_true", help="matmuls only")
    args = p.parse_args()
    report = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "threads": torch.get_num_threads(),
        "amx": torch.cpu._is_amx_tile_supported(),
        "avx512_bf16": torch.cpu._is_avx512_bf16_supported(),
        "matmul_gflops_fp32": round(matmul_gflops(torch.float32), 1),
        "matmul_gflops_bf16": round(matmul_gflops(torch.bfloat16, reps=1), 1),
    }
    if not args.skip_train:
        report["train_sets_per_s_fp32"] = round(train_step_sets_per_s(False), 2)
        report["train_sets_per_s_bf16"] = round(train_step_sets_per_s(True, reps=1), 2)
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
