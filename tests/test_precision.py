"""The engine's precisions on a CPU: bf16 (weights cast once, each request at its own length)
against the fp32 reference, and the bits of a request alone, in a batch and from the cache."""

import os

import pytest
import torch

from decider.engine.core import build_engine
from decider.engine.device import bf16_is_fast, bf16_rows_are_batch_invariant, serving_precision
from decider.engine.packed import PackedLinear, pack_linears, packing_available
from decider.engine.prefix_cache import prefix_key
from decider.engine.request import as_request
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets


def _requests(n, mix=V2_MIX):
    return [as_request(s.context, s.questions) for s in make_sets(CorpusSpec(split="test", mix=mix), n)]


def _same_bits(a, b):
    assert [(x.index, x.step, x.confidence) for x in a.answers] == [(x.index, x.step, x.confidence) for x in b.answers]
    assert a.forward_passes == b.forward_passes


def test_auto_is_bf16_only_where_it_is_fast():
    want = "bf16" if bf16_is_fast("cpu") else "fp32"
    assert serving_precision("cpu", "auto") == want
    assert serving_precision("cpu", "fp32") == "fp32" and serving_precision("cpu", "bf16") == "bf16"


def test_a_process_held_to_avx2_serves_as_an_avx2_only_cpu_would():
    import subprocess
    import sys

    code = "from decider.engine.device import bf16_is_fast, serving_precision; " \
           "print(bf16_is_fast('cpu'), serving_precision('cpu', 'auto'))"
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "fp32"]


def test_bf16_engine_keeps_its_own_bf16_copy_of_the_weights(tiny):
    core = build_engine(tiny, precision="bf16")
    assert core.precision == "bf16" and next(core.model.parameters()).dtype == torch.bfloat16
    assert next(tiny.model.parameters()).dtype == torch.float32  # the checkpoint's model is untouched
    assert next(build_engine(tiny, precision="fp32").model.parameters()).dtype == torch.float32


def test_bf16_answers_follow_the_fp32_reference_on_a_tiny_model(tiny):
    """Random weights give near-uniform answers, so compare the confidences; a bf16 weight
    carries 8 bits of mantissa, so they move by at most about a percent here."""
    requests = _requests(12)
    ref = build_engine(tiny, precision="fp32").decide(requests)
    fast = build_engine(tiny, precision="bf16").decide(requests)
    worst = max(abs(x.confidence - y.confidence) for a, b in zip(ref, fast) for x, y in zip(a.answers, b.answers)
                if x.step == y.step == 1)  # first-pass answers: same inputs in both
    assert worst < 0.02, worst


def test_prefix_attention_runs_in_bf16_where_the_engine_is_bf16_and_the_answers_stay(tiny):
    from decider.engine.model import Layer

    requests = _requests(12)
    fp32_attention = build_engine(tiny, precision="bf16", prefix_attention="fp32")
    auto = build_engine(tiny, precision="bf16")
    assert (auto.prefix_attention, fp32_attention.prefix_attention) == ("bf16", "fp32")
    assert {layer.attention_dtype for layer in auto.model.layers} == {torch.bfloat16}
    assert {layer.attention_dtype for layer in fp32_attention.model.layers} == {torch.float32}
    assert tiny.model.layers[0].attention_dtype == Layer.attention_dtype == torch.float32  # the checkpoint's: untouched
    assert build_engine(tiny, precision="fp32").prefix_attention == "fp32"
    ref, fast = fp32_attention.decide(requests), auto.decide(requests)
    worst = max(abs(x.confidence - y.confidence) for a, b in zip(ref, fast) for x, y in zip(a.answers, b.answers)
                if x.step == y.step == 1)
    assert worst < 0.02, worst  # q, k and v are bf16 either way; the kernel sums in fp32 either way
    with pytest.raises(ValueError, match="prefix_attention 'bf16' needs an engine that runs bf16"):
        build_engine(tiny, precision="fp32", prefix_attention="bf16")


