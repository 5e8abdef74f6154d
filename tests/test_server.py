"""The gRPC service end to end: a real server on 127.0.0.1, the real client, the shipped model."""

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Literal

import grpc
import pytest
from decider_client import AsyncDeciderClient, DeciderClient, DeciderError, build_request, implies, pb
from decider_client.v1 import decider_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pydantic import BaseModel, Field
from server_util import ServerThread, free_port, make_certs

from sample_requests import CHAINED as EXAMPLE
from decider.engine.checkpoint import CheckpointError
from decider.engine.core import EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request
from decider.settings import ServerSettings


def example_pb(**kw) -> pb.DecideRequest:
    questions = [pb.Question(id=q["id"], text=q["text"],
                             type=pb.Question.BOOLEAN if q["type"] == "boolean" else pb.Question.CATEGORICAL,
                             options=q.get("options", [])) for q in EXAMPLE["questions"]]
    return build_request(EXAMPLE["context"], questions, **kw)


@pytest.fixture(scope="module")
def server():
    with ServerThread(warmup=True, max_queue_wait_s=0) as s:  # bursts here wait (deadlines only bound them)
        yield s


@pytest.fixture(scope="module")
def client(server):
    with DeciderClient(server.target, timeout=30) as c:
        yield c


def test_decide_round_trip(server, client, shipped):
    response = client.decide_request(example_pb(request_id="plant-7"))
    (local,) = EngineCore(shipped).decide([EXAMPLE])
    assert response.request_id == "plant-7"
    assert [a.choice for a in response.answers] == [a.answer for a in local.answers]
    assert [a.question_id for a in response.answers] == [q["id"] for q in EXAMPLE["questions"]]
    assert response.model_name == "decider-small" and 1 <= response.forward_passes <= 5
    assert all(abs(sum(a.distribution) - 1) < 1e-4 for a in response.answers)
    assert abs(response.joint_confidence - local.joint_confidence) < 1e-4
    assert response.timings.prefix_ms > 0 or response.prefix_cached


def test_request_id_and_handler_time_come_back_in_metadata(server):
    with grpc.insecure_channel(server.target) as channel:
        response, call = pb_grpc.DeciderStub(channel).Decide.with_call(example_pb(request_id="abc-1"), timeout=30)
    assert ("x-request-id", "abc-1") in call.trailing_metadata()
    handler_ms = float(dict(call.trailing_metadata())["x-handler-ms"])
    assert 0 < handler_ms < 60_000 and handler_ms >= response.timings.prefix_ms


def test_model_info(client):
    info = client.model_info()
    assert (info.name, info.max_questions, info.max_options, info.context_window) == ("decider-small", 8, 16, 512)
    assert info.temperature > 0 and "validation" in info.calibrated_on
    from decider.engine.device import serving_precision

    assert info.precision == serving_precision("cpu") and info.precision in ("fp32", "bf16")
    # the fp32 CPU engine runs its passes on ONNX Runtime where the model exports (runtime auto)
    from decider.engine import onnx_passes
    from decider.engine.checkpoint import load_checkpoint

    on_onnx = info.precision == "fp32" and onnx_passes.unsupported(load_checkpoint().model) is None
    assert info.kernel_backend == ("onnxruntime" if on_onnx else "torch")
    assert info.family == "bert-block-diffusion" and 20e6 < info.parameters < 30e6


def test_precision_is_a_setting_and_the_server_warms_up_in_it():
    """--precision fp32 on any CPU: the engine (its self-test decision ran before SERVING, so
    the path is warm) reports what it computes in."""
    with ServerThread(precision="fp32") as srv, DeciderClient(srv.target) as c:
        assert c.model_info().precision == "fp32"
        assert c.decide_request(example_pb()).answers


def test_warm_up_builds_the_kernels_of_every_prompt_length_before_serving(capfd):
    """bf16 on a CPU: before SERVING the engine decides a request at every padded prompt length
    and question count (EngineCore.warm_up), so that requests of lengths it never saw find their
    oneDNN kernels built: oneDNN's own log shows kernels found in its cache, none built."""
    import torch

    from decider.convert import pb_from_json
    from decider.engine.device import bf16_is_fast
    from decider.engine.training.corpus import V2_MIX
    from decider.engine.training.dataset import to_record

    if not bf16_is_fast("cpu"):
        pytest.skip("bf16 is emulated on this CPU: the engine serves fp32 here")
    sets = make_sets(CorpusSpec(split="test", mix=V2_MIX), 6) + make_sets(CorpusSpec(split="test", max_questions=2), 3)
    with ServerThread(warmup=True, precision="bf16") as srv, DeciderClient(srv.target, timeout=120) as c:
        capfd.readouterr()
        with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON_CREATION):
            for s in sets:
                assert c.decide_request(pb_from_json(to_record(s))).answers
        log = capfd.readouterr().out
    assert "create:cache_hit" in log  # the log is on: kernels were asked for and found
    missed = [line for line in log.splitlines() if "create:cache_miss" in line]
    assert not missed, missed[:3]


