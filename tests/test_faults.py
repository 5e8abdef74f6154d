"""Regressions of a fault-injection run against `decider serve`: each test failed before its fix.
Real servers on 127.0.0.1, the real client and the real command line."""

from __future__ import annotations

import subprocess
import sys

import pytest
from server_util import ServerThread, free_port, make_certs

from decider.settings import ServerSettings


def serve(*flags: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`decider serve` that is expected to refuse to start: its exit code and output."""
    return subprocess.run([sys.executable, "-m", "decider.cli", "serve", "--port", str(free_port()),
                           "--metrics-port", "0", "--no-warmup", *flags],
                          capture_output=True, text=True, timeout=timeout)


def one_clear_line(out: subprocess.CompletedProcess, *words: str) -> None:
    assert out.returncode == 2, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("decider: error:"), out.stderr  # no traceback
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("settings", [{"tokens": ","}, {"tokens": " "}, {"tokens": ", ,"}, {"tokens_file": "comments"}])
def test_an_auth_setting_that_yields_no_token_refuses_to_start(settings, tmp_path):
    if "tokens_file" in settings:
        path = tmp_path / "tokens"
        path.write_text("# only a comment\n\n   # and another\n")
        settings = {"tokens_file": path}
    with pytest.raises(ValueError, match="holds no token"):
        ServerSettings(**settings)


def test_serve_with_an_empty_token_list_exits_2_with_one_line():
    one_clear_line(serve("--tokens", ","), "holds no token")


def test_a_second_server_on_a_taken_port_refuses_to_start():
    with ServerThread() as first:
        out = subprocess.run([sys.executable, "-m", "decider.cli", "serve", "--port", str(first.server.port),
                              "--metrics-port", "0", "--no-warmup"], capture_output=True, text=True, timeout=120)
        one_clear_line(out, "port is taken", str(first.server.port))


def test_a_tls_key_that_does_not_match_its_certificate_is_named(tmp_path):
    certs = make_certs(tmp_path)
    with pytest.raises(ValueError, match="does not match the certificate"):
        ServerSettings(tls_cert=certs["server_cert"], tls_key=certs["client_key"])
    one_clear_line(serve("--tls-cert", str(certs["server_cert"]), "--tls-key", str(certs["client_key"])),
                   "does not match")


@pytest.mark.parametrize("host", ["127.0.0.2", "localhost"])
def test_metrics_listen_where_grpc_listens(host):
    with ServerThread(host=host, metrics_port=free_port()) as s:
        bound = s.server.metrics_server.server_address[0]
        assert bound in ("127.0.0.2",) if host == "127.0.0.2" else bound in ("127.0.0.1", "::1")
