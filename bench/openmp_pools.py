"""Why the server loads, warms and steps its model on one thread: the engine's step time with
one OpenMP thread pool in the process, then with a second pool kept alive by another thread.

    python bench/openmp_pools.py [--sets 16]

torch's CPU pool is OpenMP's, one per thread that runs a parallel op. With two pools the
process holds more OpenMP threads than a 2-core box has cores, libgomp stops spin-waiting
between parallel regions, and the worker of the engine's pool goes to sleep between them.
Prints the median engine time (prefix + denoise) and how busy that worker was, each way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

import torch

from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request


def cpu_seconds_by_thread() -> dict[str, float]:
    out = {}
    for task in Path("/proc/self/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        out[task.name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def measure(core: EngineCore, sets, label: str) -> None:
    before, t0, times = cpu_seconds_by_thread(), time.perf_counter(), []
    for s in sets:
        r = core.decide([as_request(s.context, s.questions)])[0]
        times.append(r.timings.prefix_ms + r.timings.denoise_ms)
    wall, after = time.perf_counter() - t0, cpu_seconds_by_thread()
    busy = sorted((after[k] - before.get(k, 0.0)) / wall for k in after)
    print(f"{label}: engine p50 {statistics.median(times):.1f} ms; the two busiest threads "
          f"{busy[-1]:.0%} and {busy[-2]:.0%} busy")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", type=int, default=16)
    args = p.parse_args()
    sets = [s for s in make_sets(CorpusSpec(split="test", max_links=5), 40 * args.sets)
            if len(s.questions) == 8][:args.sets]
    core = EngineCore(load_checkpoint(), EngineConfig(prefix_cache_bytes=0))
    core.decide([as_request(s.context, s.questions) for s in sets[:2]])
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} CPUs")
    measure(core, sets, "one pool ")

    idle = threading.Event()

    def second_pool():  # what an executor thread that loaded the model leaves behind
        torch.randn(512, 512) @ torch.randn(512, 512)
        idle.wait()

    threading.Thread(target=second_pool, daemon=True).start()
    time.sleep(1)
    measure(core, sets, "two pools")
    idle.set()


if __name__ == "__main__":
    main()
