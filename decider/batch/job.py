"""The batch job itself: settings, planning against the output, running the chosen engine,
progress and the summary, Parquet at the end."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from decider.batch.engines import (
    local_layout,
    run_local,
    run_ray,
    run_remote,
    run_workers,
)
from decider.batch.journal import Journal, Sink, Summary
from decider.batch.records import BatchError, Done, need_pyarrow, plan, read_input


@dataclass
class BatchConfig:
    input: Path
    output: Path
    errors: Path | None = None
    remote: str | None = None
    ray: bool = False
    ray_address: str | None = None
    actors: int = 1
    cpus_per_actor: float = 1.0
    gpus_per_actor: float = 0.0
    ray_batch_size: int = 64
    checkpoint: str | None = None
    device: str = "auto"
    max_running: int = 32
    workers: int | None = None   # local engine processes; None: see local_layout
    threads: int | None = None   # torch threads per local engine
    concurrency: int = 16
    timeout: float = 60.0
    chunk: int = 64
    progress: bool = True
    client_options: dict = field(default_factory=dict)


def run(cfg: BatchConfig, log: Callable[[str], None] = print) -> Summary:
    """Plan (skip what the output already holds), decide the rest, write. Returns the summary."""
    if cfg.remote and cfg.ray:
        raise BatchError("choose one of --remote and --ray")
    for name in ("workers", "threads"):
        if getattr(cfg, name) is not None and getattr(cfg, name) < 1:
            raise BatchError(f"--{name} must be at least 1, got {getattr(cfg, name)}")
    if not cfg.input.is_file():
        raise BatchError(f"input {cfg.input}: no such file")
    parquet_out = cfg.output.suffix == ".parquet"
    if parquet_out:
        need_pyarrow("Parquet output")
    journal_path = cfg.output.with_name(cfg.output.name + ".journal.jsonl") if parquet_out else cfg.output
    if cfg.errors and cfg.errors.resolve() == journal_path.resolve():
        raise BatchError("--errors must be another file than OUTPUT")
    started = time.perf_counter()
    output = Journal(journal_path)
    errors = Journal(cfg.errors) if cfg.errors else None
    done = Done()
    for record in output.existing + (errors.existing if errors else []):
        if "error" in record:
            done.lines.add(record["line"])
        else:
            done.ids.add(record["request_id"])
    summary = Summary(errors_total=len(done.lines))
    p = plan(read_input(cfg.input), done)
    summary.lines, summary.skipped = p.lines, p.skipped
    todo = len(p.jobs) + len(p.refused)
    if p.skipped:
        log(f"resuming: {p.skipped} of {p.lines} lines already in {journal_path}")

    from tqdm import tqdm
    bar = tqdm(total=todo, unit="decision", disable=not cfg.progress or todo == 0, smoothing=0.1)
    sink = Sink(output, errors, summary, chunk=cfg.chunk, bar=bar)
    try:
        for record in p.refused:
            sink.refused(record)
        if p.jobs:
            if cfg.remote:
                asyncio.run(run_remote(p.jobs, sink, cfg.remote, cfg.concurrency, cfg.timeout, **cfg.client_options))
            elif cfg.ray:
                run_ray(p.jobs, sink, cfg.checkpoint, cfg.device, cfg.max_running, cfg.ray_address, cfg.actors,
                        cfg.cpus_per_actor, cfg.gpus_per_actor, cfg.ray_batch_size)
            else:
                workers, threads = local_layout(len(p.jobs), cfg.device, cfg.workers, cfg.threads)
                if workers > 1:
                    log(f"{workers} engine processes, {threads} torch threads each")
                    run_workers(p.jobs, sink, cfg.checkpoint, cfg.device, cfg.max_running, workers, threads)
                else:
                    if threads:
                        import torch
                        torch.set_num_threads(threads)
                    run_local(p.jobs, sink, cfg.checkpoint, cfg.device, cfg.max_running)
    finally:
        sink.flush()
        bar.close()
        output.close()
        if errors:
            errors.close()
    if parquet_out and summary.retry == 0:
        _write_parquet(journal_path, cfg.output)
    summary.seconds = time.perf_counter() - started
    return summary


def _write_parquet(journal: Path, output: Path) -> None:
    pa = need_pyarrow("Parquet output")
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    records.sort(key=lambda r: r["line"])
    table = pa.Table.from_struct_array(pa.array(records)) if records else pa.table({})
    tmp = output.with_name(output.name + ".tmp")
    pa.parquet.write_table(table, tmp)
    os.replace(tmp, output)  # a reader never sees half a Parquet file
