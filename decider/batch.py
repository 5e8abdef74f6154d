"""`decider batch`: decide a file of requests, exactly one record per input line, resumably.

    decider batch INPUT OUTPUT [--errors FILE] [--remote HOST:PORT | --ray [--ray-address ADDR]]

Input: JSONL, one request per line in the proto's JSON mapping (context, questions,
constraints, options, request_id), or Parquet with those columns. A line without a
request_id gets `line-<n>` (its 1-based line number), so that a restart finds it again.
Blank lines are ignored.

Output: JSONL, one record per input line, in completion order: the DecideResponse in the
proto's JSON mapping plus `line`; or, for a line that cannot be decided, an error record
`{"line", "request_id", "error": {"code", "field", "message"}}` (to --errors FILE when given).
A Parquet OUTPUT is written from its JSONL journal (OUTPUT.journal.jsonl) once every line
is done.

Resumable and lossless: records are appended in chunks, each chunk with one write(2) on an
O_APPEND descriptor and then fsync'd, so a job killed at any moment leaves whole records
only (a torn tail, which only a power cut can leave, is cut off on restart). A restart with
the same output skips the request ids already answered and the lines already refused.
Failures that may pass (a server UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED after
retries) are not recorded: the summary counts them and the same command retries them.

The engine runs in one of three places, with the same records and the same resume rule:
  local (default): the server's EngineCore, fed in length order so that its prefix passes
                   pad little: in this process, or in --workers processes of their own
                   (by default, for 1,000 requests or more on a CPU, as many as there
                   are cores up to 4, sharing the cores: on a small CPU single-threaded
                   engines decide more per second than one engine using every core);
  --remote H:P:    a running server, with --concurrency calls in flight;
  --ray:           Ray Data `map_batches` over an actor pool, one engine per actor.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from decider_client import pb

from decider.convert import pb_from_json, request_from_pb, response_to_pb, to_json
from decider.engine.request import DecisionRequest, DecisionResult
from decider.engine.request import DecisionInputError

# a server's answer that may be different next time: not recorded, retried by a rerun
TRANSIENT = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED,
             grpc.StatusCode.CANCELLED}


class BatchError(Exception):
    """The job cannot start (unreadable input, an output that is not a batch output)."""


@dataclass
class Job:
    line: int
    request_id: str
    message: pb.DecideRequest  # request_id filled in
    request: DecisionRequest   # validated


def result_record(line: int, response: pb.DecideResponse) -> dict:
    return {"line": line, **to_json(response)}


def error_record(line: int, request_id: str, code: str, message: str, field: str | None = None) -> dict:
    return {"line": line, "request_id": request_id, "error": {"code": code, "field": field, "message": message}}


# -- input ---------------------------------------------------------------------------------

def read_input(path: Path) -> Iterator[tuple[int, object]]:
    """(line number, the decoded JSON value, or a DecisionInputError saying why it is not one)."""
    if path.suffix == ".parquet":
        pq = _pyarrow("Parquet input").parquet
        for n, row in enumerate(pq.read_table(path).to_pylist(), 1):
            yield n, _drop_nulls(row)
        return
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                yield n, json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                yield n, DecisionInputError(f"line {n} is not valid JSON: {e}", field="line")


def _drop_nulls(value):
    """Parquet fills absent fields with nulls; the proto's JSON mapping wants them absent."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


@dataclass
class Plan:
    jobs: list[Job] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)  # error records found while reading
    skipped: int = 0                                   # lines a previous run already recorded
    lines: int = 0


def plan(records: Iterable[tuple[int, object]], done: Done) -> Plan:
    """Assign ids, drop what is done, validate the rest. Results are keyed by request id and
    refusals by line number, so that a repeated id cannot hide its first line on resume."""
    out, first_line = Plan(), {}
    for n, value in records:
        out.lines += 1
        if n in done.lines:
            out.skipped += 1
            continue
        if isinstance(value, DecisionInputError):
            out.refused.append(error_record(n, f"line-{n}", "INVALID_ARGUMENT", str(value), value.field))
            continue
        if not isinstance(value, dict):
            out.refused.append(error_record(n, f"line-{n}", "INVALID_ARGUMENT",
                                            f"line {n}: a request is a JSON object, got {type(value).__name__}",
                                            "line"))
            continue
        rid = value.get("request_id", value.get("requestId")) or f"line-{n}"
        if not isinstance(rid, str):
            out.refused.append(error_record(n, f"line-{n}", "INVALID_ARGUMENT",
                                            "request_id must be a string", "request_id"))
            continue
        if rid in first_line:
            out.refused.append(error_record(n, rid, "INVALID_ARGUMENT", f"request_id '{rid}' repeats line "
                                            f"{first_line[rid]}; ids must be unique within a job", "request_id"))
            continue
        first_line[rid] = n
        if rid in done.ids:
            out.skipped += 1
            continue
        try:
            message = pb_from_json({k: v for k, v in value.items() if k not in ("request_id", "requestId")})
            message.request_id = rid
            out.jobs.append(Job(n, rid, message, request_from_pb(message)))
        except DecisionInputError as e:
            out.refused.append(error_record(n, rid, "INVALID_ARGUMENT", str(e), e.field))
    return out


