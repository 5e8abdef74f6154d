"""Further phrasings (engine/training/families/phrasings): training sets draw them, the
evaluation splits never do, and each one says what its pattern says with its fields."""

import random
import string

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.corpus import V2_MIX, CorpusSpec, family_of, make_set, make_sets
from decider.engine.training.families import base, contracts, quantified, readings, reports

PATTERNS = {"contracts": contracts.T, "reports": reports.T, "readings": readings.TEMPLATES,
            "quantified": quantified.TEMPLATES}


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def _norm(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c in "{} ").split())


@pytest.mark.parametrize("family", sorted(PATTERNS))
def test_further_phrasings_keep_their_patterns_fields_and_never_a_held_out_one(family):
    patterns = PATTERNS[family]
    more = {key: base.more_phrasings(own) for key, own in patterns.items() if base.more_phrasings(own)}
    assert more, f"{family}: no further phrasings registered"
    for key, extra in more.items():
        own = patterns[key]
        must, may = set.intersection(*map(_fields, own)), set.union(*map(_fields, own))
        held = {_norm(t) for t in base.held_out_templates(own)}
        assert len(set(extra)) == len(extra), (family, key, "a phrasing twice")
        for text in extra:
            assert must <= _fields(text) <= may, (family, key, text)
            assert text not in own and _norm(text) not in held, (family, key, text)


def test_add_phrasings_refuses_an_unknown_pattern_and_a_repeated_phrasing():
    patterns = {"q": ("Is {x} on?", "Is {x} running?")}
    with pytest.raises(KeyError, match="no pattern 'r'"):
        base.add_phrasings(patterns, {"r": ("Is {x} up?",)})
    with pytest.raises(ValueError, match="already has"):
        base.add_phrasings(patterns, {"q": ("Is {x} on?",)})


def test_training_sets_draw_further_phrasings_and_evaluation_splits_cannot():
    spec = CorpusSpec(split="train", mix=V2_MIX)
    plain, more = make_sets(spec, 200), make_sets(CorpusSpec(split="train", mix=V2_MIX, more_phrasings=True), 200)
    assert [family_of(s) for s in plain] == [family_of(s) for s in more]  # the same mix, set by set
    assert sum(a.context != b.context for a, b in zip(plain, more)) > 50  # and other words
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for s in more:  # well-formed: a valid request within the tokenizer's limit, every slot filled
        assert all(0 <= a < len(q.choices) for q, a in zip(s.questions, s.answers))
        assert "{" not in s.context and not any("{" in q.text for q in s.questions), s.context
        tok.encode(s.context, s.questions)
        as_request(s.context, s.questions)
    with pytest.raises(ValueError, match="training sets only"):
        make_set(CorpusSpec(split="heldout", mix=V2_MIX, more_phrasings=True), 0)


def test_a_style_with_more_picks_from_the_seen_and_the_further_phrasings_only():
    own = tuple(f"p{i} {{x}}" for i in range(10))
    base.add_phrasings({"k": own}, {"k": ("m1 {x}", "m2 {x}")})
    rng = random.Random(0)
    got = {base.pick(rng, own, base.Style(more=True)) for _ in range(400)}
    assert got == set(base.seen_templates(own)) | {"m1 {x}", "m2 {x}"}
    assert {base.pick(rng, own, base.Style()) for _ in range(400)} == set(base.seen_templates(own))
