"""Sets rewritten in shorthand (engine/training/shorthand.py): other words, the same answers."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest
from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.names import sentence_spans
from decider.engine.numbers import number_spans
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.corpus import CorpusSpec, make_set, make_sets, make_twins
from decider.engine.training.shorthand import TABLE, rewrite, rewrite_text
from decider.engine.training.train import Stage, TrainConfig, sets_at

MIX = (("v1", 1.0), ("readings", 1.0), ("contracts", 1.0), ("reports", 1.0), ("quantified", 1.0), ("rulebase", 1.0))
NEGATED = re.compile(r"\bnot\b|cannot|n't\b|w/o|without", re.IGNORECASE)


def test_hand_built_sentences_change_their_words_not_their_sense():
    rng = random.Random(0)
    text = "The discharge temperature is not above 128 °C and the pump does not run without its operator."
    out = rewrite_text(text, rng, 1.0, set())
    assert out != text
    assert "128 °C" in out and out.endswith(".")
    assert len(NEGATED.findall(out)) == len(NEGATED.findall(text)) == 3  # "is not", "does not", "without"
    assert rewrite_text("Is P-7B's temp above its trip?", random.Random(1), 1.0, set()) \
        == "Is P-7B's temperature above its trip?"  # a short form grows back; "'s" is no "seconds"
    assert rewrite_text("The line is at max temp.", random.Random(2), 1.0, set()).endswith(".")
    assert rewrite_text("K-102 on S/B.", random.Random(2), 1.0, set()).lower() in ("k-102 on standby.", "k-102 on stand-by.")


def test_negated_forms_only_become_negated_forms():
    for form, others in TABLE.items():
        for other in others:
            assert bool(NEGATED.search(form)) == bool(NEGATED.search(other)), (form, other)


def test_option_words_are_never_rewritten():
    text = "Pump P-1 is in automatic mode with standby power; the alarm level is high."
    out = rewrite_text(text, random.Random(3), 1.0, {"automatic", "alarm"})
    assert "automatic" in out and "alarm" in out
    assert "standby" not in out  # the words no option holds still change


@pytest.fixture(scope="module")
def pairs():
    spec = CorpusSpec(split="train", mix=MIX, more_phrasings=True)
    sets = make_sets(spec, 240)
    return [(s, rewrite(s, f"test:{i}")) for i, s in enumerate(sets)]


def test_a_rewritten_set_asks_the_same_questions_with_the_same_answers(pairs):
    changed = 0
    for s, r in pairs:
        assert (r.answers, r.support, r.depth, r.links, r.domain) == (s.answers, s.support, s.depth, s.links, s.domain)
        assert len(r.sentences) == len(s.sentences)
        assert [(q.id, q.kind, q.options) for q in r.questions] == [(q.id, q.kind, q.options) for q in s.questions]
        # no sentence lost its end or gained one (names link within sentences), no number lost
        assert len(sentence_spans(r.context)) == len(sentence_spans(s.context))
        before, after = (Counter(v for _, _, v in number_spans(x.context)) for x in (s, r))
        assert not before - after
        for q in s.questions:  # an option is still where the context names it
            for o in q.options:
                assert (o.lower() in s.context.lower()) <= (o.lower() in r.context.lower())
        changed += r.context != s.context or any(a.text != b.text for a, b in zip(s.questions, r.questions))
    assert changed > 0.8 * len(pairs)


def test_rewritten_sets_are_accepted_by_the_service(pairs):
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for _, r in pairs:
        as_request(r.context, r.questions)
    assert max(len(e.prefix_ids) for e in tok.encode_batch([(r.context, r.questions) for _, r in pairs])) <= 512


def test_the_corpus_rewrites_a_share_of_training_sets_and_no_evaluation_split():
    plain = CorpusSpec(split="train", mix=MIX)
    spec = CorpusSpec(split="train", mix=MIX, shorthand=0.5)
    drawn = [(make_set(plain, i), make_set(spec, i)) for i in range(120)]
    assert drawn[7][1].context == make_set(spec, 7).context  # deterministic
    rewritten = sum(a.context != b.context for a, b in drawn)
    assert 0.3 * len(drawn) < rewritten < 0.7 * len(drawn)
    assert all(a.answers == b.answers for a, b in drawn)
    for split in ("validation", "test", "heldout", "novel"):
        with pytest.raises(ValueError, match="training sets only"):
            make_set(CorpusSpec(split=split, mix=MIX, shorthand=0.5), 0)


def test_a_twin_is_rewritten_as_its_set_is():
    spec = CorpusSpec(split="train", max_links=1, mix=(("readings", 1.0),), shorthand=1.0)
    plain = replace(spec, shorthand=0.0)
    digits = re.compile(r"\d[\d,.]*")
    alike = 0
    for i in range(40):
        drawn, rewritten = make_twins(plain, i), make_twins(spec, i)
        if len(drawn) < 2:
            continue
        for (a, b), (ra, rb) in zip(zip(drawn[0].sentences, drawn[1].sentences),
                                    zip(rewritten[0].sentences, rewritten[1].sentences)):
            if digits.sub("#", a) == digits.sub("#", b):  # the pair's sentences differ in numbers at most
                assert digits.sub("#", ra) == digits.sub("#", rb)
                alike += 1
    assert alike > 100


def test_a_training_stage_passes_its_shorthand_share_to_the_corpus():
    stage = {"max_links": 2, "examples": 50, "mix": {"reports": 1.0}}
    plain = TrainConfig(stages=[Stage(**stage)])
    short = TrainConfig(stages=[Stage(**stage, shorthand=1.0)])
    assert sum(sets_at(plain, [], i)[0].context != sets_at(short, [], i)[0].context for i in range(20)) > 15
