"""bench/focus_probe.py: each question alone, its context cut to the k nearest sentences, the
whole context (0), or none of it (`--keep none`)."""

from pathlib import Path

import torch
from focus_probe import BLANK, NONE, corrected, focused

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


def test_context_free_correction_counts_the_question_alone_against_an_option():
    whole = [[0.6, 0.4], [0.2, 0.5, 0.3]]
    alone = [[0.9, 0.1], [0.1, 0.8, 0.1]]
    assert corrected(whole, alone, 0.0) == [0, 1]  # alpha 0: the answers as given
    assert corrected(whole, alone, 1.0) == [1, 2]  # 0.4 / 0.1 beats 0.6 / 0.9; 0.3 / 0.1 beats 0.2 / 0.1
