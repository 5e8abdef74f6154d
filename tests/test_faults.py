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
    """Exit 2 and, besides the server's JSON log lines, one line that says what is wrong."""
    assert out.returncode == 2, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip() and not line.startswith("{")]
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


# -- a damaged or wrong checkpoint is refused, with one line --------------------------------

def _copy_shipped(tmp_path):
    import shutil

    from decider.engine.checkpoint import DEFAULT_CHECKPOINT

    folder = tmp_path / "ckpt"
    shutil.copytree(DEFAULT_CHECKPOINT, folder)
    return folder


def _edit_config(folder, **fields):
    import json

    raw = json.loads((folder / "config.json").read_text())
    raw.update(fields)
    raw = {k: v for k, v in raw.items() if v is not None}
    (folder / "config.json").write_text(json.dumps(raw))


def _flip_bits(folder, offset: int = 4_000_000):
    data = bytearray((folder / "model.safetensors").read_bytes())
    for k in range(64):
        data[offset + k] ^= 0x40
    (folder / "model.safetensors").write_bytes(bytes(data))


@pytest.mark.parametrize("damage, words", [
    (lambda f: _edit_config(f, yes_token=2053, no_token=2748), "yes_token"),   # yes/no swapped
    # 6 heads still divide the width: refused by the tensors' shapes where they depend on the head
    # count (decider-small 6's link biases), else by the fingerprint; either way, config.json is named
    (lambda f: _edit_config(f, n_heads=6), "config.json"),
    (lambda f: _edit_config(f, n_heads=7), "n_heads"),
    (lambda f: _edit_config(f, yes_token=10**6), "yes_token"),
    (lambda f: _edit_config(f, n_answers=2), "n_answers"),
    (lambda f: _flip_bits(f), "fingerprint"),
    (lambda f: (_edit_config(f, fingerprint=None), _edit_config(f, yes_token=2053, no_token=2748)), "yes_token"),
])
def test_a_wrong_or_damaged_checkpoint_is_refused_with_one_line(tmp_path, damage, words):
    folder = _copy_shipped(tmp_path)
    damage(folder)
    one_clear_line(serve("--checkpoint", str(folder)), words)


def test_a_model_that_fails_its_self_test_is_not_served(tmp_path):
    """Weights with no recorded fingerprint, inverted answer head: loads, but answers wrong."""
    from safetensors.torch import load_file, save_file

    folder = _copy_shipped(tmp_path)
    _edit_config(folder, fingerprint=None)
    tensors = load_file(folder / "model.safetensors")
    tensors["head_out.weight"] = -tensors["head_out.weight"]
    tensors["head_bias"] = -tensors["head_bias"]
    save_file(tensors, folder / "model.safetensors")
    one_clear_line(serve("--checkpoint", str(folder)), "self-test")


# -- a dead engine thread never leaves callers hanging ---------------------------------------

def test_a_dead_engine_fails_every_caller_at_once_and_stops_serving():
    import time
    import urllib.request

    import grpc
    from decider_client import DeciderClient, build_request, pb
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    request = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?", type=pb.Question.BOOLEAN)])
    from decider_client.v1 import decider_pb2_grpc as pb_grpc

    with ServerThread(metrics_port=free_port()) as s:
        with DeciderClient(s.target, timeout=30) as client:
            assert client.decide_request(request).answers[0].choice == "yes"
        def broken(*args, **kwargs):
            raise RuntimeError("injected fault")

        s.server.runner.core.model.block_forward = broken  # the fault: the next step raises (either runtime)
        # a bare stub (the client would retry UNAVAILABLE): the call that kills the engine, then
        # calls after its death, each answered at once
        with grpc.insecure_channel(s.target, options=[("grpc.enable_retries", 0)]) as channel:
            for _ in range(3):
                t0 = time.monotonic()
                with pytest.raises(grpc.RpcError) as e:
                    pb_grpc.DeciderStub(channel).Decide(request, timeout=30)
                assert e.value.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() - t0 < 5
        deadline = time.monotonic() + 10
        while not s.server.stopping.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert s.server.stopping.is_set() and s.server.exit_code == 1
        with grpc.insecure_channel(s.target) as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{s.server.settings.metrics_port}/metrics").read().decode()
        assert "decider_engine_failures_total 1.0" in metrics


