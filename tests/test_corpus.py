import random

from decider.engine.training.corpus import DOMAINS, CorpusSpec, _World, make_set, make_sets


def test_same_index_same_set_and_splits_differ():
    spec = CorpusSpec(split="test")
    a, b = make_set(spec, 17), make_set(spec, 17)
    assert (a.context, a.answers, [q.text for q in a.questions]) == (b.context, b.answers, [q.text for q in b.questions])
    other = make_set(CorpusSpec(split="train"), 17)
    assert other.context != a.context


def _world(domain="industrial"):
    return _World(random.Random(0), DOMAINS[domain][0])


def test_forward_chaining_on_a_hand_built_world():
    w = _world()
    w.atoms = [("pump 1", "running"), ("valve 2", "open"), ("tank 3", "flooded"), ("fan 4", "idle")]
    w.cats = [("line 5", "mode", ("manual", "automatic", "maintenance"), "automatic")]
    w.state_atom(0, True)
    w.add_rule([("b", 0, True)], ("b", 1, True))                    # pump running -> valve open
    w.add_rule([("b", 1, True), ("b", 3, False)], ("c", 0, "maintenance"))  # valve open & fan not idle -> maintenance
    w.add_rule([("b", 2, True)], ("b", 3, True))                    # tank flooded -> fan idle (never fires)
    true, cat = w.solve()
    assert set(true) == {0, 1}
    assert cat[0][0] == "maintenance"
    assert w.depth("b", 1) == 1 and w.depth("c", 0) == 2 and w.depth("b", 0) == 0
    # closed world: the unstated, underived tank is not flooded, so fan 4 is not idle
    assert 2 not in true and 3 not in true


def test_categorical_default_holds_when_no_rule_fires():
    w = _world("robot")
    w.atoms = [("zone 1", "occupied")]
    w.cats = [("robot 2", "speed", ("stop", "slow", "normal"), "normal")]
    w.add_rule([("b", 0, True)], ("c", 0, "stop"))
    assert w.solve()[1][0] == ("normal", None)
    w.state_atom(0, True)
    assert w.solve()[1][0][0] == "stop"


def test_sets_are_well_formed():
    for s in make_sets(CorpusSpec(split="validation"), 300):
        assert 1 <= len(s.questions) <= 8
        assert len({q.id for q in s.questions}) == len(s.questions)
        for q, a, sup in zip(s.questions, s.answers, s.support):
            assert 0 <= a < len(q.choices)
            if q.kind == "categorical":
                assert 2 <= len(q.options) <= 8 and len(set(q.options)) == len(q.options)
            if sup is not None:
                assert 0 <= sup < len(s.sentences)


def test_chained_sets_link_questions_across_depths():
    sets = make_sets(CorpusSpec(split="test"), 400)
    chained = [s for s in sets if s.chained]
    assert 0.4 < len(chained) / len(sets) < 0.9
    # a chained set asks about several depths, and deep chains exist
    assert all(len(set(s.depth)) >= 2 for s in chained)
    assert max(max(s.depth) for s in chained) == 5
    # both answers occur at depth >= 2 (no shortcut "deep means yes")
    deep = [a for s in chained for q, a, d in zip(s.questions, s.answers, s.depth) if d >= 2 and q.kind == "boolean"]
    assert 0.3 < sum(a == 0 for a in deep) / len(deep) < 0.7


def test_novel_lexicon_never_appears_in_training_sets():
    novel_words = set()
    for seen, novel in DOMAINS.values():
        novel_words |= {w for w in novel.entities + novel.states}
        novel_words |= {a for a, _ in novel.attributes}
        assert not set(novel.entities) & set(seen.entities)
        assert not set(novel.states) & set(seen.states)
    train_text = " ".join(s.context + " " + " ".join(q.text for q in s.questions)
                          for s in make_sets(CorpusSpec(split="train"), 300))
    assert not {w for w in novel_words if f" {w} " in f" {train_text} "}
    novel_text = " ".join(s.context for s in make_sets(CorpusSpec(split="novel"), 50))
    assert any(f" {w} " in novel_text for w in novel_words)


