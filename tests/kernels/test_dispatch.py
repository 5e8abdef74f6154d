"""The dispatch picks torch on the CPU, Triton on CUDA; DECIDER_KERNELS overrides it; the
engine gives the same answers whichever runs its commit step."""

import pytest
import torch

from decider.engine.core import EngineCore
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


def test_engine_answers_the_same_with_the_triton_kernels(tiny, monkeypatch):
    """Block attention over packed prefixes and the commit step, both in Triton (interpreted here)."""
    sets = make_sets(CorpusSpec(split="test"), 6)
    requests = [as_request(s.context, s.questions, threshold=t) for s, t in zip(sets, [0.5, 0.9, 0.99] * 2)]
    monkeypatch.setenv("DECIDER_KERNELS", "torch")
    plain = EngineCore(tiny).decide(requests)
    monkeypatch.setenv("DECIDER_KERNELS", "triton")
    core = EngineCore(tiny)
    assert core.backend == "triton"
    kernel = core.decide(requests)
    for a, b in zip(plain, kernel):
        assert [(x.index, x.step) for x in a.answers] == [(x.index, x.step) for x in b.answers]
        assert all(abs(x.confidence - y.confidence) < 1e-5 for x, y in zip(a.answers, b.answers))
