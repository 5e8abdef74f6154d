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


@pytest.fixture(scope="module")
def server():
    with ServerThread() as s:
        yield s


def _raw(target: str, method: str, body: bytes, stream: bool = False):
    import grpc

    channel = grpc.insecure_channel(target)
    if stream:
        return channel, channel.stream_stream(f"/decider.v1.Decider/{method}", request_serializer=lambda b: b,
                                              response_deserializer=lambda b: b)
    return channel, channel.unary_unary(f"/decider.v1.Decider/{method}", request_serializer=lambda b: b,
                                        response_deserializer=lambda b: b)


@pytest.mark.parametrize("body", [b"\xff\xff\xff", b"\x0a\xff", b"\x12\x05abc", b"\x08"])
def test_an_undecodable_body_is_invalid_argument(server, body):
    import grpc

    channel, call = _raw(server.target, "Decide", body)
    with channel, pytest.raises(grpc.RpcError) as e:
        call(body, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid decider.v1.DecideRequest" in e.value.details()


def test_an_undecodable_stream_item_gets_an_error_item_and_the_stream_goes_on(server):
    from decider_client import build_request, pb

    good = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?", type=pb.Question.BOOLEAN)])
    items = []
    for k, body in enumerate([b"good", b"good", b"\xff\xff\xff", b"good"]):
        if body == b"good":
            good.request_id = f"item-{k}"
            body = good.SerializeToString()
        items.append(body)
    channel, call = _raw(server.target, "DecideStream", b"", stream=True)
    with channel:
        replies = [pb.DecideStreamResponse.FromString(r) for r in call(iter(items), timeout=60)]
    assert len(replies) == 4
    answered = sorted(r.request_id for r in replies if r.HasField("response"))
    assert answered == ["item-0", "item-1", "item-3"]
    (bad,) = [r for r in replies if r.HasField("error")]
    assert bad.error.code == 3 and "not a valid" in bad.error.message  # INVALID_ARGUMENT


@pytest.mark.parametrize("rid", ["é", "a\nb", "id\x00", "x" * 20_000, " "])
def test_a_request_id_that_cannot_travel_as_metadata_is_refused_up_front(server, rid):
    import grpc
    from decider_client import DeciderClient, DeciderError, build_request, pb

    request = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?", type=pb.Question.BOOLEAN)],
                            request_id=rid)
    with DeciderClient(server.target, timeout=30) as client:
        with pytest.raises(DeciderError) as e:
            client.decide_request(request)
        assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in str(e.value)
        request.request_id = "plain-id-7"
        assert client.decide_request(request).request_id == "plain-id-7"  # and the server goes on


def test_an_unknown_policy_is_refused(server):
    import grpc
    from decider_client import DeciderClient, DeciderError, build_request, pb

    request = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?", type=pb.Question.BOOLEAN)])
    request.options.policy = 7
    with DeciderClient(server.target, timeout=30) as client, pytest.raises(DeciderError) as e:
        client.decide_request(request)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and "options.policy" in str(e.value)