def test_dropping_a_revealed_support_removes_only_that_sentence():
    s = next(s for s in make_sets(CorpusSpec(split="train"), 50) if any(x is not None for x in s.support))
    i = next(i for i, x in enumerate(s.support) if x is not None)
    ctx = s.context_without({s.support[i]})
    assert s.sentences[s.support[i]] not in ctx
    assert len(ctx) < len(s.context)


def test_revealed_answers_stand_in_for_their_deleted_support():
    """What training relies on: delete the sentence behind a revealed answer, add the revealed
    answer as a fact, and every other answer stays the same."""
    rng = random.Random(3)
    from decider.engine.training.corpus import _chain, _distractor
    for trial in range(60):
        w = _World(rng, DOMAINS["industrial"][0])
        nodes = _chain(w, rng, 4)
        for _ in range(3):
            _distractor(w, rng)
        true, cat = w.solve()
        # reveal the true chain nodes, delete each one's support, state the node instead
        for lit in nodes:
            if lit[0] == "b" and lit[1] in true:
                sup = true[lit[1]]
                w.stated_true.pop(lit[1], None)
                w.rules = [r for r in w.rules if r[2] != sup]
                w.stated_true[lit[1]] = -1
            elif lit[0] == "c" and cat[lit[1]][1] is not None:
                sup = cat[lit[1]][1]
                w.stated_cat.pop(lit[1], None)
                w.rules = [r for r in w.rules if r[2] != sup]
                w.stated_cat[lit[1]] = (cat[lit[1]][0], -1)
        true2, cat2 = w.solve()
        assert set(true2) == set(true)
        assert {v: c[0] for v, c in cat2.items()} == {v: c[0] for v, c in cat.items()}


def test_every_generated_set_is_a_request_the_service_accepts():
    """Many thousands of sets of every split: non-empty context, valid questions, fits the window."""
    from decider.engine.checkpoint import DEFAULT_CHECKPOINT
    from decider.engine.request import as_request
    from decider.engine.tokenizer import DecisionTokenizer

    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for split in ("train", "validation", "test", "novel"):
        for max_links, count in ((0, 500), (1, 500), (5, 3000)):
            sets = make_sets(CorpusSpec(split=split, max_links=max_links), count)
            assert all(s.context.strip() for s in sets), split
            for s in sets:
                as_request(s.context, s.questions)
            tok.encode_batch([(s.context, s.questions) for s in sets])


def test_links_are_the_rules_between_asked_questions():
    """Each link is a rule of the context whose conditions and conclusion are asked; the true
    answers never contradict one (and flipping a conclusion does)."""
    from decider.engine.training.evaluate import contradicts

    sets = [s for s in make_sets(CorpusSpec(split="test"), 300) if s.links]
    assert len(sets) > 100
    for s in sets:
        assert not contradicts(s.links, s.answers)
    s = next(s for s in sets if all(s.answers[q] == a for q, a in s.links[0][0]))
    q, a = s.links[0][1]
    flipped = list(s.answers)
    flipped[q] = next(k for k in range(len(s.questions[q].choices)) if k != a)
    assert contradicts(s.links, flipped)
    assert not contradicts(s.links, [None] * len(s.answers))  # undecided answers contradict nothing


def test_v2_mix_splits_are_deterministic_accepted_and_keep_held_out_phrasing_apart():
    from collections import Counter

    from decider.engine.checkpoint import DEFAULT_CHECKPOINT
    from decider.engine.request import as_request
    from decider.engine.tokenizer import DecisionTokenizer
    from decider.engine.training.corpus import FAMILIES, V2_MIX, family_of

    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for split in ("train", "validation", "test", "novel", "heldout"):
        spec = CorpusSpec(split=split, mix=V2_MIX)
        sets = make_sets(spec, 150)
        again = make_set(spec, 7)
        assert (again.context, again.answers) == (sets[7].context, sets[7].answers)
        counts = Counter(family_of(s) for s in sets)
        drawn = {f for f, _ in V2_MIX}  # every family but the training-only ones
        assert set(counts) == (drawn - {"v1"} if split == "heldout" else drawn) and drawn <= set(FAMILIES), counts
        for s in sets:
            as_request(s.context, s.questions)
        assert max(len(e.prefix_ids) for e in tok.encode_batch([(s.context, s.questions) for s in sets])) <= 512
    train = {s.context for s in make_sets(CorpusSpec(split="train", mix=V2_MIX), 300)}
    test = {s.context for s in make_sets(CorpusSpec(split="test", mix=V2_MIX), 300)}
    assert not train & test