class Interlock(BaseModel):
    pump_running: bool = Field(description="Is pump 3 running?")
    valve_open: bool = Field(description="Is valve 7 open?")
    line_mode: Literal["manual", "automatic", "maintenance"] = Field(description="What is the mode of line 4?")


def test_schema_helper_and_constraints(client):
    d = client.decide(EXAMPLE["context"], Interlock)
    assert d.value == Interlock(pump_running=True, valve_open=True, line_mode="maintenance")
    assert set(d.confidence) == {"pump_running", "valve_open", "line_mode"} and not d.undecided
    # a declared interlock overrides the model: valve open forces the line to manual
    d = client.decide(EXAMPLE["context"], Interlock, [implies(("valve_open", True), ("line_mode", "manual"))])
    assert d.value.line_mode == "manual" or d.value.valve_open is False
    assert "forced" in d.status.values()


def test_schema_with_too_many_fields_fails_before_the_network():
    fields = {f"q{i}": (bool, Field(description=f"Is valve {i} open?")) for i in range(9)}
    from pydantic import create_model
    Big = create_model("Big", **fields)
    with DeciderClient("127.0.0.1:1", timeout=0.5) as c, pytest.raises(ValueError, match="at most 8"):
        c.decide("Valve 1 is open.", Big)


def test_min_confidence_reports_undecided(client):
    response = client.decide_request(example_pb(min_confidence=0.999999))
    statuses = {pb.Answer.Status.Name(a.status) for a in response.answers}
    assert "UNDECIDED" in statuses
    undecided = [a for a in response.answers if a.status == pb.Answer.UNDECIDED]
    assert all(a.option_index == -1 and a.choice == "" and len(a.distribution) >= 2 for a in undecided)


BAD = [
    ({"context": ""}, "context"),
    ({"questions": [pb.Question(id="q", text="On?", type=pb.Question.BOOLEAN)] * 2}, "questions"),
    ({"questions": [pb.Question(id="m", text="Mode?", type=pb.Question.CATEGORICAL, options=["a"])]}, "questions[0]"),
    ({"questions": [pb.Question(id="q", text="On?")]}, "questions[0].type"),
    ({"questions": [pb.Question(id=f"q{i}", text="On?", type=pb.Question.BOOLEAN) for i in range(9)]}, "questions"),
    ({"context": "pump " * 600}, "context"),
    ({"constraints": [pb.Constraint(kind=pb.Constraint.IMPLIES, literals=[pb.Literal(question="nope", option="yes"),
                                                                          pb.Literal(question="valve_open",
                                                                                     option="yes")])]},
     "constraints[0].literals[0].question"),
    ({"constraints": [pb.Constraint(kind=pb.Constraint.AT_LEAST_ONE, literals=[pb.Literal(question="valve_open",
                                                                                          option="no")]),
                      pb.Constraint(kind=pb.Constraint.AT_LEAST_ONE, literals=[pb.Literal(question="valve_open",
                                                                                          option="yes")])]},
     "constraints"),
]


@pytest.mark.parametrize("patch, field", BAD)
def test_bad_input_is_invalid_argument_with_the_field(client, patch, field):
    request = example_pb()
    for key, value in patch.items():
        request.ClearField(key)
        if isinstance(value, str):
            setattr(request, key, value)
        else:
            getattr(request, key).extend(value)
    with pytest.raises(DeciderError) as e:
        client.decide_request(request)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in e.value.violations] == [field], e.value
    # the server keeps serving everyone else
    assert len(client.decide_request(example_pb()).answers) == 5


def test_stream_survives_a_bad_request(client):
    bad = example_pb(request_id="bad")
    bad.context = ""
    requests = [example_pb(request_id="first"), bad, example_pb(request_id="last")]
    out = {r.request_id: r for r in client.stream(requests, timeout=60)}
    assert set(out) == {"first", "bad", "last"}
    assert out["bad"].WhichOneof("result") == "error" and out["bad"].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert out["first"].response.answers[0].choice == "yes" and out["last"].response.answers[0].choice == "yes"


def test_reflection_lists_the_service(server):
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
    with grpc.insecure_channel(server.target) as channel:
        db = ProtoReflectionDescriptorDatabase(channel)
        assert "decider.v1.Decider" in db.get_services()
        methods = {m.name for m in db.FindFileContainingSymbol("decider.v1.Decider").service[0].method}
    assert methods == {"Decide", "DecideStream", "GetModelInfo"}