@pytest.mark.parametrize("block_pass", ["per_request", "batched"])
def test_bf16_request_has_the_same_bits_alone_in_a_batch_and_from_the_cache(tiny, block_pass):
    if block_pass == "batched" and not bf16_rows_are_batch_invariant():
        pytest.skip("this CPU's bf16 matmul sums rows in a batch-dependent order: 'auto' runs block passes per "
                    "request here")
    requests = _requests(16)
    alone = [build_engine(tiny, precision="bf16", prefix_cache_bytes=0, block_pass=block_pass).decide([r])[0]
             for r in requests[:5]]
    engine = build_engine(tiny, precision="bf16", max_running=16, block_pass=block_pass)
    assert engine.block_alone == (block_pass == "per_request")
    batched = engine.decide(requests)[:5]
    cached = [engine.decide([r])[0] for r in requests[:5]]
    for a, b, c in zip(alone, batched, cached):
        assert c.prefix_cached
        _same_bits(a, b)
        _same_bits(a, c)


def test_bf16_on_the_shipped_model_answers_as_fp32_and_batch_invariant(shipped):
    if not bf16_is_fast("cpu"):
        pytest.skip("bf16 is emulated on this CPU: the engine stays in fp32 here")
    requests = _requests(12)
    ref = build_engine(shipped, precision="fp32", prefix_cache_bytes=0).decide(requests)
    fast = build_engine(shipped, precision="bf16", prefix_cache_bytes=0).decide(requests)
    alone = [build_engine(shipped, precision="bf16", prefix_cache_bytes=0).decide([r])[0] for r in requests[:4]]
    pairs = [(x, y) for a, b in zip(ref, fast) for x, y in zip(a.answers, b.answers)]
    assert sum(x.index == y.index for x, y in pairs) >= 0.97 * len(pairs)
    assert max(abs(x.confidence - y.confidence) for x, y in pairs if x.index == y.index and x.step == y.step) < 0.05
    for a, b in zip(alone, fast):
        _same_bits(a, b)


def test_packed_weights_give_the_bits_of_unpacked_ones(tiny):
    """The bf16 CPU engine packs its linear layers once for oneDNN (engine/packed.py): the same
    kernel on the same blocked weight, so every answer, step and confidence keeps its bits."""
    requests = _requests(8)
    packed = build_engine(tiny, precision="bf16", prefix_cache_bytes=0)
    plain = build_engine(tiny, precision="bf16", prefix_cache_bytes=0, packed_weights=False)
    assert plain.packed_layers == 0 and not any(isinstance(m, PackedLinear) for m in plain.model.modules())
    assert packed.packed_layers == sum(isinstance(m, PackedLinear) for m in packed.model.modules())
    if packing_available() and bf16_is_fast("cpu"):  # elsewhere oneDNN may refuse bf16: layers stay unpacked
        assert packed.packed_layers > 0
    for a, b in zip(packed.decide(requests), plain.decide(requests)):
        _same_bits(a, b)
    assert build_engine(tiny, precision="fp32").packed_layers == 0  # fp32 keeps torch's own linear


def test_pack_linears_packs_bf16_cpu_layers_only():
    if not (packing_available() and bf16_is_fast("cpu")):
        pytest.skip("no oneDNN packed linear, or bf16 is emulated on this CPU")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(24, 40), torch.nn.GELU(), torch.nn.Linear(40, 8, bias=False))
    assert pack_linears(model) == 0  # fp32: nothing to pack
    model = model.bfloat16()
    x = torch.randn(3, 5, 24).bfloat16()
    with torch.no_grad():
        want = model(x)
        assert pack_linears(model) == 2 and isinstance(model[0], PackedLinear) and model[2].bias is None
        assert torch.equal(model(x), want) and torch.equal(model(x[1:2, :1]), want[1:2, :1])