def test_a_mix_entry_can_cap_a_familys_rule_chains():
    """'readings@0' keeps a family's easy sets in a stage of long chains, 'readings@0:1' with one
    question each; plain entries draw the sets they always drew; a misspelt entry is refused
    saying what an entry may be."""
    import pytest

    from decider.engine.training.corpus import family_of
    from decider.engine.training.train import Stage

    capped = make_sets(CorpusSpec(split="train", max_links=5, mix=(("readings@0", 0.5), ("v1@0", 0.5))), 40)
    assert {family_of(s) for s in capped} == {"readings", "v1"}
    assert all(max(s.depth) == 0 for s in capped)
    deep = make_sets(CorpusSpec(split="train", max_links=5, mix=(("readings", 1.0),)), 40)
    assert any(max(s.depth) > 0 for s in deep)
    alone = make_sets(CorpusSpec(split="train", max_links=5, mix=(("readings", 0.5), ("v1", 0.5))), 20)
    beside = make_sets(CorpusSpec(split="train", max_links=5, mix=(("readings", 0.5), ("v1@5", 0.5))), 20)
    assert [s.context for s in alone if family_of(s) == "readings"] == \
        [s.context for s in beside if family_of(s) == "readings"]
    for bad in ("reading", "readings@6", "readings@x", "readings@0:0", "readings@0:9", "readings@0:"):
        with pytest.raises(ValueError, match="readings@0"):
            Stage(max_links=5, examples=10, mix={bad: 1.0})
    single = make_sets(CorpusSpec(split="train", max_links=5, mix=(("readings@0:1", 0.5), ("v1@0:2", 0.5))), 40)
    assert {family_of(s) for s in single} == {"readings", "v1"}
    assert all(len(s.questions) == (1 if family_of(s) == "readings" else len(s.questions)) for s in single)
    assert all(len(s.questions) <= 2 and max(s.depth) == 0 for s in single)
    assert any(len(s.questions) == 2 for s in single if family_of(s) == "v1")


def test_answer_links_read_rules_through_the_questions_asked():
    """base.answer_links on a hand-built world: a negated yes/no question, a categorical question
    standing for an atom, a rule with an unasked condition (no link) and one the context
    overrides (no link)."""
    from decider.engine.training.evaluate import contradicts
    from decider.engine.training.families.base import Asked, Program, SetBuilder, answer_links, program_rules

    p = Program()
    p.fact("hot", True, 0)
    p.value("mode", "auto", 1)  # stated: a rule cannot override it
    p.rule([("hot", True)], ("tripped", True), 2)
    p.rule([("tripped", True), ("cold", True)], ("alarm", True), 3)  # "cold" is not asked
    p.rule([("tripped", True)], ("mode", "manual"), 4)  # overridden by the stated mode
    p.cases("action", [([("tripped", True)], "stop", 5), ([("hot", True)], "slow", 6)], otherwise="go")
    solved = p.solve()
    b = SetBuilder("test")
    for text in ("TT-1 is hot.", "Mode: auto.", "r1", "r2", "r3", "r4", "r5"):
        b.say(text)
    b.ask_boolean("Is K-1 not tripped?", not solved["tripped"].value)
    b.ask_boolean("Is TT-1 hot?", solved["hot"].value)
    b.ask_choice("Which mode?", ["auto", "manual"], solved["mode"].value)
    b.ask_choice("What to do?", ["go", "slow", "stop"], solved["action"].value)
    ds = b.build(random.Random(0), shuffle="none")
    at = {q.text: i for i, q in enumerate(ds.questions)}
    asked = {"tripped": Asked("Is K-1 not tripped?", negated=True), "hot": Asked("Is TT-1 hot?"),
             "mode": Asked("Which mode?"), "action": Asked("What to do?")}
    links = answer_links(ds, program_rules(p.definitions), asked)
    assert sorted(links) == sorted([
        (((at["Is TT-1 hot?"], 0),), (at["Is K-1 not tripped?"], 1)),  # hot -> "not tripped?" no
        (((at["Is K-1 not tripped?"], 1),), (at["What to do?"], 2)),   # first case: tripped -> stop
    ])
    assert not contradicts(links, ds.answers)