# -- overload: admission bounds the wait, not only the count ----------------------------------

def _burst(target: str, n: int, timeout: float = 60) -> tuple[list, list]:
    import threading

    from decider_client import DeciderClient, DeciderError

    from decider.convert import pb_from_json
    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.training.dataset import to_record

    requests = [pb_from_json(to_record(s)) for s in make_sets(CorpusSpec(split="test"), n)]
    done, refused = [], []

    def call(r):
        with DeciderClient(target, timeout=timeout) as c:
            try:
                done.append(c.decide_request(r))
            except DeciderError as e:
                refused.append(e)

    threads = [threading.Thread(target=call, args=(r,)) for r in requests]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done, refused


def test_a_burst_beyond_the_wait_bound_is_shed_at_once_and_the_rest_answered():
    import grpc

    with ServerThread(max_queue_wait_s=0.05) as s:
        _burst(s.target, 4)  # the engine has measured its speed
        done, refused = _burst(s.target, 48)
        assert refused and done and len(done) + len(refused) == 48
        assert all(e.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "overloaded" in str(e) for e in refused)
        again, none = _burst(s.target, 1)
        assert again and not none  # and it serves again once the burst is gone


def test_a_request_whose_deadline_the_queue_would_outlast_is_refused_at_once():
    import threading
    import time

    import grpc
    from decider_client import DeciderClient, DeciderError, build_request, pb

    with ServerThread(max_queue_wait_s=0) as s:
        _burst(s.target, 4)
        load = threading.Thread(target=_burst, args=(s.target, 64))
        load.start()
        time.sleep(1.0)
        request = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?",
                                                                 type=pb.Question.BOOLEAN)])
        t0 = time.monotonic()
        with DeciderClient(s.target, timeout=0.3) as c, pytest.raises(DeciderError) as e:
            c.decide_request(request)
        elapsed = time.monotonic() - t0
        load.join()
        assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "deadline" in str(e.value)
        assert elapsed < 0.25  # refused before its deadline, not left to time out in the queue


def test_a_stream_item_over_the_message_limit_gets_an_error_item_and_nothing_is_lost():
    import grpc
    from decider_client import build_request, pb
    from decider_client.v1 import decider_pb2_grpc as pb_grpc

    good = build_request("Valve 7 is open.", [pb.Question(id="v", text="Is valve 7 open?", type=pb.Question.BOOLEAN)])
    items = []
    for k in range(4):
        m = pb.DecideRequest()
        m.CopyFrom(good)
        m.request_id = f"item-{k}"
        if k == 2:
            m.context = "x " * 700_000  # 1.3 MiB against a 1 MiB limit
        items.append(m)
    with ServerThread(max_message_mb=1) as s, grpc.insecure_channel(s.target) as channel:
        replies = list(pb_grpc.DeciderStub(channel).DecideStream(iter(items), timeout=60))
    answered = sorted(r.request_id for r in replies if r.HasField("response"))
    (bad,) = [r for r in replies if r.HasField("error")]
    assert answered == ["item-0", "item-1", "item-3"]
    assert bad.request_id == "item-2" and bad.error.code == 3 and "over the server's limit" in bad.error.message


def test_the_cli_bounds_onednns_kernel_cache_unless_told(monkeypatch):
    """oneDNN keeps a kernel with packed weights per matmul shape; the bf16 engine's per-length
    prompts grew the server by 140-180 MB with the default cache (docs/BENCHMARKS.md)."""
    import os

    from decider.cli import ONEDNN_CACHE, main

    monkeypatch.delenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", raising=False)
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == ONEDNN_CACHE
    monkeypatch.setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "256")
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == "256"
