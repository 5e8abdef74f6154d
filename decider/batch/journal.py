"""Durable batch output: what an output already holds (resume), whole-chunk O_APPEND writes
with fsync, torn tails cut off, and the running summary."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from decider_client import pb

from decider.batch.records import BatchError, result_record


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
