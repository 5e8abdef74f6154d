"""Batch input and its records: reading JSONL/Parquet lines, planning which lines still need
an answer, the result and error records, and length ordering."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from decider_client import pb

from decider.convert import pb_from_json, request_from_pb, to_json
from decider.engine.request import DecisionInputError, DecisionRequest

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
        pq = need_pyarrow("Parquet input").parquet
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


@dataclass
class Done:
    ids: set[str] = field(default_factory=set)     # answered request ids
    lines: set[int] = field(default_factory=set)   # refused lines
    errors: int = 0


def need_pyarrow(what: str):
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise BatchError(f"{what} needs pyarrow: pip install pyarrow (or pip install 'decider[ray]')") from None
    return pyarrow
