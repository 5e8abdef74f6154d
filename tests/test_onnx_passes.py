"""The ONNX Runtime passes (engine/onnx_passes.py) against the torch model they are exported
from: the same answers, confidences within fp32 rounding, in batches and alone; the graph
cache; clear errors where a model or setting cannot run on it; a real server on it."""

import pytest
import torch
from decider_client import DeciderClient
from sample_requests import CHAINED
from server_util import ServerThread

from decider.cli import EXAMPLE
from decider.convert import pb_from_json
from decider.engine import onnx_passes
from decider.engine.checkpoint import random_init, save_checkpoint
from decider.engine.core import build_engine
from decider.engine.model import PRESETS
from decider.engine.onnx_passes import OnnxPasses, OnnxUnsupported
from decider.engine.request import as_request
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets

pytestmark = pytest.mark.skipif(not onnx_passes.available(), reason="onnxruntime is not installed")


def _requests(n: int) -> list:
    return [as_request(s.context, s.questions) for s in make_sets(CorpusSpec(split="validation", mix=V2_MIX), n)]


def _same_decisions(a, b, tolerance: float = 1e-4) -> None:
    for x, y in zip(a, b, strict=True):
        assert [s.answer for s in x.answers] == [s.answer for s in y.answers]
        assert [s.step for s in x.answers] == [s.step for s in y.answers]
        for s, t in zip(x.answers, y.answers):
            assert abs(s.confidence - t.confidence) <= tolerance


@pytest.fixture()
def numbers_model(tokenizer_path):
    """A tiny random model with number ranks (the prefix graph reads them)."""
    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 16, "number_spread": True})
    ckpt = random_init(cfg, tokenizer_path, seed=3)
    ckpt.model.eval()
    return ckpt


@pytest.fixture()
def linked_model(tokenizer_path):
    """A tiny random model with the number comparison term, name links, the question
    comparison and the number tokens' link bias (parts that select rows by their data), all away
    from their zero start."""
    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 16, "number_spread": True, "number_relative": 4,
                                             "name_links": 4, "question_compare": 2, "number_links": True})
    ckpt = random_init(cfg, tokenizer_path, seed=5)
    with torch.no_grad():
        for name, p in ckpt.model.named_parameters():
            if name.startswith("link_proj.") or name.endswith("link_bias") or ".rank_out." in name \
                    or ".compare_out." in name:
                p.normal_(std=0.5)
    ckpt.model.eval()
    return ckpt


@pytest.mark.parametrize("which", ["numbers_model", "linked_model"])
def test_onnxruntime_decides_as_torch_fp32_does(which, request):
    model = request.getfixturevalue(which)
    onnx = build_engine(model, precision="fp32", runtime="onnxruntime", prefix_cache_bytes=0)
    torch_ = build_engine(model, precision="fp32", runtime="torch", prefix_cache_bytes=0)
    assert (onnx.runtime, torch_.runtime) == ("onnxruntime", "torch")
    requests = _requests(12)
    _same_decisions(onnx.decide(requests), torch_.decide(requests))  # one batch of mixed lengths
    for r in requests[:4]:  # alone (batch 1)
        _same_decisions(onnx.decide([r]), torch_.decide([r]))