def test_v2_families_with_rules_between_questions_carry_links():
    """Every v2 family's sets link their asked questions through the context's rules (the eval's
    consistency figure); true answers never contradict them and flipping a fired conclusion does."""
    from decider.engine.training.evaluate import contradicts

    for family in ("readings", "reports", "contracts", "quantified"):
        sets = make_sets(CorpusSpec(split="validation", mix=((family, 1.0),)), 120)
        linked = [s for s in sets if s.links]
        assert len(linked) > 25, family
        fired = 0
        for s in linked:
            assert not contradicts(s.links, s.answers)
            for conditions, (q, a) in s.links:
                assert 0 <= q < len(s.questions) and 0 <= a < len(s.questions[q].choices)
                if all(s.answers[i] == v for i, v in conditions):
                    flipped = list(s.answers)
                    flipped[q] = (a + 1) % len(s.questions[q].choices)
                    assert contradicts(s.links, flipped)
                    fired += 1
        assert fired > 5, family


def test_the_evaluation_splits_are_the_sets_the_model_card_measured():
    """A generator change that moves the validation or test splits makes every figure measured
    on them (MODEL_CARD.md, NOTES.md, docs/BENCHMARKS.md) incomparable with the next: such a
    change must be deliberate, re-measure them, and update these fingerprints (sha256 of the
    first 30 sets of the v2 mix: contexts, questions, answers)."""
    import hashlib
    import json

    from decider.engine.training.corpus import V2_MIX

    def fingerprint(split: str) -> str:
        sets = make_sets(CorpusSpec(split=split, mix=V2_MIX), 30)
        blob = json.dumps([[s.context, [q.text for q in s.questions], list(s.answers)] for s in sets])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    assert {split: fingerprint(split) for split in ("validation", "test", "heldout", "novel")} == {
        "validation": "e4f40edb07b942d3", "test": "4c6ec090676d4675", "heldout": "f514e41a607d4e6f",
        "novel": "0d26a5805dbda06b"}


def test_twins_come_from_families_that_draw_them_and_others_come_alone():
    from decider.engine.training.corpus import family_of, make_twins

    spec = CorpusSpec(split="train", max_links=2, mix=(("readings", 0.5), ("contracts", 0.25), ("v1", 0.25)))
    drawn = [make_twins(spec, i) for i in range(24)]
    for i, sets in enumerate(drawn):
        if family_of(sets[0]) == "readings":
            assert len(sets) in (1, 2)
        else:
            assert [s.context for s in sets] == [make_set(spec, i).context]
    assert sum(len(sets) == 2 for sets in drawn) >= 6


def test_a_sentence_that_ends_on_a_name_with_a_full_stop_keeps_one():
    from decider.engine.training.families.base import SetBuilder

    b = SetBuilder("test")
    b.say("keystone Inc. guarantees Triton Inc..")
    b.ask_choice("Tell me the tier of Argon Inc..", ["gold", "silver"], "gold")
    b.ask_boolean("is it true that TT-1 is hot?", True)
    assert b.sentences == ["Keystone Inc. guarantees Triton Inc."]
    assert [q.text for q in b.questions] == ["Tell me the tier of Argon Inc.", "Is it true that TT-1 is hot?"]
