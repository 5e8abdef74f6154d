"""Sync and async clients for the decider service.

Deadlines on every call by default; retries only for UNAVAILABLE (by gRPC's own retry
policy, in the channel's service config); TLS, mutual TLS and bearer tokens as options.
A failed call raises `DeciderError` with the status code, the server's message and, for
bad input, its field violations (google.rpc.BadRequest).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Generic, Iterable, Iterator, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from pydantic import BaseModel

from decider_client.schema import questions_of, value_of
from decider_client.v1 import decider_pb2 as pb
from decider_client.v1 import decider_pb2_grpc as pb_grpc

T = TypeVar("T", bound=BaseModel)
MAX_MESSAGE_BYTES = 4 * 2**20

_RETRY_UNAVAILABLE = json.dumps({"methodConfig": [{
    "name": [{"service": "decider.v1.Decider"}],
    "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.05s", "maxBackoff": "1s", "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"]},
}]})


class DeciderError(Exception):
    """A call that failed: `code` (grpc.StatusCode), `message`, and `violations` as
    (field, description) pairs when the request was bad."""

    def __init__(self, code: grpc.StatusCode, message: str, violations: list[tuple[str, str]] | None = None,
                 details: list[str] | None = None):
        self.code, self.message, self.violations = code, message, violations or []
        self.details = details or []  # type names of the status details, e.g. google.rpc.QuotaFailure
        where = "; ".join(f"{f}: {d}" for f, d in self.violations)
        super().__init__(f"{code.name}: {message}" + (f" [{where}]" if where and where not in message else ""))

    @staticmethod
    def from_rpc(e: grpc.RpcError) -> "DeciderError":
        violations, details = [], []
        status = rpc_status.from_call(e) if hasattr(e, "trailing_metadata") else None
        for detail in status.details if status else []:
            details.append(detail.TypeName())
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations += [(v.field, v.description) for v in bad.field_violations]
        return DeciderError(e.code(), e.details() or "", violations, details)


@dataclass
class Decision(Generic[T]):
    """Answers to a schema's questions. `value` is the filled-in model, or None when some
    field is undecided (see `undecided`)."""

    value: T | None
    answers: dict[str, Any]
    confidence: dict[str, float]
    status: dict[str, str]
    joint_confidence: float
    response: pb.DecideResponse
    undecided: list[str] = field(default_factory=list)


def _read(path_or_bytes: str | Path | bytes | None) -> bytes | None:
    if path_or_bytes is None or isinstance(path_or_bytes, bytes):
        return path_or_bytes
    return Path(path_or_bytes).read_bytes()


def _channel_args(max_message_bytes: int) -> list[tuple[str, Any]]:
    return [("grpc.max_send_message_length", max_message_bytes),
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.enable_retries", 1), ("grpc.service_config", _RETRY_UNAVAILABLE),
            ("grpc.lb_policy_name", "round_robin")]


def _channel(aio: bool, target: str, tls: bool, root_certificates, client_certificate, client_key,
             max_message_bytes: int):
    args = _channel_args(max_message_bytes)
    api = grpc.aio if aio else grpc
    if not (tls or root_certificates or client_certificate):
        return api.insecure_channel(target, args)
    creds = grpc.ssl_channel_credentials(_read(root_certificates), _read(client_key), _read(client_certificate))
    return api.secure_channel(target, creds, args)


def build_request(context: str, questions: list[pb.Question], constraints=(), *, policy: str = "parallel",
                  threshold: float | None = None, min_confidence: float | None = None, max_steps: int = 0,
                  request_id: str = "") -> pb.DecideRequest:
    options = pb.DecodeOptions(policy=pb.DecodeOptions.Policy.Value(policy.upper()), max_steps=max_steps)
    if threshold is not None:
        options.threshold = threshold
    if min_confidence is not None:
        options.min_confidence = min_confidence
    return pb.DecideRequest(request_id=request_id, context=context, questions=questions,
                            constraints=list(constraints), options=options)


def to_decision(schema: type[T], response: pb.DecideResponse) -> Decision[T]:
    answers, confidence, status, undecided = {}, {}, {}, []
    for a in response.answers:
        status[a.question_id] = pb.Answer.Status.Name(a.status).lower()
        confidence[a.question_id] = a.confidence
        if a.status == pb.Answer.UNDECIDED:
            undecided.append(a.question_id)
            answers[a.question_id] = None
        else:
            answers[a.question_id] = value_of(schema, a.question_id, a.choice)
    value = None if undecided else schema.model_validate(answers)
    return Decision(value, answers, confidence, status, response.joint_confidence, response, undecided)


class DeciderClient:
    """Blocking client. `target` is host:port or any gRPC target (e.g. dns:///decider:50051)."""

    def __init__(self, target: str = "127.0.0.1:50051", *, timeout: float = 5.0, tls: bool = False,
                 root_certificates: str | Path | bytes | None = None,
                 client_certificate: str | Path | bytes | None = None,
                 client_key: str | Path | bytes | None = None, token: str | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES):
        self.channel = _channel(False, target, tls, root_certificates, client_certificate, client_key,
                                max_message_bytes)
        self.stub = pb_grpc.DeciderStub(self.channel)
        self.timeout = timeout
        self.metadata = [("authorization", f"Bearer {token}")] if token else []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self.channel.close()

    def _call(self, method, request, timeout):
        try:
            return method(request, timeout=timeout or self.timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise DeciderError.from_rpc(e) from None

    def decide_request(self, request: pb.DecideRequest, timeout: float | None = None) -> pb.DecideResponse:
        return self._call(self.stub.Decide, request, timeout)

    def decide(self, context: str, schema: type[T], constraints=(), *, timeout: float | None = None,
               **options) -> Decision[T]:
        """Ask the schema's fields as questions about `context`. Options: policy, threshold,
        min_confidence, max_steps, request_id."""
        request = build_request(context, questions_of(schema), constraints, **options)
        return to_decision(schema, self.decide_request(request, timeout))

    def stream(self, requests: Iterable[pb.DecideRequest], timeout: float | None = None
               ) -> Iterator[pb.DecideStreamResponse]:
        """Responses in the order the server finishes them; match them by request_id."""
        try:
            yield from self.stub.DecideStream(iter(requests), timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise DeciderError.from_rpc(e) from None

    def model_info(self, timeout: float | None = None) -> pb.ModelInfo:
        return self._call(self.stub.GetModelInfo, pb.GetModelInfoRequest(), timeout)


class AsyncDeciderClient:
    """The same over grpc.aio; use inside a running event loop."""

    def __init__(self, target: str = "127.0.0.1:50051", *, timeout: float = 5.0, tls: bool = False,
                 root_certificates: str | Path | bytes | None = None,
                 client_certificate: str | Path | bytes | None = None,
                 client_key: str | Path | bytes | None = None, token: str | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES):
        self.channel = _channel(True, target, tls, root_certificates, client_certificate, client_key,
                                max_message_bytes)
        self.stub = pb_grpc.DeciderStub(self.channel)
        self.timeout = timeout
        self.metadata = [("authorization", f"Bearer {token}")] if token else []

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    async def _call(self, method, request, timeout):
        try:
            return await method(request, timeout=timeout or self.timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise DeciderError.from_rpc(e) from None

    async def decide_request(self, request: pb.DecideRequest, timeout: float | None = None) -> pb.DecideResponse:
        return await self._call(self.stub.Decide, request, timeout)

    async def decide(self, context: str, schema: type[T], constraints=(), *, timeout: float | None = None,
                     **options) -> Decision[T]:
        request = build_request(context, questions_of(schema), constraints, **options)
        return to_decision(schema, await self.decide_request(request, timeout))

    async def stream(self, requests: Iterable[pb.DecideRequest], timeout: float | None = None
                     ) -> AsyncIterator[pb.DecideStreamResponse]:
        call = self.stub.DecideStream(iter(requests), timeout=timeout, metadata=self.metadata)
        try:
            async for response in call:
                yield response
        except grpc.RpcError as e:
            raise DeciderError.from_rpc(e) from None

    async def model_info(self, timeout: float | None = None) -> pb.ModelInfo:
        return await self._call(self.stub.GetModelInfo, pb.GetModelInfoRequest(), timeout)
