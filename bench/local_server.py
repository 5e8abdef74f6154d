"""`decider serve` in a child process on a free loopback port, for the benchmarks that call it."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time

from decider_client import DeciderClient, DeciderError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(*flags: str):
    """Yield (target, ModelInfo) once the server answers; terminate it (a drain) on exit.
    The prefix cache is off and logging quiet unless `flags` say otherwise."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "decider.cli", "serve", "--port", str(port), "--metrics-port",
                               "0", "--prefix-cache-mb", "0", "--log-level", "warning", *flags])
    target = f"127.0.0.1:{port}"
    try:
        with DeciderClient(target, timeout=5) as client:
            for _ in range(300):
                try:
                    info = client.model_info()
                    break
                except DeciderError:
                    time.sleep(0.2)
            else:
                raise RuntimeError("server did not come up")
        yield target, info
    finally:
        server.terminate()
        server.wait(timeout=60)