def by_length(jobs: list[Job]) -> list[Job]:
    """Similar lengths together: the engine's prefix passes then pad little."""
    return sorted(jobs, key=lambda j: len(j.request.context) + sum(len(q.text) for q in j.request.questions))


# -- output: an append-only journal that survives SIGKILL ----------------------------------

@dataclass
class Done:
    ids: set[str] = field(default_factory=set)     # answered request ids
    lines: set[int] = field(default_factory=set)   # refused lines
    errors: int = 0


class Journal:
    """JSONL records appended in whole chunks: one write(2) per chunk on an O_APPEND
    descriptor (a process killed at any moment has written a chunk wholly or not at all),
    then fsync (the chunk survives a crash of the machine)."""

    def __init__(self, path: Path):
        self.path = path
        self.existing = self._recover(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    @staticmethod
    def _recover(path: Path) -> list[dict]:
        if not path.exists():
            return []
        data = path.read_bytes()
        whole = data.rfind(b"\n") + 1
        if whole < len(data):  # a torn tail: never a record, cut it off
            os.truncate(path, whole)
        records = []
        for k, raw in enumerate(data[:whole].splitlines(), 1):
            try:
                record = json.loads(raw)
            except json.JSONDecodeError:
                record = None
            if not isinstance(record, dict) or "line" not in record or "request_id" not in record:
                raise BatchError(f"{path}: line {k} is not a decider batch record; give a new output file "
                                 "(or the output of an earlier run of this job to resume it)")
            records.append(record)
        return records

    def append(self, records: list[dict]) -> None:
        if not records:
            return
        data = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


@dataclass
class Summary:
    lines: int = 0
    skipped: int = 0
    answered: int = 0
    answers: int = 0
    undecided: int = 0
    errors: int = 0            # refused in this run
    errors_total: int = 0      # refused lines in the output, this run and earlier ones
    retry: int = 0             # transient failures: not recorded, a rerun retries them
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.answered / self.seconds if self.seconds else 0.0
        text = (f"{self.answered} answered ({self.undecided} of {self.answers} answers undecided), "
                f"{self.errors} refused, {self.skipped} done before; {self.seconds:.1f} s, "
                f"{rate:.1f} decisions/s")
        if self.retry:
            text += f"; {self.retry} failed for now and are not recorded: run the same command again"
        return text

    @property
    def ok(self) -> bool:
        return self.errors_total == 0 and self.retry == 0


class Sink:
    """Where records go: buffered, flushed every `chunk` records or `every_s` seconds."""

    def __init__(self, output: Journal, errors: Journal | None, summary: Summary, chunk: int = 64,
                 every_s: float = 1.0, bar=None):
        self.output, self.errors, self.summary, self.bar = output, errors or output, summary, bar
        self.chunk, self.every_s = chunk, every_s
        self.pending: dict[Journal, list[dict]] = {self.output: [], self.errors: []}
        self.last = time.monotonic()

    def result(self, line: int, response: pb.DecideResponse) -> None:
        self.summary.answered += 1
        self.summary.answers += len(response.answers)
        self.summary.undecided += sum(a.status == pb.Answer.UNDECIDED for a in response.answers)
        self._add(self.output, result_record(line, response))

    def record(self, record: dict) -> None:
        """A record built by decide_jobs (here, in a worker process, in a Ray actor)."""
        if "error" in record:
            self.refused(record)
            return
        self.summary.answered += 1
        answers = record.get("answers", [])
        self.summary.answers += len(answers)
        self.summary.undecided += sum(a.get("status") == "UNDECIDED" for a in answers)
        self._add(self.output, record)

    def refused(self, record: dict) -> None:
        self.summary.errors += 1
        self.summary.errors_total += 1
        self._add(self.errors, record)

    def transient(self) -> None:
        self.summary.retry += 1
        if self.bar is not None:
            self.bar.update(1)

    def _add(self, journal: Journal, record: dict) -> None:
        self.pending[journal].append(record)
        if self.bar is not None:
            self.bar.update(1)
        if sum(map(len, self.pending.values())) >= self.chunk or time.monotonic() - self.last >= self.every_s:
            self.flush()

    def flush(self) -> None:
        for journal, records in self.pending.items():
            journal.append(records)
            records.clear()
        self.last = time.monotonic()


# -- the three engines ---------------------------------------------------------------------

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
    from decider.engine.checkpoint import load_checkpoint
    from decider.engine.core import EngineConfig, EngineCore
    from decider.engine.device import resolve_device

    ckpt = load_checkpoint(checkpoint, device=resolve_device(device))
    return EngineCore(ckpt, EngineConfig(max_running=max_running, prefix_cache_bytes=64 * 2**20))


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


# -- the job -------------------------------------------------------------------------------

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
        _pyarrow("Parquet output")
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
    pa = _pyarrow("Parquet output")
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    records.sort(key=lambda r: r["line"])
    table = pa.Table.from_struct_array(pa.array(records)) if records else pa.table({})
    tmp = output.with_name(output.name + ".tmp")
    pa.parquet.write_table(table, tmp)
    os.replace(tmp, output)  # a reader never sees half a Parquet file


def _pyarrow(what: str):
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise BatchError(f"{what} needs pyarrow: pip install pyarrow (or pip install 'decider[ray]')") from None
    return pyarrow

