"""The gRPC servicer: validate -> convert -> await the engine -> convert back.

Errors map to status codes in one place (`_status_of`):
  DecisionInputError -> INVALID_ARGUMENT with a google.rpc.BadRequest field violation
  QueueFull          -> RESOURCE_EXHAUSTED with a google.rpc.QuotaFailure
  DeadlineExceeded   -> DEADLINE_EXCEEDED
  Draining           -> UNAVAILABLE (clients retry on another replica)
  EngineFailed       -> UNAVAILABLE (the engine thread died; the server goes down)
  anything else      -> INTERNAL (logged with the request id)
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid

import grpc
import structlog
from decider_client.v1 import decider_pb2 as pb
from decider_client.v1 import decider_pb2_grpc as pb_grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from decider.convert import request_from_pb, response_to_pb
from decider.engine.request import DecisionInputError, MAX_OPTIONS, MAX_QUESTIONS
from decider.metrics import Metrics
from decider.runner import DeadlineExceeded, Draining, EngineFailed, EngineRunner, QueueFull

log = structlog.get_logger("decider.service")


def _status_of(e: BaseException) -> status_pb2.Status:
    detail = any_pb2.Any()
    if isinstance(e, DecisionInputError):
        detail.Pack(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=e.field or "request", description=str(e))]))
        return status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=str(e), details=[detail])
    if isinstance(e, QueueFull):
        detail.Pack(error_details_pb2.QuotaFailure(violations=[error_details_pb2.QuotaFailure.Violation(
            subject="decider engine queue", description=str(e))]))
        return status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message=str(e), details=[detail])
    if isinstance(e, DeadlineExceeded):
        return status_pb2.Status(code=code_pb2.DEADLINE_EXCEEDED, message=str(e))
    if isinstance(e, (Draining, Loading, EngineFailed)):
        return status_pb2.Status(code=code_pb2.UNAVAILABLE, message=str(e))
    if isinstance(e, ValueError):  # e.g. a duplicate in-flight request id
        return status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=str(e))
    return status_pb2.Status(code=code_pb2.INTERNAL, message=f"internal error: {type(e).__name__}")


def _code_name(status: status_pb2.Status) -> str:
    return next(c.name for c in grpc.StatusCode if c.value[0] == status.code)


class Loading(Exception):
    pass


class Undecodable:
    """A request body protobuf cannot parse. The servicer answers it with INVALID_ARGUMENT
    (a stream with an error item) instead of letting gRPC fail the call with UNKNOWN."""

    def __init__(self, message_type, error: Exception):
        self.error = DecisionInputError(
            f"the request body is not a valid {message_type.DESCRIPTOR.full_name} message ({error}); "
            "send the serialised protobuf message", field="request")
        self.request_id = ""


def _safe(message_type):
    def parse(data: bytes):
        try:
            return message_type.FromString(data)
        except Exception as e:  # protobuf's DecodeError, or anything a corrupt body raises
            return Undecodable(message_type, e)
    return parse


def add_to_server(service: "DeciderService", server) -> None:
    """Register the servicer as the generated add_DeciderServicer_to_server does, but with
    deserializers that turn an undecodable body into an `Undecodable` the handlers answer."""
    handlers = {
        "Decide": grpc.unary_unary_rpc_method_handler(
            service.Decide, request_deserializer=_safe(pb.DecideRequest),
            response_serializer=pb.DecideResponse.SerializeToString),
        "DecideStream": grpc.stream_stream_rpc_method_handler(
            service.DecideStream, request_deserializer=_safe(pb.DecideRequest),
            response_serializer=pb.DecideStreamResponse.SerializeToString),
        "GetModelInfo": grpc.unary_unary_rpc_method_handler(
            service.GetModelInfo, request_deserializer=_safe(pb.GetModelInfoRequest),
            response_serializer=pb.ModelInfo.SerializeToString),
    }
    name = pb.DESCRIPTOR.services_by_name["Decider"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


class DeciderService(pb_grpc.DeciderServicer):
    """Registered before the model loads (so health and reflection answer at once); calls
    get UNAVAILABLE until `attach` hands it the running engine."""

    def __init__(self, metrics: Metrics, max_message_bytes: int | None = None):
        self.metrics = metrics
        self.max_message_bytes = max_message_bytes
        self.runner: EngineRunner | None = None
        self.info: pb.ModelInfo | None = None
        self._ids = itertools.count()
        self._prefix = uuid.uuid4().hex[:8]

    def attach(self, runner: EngineRunner, info: pb.ModelInfo) -> None:
        self.runner, self.info = runner, info

    async def _decide(self, m: pb.DecideRequest, deadline: float | None) -> pb.DecideResponse:
        if isinstance(m, Undecodable):
            raise m.error
        if self.max_message_bytes and m.ByteSize() > self.max_message_bytes:
            raise DecisionInputError(f"the request is {m.ByteSize() / 2**20:.1f} MiB, over the server's limit of "
                                     f"{self.max_message_bytes / 2**20:g} MiB (max_message_mb); shorten its context",
                                     field="request")
        if self.runner is None:
            raise Loading("the model is still loading; retry shortly")
        request = request_from_pb(m)
        rid = request.request_id or f"{self._prefix}-{next(self._ids)}"
        future = self.runner.submit(rid, request, deadline)
        try:
            result = await future
        except asyncio.CancelledError:
            self.runner.abort(rid)
            raise
        self.metrics.passes.observe(result.forward_passes)
        self.metrics.queue.observe(result.timings.queue_ms / 1e3)
        return response_to_pb(result, self.info.name, self.info.version)

    @staticmethod
    def _deadline(context) -> float | None:
        remaining = context.time_remaining()
        return None if remaining is None else time.monotonic() + remaining

    async def Decide(self, request, context):
        t0 = time.perf_counter()
        rid = request.request_id
        structlog.contextvars.bind_contextvars(request_id=rid or None)
        try:
            response = await self._decide(request, self._deadline(context))
        except asyncio.CancelledError:
            self.metrics.requests.labels("CANCELLED").inc()
            log.info("cancelled")
            raise
        except Exception as e:
            status = _status_of(e)
            code = _code_name(status)
            self.metrics.requests.labels(code).inc()
            if status.code == code_pb2.INTERNAL:
                log.exception("decide failed")
            else:
                log.info("decide refused", code=code, reason=status.message)
            await context.abort_with_status(rpc_status.to_status(status))
        finally:
            structlog.contextvars.unbind_contextvars("request_id")
        seconds = time.perf_counter() - t0
        self.metrics.requests.labels("OK").inc()
        self.metrics.duration.observe(seconds)
        # the handler's own time (validation, engine, conversion): the client's wall time
        # minus this is what the transport costs
        context.set_trailing_metadata((("x-request-id", response.request_id), ("x-handler-ms", f"{seconds * 1e3:.3f}")))
        log.info("decided", request_id=response.request_id, passes=response.forward_passes, ms=round(seconds * 1e3, 2))
        return response

    async def DecideStream(self, request_iterator, context):
        """Requests run concurrently; responses come back as each finishes."""
        out: asyncio.Queue = asyncio.Queue()
        deadline = self._deadline(context)
        tasks: set[asyncio.Task] = set()

        async def one(m: pb.DecideRequest):
            try:
                response = await self._decide(m, deadline)
                self.metrics.requests.labels("OK").inc()
                await out.put(pb.DecideStreamResponse(request_id=response.request_id, response=response))
            except asyncio.CancelledError:
                raise
            except Exception as e:
                status = _status_of(e)
                self.metrics.requests.labels(_code_name(status)).inc()
                if status.code == code_pb2.INTERNAL:
                    log.exception("stream item failed", request_id=m.request_id)
                await out.put(pb.DecideStreamResponse(request_id=m.request_id, error=status))

        async def read():
            async for m in request_iterator:
                task = asyncio.ensure_future(one(m))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            while tasks:
                await asyncio.gather(*list(tasks), return_exceptions=True)
            await out.put(None)

        reader = asyncio.ensure_future(read())
        try:
            while True:
                item = await out.get()
                if item is None:
                    break
                yield item
        finally:
            reader.cancel()
            for t in list(tasks):
                t.cancel()

    async def GetModelInfo(self, request, context):
        if isinstance(request, Undecodable):
            await context.abort_with_status(rpc_status.to_status(_status_of(request.error)))
        if self.info is None:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the model is still loading; retry shortly")
        return self.info


def model_info(core, backend: str) -> pb.ModelInfo:
    ckpt = core.ckpt
    cal = ckpt.meta.get("calibrated_on", "not calibrated (temperature 1)")
    return pb.ModelInfo(name=ckpt.name, version=ckpt.version, max_questions=MAX_QUESTIONS, max_options=MAX_OPTIONS,
                        context_window=ckpt.tokenizer.max_length, temperature=ckpt.temperature,
                        calibrated_on=cal, kernel_backend=backend, device=str(core.device),
                        precision=core.precision, family=core.model.cfg.family,
                        parameters=sum(p.numel() for p in core.ckpt.model.parameters()))
