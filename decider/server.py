"""`decider serve`: the grpc.aio server around one engine.

Start-up: health NOT_SERVING -> load the model -> warm it with one request -> SERVING.
SIGTERM/SIGINT: health NOT_SERVING, stop admitting (new calls get UNAVAILABLE), let
in-flight requests finish within `drain_grace_s`, stop the server, exit 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import time

import grpc
import structlog
from decider_client.v1 import decider_pb2 as pb
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from decider.auth import TokenAuth
from decider.metrics import Metrics
from decider.runner import EngineRunner
from decider.service import DeciderService, add_to_server, model_info
from decider.settings import ServerSettings, StartupError

SERVICE = pb.DESCRIPTOR.services_by_name["Decider"].full_name
log = structlog.get_logger("decider.server")

# Before SERVING the model answers a request whose answers are stated in its context: a
# checkpoint that inverts yes/no, reads the wrong heads or holds damaged weights fails here.
SELF_TEST = {"context": "Pump 3 is running. Valve 7 is not open. The mode of line 4 is manual.",
             "questions": [{"id": "pump", "text": "Is pump 3 running?", "type": "boolean"},
                           {"id": "valve", "text": "Is valve 7 open?", "type": "boolean"},
                           {"id": "mode", "text": "What is the mode of line 4?", "type": "categorical",
                            "options": ["manual", "automatic", "maintenance"]}]}
SELF_TEST_ANSWERS = {"pump": "yes", "valve": "no", "mode": "manual"}


def self_test(core) -> None:
    """Raise StartupError unless the engine answers SELF_TEST right and with confidence."""
    (result,) = core.decide([SELF_TEST])
    wrong = [f"{a.question}: {a.answer} ({a.confidence:.2f})" for a in result.answers
             if a.answer != SELF_TEST_ANSWERS[a.question] or not a.confidence > 0.5]
    if wrong:
        raise StartupError(f"the model failed its self-test on stated facts (expected "
                           f"{SELF_TEST_ANSWERS}, got {', '.join(wrong)}): the checkpoint is damaged or does not "
                           "match its config.json")


def configure_logging(level: str = "info") -> None:
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr), cache_logger_on_first_use=True)


class DeciderServer:
    """Build, start, drain. `port` is the port really bound (settings.port may be 0)."""

    def __init__(self, settings: ServerSettings):
        self.settings = settings
        self.metrics = Metrics()
        self.health = health.aio.HealthServicer()
        self.service = DeciderService(self.metrics, max_message_bytes=settings.max_message_mb * 2**20)
        self.runner: EngineRunner | None = None
        self.server: grpc.aio.Server | None = None
        self.port = 0
        self.metrics_server = None
        self.stopping = asyncio.Event()
        self.exit_code = 0

    def _options(self):
        s = self.settings
        size = s.max_message_mb * 2**20
        # the transport takes up to twice the limit, so that the servicer can answer an item of a
        # stream that is over it with an error item instead of gRPC ending the whole stream
        return [("grpc.max_send_message_length", size), ("grpc.max_receive_message_length", 2 * size),
                ("grpc.keepalive_time_ms", int(s.keepalive_s * 1000)), ("grpc.keepalive_timeout_ms", 10_000),
                ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.max_connection_age_ms", int(s.max_connection_age_s * 1000)),
                ("grpc.max_connection_age_grace_ms", int(s.drain_grace_s * 1000)),
                ("grpc.so_reuseport", 0)]  # a second server on a taken port must fail, not share it

    def _credentials(self):
        s = self.settings
        if not s.tls_cert:
            return None
        pair = [(s.tls_key.read_bytes(), s.tls_cert.read_bytes())]
        if s.tls_client_ca:
            return grpc.ssl_server_credentials(pair, root_certificates=s.tls_client_ca.read_bytes(),
                                               require_client_auth=True)
        return grpc.ssl_server_credentials(pair)

    async def start(self) -> int:
        """Bind and serve health/reflection at once; load and warm the model; then SERVING."""
        s = self.settings
        self.loop = asyncio.get_running_loop()
        tokens = s.token_set()
        interceptors = [TokenAuth(tokens)] if tokens else []
        self.server = grpc.aio.server(options=self._options(), interceptors=interceptors)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        add_to_server(self.service, self.server)
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        reflection.enable_server_reflection((SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), self.server)
        address = f"{s.host}:{s.port}"
        creds = self._credentials()
        if s.port:
            _check_free(s.host, s.port)
        try:
            self.port = (self.server.add_secure_port(address, creds) if creds
                         else self.server.add_insecure_port(address))
        except RuntimeError:
            self.port = 0
        if self.port == 0:
            raise StartupError(f"cannot listen on {address}: the port is taken (another decider serve?) or the "
                            "address is not this machine's; choose another --port or stop the other server")
        if s.metrics_port:
            host = s.metrics_host or s.host
            try:
                self.metrics_server = self.metrics.serve(s.metrics_port, host)
            except OSError as e:
                raise StartupError(f"cannot listen for metrics on {host}:{s.metrics_port} ({e.strerror}): choose "
                                "another --metrics-port, or 0 to turn metrics off") from None
        await self.server.start()
        log.info("listening", port=self.port, tls=bool(creds), mutual_tls=bool(s.tls_client_ca),
                 auth=bool(tokens), metrics_port=s.metrics_port)
        await asyncio.get_running_loop().run_in_executor(None, self._load)
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)
        log.info("serving", model=self.service.info.name, device=self.service.info.device)
        return self.port

    def _load(self) -> None:
        from decider.engine.core import EngineCore, build_engine
        from decider.kernels.dispatch import backend_name

        s = self.settings

        def build() -> EngineCore:  # runs on the engine thread, like every step after it
            core = build_engine(s.checkpoint, device=s.device, precision=s.precision, runtime=s.runtime,
                                max_running=s.max_running, option_reader=s.option_reader,
                                parallel_rest=s.parallel_rest, prefix_cache_bytes=s.prefix_cache_mb * 2**20)
            if s.self_test:
                self_test(core)
            if s.warmup:
                t0 = time.perf_counter()
                n = core.warm_up()
                log.info("warmed up", requests=n, seconds=round(time.perf_counter() - t0, 2))
            return core

        self.runner = EngineRunner(build, s.max_queue, on_step=self.metrics.observe_step, max_wait_s=s.max_queue_wait_s or None,
                                   on_failure=lambda e: self.loop.call_soon_threadsafe(self._engine_failed, e))
        core = self.runner.start()
        log.info("engine ready", precision=core.precision, runtime=core.runtime, note=core.runtime_note or None,
                 option_reader=core.ckpt.reader_weight if core.reader is not None else None)
        backend = "onnxruntime" if core.runtime == "onnxruntime" else backend_name(core.device)
        self.service.attach(self.runner, model_info(core, backend))

    def _engine_failed(self, error: BaseException) -> None:
        """On the event loop: the engine thread died. Waiters have their error already; stop
        reporting SERVING, count it, and shut down with exit code 1 so that the orchestrator
        starts a fresh process."""
        self.metrics.engine_failures.inc()
        log.error("engine failed: not serving, shutting down", error=repr(error))
        self.loop.create_task(self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING))
        self.exit_code = 1
        self.stopping.set()

    async def _set_health(self, status) -> None:
        for name in ("", SERVICE):
            await self.health.set(name, status)

    async def drain(self) -> bool:
        """Stop admitting, finish in-flight requests within the grace period, stop."""
        await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        finished = True
        if self.runner:
            finished = await self.runner.drain(self.settings.drain_grace_s)
        log.info("drained", all_finished=finished)
        await self.server.stop(grace=1.0)
        if self.runner:
            self.runner.stop()
        if self.metrics_server:
            self.metrics_server.shutdown()
        return finished

    async def close(self) -> None:
        """Release whatever start() opened (a start-up that failed half-way)."""
        if self.server is not None:
            await self.server.stop(None)
        if self.runner:
            self.runner.stop()
        if self.metrics_server:
            self.metrics_server.shutdown()

    async def serve_forever(self) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        try:
            await self.start()
        except BaseException:
            await self.close()
            raise
        await self.stopping.wait()
        log.info("stopping: draining", grace_s=self.settings.drain_grace_s, exit_code=self.exit_code)
        await self.drain()
        return self.exit_code


def _check_free(host: str, port: int) -> None:
    """Refuse a taken port before gRPC tries it (gRPC would log its own error lines first)."""
    import socket

    for family, kind, proto, _, addr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does: TIME_WAIT is no owner
            try:
                probe.bind(addr)
            except OSError:
                raise StartupError(f"cannot listen on {host}:{port}: the port is taken (another decider serve?); "
                                   "choose another --port or stop the other server") from None


def serve(settings: ServerSettings) -> int:
    configure_logging(settings.log_level)
    return asyncio.run(DeciderServer(settings).serve_forever())