@pytest.mark.parametrize("which", ["numbers_model", "linked_model"])
def test_passes_agree_with_the_model_at_any_batch_and_length(which, request):
    model = request.getfixturevalue(which).model
    passes = OnnxPasses(model)
    g = torch.Generator().manual_seed(1)
    for B, L, S in ((1, 5, 1), (3, 40, 8), (2, 17, 4)):
        ids = torch.randint(1000, 30000, (B, L), generator=g)
        valid = torch.ones(B, L, dtype=torch.bool)
        valid[-1, L // 2:] = False
        segments = torch.zeros(B, L, dtype=torch.long)
        segments[:, L // 2:] = 1  # a question in the second half
        numbers = torch.randint(0, 3, (B, L), generator=g)
        links = torch.randint(0, 4, (B, L), generator=g)  # names shared across sentences and questions
        with torch.no_grad():
            want = model.prefix_forward(ids, valid, segments, numbers, links)
            got = passes.prefix_forward(ids, valid, segments, numbers, links)
            for a, b in zip((*want.k, *want.v), (*got.k, *got.v)):
                torch.testing.assert_close(a * valid[:, None, :, None], b * valid[:, None, :, None], atol=1e-4, rtol=1e-4)
            answers = torch.full((B, S), model.mask_token)
            answers[0, 0] = 1
            positions = torch.arange(L, L + S).repeat(B, 1)
            slot_valid = torch.ones(B, S, dtype=torch.bool)
            choices = torch.randn(B, S, model.cfg.n_answers, model.cfg.dim, generator=g)
            torch.testing.assert_close(passes.block_forward(answers, positions, slot_valid, got, choices),
                                       model.block_forward(answers, positions, slot_valid, want, choices),
                                       atol=1e-4, rtol=1e-4)


def test_exported_graphs_are_cached_and_a_broken_cache_is_replaced(numbers_model, tokenizer_path, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("DECIDER_CACHE_DIR", str(tmp_path))
    first = OnnxPasses(numbers_model.model)
    assert not first.from_cache and sorted(p.name for p in tmp_path.rglob("*.onnx")) == ["block.onnx", "prefix.onnx"]
    again = OnnxPasses(numbers_model.model)
    assert again.from_cache and again.build_s < first.build_s
    next(tmp_path.rglob("block.onnx")).write_bytes(b"not a graph")
    repaired = OnnxPasses(numbers_model.model)
    assert not repaired.from_cache
    _same_decisions(build_engine(numbers_model, precision="fp32", runtime="onnxruntime").decide([CHAINED]),
                    build_engine(numbers_model, precision="fp32", runtime="torch").decide([CHAINED]))
    other = random_init(numbers_model.model.cfg, tokenizer_path, seed=4).model.eval()
    assert onnx_passes.graph_key(other) != onnx_passes.graph_key(numbers_model.model)  # other weights, other key
    monkeypatch.setattr(onnx_passes, "KEEP_GRAPHS", 1)  # the cache keeps the most recently used models
    OnnxPasses(other)
    assert len(list(tmp_path.rglob("block.onnx"))) == 1 and OnnxPasses(other).from_cache
    assert not OnnxPasses(numbers_model.model).from_cache  # the least recently used went


def test_what_cannot_run_on_onnxruntime_says_what_to_use(tiny):
    with pytest.raises(OnnxUnsupported, match="runs fp32 on a CPU"):
        build_engine(tiny, precision="bf16", runtime="onnxruntime")
    with pytest.raises(ValueError, match="runtime"):
        build_engine(tiny, runtime="tensorrt")


def test_auto_runs_onnxruntime_where_the_engine_runs_fp32_on_a_cpu(tiny):
    assert build_engine(tiny, precision="fp32").runtime == "onnxruntime"
    assert build_engine(tiny, precision="bf16").runtime == "torch"  # bf16 stays on torch
    assert build_engine(tiny, precision="fp32", runtime="onnxruntime").precision == "fp32"
    assert build_engine(tiny, runtime="onnxruntime").precision == "fp32"  # precision auto: what it runs


def test_server_on_onnxruntime_answers_as_the_torch_engine(numbers_model, tmp_path):
    """A real server on 127.0.0.1 on ONNX Runtime (exported at start-up, before SERVING; its
    warm-up decision runs on it), with a checkpoint folder that exports."""
    folder = save_checkpoint(numbers_model, tmp_path / "model")
    request = {"context": EXAMPLE["context"], "questions": CHAINED["questions"]}
    reference = build_engine(numbers_model, precision="fp32", runtime="torch").decide([request])[0]
    with ServerThread(checkpoint=folder, runtime="onnxruntime", self_test=False, warmup=True) as srv, \
            DeciderClient(srv.target) as c:
        info = c.model_info()
        assert (info.precision, info.kernel_backend) == ("fp32", "onnxruntime")
        got = c.decide_request(pb_from_json(request))
    assert [a.choice for a in got.answers] == [a.answer for a in reference.answers]
    for a, b in zip(got.answers, reference.answers):
        assert abs(a.confidence - b.confidence) < 1e-4


def test_a_server_asked_for_onnxruntime_in_bf16_says_what_to_use(tiny, tmp_path):
    folder = save_checkpoint(tiny, tmp_path / "model")
    with pytest.raises(Exception, match="runs fp32 on a CPU"):
        ServerThread(checkpoint=folder, runtime="onnxruntime", precision="bf16", self_test=False).start()
