"""Where a batch is decided: the in-process engine, local engine processes, a running server
(--remote) or a Ray actor pool (--ray). Each feeds records to the same sink."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import time
from collections.abc import Callable, Iterable

import grpc
from decider_client import pb

from decider.batch.journal import Sink
from decider.batch.records import (
    TRANSIENT,
    BatchError,
    Job,
    by_length,
    error_record,
    result_record,
)
from decider.convert import request_from_pb, response_to_pb
from decider.engine.request import DecisionInputError, DecisionResult


def decide_local(jobs: list[Job], core, on_result: Callable[[Job, DecisionResult], None],
                 on_error: Callable[[Job, DecisionInputError], None], window: int | None = None) -> None:
    """Feed an EngineCore, keeping about `window` requests in it; results as they finish."""
    window = window or 2 * core.config.max_running
    in_flight: dict[str, Job] = {}

    def step():
        for r in core.step():
            on_result(in_flight.pop(r.request_id), r)

    for job in jobs:
        try:
            core.add_request(job.request, request_id=job.request_id)
        except DecisionInputError as e:  # what only the engine can tell: unsatisfiable, too long
            on_error(job, e)
            continue
        in_flight[job.request_id] = job
        while len(in_flight) >= window:
            step()
    while core.has_unfinished():
        step()


def decide_jobs(jobs: list[Job], core, emit: Callable[[dict], None]) -> None:
    """Decide jobs on `core` in length order: one record per job to `emit`, results and
    refusals alike."""
    name, version = core.ckpt.name, core.ckpt.version
    decide_local(by_length(jobs), core,
                 lambda job, r: emit(result_record(job.line, response_to_pb(r, name, version))),
                 lambda job, e: emit(error_record(job.line, job.request_id, "INVALID_ARGUMENT", str(e), e.field)))


def decide_rows(core, rows: Iterable[tuple[int, bytes]]) -> list[dict]:
    """Decide serialised requests, (line, DecideRequest bytes), where the engine lives (a
    worker process, a Ray actor): one record per row."""
    jobs = []
    for line, message in rows:
        m = pb.DecideRequest.FromString(bytes(message))
        jobs.append(Job(int(line), m.request_id, m, request_from_pb(m)))
    records: list[dict] = []
    decide_jobs(jobs, core, records.append)
    return records


def run_local(jobs: list[Job], sink: Sink, checkpoint: str | None, device: str, max_running: int) -> None:
    decide_jobs(jobs, _engine(checkpoint, device, max_running), sink.record)


def local_layout(jobs: int, device: str, workers: int | None, threads: int | None) -> tuple[int, int | None]:
    """(engine processes, torch threads each) for the local path; None threads: torch's default.
    Default: one engine in this process on CUDA or for a job too small to pay for starting
    more (each loads the model); else as many engines as cores, up to 4, sharing the cores."""
    if workers is None:
        from decider.engine.device import resolve_device
        small = jobs < 1000 or resolve_device(device).type == "cuda"
        workers = 1 if small else min(4, len(os.sched_getaffinity(0)))
    if workers > 1 and threads is None:
        threads = max(1, len(os.sched_getaffinity(0)) // workers)
    return workers, threads


_worker_core = None              # the engine of a local worker process
_worker_error: Exception | None = None


def _worker_start(checkpoint: str | None, device: str, max_running: int, threads: int) -> None:
    global _worker_core, _worker_error
    import threading

    import torch

    parent = os.getppid()

    def exit_with_parent():  # a `kill -9` of the job must not leave engines behind
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=exit_with_parent, name="exit-with-parent", daemon=True).start()
    torch.set_num_threads(threads)
    try:
        _worker_core = _engine(checkpoint, device, max_running)
    except Exception as e:  # raised again by every task, so that the job stops saying why
        _worker_error = e


def _worker_decide(rows: list[tuple[int, bytes]]) -> list[dict]:
    if _worker_error is not None:
        raise _worker_error
    return decide_rows(_worker_core, rows)


def run_workers(jobs: list[Job], sink: Sink, checkpoint: str | None, device: str, max_running: int,
                workers: int, threads: int) -> None:
    """`workers` engine processes of `threads` torch threads each. Jobs go out in length
    order, in chunks small enough that the workers finish together (8 or more per worker,
    at most 128 requests each); records come back per chunk and are written here, so that
    resume works the same. A chunk lost with a worker is not recorded: a rerun decides it."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ordered = by_length(jobs)
    chunk = max(1, min(128, len(ordered) // (8 * workers)))
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start,
                               initargs=(checkpoint, device, max_running, threads))
    try:
        futures = [pool.submit(_worker_decide, [(j.line, j.message.SerializeToString()) for j in ordered[i:i + chunk]])
                   for i in range(0, len(ordered), chunk)]
        for future in as_completed(futures):
            for record in future.result():
                sink.record(record)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _engine(checkpoint: str | None, device: str, max_running: int):
    from decider.engine.core import build_engine

    return build_engine(checkpoint, device=device, max_running=max_running, prefix_cache_bytes=64 * 2**20)


async def run_remote(jobs: list[Job], sink: Sink, target: str, concurrency: int, timeout: float,
                     **client_options) -> None:
    """`concurrency` workers, one call each in flight. UNAVAILABLE is retried by the client's
    retry policy; RESOURCE_EXHAUSTED (the server's queue is full: others are using it too) is
    retried here, with jittered backoff, for up to `timeout` seconds per request."""
    from decider_client import AsyncDeciderClient, DeciderError

    queue: asyncio.Queue = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def one(client, job: Job) -> None:
        give_up = time.monotonic() + timeout
        for attempt in itertools.count():
            try:
                sink.result(job.line, await client.decide_request(job.message))
                return
            except DeciderError as e:
                pause = min(1.0, 0.02 * 2**attempt) * (0.5 + random.random())
                if e.code == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() + pause < give_up:
                    await asyncio.sleep(pause)
                    continue
                if e.code in TRANSIENT:
                    sink.transient()
                else:
                    where = e.violations[0][0] if e.violations else None
                    sink.refused(error_record(job.line, job.request_id, e.code.name, e.message, where))
                return

    async def worker(client):
        while not queue.empty():
            await one(client, queue.get_nowait())

    async with AsyncDeciderClient(target, timeout=timeout, **client_options) as client:
        await asyncio.gather(*(worker(client) for _ in range(max(1, concurrency))))


class EngineActor:
    """One engine per Ray actor; `__call__` decides a batch of serialised requests and
    returns one JSON record per row (results and refusals alike)."""

    def __init__(self, checkpoint: str | None, device: str, max_running: int):
        import ray
        import torch

        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
        if cpus:
            torch.set_num_threads(max(1, int(cpus)))
        self.core = _engine(checkpoint, device, max_running)

    def __call__(self, batch: dict) -> dict:
        records = decide_rows(self.core, zip(batch["line"], batch["message"]))
        return {"record": [json.dumps(r, ensure_ascii=False) for r in records]}


def run_ray(jobs: list[Job], sink: Sink, checkpoint: str | None, device: str, max_running: int,
            address: str | None, actors: int, cpus_per_actor: float, gpus_per_actor: float,
            batch_size: int) -> None:
    """Ray Data: the pending requests as a dataset, `map_batches` over an actor pool of
    engines, records streamed back to this process's journal (so resume works the same)."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise BatchError("--ray needs Ray Data: pip install 'decider[ray]' (or pip install 'ray[data]')") from None
    if not ray.is_initialized():
        ray.init(address=address, logging_level="WARNING", log_to_driver=False,
                 **({} if address else {"include_dashboard": False}))
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False  # ours counts records, not blocks
    rows = [{"line": j.line, "message": j.message.SerializeToString()} for j in by_length(jobs)]
    ds = ray.data.from_items(rows, override_num_blocks=max(1, min(len(rows), actors * 4)))
    out = ds.map_batches(EngineActor, batch_size=batch_size, compute=ray.data.ActorPoolStrategy(size=actors),
                         fn_constructor_kwargs={"checkpoint": checkpoint, "device": device,
                                                "max_running": max_running},
                         num_cpus=cpus_per_actor, num_gpus=gpus_per_actor or None)
    for batch in out.iter_batches(batch_size=None, batch_format="numpy"):
        for text in batch["record"]:
            sink.record(json.loads(text))
