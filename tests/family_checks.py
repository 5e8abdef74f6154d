"""Checks every training family of the corpus must pass, shared by their tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.corpus import CorpusSpec, make_set, make_sets
from decider.engine.training.families import base


def deterministic_and_accepted(family: str, **knobs) -> None:
    """The same (spec, index) gives the same set; every set is a request the service accepts, of
    at most 8 questions, and fits the model's 512-token window. `knobs`: further CorpusSpec fields."""
    spec = CorpusSpec(split="train", mix=((family, 1.0),), more_phrasings=True, **knobs)
    sets = make_sets(spec, 200)
    again = make_set(spec, 11)
    assert (again.context, again.answers) == (sets[11].context, sets[11].answers)
    assert {s.domain for s in sets} == {family}
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for s in sets:
        as_request(s.context, s.questions)
        assert 1 <= len(s.questions) <= 8 and len(s.answers) == len(s.questions)
    assert max(len(e.prefix_ids) for e in tok.encode_batch([(s.context, s.questions) for s in sets])) <= 512


def held_out_phrasings_stay_out(monkeypatch, draw: Callable[[base.Style], Sequence]) -> None:
    """Every phrasing `draw(style)` picks, recorded: training draws none of a pattern's held-out
    fifth, the heldout split nothing else (patterns of five phrasings or more)."""
    picks = []
    pick = base.pick

    def recording(rng, templates, style):
        picks.append((tuple(templates), text := pick(rng, templates, style)))
        return text

    monkeypatch.setattr(base, "pick", recording)
    draw(base.Style(more=True))
    assert picks and not any(t in base.held_out_templates(p) for p, t in picks)
    picks.clear()
    draw(base.Style(heldout=True))
    assert picks and all(t in base.held_out_templates(p) for p, t in picks if len(p) >= base.HELD_OUT_EVERY)
