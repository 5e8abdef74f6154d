"""bench/focus_probe.py: each question alone, its context cut to the k nearest sentences, the
whole context (0), or none of it (`--keep none`)."""

from pathlib import Path

import torch
from focus_probe import BLANK, NONE, focused

from decider.engine.reader import sentences
from decider.engine.training.dataset import load_jsonl

WRITTEN = Path(__file__).parents[1] / "engine" / "training" / "written"


def test_cut_contexts_keep_whole_nearest_or_no_sentences():
    s = load_jsonl(WRITTEN / "plant-readings-limits.jsonl")[0]
    lines = [x for line in s.context.split("\n") for x in sentences(line)]
    g = torch.Generator().manual_seed(0)
    out = focused(s, lambda strings: torch.randn(len(strings), 8, generator=g), [NONE, 0, 1])
    for k in (NONE, 0, 1):
        assert [x.questions[0] for x in out[k]] == s.questions
        assert [x.answers for x in out[k]] == [[a] for a in s.answers]
    assert {x.context for x in out[NONE]} == {BLANK}
    assert {x.context for x in out[0]} == {"\n".join(lines)}
    assert all(x.context in lines for x in out[1])
