"""The dispatch picks torch on the CPU, Triton on CUDA; DECIDER_KERNELS overrides it; the
engine gives the same answers whichever runs its commit step."""

import copy

import pytest
import torch

from decider.engine.core import build_engine
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request
from decider.kernels.dispatch import backend_name


def test_torch_on_the_cpu_unless_told(monkeypatch):
    monkeypatch.delenv("DECIDER_KERNELS", raising=False)
    assert backend_name("cpu") == "torch"
    monkeypatch.setenv("DECIDER_KERNELS", "cuda-magic")
    with pytest.raises(ValueError, match="must be 'torch' or 'triton'"):
        backend_name("cpu")
    monkeypatch.setenv("DECIDER_KERNELS", "triton")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="needs a CUDA device"):
            backend_name("cpu")


# confidence bound between the Triton and the torch path: exact fp32 dots agree to rounding; in
# bf16 the Triton path also runs attention in bf16 (torch keeps it in fp32), ~1e-4 on this model
BOUND = {"fp32": 1e-5, "bf16": 2e-3}


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_engine_answers_the_same_with_the_triton_kernels(tiny, monkeypatch, precision):
    """Block attention over packed prefixes and the commit step, both in Triton (on CUDA where
    there is a GPU, else in the interpreter), in both precisions the engine runs (bf16 is forced
    where it is not the default)."""
    if torch.cuda.is_available():
        tiny = copy.deepcopy(tiny)
        tiny.model.to("cuda")
    sets = make_sets(CorpusSpec(split="test"), 6)
    requests = [as_request(s.context, s.questions, threshold=t) for s, t in zip(sets, [0.5, 0.9, 0.99] * 2)]
    monkeypatch.setenv("DECIDER_KERNELS", "torch")
    plain = build_engine(tiny, precision=precision).decide(requests)
    monkeypatch.setenv("DECIDER_KERNELS", "triton")
    core = build_engine(tiny, precision=precision)
    assert core.backend == "triton"
    kernel = core.decide(requests)
    worst = max(abs(x.confidence - y.confidence) for a, b in zip(plain, kernel) for x, y in zip(a.answers, b.answers))
    for a, b in zip(plain, kernel):
        assert [(x.index, x.step) for x in a.answers] == [(x.index, x.step) for x in b.answers]
    assert worst < BOUND[precision], worst
