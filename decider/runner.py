"""The engine core on a thread of its own, fed by asyncio handlers.

Handlers call `submit()` and await the returned future; they never block the event loop.
The engine thread builds the core (load, warm-up), then loops: take new requests and aborts
from its inbox, drop requests whose deadline has passed, run one `EngineCore.step()` for
everything admitted, and resolve the futures of the requests that finished. Admission is
bounded (`max_queue` requests in the engine at once); a caller over the bound gets
`QueueFull` at once, before any compute.

All torch work of the process happens on that one thread. torch's CPU thread pool is
OpenMP's, one pool per thread that runs a parallel op; a second pool kept alive by another
thread (say, the one that loaded the model) makes libgomp stop spin-waiting, because the
process then holds more OpenMP threads than cores, and every step pays for waking its
workers: about 15% of the step time on a 2-core box (bench/openmp_pools.py).
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from decider.engine.core import EngineCore
from decider.engine.request import DecisionRequest

log = structlog.get_logger("decider.runner")


class QueueFull(Exception):
    def __init__(self, limit: int, message: str | None = None):
        super().__init__(message or f"the engine holds its limit of {limit} requests; retry with backoff")
        self.limit = limit


class Throughput:
    """Requests the engine finishes per second of busy time, over its last `window` steps:
    what admission divides the queue by to know how long a new request would wait."""

    def __init__(self, window: int = 64):
        self.steps: deque = deque(maxlen=window)  # (seconds, requests finished)

    def add(self, seconds: float, finished: int) -> None:
        self.steps.append((seconds, finished))

    def per_second(self) -> float | None:
        seconds = sum(s for s, _ in self.steps)
        done = sum(n for _, n in self.steps)
        return done / seconds if done and seconds > 0 else None


class DeadlineExceeded(Exception):
    pass


class Draining(Exception):
    pass


class EngineFailed(Exception):
    """The engine thread died: every waiter and every later caller gets this at once."""


@dataclass
class _Pending:
    rid: str
    request: DecisionRequest
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    deadline: float | None  # time.monotonic() seconds
    arrival: float


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


TRIM_AFTER_IDLE_S = 0.25  # idle time before freed heap pages go back to the OS


def release_memory() -> None:
    """Return freed heap memory to the OS (glibc's malloc_trim). Tensors of every prefix length
    come and go with the traffic; without this the freed pages stay in the process's heap
    and its resident size keeps the high-water mark of the last burst. Elsewhere a no-op."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class EngineRunner:
    def __init__(self, build: Callable[[], EngineCore], max_queue: int, on_step=None,
                 on_failure: Callable[[BaseException], None] | None = None, max_wait_s: float | None = None):
        self.build, self.max_queue, self.on_step, self.on_failure = build, max_queue, on_step, on_failure
        self.max_wait_s = max_wait_s
        self.throughput = Throughput()
        self.failed: BaseException | None = None
        self.core: EngineCore | None = None
        self.built = threading.Event()
        self.build_error: BaseException | None = None
        self.inbox: deque = deque()
        self.pending: dict[str, _Pending] = {}
        self.wake = threading.Event()
        self.stopping = False
        self.draining = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._main, name="decider-engine", daemon=True)

    def start(self) -> EngineCore:
        """Start the engine thread; block until it has built the core, and return it."""
        self.thread.start()
        self.built.wait()
        if self.build_error is not None:
            raise self.build_error
        return self.core

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()
        self.thread.join(timeout=10)

    @property
    def depth(self) -> int:
        return len(self.pending)

    def submit(self, rid: str, request: DecisionRequest, deadline: float | None) -> asyncio.Future:
        """Queue a validated request; the future resolves to a DecisionResult or raises."""
        loop = asyncio.get_running_loop()
        with self.lock:
            if self.failed is not None:
                raise EngineFailed(f"the engine failed ({self.failed!r}); this server is going down: "
                                   "retry on another replica")
            if self.draining:
                raise Draining("the server is draining; retry on another replica")
            if rid in self.pending:
                raise ValueError(f"request id '{rid}' is already in flight; ids must be unique")
            if len(self.pending) >= self.max_queue:
                raise QueueFull(self.max_queue)
            self._check_wait(deadline)
            p = _Pending(rid, request, loop.create_future(), loop, deadline, time.perf_counter())
            self.pending[rid] = p
        self.inbox.append(("add", p))
        self.wake.set()
        return p.future

    def expected_wait(self) -> float:
        """Seconds until a request admitted now would be decided: the work ahead of it and its
        own (0 while idle: nothing to wait for)."""
        rate = self.throughput.per_second()
        return (len(self.pending) + 1) / rate if rate and self.pending else 0.0

    def _check_wait(self, deadline: float | None) -> None:
        """Shed at once what would wait longer than its deadline allows or than max_wait_s:
        under overload the queue holds at most a bounded delay, not only a bounded count."""
        wait = self.expected_wait()
        if wait <= 0:  # nothing ahead: a deadline already passed is DEADLINE_EXCEEDED, not overload
            return
        if self.max_wait_s is not None and wait > self.max_wait_s:
            raise QueueFull(self.max_queue, f"the engine is overloaded: about {wait:.2f} s of work is queued, more "
                                            f"than the {self.max_wait_s:g} s a request may wait; retry with backoff")
        if deadline is not None and time.monotonic() + wait > deadline:
            raise QueueFull(self.max_queue, f"the engine is overloaded: about {wait:.2f} s of work is queued, "
                                            "more than the request's deadline leaves; retry with backoff or "
                                            "a longer deadline")

    def abort(self, rid: str) -> None:
        """A cancelled call: its request leaves the engine between steps."""
        self.inbox.append(("abort", rid))
        self.wake.set()

    # -- engine thread
    def _main(self) -> None:
        try:
            self.core = self.build()
        except BaseException as e:  # handed to start(): a model that cannot load stops start-up
            self.build_error = e
            return
        finally:
            self.built.set()
        self._loop()

    def _resolve(self, p: _Pending, result=None, error: BaseException | None = None) -> None:
        with self.lock:
            self.pending.pop(p.rid, None)

        def settle():
            if p.future.done():
                return
            if error is not None:
                p.future.set_exception(error)
            else:
                p.future.set_result(result)
        p.loop.call_soon_threadsafe(settle)

    def _loop(self) -> None:
        busy = False
        try:
            while not self.stopping:
                self._take_inbox()
                self._expire()
                if self.core.has_unfinished():
                    t0 = time.perf_counter()
                    finished = self.core.step()
                    self.throughput.add(time.perf_counter() - t0, len(finished))
                    for r in finished:
                        p = self.pending.get(r.request_id)
                        if p is not None:
                            self._resolve(p, r)
                    if self.on_step:
                        self.on_step(self.core)
                    busy = True
                else:
                    # idle: once no request has come for TRIM_AFTER_IDLE_S, hand the heap its freed
                    # pages back (trimming after every request cost the next one ~8 ms of page faults)
                    woken = self.wake.wait(timeout=TRIM_AFTER_IDLE_S if busy else 0.5)
                    self.wake.clear()
                    if busy and not woken:
                        release_memory()
                        busy = False
        except BaseException as e:  # a bug in the engine: fail every waiter loudly, never hang them
            with self.lock:  # from here on submit() refuses at once
                self.failed = e
                waiting = list(self.pending.values())
            for p in waiting:
                self._resolve(p, error=EngineFailed(f"the engine failed ({e!r}); retry on another replica"))
            if self.on_failure:
                self.on_failure(e)
            log.exception("engine thread died")  # after the waiters are told: formatting may be slow

    def _take_inbox(self) -> None:
        while self.inbox:
            op, arg = self.inbox.popleft()
            if op == "abort":
                p = self.pending.get(arg)
                if p is not None:
                    self.core.abort(arg)
                    self._resolve(p, error=asyncio.CancelledError())
                continue
            p = arg
            if p.deadline is not None and time.monotonic() >= p.deadline:
                self._resolve(p, error=DeadlineExceeded("deadline passed before the request reached the model"))
                continue
            try:
                self.core.add_request(p.request, request_id=p.rid, arrival=p.arrival)
            except Exception as e:  # input the engine refuses (e.g. a context over the window)
                self._resolve(p, error=e)

    def _expire(self) -> None:
        now = time.monotonic()
        with self.lock:
            expired = [p for p in self.pending.values() if p.deadline is not None and now >= p.deadline]
        for p in expired:
            self.core.abort(p.rid)
            self._resolve(p, error=DeadlineExceeded("deadline passed while the request was being decided"))

    async def drain(self, grace_s: float) -> bool:
        """Stop admitting; wait up to grace_s for in-flight requests. True if all finished."""
        with self.lock:
            self.draining = True
        end = time.monotonic() + grace_s
        while self.pending and time.monotonic() < end:
            await asyncio.sleep(0.02)
        return not self.pending
