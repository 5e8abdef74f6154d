"""Prometheus metrics of the server, in a registry of its own (tests start many servers)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self):
        self.registry = r = CollectorRegistry()
        self.requests = Counter("decider_requests_total", "Decide requests by gRPC status code", ["code"], registry=r)
        self.duration = Histogram("decider_request_duration_seconds", "Decide latency in the server",
                                  buckets=LATENCY_BUCKETS, registry=r)
        self.queue = Histogram("decider_queue_duration_seconds", "Time from arrival to the first engine step",
                               buckets=LATENCY_BUCKETS, registry=r)
        self.passes = Histogram("decider_forward_passes", "Block forward passes per request",
                                buckets=(1, 2, 3, 4, 5, 6, 7, 8), registry=r)
        self.batch = Gauge("decider_batch_size", "Requests running in the last engine step", registry=r)
        self.depth = Gauge("decider_queue_depth", "Requests in the engine (waiting + running)", registry=r)
        self.cache_hits = Gauge("decider_prefix_cache_hits", "Prefix cache hits since start", registry=r)
        self.engine_failures = Counter("decider_engine_failures_total", "Engine threads that died (the server "
                                       "then stops serving and exits 1)", registry=r)
        self.cache_misses = Gauge("decider_prefix_cache_misses", "Prefix cache misses since start", registry=r)

    def observe_step(self, core) -> None:
        self.batch.set(core.num_running)
        self.depth.set(core.num_running + core.num_waiting)
        self.cache_hits.set(core.cache.hits)
        self.cache_misses.set(core.cache.misses)

    def serve(self, port: int, host: str = "0.0.0.0"):
        server, thread = start_http_server(port, addr=host, registry=self.registry)
        return server