def test_health_goes_serving_after_load_and_not_serving_on_drain():
    s = ServerThread(warmup=True).start(wait_ready=False)
    seen = []
    try:
        while not s.server.port:
            time.sleep(0.005)
        with grpc.insecure_channel(s.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            watch = stub.Watch(health_pb2.HealthCheckRequest(service="decider.v1.Decider"), timeout=60)
            for update in watch:
                seen.append(update.status)
                if update.status == health_pb2.HealthCheckResponse.SERVING:
                    break
            s.future.result(timeout=60)
            drain = threading.Thread(target=s.drain)
            drain.start()
            seen.append(next(watch).status)
            drain.join(timeout=60)
    finally:
        s.loop.call_soon_threadsafe(s.loop.stop)
    NOT, OK = health_pb2.HealthCheckResponse.NOT_SERVING, health_pb2.HealthCheckResponse.SERVING
    assert seen[0] == NOT and seen[-2:] == [OK, NOT]


def test_queue_full_is_resource_exhausted_with_quota_failure():
    async def burst(target):
        async with AsyncDeciderClient(target, timeout=60) as c:
            return await asyncio.gather(*[c.decide_request(example_pb()) for _ in range(12)], return_exceptions=True)

    with ServerThread(max_queue=2) as s:
        results = asyncio.run(burst(s.target))
    refused = [r for r in results if isinstance(r, DeciderError)]
    assert refused and all(r.code == grpc.StatusCode.RESOURCE_EXHAUSTED for r in refused)
    assert all(r.details == ["google.rpc.QuotaFailure"] for r in refused)
    assert any(isinstance(r, pb.DecideResponse) for r in results)


def test_deadline_exceeded(client):
    with pytest.raises(DeciderError) as e:
        client.decide_request(example_pb(), timeout=0.0005)
    assert e.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_a_model_that_cannot_load_stops_start_up(tmp_path):
    s = ServerThread(checkpoint=str(tmp_path))
    try:
        with pytest.raises(CheckpointError, match="model.safetensors"):
            s.start()
        with grpc.insecure_channel(s.target) as channel:  # health answers, and never says SERVING
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        s.stop()


def test_a_cancelled_call_frees_its_place():
    with ServerThread(max_queue=1) as s, grpc.insecure_channel(s.target) as channel:
        stub = pb_grpc.DeciderStub(channel)
        for _ in range(3):
            future = stub.Decide.future(example_pb(), timeout=30)
            future.cancel()
        # A cancel can overtake its call: the server may still start a handler for it and
        # hold the one place until that request ends. So the place must come free soon,
        # not at once; a leaked place keeps refusing until the deadline and fails here.
        deadline = time.monotonic() + 10
        while True:
            try:
                response = stub.Decide(example_pb(), timeout=30)
                break
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        assert len(response.answers) == 5  # the one place is free again
        assert s.server.runner.depth == 0


def test_metrics_after_traffic():
    port = free_port()
    with ServerThread(metrics_port=port) as s, DeciderClient(s.target, timeout=30) as c:
        c.decide_request(example_pb())
        with pytest.raises(DeciderError):
            c.decide_request(build_request("", []))
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    assert 'decider_requests_total{code="OK"} 1.0' in text
    assert 'decider_requests_total{code="INVALID_ARGUMENT"} 1.0' in text
    for name in ("decider_request_duration_seconds_count", "decider_queue_duration_seconds_count",
                 "decider_forward_passes_count", "decider_batch_size", "decider_queue_depth",
                 "decider_prefix_cache_hits", "decider_prefix_cache_misses"):
        assert name in text


def test_token_auth(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("# operators\nsecret-1\n")
    with ServerThread(tokens_file=tokens, tokens="secret-2") as s:
        with DeciderClient(s.target, timeout=30) as anonymous, pytest.raises(DeciderError) as e:
            anonymous.decide_request(example_pb())
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
        with DeciderClient(s.target, timeout=30, token="wrong") as wrong, pytest.raises(DeciderError):
            wrong.model_info()
        for token in ("secret-1", "secret-2"):
            with DeciderClient(s.target, timeout=30, token=token) as c:
                assert c.model_info().name == "decider-small"
        with grpc.insecure_channel(s.target) as channel:  # health stays open for probes
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.SERVING


def test_tls_and_mutual_tls(tmp_path):
    certs = make_certs(tmp_path)
    with ServerThread(tls_cert=certs["server_cert"], tls_key=certs["server_key"]) as s:
        with DeciderClient(f"localhost:{s.server.port}", root_certificates=certs["ca_cert"], timeout=30) as c:
            assert c.model_info().name == "decider-small"
        with DeciderClient(s.target, timeout=3) as plain, pytest.raises(DeciderError):
            plain.model_info()  # plaintext against a TLS port fails
    with ServerThread(tls_cert=certs["server_cert"], tls_key=certs["server_key"],
                      tls_client_ca=certs["ca_cert"]) as s:
        with DeciderClient(f"localhost:{s.server.port}", root_certificates=certs["ca_cert"],
                           client_certificate=certs["client_cert"], client_key=certs["client_key"], timeout=30) as c:
            assert c.model_info().name == "decider-small"
        with DeciderClient(f"localhost:{s.server.port}", root_certificates=certs["ca_cert"], timeout=3) as anon, \
                pytest.raises(DeciderError) as e:
            anon.model_info()  # no client certificate: the handshake is refused
        assert e.value.code == grpc.StatusCode.UNAVAILABLE


def test_plaintext_off_loopback_needs_insecure():
    with pytest.raises(ValueError, match="refusing plaintext on 0.0.0.0"):
        ServerSettings(host="0.0.0.0")
    assert ServerSettings(host="0.0.0.0", insecure=True).host == "0.0.0.0"


def test_200_concurrent_requests_from_20_clients(server, shipped):
    sets = make_sets(CorpusSpec(split="test", max_links=3), 40)
    requests = [as_request(s.context, s.questions) for s in sets]
    expected = [[a.answer for a in r.answers] for r in EngineCore(shipped).decide(requests)]

    def to_pb(r, rid):
        qs = [pb.Question(id=q.id, text=q.text, type=pb.Question.BOOLEAN if q.type == "boolean"
                          else pb.Question.CATEGORICAL, options=q.options) for q in r.questions]
        return build_request(r.context, qs, request_id=rid)

    answers, errors = {}, []

    def worker(k):
        with DeciderClient(server.target, timeout=120) as c:
            for j in range(10):
                i = (k * 10 + j) % len(requests)
                try:
                    response = c.decide_request(to_pb(requests[i], f"c{k}-{j}"))
                    answers[(k, j)] = (i, [a.choice for a in response.answers])
                except Exception as e:  # noqa: BLE001 (collected and reported below)
                    errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(answers) == 200
    assert all(got == expected[i] for i, got in answers.values())


def test_sigterm_drains_in_flight_requests_and_exits_zero(tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "decider.cli", "serve", "--port", str(port), "--metrics-port", "0",
                             "--drain-grace-s", "20"], stderr=subprocess.PIPE, text=True)
    try:
        with DeciderClient(f"127.0.0.1:{port}", timeout=60) as c:
            deadline = time.monotonic() + 90
            while True:  # wait for SERVING
                try:
                    c.model_info()
                    break
                except DeciderError:
                    assert time.monotonic() < deadline, "server did not come up"
                    time.sleep(0.2)
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.DeciderStub(channel)
                futures = [stub.Decide.future(example_pb(), timeout=60) for _ in range(6)]
                time.sleep(0.05)
                proc.send_signal(signal.SIGTERM)
                results = [f.result() for f in futures]
        assert all(len(r.answers) == 5 for r in results)
        assert proc.wait(timeout=60) == 0
        log = proc.stderr.read()
        assert '"event": "drained"' in log and '"all_finished": true' in log
    finally:
        if proc.poll() is None:
            proc.kill()


def test_decide_and_info_commands_against_the_server(server):
    """The interface scripts rely on: `decider decide --server H:P --file request.json --json`."""
    out = subprocess.run([sys.executable, "-m", "decider.cli", "decide", "--server", server.target, "--file",
                          "docs/examples/interlock.json", "--json"], capture_output=True, text=True, check=True)
    response = json.loads(out.stdout)
    assert response["request_id"] == "line-4-check" and len(response["answers"]) == 5
    assert {a["status"] for a in response["answers"]} <= {"DECIDED", "FORCED", "UNDECIDED"}
    by_id = {a["question_id"]: a for a in response["answers"]}
    assert by_id["line_mode"]["choice"] != "maintenance"  # the interlock: maintenance needs the fan, which is off
    table = subprocess.run([sys.executable, "-m", "decider.cli", "decide", "--server", server.target, "--context",
                            "Valve 7 is open.", "--question", "valve|Is valve 7 open?"],
                           capture_output=True, text=True, check=True).stdout
    assert "valve" in table and "joint confidence" in table
    info = json.loads(subprocess.run([sys.executable, "-m", "decider.cli", "info", "--server", server.target],
                                     capture_output=True, text=True, check=True).stdout)
    assert info["name"] == "decider-small" and info["max_questions"] == 8
    bad = subprocess.run([sys.executable, "-m", "decider.cli", "decide", "--server", server.target, "--context", "x",
                          "--question", "q|Is it?|only"], capture_output=True, text=True)
    assert bad.returncode == 1 and "INVALID_ARGUMENT" in bad.stderr and "questions[0]" in bad.stderr