def test_the_packed_engine_fuses_query_key_value_and_keeps_the_separate_layers(tiny):
    """One call per layer for the three projections (its bits are the three's: the test above
    decides with it); the prefix's last layer reads keys and values through the separate ones."""
    if not (packing_available() and bf16_is_fast("cpu")):
        pytest.skip("no oneDNN packed linear, or bf16 is emulated on this CPU")
    core = build_engine(tiny, precision="bf16", prefix_cache_bytes=0)
    assert all(isinstance(layer.qkv, PackedLinear) for layer in core.model.layers)
    assert all(isinstance(layer.key, PackedLinear) for layer in core.model.layers)
    assert all(layer.qkv is None for layer in build_engine(tiny, precision="bf16", packed_weights=False).model.layers)


def test_a_prefix_pass_padded_past_its_length_gives_the_same_keys_and_values(tiny):
    """The bf16 CPU engine pads each prefix pass to a multiple of `prefix_pad` (masked): the real
    tokens' K/V and option states must not read the padding (fp32 here, so only rounding differs)."""
    from decider.engine.decode import Batch

    core = build_engine(tiny, precision="fp32")
    r = _requests(1)[0]
    enc = core.tok.encode(r.context, r.to_questions())
    b = Batch.collate([enc], core.tok.pad, core.n_classes)
    n = len(enc.prefix_ids)
    inputs = (b.ids, b.valid, b.segments, b.numbers, b.links)
    padded = [torch.nn.functional.pad(t, (0, 19), value=v) for t, v in zip(inputs, (core.tok.pad, False, 0, 0, 0))]
    with torch.no_grad():
        own, long = tiny.model.prefix_forward(*inputs), tiny.model.prefix_forward(*padded)
    for a, c in zip(own.k + own.v, long.k + long.v):
        assert c.shape[2] == n + 19
        torch.testing.assert_close(a, c[:, :, :n], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("pad", [0, 1, 32])
def test_bf16_prefix_padding_keeps_a_request_to_its_own_length_and_near_its_answers(tiny, pad):
    requests = _requests(10)
    engine = build_engine(tiny, precision="bf16", prefix_pad=pad)
    ref = build_engine(tiny, precision="fp32").decide(requests)
    got = engine.decide(requests)
    worst = max(abs(x.confidence - y.confidence) for a, b in zip(ref, got) for x, y in zip(a.answers, b.answers)
                if x.step == y.step == 1)
    assert worst < 0.02, worst
    for r in requests:  # what the cache keeps is the request's own K/V, not its padding
        enc = engine.tok.encode(r.context, r.to_questions())
        kv = engine.cache.get(prefix_key(enc.prefix_ids, enc.segments, enc.numbers, enc.links))
        assert kv.k[0].shape[2] == kv.valid.shape[1] == len(enc.prefix_ids)


def test_warm_up_meets_every_padded_length_and_question_count_and_leaves_the_cache(tiny):
    from decider.engine.core import WARM_UP_QUESTIONS, _warm_up_request

    engine = build_engine(tiny, precision="bf16", prefix_pad=32)
    engine.decide(_requests(2))
    before = engine.cache.stats()
    asked = []
    decide = engine.decide
    engine.decide = lambda requests: asked.extend(requests) or decide(requests)
    assert engine.warm_up() == len(asked)
    assert engine.cache.stats() == before
    lengths = {len(engine.tok.encode(r.context, r.to_questions(), truncate=True).prefix_ids)
               for r in asked}
    assert {-(-n // 32) * 32 for n in lengths} >= set(range(64, 513, 32))  # the shortest 8-question prefix is > 32
    assert {len(r.questions) for r in asked} == set(range(1, len(WARM_UP_QUESTIONS) + 1))
    assert _warm_up_request(engine.tok, 5, 6, 8) is None  # eight questions take more than six tokens
    assert build_engine(tiny, precision="fp32").warm_up() == 1
