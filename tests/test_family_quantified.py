"""Corpus v2 family `quantified`: ground truth on hand-built programs, then properties of
generated sets (service limits, balance, phrasing and lexicon splits, determinism)."""

import collections
import random
import re

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.families import base
from decider.engine.training.families import quantified as q
from decider.engine.training.families.base import Style
from decider.engine.training.families.quantified import Rule, Sent, Universe, solve

STYLES = (Style(), Style(heldout=True), Style(novel=True))


def kind(vocab, key):
    return next(k for ks in vocab.kinds.values() for k in ks if k.key == key)


# ----------------------------------------------------------------------------- ground truth
def things(n):
    """n entities whose kind the text always gives (no tags)."""
    return Universe(["object.box"] * n, [False] * n, [False] * n)


def test_a_rule_with_two_conditions_needs_both():
    # 0 = D-1 (sealed, heavy), 1 = D-2 (sealed only); "All sealed, heavy drums are inspected."
    uni = Universe(["holder.drum"] * 2, [False] * 2, [True] * 2)
    sents = [Sent(facts=(("u", "sealed", 0), ("u", "heavy", 0)), intros=(0,)),
             Sent(facts=(("u", "sealed", 1),), intros=(1,)),
             Sent(rule=Rule((("k", "holder.drum", "X"), ("u", "sealed", "X", True), ("u", "heavy", "X", True)),
                            ("u", "inspected", "X")))]
    m = solve(sents, uni)
    assert m.true[("u", "inspected", 0)] == (1, 2)
    assert not m.holds(("u", "inspected", 1))
    assert not m.conflicts


def test_a_negated_condition_holds_only_when_its_atom_is_not_established():
    # "If something is round and not red then it is small."
    # 0: round, red unknown -> small; 1: round and stated red -> not small;
    # 2: round and red derived ("Painted things are red.") -> not small (evaluated in a later stratum)
    small = Sent(rule=Rule((("u", "round", "X", True), ("u", "red", "X", False)), ("u", "small", "X")))
    red = Sent(rule=Rule((("u", "painted", "X", True),), ("u", "red", "X")))
    sents = [small, Sent(facts=(("u", "round", 0), ("u", "round", 1), ("u", "red", 1), ("u", "round", 2),
                                ("u", "painted", 2))), red]
    m = solve(sents, things(3))
    assert m.holds(("u", "small", 0)) and m.true[("u", "small", 0)] == (1, 0)
    assert not m.holds(("u", "small", 1))
    assert m.holds(("u", "red", 2)) and not m.holds(("u", "small", 2))
    assert q.strata([small.rule, red.rule]) == {("u", "small"): 1, ("u", "red"): 0}
    # the generator never writes this (a negated condition on a concluded attribute)
    assert not q.negation_is_safe([small.rule, red.rule]) and q.negation_is_safe([small.rule])
    # a stated negative changes nothing: "The box is not red." keeps small
    m = solve([small, Sent(facts=(("u", "round", 0),)), Sent(negs=(("u", "red", 0),))], things(1))
    assert m.holds(("u", "small", 0)) and m.neg == {("u", "red", 0): 2}


def test_negation_through_a_cycle_is_refused():
    a = Rule((("u", "big", "X", True), ("u", "red", "X", False)), ("u", "small", "X"))
    b = Rule((("u", "big", "X", True), ("u", "small", "X", False)), ("u", "red", "X"))
    with pytest.raises(ValueError, match="stratified"):
        q.strata([a, b])


def test_a_relation_rule_binds_who_feeds_whom():
    # 0 = P-1, 1 = P-2 (pumps); 2 = TK-1 (full), 3 = TK-2; P-1 feeds TK-1, P-2 feeds TK-2
    # "If a pump feeds a tank that is full, the pump stops."
    uni = Universe(["mover.pump", "mover.pump", "holder.tank", "holder.tank"], [False] * 4, [True] * 4)
    rule = Rule((("k", "mover.pump", "X"), ("k", "holder.tank", "Y"), ("r", "feeds", "X", "Y"),
                 ("u", "full", "Y", True)), ("u", "stopped", "X"))
    sents = [Sent(facts=(("r", "feeds", 0, 2), ("r", "feeds", 1, 3)), intros=(0, 1, 2, 3)),
             Sent(facts=(("u", "full", 2),)), Sent(rule=rule)]
    m = solve(sents, uni)
    assert m.holds(("u", "stopped", 0))
    assert not m.holds(("u", "stopped", 1))          # its tank is not full
    assert not m.holds(("u", "stopped", 2))          # the tank is not what stops
    assert not m.holds(("r", "feeds", 2, 0))         # nobody said the tank feeds the pump
    # the same facts the other way round: TK-1 is full, but P-1 is fed by nothing
    m = solve([Sent(facts=(("r", "feeds", 2, 0),), intros=(0, 1, 2, 3)), Sent(facts=(("u", "full", 2),)),
               Sent(rule=rule)], uni)
    assert not m.holds(("u", "stopped", 0))


def test_a_rule_can_conclude_a_relation_with_its_arguments_swapped():
    # "If someone chases the mouse then the mouse fears them." 0 = bear, 1 = mouse, 2 = cat
    uni = Universe(["animal.bear", "animal.mouse", "animal.cat"], [True] * 3, [False] * 3)
    rule = Rule((("a", "X"), ("r", "chases", "X", 1)), ("r", "fears", 1, "X"))
    m = solve([Sent(facts=(("r", "chases", 0, 1), ("r", "chases", 1, 2))), Sent(rule=rule)], uni)
    assert m.holds(("r", "fears", 1, 0))
    assert not m.holds(("r", "fears", 0, 1)) and not m.holds(("r", "fears", 1, 2))


def test_a_chain_of_three_rules_is_derived_step_by_step():
    sents = [Sent(facts=(("u", "hot", 0),)),
             Sent(rule=Rule((("u", "hot", "X", True),), ("u", "vented", "X"))),
             Sent(rule=Rule((("u", "vented", "X", True),), ("u", "tagged", "X"))),
             Sent(rule=Rule((("u", "tagged", "X", True),), ("u", "locked", "X")))]
    m = solve(sents, things(1))
    assert [m.true[("u", a, 0)] for a in ("hot", "vented", "tagged", "locked")] == [(0, 0), (1, 1), (2, 2), (3, 3)]
    # a shortcut gives the least depth
    m = solve(sents + [Sent(rule=Rule((("u", "hot", "X", True),), ("u", "locked", "X")))], things(1))
    assert m.true[("u", "locked", 0)] == (1, 4)
    # without the start fact nothing follows
    m = solve(sents, things(1), deleted={0})
    assert not any(m.holds(("u", a, 0)) for a in ("hot", "vented", "tagged", "locked"))


def test_closed_world_an_atom_nobody_mentions_is_false():
    m = solve([Sent(facts=(("u", "hot", 0),))], things(2))
    assert not m.holds(("u", "purple", 0)) and not m.holds(("u", "hot", 1))
    assert not m.holds(("r", "feeds", 0, 1)) and m.value(("c", "colour", 0)) is None


def test_a_kind_condition_needs_the_text_to_give_the_kind():
    # "D-14 is sealed." does not say D-14 is a drum; "The drum D-14 ..." or a question naming it does
    uni = Universe(["holder.drum"], [False], [True])
    rule = Sent(rule=Rule((("k", "holder.drum", "X"), ("u", "sealed", "X", True)), ("u", "inspected", "X")))
    assert not solve([Sent(facts=(("u", "sealed", 0),)), rule], uni).holds(("u", "inspected", 0))
    assert solve([Sent(facts=(("u", "sealed", 0),), intros=(0,)), rule], uni).holds(("u", "inspected", 0))
    assert solve([Sent(facts=(("u", "sealed", 0),)), rule], uni, q_intros={0}).holds(("u", "inspected", 0))


def test_an_excepted_entity_is_left_out():
    # "All sealed things, except box 0, are inspected."
    rule = Sent(rule=Rule((("u", "sealed", "X", True), ("ne", "X", 0)), ("u", "inspected", "X")))
    m = solve([Sent(facts=(("u", "sealed", 0), ("u", "sealed", 1))), rule], things(2))
    assert not m.holds(("u", "inspected", 0)) and m.holds(("u", "inspected", 1))


def test_categorical_default_stated_value_and_rule():
    # "Balls are green unless stated otherwise." 0: nothing said; 1: "is red"; 2: heavy -> "Heavy balls are blue."
    uni = Universe(["object.ball"] * 3, [False] * 3, [False] * 3)
    sents = [Sent(defaults=(("colour", "object.ball", "green"),)),
             Sent(vals=((("c", "colour", 1), "red"),)),
             Sent(facts=(("u", "heavy", 2),)),
             Sent(rule=Rule((("k", "object.ball", "X"), ("u", "heavy", "X", True)), ("c", "colour", "X", "blue")))]
    m = solve(sents, uni)
    assert m.cats[("c", "colour", 0)] == ("green", 0, None)
    assert m.cats[("c", "colour", 1)] == ("red", 0, 1)
    assert m.cats[("c", "colour", 2)] == ("blue", 1, 3)
    # a rule against a stated value, or two rules that disagree, is a contradiction
    clash = Sent(rule=Rule((("u", "heavy", "X", True),), ("c", "colour", "X", "red")))
    assert solve(sents + [clash], uni).conflicts
    assert solve(sents + [Sent(facts=(("u", "heavy", 1),))], uni).conflicts
    # stated false but derived
    assert solve([Sent(facts=(("u", "heavy", 0),)), Sent(negs=(("u", "slow", 0),)),
                  Sent(rule=Rule((("u", "heavy", "X", True),), ("u", "slow", "X")))], things(1)).conflicts


# ----------------------------------------------------------------------------- questions and supports
def _world(seed=0):
    return q._World(random.Random(seed), Style(), q.PLANT, 4, 2)


def _negated(text):
    return bool(re.search(r"\bnot \w|isn't|false that|wrong to say", text))  # not "... or not?"


def test_a_negated_question_flips_the_answer_and_an_antonym_reads_the_same_atom():
    w = _world()
    e = w.new_entity(kind=kind(q.PLANT, "mover.pump"))
    for a in ("sealed", "running"):
        w.used.add(a)
        w.role[a] = "base"
    w.antonym["running"] = "stopped"
    w.fact(e, "sealed")
    w.fact(e, "running", positive=False)  # "P-x is not running." or "P-x is stopped."
    model = solve(w.sents, w.universe())
    seen = collections.Counter()
    for seed in range(300):
        for atom, truth in ((("u", "sealed", e), True), (("u", "running", e), False)):
            w.rng = random.Random(seed)
            w._asked = []
            got = w.ask(q.Target("bool", atom), model)
            text = got["text"]
            if "stopped" in text:
                form = "antonym"
            elif _negated(text):
                form = "negated"
            else:
                form = "plain"
            seen[form] += 1
            assert got["answer"] == (truth if form == "plain" else not truth), text
            assert got["depth"] == 0
    assert min(seen.values()) > 10, seen


def test_supports_a_shared_rule_supports_neither_answer():
    w = _world()
    drum = kind(q.PLANT, "holder.drum")
    d1, d2 = w.new_entity(kind=drum), w.new_entity(kind=drum)
    w.sents = [Sent("The drum D-1 is sealed.", facts=(("u", "sealed", d1),), intros=(d1,)),
               Sent("The drum D-2 is sealed.", facts=(("u", "sealed", d2),), intros=(d2,)),
               Sent("Sealed drums are inspected.",
                    rule=Rule((("k", drum.key, "X"), ("u", "sealed", "X", True)), ("u", "inspected", "X"))),
               Sent("D-1 is hot.", facts=(("u", "hot", d1),))]
    uni = w.universe()
    model = solve(w.sents, uni)

    def asked(atom):
        truth = model.holds(atom)
        cand = model.true[atom][1] if truth else model.neg.get(atom)
        return dict(kind="bool", atom=atom, truth=truth, cand=cand)

    both = [asked(("u", "inspected", d1)), asked(("u", "inspected", d2))]
    assert w.supports(uni, model, both) == [None, None]
    one = [asked(("u", "inspected", d1)), asked(("u", "hot", d1))]
    assert w.supports(uni, model, one) == [2, 3]
    # deleting "The drum D-1 is sealed." loses that D-1 is a drum: the answer that D-1 is
    # sealed cannot stand in for it while D-1 being inspected is asked too
    two = [asked(("u", "sealed", d1)), asked(("u", "inspected", d1))]
    assert w.supports(uni, model, two) == [None, 2]


# ----------------------------------------------------------------------------- generated sets
@pytest.fixture(scope="module")
def tokenizer():
    return DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")


@pytest.fixture(scope="module")
def corpus():
    out = []
    for i in range(1512):
        style = STYLES[i % 3]
        n, links = 1 + i % 8, (i // 8) % 6
        out.append((q.generate(random.Random(f"quantified:{i}"), style, n, links), n, links, style))
    return out


def test_generated_sets_are_accepted_by_the_service(corpus, tokenizer):
    longest = 0
    for s, n, links, _ in corpus:
        assert s.domain == "quantified" and s.context.strip()
        assert len(s.questions) == len(s.answers) == len(s.depth) == len(s.support) == n
        assert all(0 <= d <= links for d in s.depth)
        assert len({x.text for x in s.questions}) == n
        for x, a in zip(s.questions, s.answers):
            assert 0 <= a < len(x.choices)
            if x.kind == "categorical":
                assert 2 <= len(x.options) <= 8 and len(set(x.options)) == len(x.options)
                assert all(o.strip() for o in x.options)
        assert all(sp is None or 0 <= sp < len(s.sentences) for sp in s.support)
        for text in s.sentences + [x.text for x in s.questions]:
            assert not re.search(r"[{}]|  | [.,?]$", text) and text[0].isupper() and text[-1] in ".?", text
        as_request(s.context, s.questions)
        longest = max(longest, len(tokenizer.encode(s.context, s.questions).prefix_ids))
    assert longest <= 400


def test_answers_are_balanced_and_a_third_categorical(corpus):
    answers = [(x.kind, a) for s, *_ in corpus for x, a in zip(s.questions, s.answers)]
    boolean = [a for k, a in answers if k == "boolean"]
    assert 0.35 <= boolean.count(0) / len(boolean) <= 0.65
    assert 0.2 <= (len(answers) - len(boolean)) / len(answers) <= 0.45
    for n in range(1, 9):  # balanced at every size, not only overall
        b = [a for s, k, *_ in corpus if k == n for x, a in zip(s.questions, s.answers) if x.kind == "boolean"]
        assert 0.35 <= b.count(0) / len(b) <= 0.65, n


def test_sets_ask_deep_chained_negated_and_excepted_things(corpus):
    deep = collections.Counter(d for s, *_ in corpus for d in s.depth)
    assert all(deep[d] > 10 for d in range(6)), deep
    sets = [s for s, _, links, _ in corpus if links >= 2]
    share = lambda f: sum(map(f, sets)) / len(sets)
    assert share(lambda s: s.chained) > 0.3
    assert share(lambda s: any(_negated(x.text) for x in s.questions)) > 0.25
    assert share(lambda s: any(re.search(r"\bunless\b|\bexcept|\bnot\b|\bbut not\b|n't", t) for t in s.sentences)) > 0.3
    assert share(lambda s: any(x.kind == "categorical" for x in s.questions)) > 0.4
    assert share(lambda s: any(sp is not None for sp in s.support)) > 0.8
    flat = [s for s, _, links, _ in corpus if links == 0]
    assert all(d == 0 for s in flat for d in s.depth) and not any(s.chained for s in flat)


def test_same_seed_same_set_and_seeds_differ():
    for n, links in ((1, 0), (5, 3), (8, 5)):
        for style in STYLES:
            a = q.generate(random.Random(f"det:{n}:{links}"), style, n, links)
            b = q.generate(random.Random(f"det:{n}:{links}"), style, n, links)
            assert a == b
    assert q.generate(random.Random(1), Style(), 8, 5) != q.generate(random.Random(2), Style(), 8, 5)


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        q.generate(random.Random(0), Style(), 9, 2)
    with pytest.raises(ValueError):
        q.generate(random.Random(0), Style(), 3, 6)


# ----------------------------------------------------------------------------- phrasings and lexicon
FREQUENT = ("FACT", "FACT_NOT", "FACT_REL", "CAT_FACT", "CAT_DEFAULT", "RULE_IF", "RULE_ADJ", "RULE_UNLESS",
            "RULE_REL_OBJ", "RULE_REL_SUBJ", "RULE_TO_CONST", "RULE_FROM_CONST", "Q_IS", "Q_IS_NOT", "Q_REL",
            "Q_REL_NOT", "Q_CAT", "Q_WHICH")


def test_every_pattern_has_enough_distinct_phrasings():
    for key, phrasings in q.TEMPLATES.items():
        assert isinstance(phrasings, tuple) and len(phrasings) >= 5, key
        assert len(set(phrasings)) == len(phrasings), key
        assert base.held_out_templates(phrasings), key
    for key in FREQUENT:
        assert 10 <= len(q.TEMPLATES[key]) <= 30, key


def test_every_phrasing_renders(monkeypatch):
    """Cycle through every phrasing of every pattern instead of drawing them at random."""
    turn = collections.Counter()
    used = collections.defaultdict(set)
    by_id = {id(t): k for k, t in q.TEMPLATES.items()}

    def cycle(rng, templates, style):
        key = by_id[id(templates)]  # every phrasing comes from TEMPLATES
        i = turn[key] % len(templates)
        turn[key] += 1
        used[key].add(i)
        return templates[i]

    monkeypatch.setattr(base, "pick", cycle)
    for i in range(500):
        q.generate(random.Random(f"cover:{i}"), Style(), 1 + i % 8, i % 6)
        if all(len(used[k]) == len(t) for k, t in q.TEMPLATES.items()):
            break
    missing = {k: len(t) - len(used[k]) for k, t in q.TEMPLATES.items() if len(used[k]) < len(t)}
    assert not missing


def _recording(monkeypatch, func):
    calls = []
    original = getattr(base, func)

    def wrapper(rng, pool, style, *args):
        got = original(rng, pool, style, *args)
        calls.append((pool, got, style))
        return got

    monkeypatch.setattr(base, func, wrapper)
    return calls


def test_held_out_phrasings_only_in_the_held_out_split(monkeypatch):
    calls = _recording(monkeypatch, "pick")
    for i in range(240):
        q.generate(random.Random(f"split:{i}"), STYLES[i % 3], 1 + i % 8, i % 6)
    assert len(calls) > 3000
    for templates, got, style in calls:
        held = base.is_held_out(templates.index(got))
        assert held == style.heldout, (got, style)


def test_novel_names_come_from_the_tails_and_seen_names_never_do(monkeypatch):
    calls = _recording(monkeypatch, "names")
    for i in range(240):
        q.generate(random.Random(f"lex:{i}"), STYLES[i % 3], 1 + i % 8, i % 6)
    pools = collections.Counter()
    for pool, got, style in calls:
        cut = max(1, int(len(pool) * 0.75))
        assert len(pool) > cut, "a pool without a novel tail"
        assert (pool.index(got) >= cut) == style.novel, (got, style)
        pools[id(pool)] += 1
    assert len(pools) > 30
    # look-alike tags (FT-204 / FT-240) stay in the half their original came from
    cut = int(len(q.TAGNUM) * 0.75)
    for i, item in enumerate(q.TAGNUM):
        assert len(q.look_alike(item)) == 3
        assert all((q.TAGNUM.index(x) >= cut) == (i >= cut) for x in q.look_alike(item))


def test_lexicon_is_large_and_its_words_do_not_leak_into_each_other():
    kinds = sum(len(ks) for v in q.VOCABS for ks in v.kinds.values())
    attrs = sum(len(a) for v in q.VOCABS for a in v.attrs.values())
    pairs = sum(len(p) for v in q.VOCABS for p in v.pairs.values())
    rels = sum(len(v.rels) for v in q.VOCABS)
    assert kinds >= 120 and attrs + 2 * pairs >= 400 and rels >= 80
    assert len(q.PEOPLE) >= 200 and len(q.COMPANIES) >= 250 and len(q.TAGNUM) == 256
    for v in q.VOCABS:
        for pool, words in v.attrs.items():
            assert len(set(words)) == len(words), (v.key, pool)
            paired = {w for p in v.pairs.get(pool, ()) for w in p.split("/")}
            assert not paired & set(words), (v.key, pool, paired & set(words))
            # "A feeds B" must not read as "B is fed": no attribute is a relation's participle
            participles = {r.pp for r in v.rels} | {r.past for r in v.rels} | {r.base + "d" for r in v.rels} | {
                r.base + "ed" for r in v.rels}
            assert not participles & (set(words) | paired), (v.key, participles & (set(words) | paired))
        prefixes = [k.pattern for ks in v.kinds.values() for k in ks if k.style == "tag" and k.pool == "TAGNUM"]
        assert len(set(prefixes)) == len(prefixes), v.key


def _unary_questions(monkeypatch, closed_world: float, n: int = 120) -> collections.Counter:
    """quantified.attribute_group of every yes/no question about an attribute in n sets, as the
    generator's own solver has it."""
    seen: collections.Counter = collections.Counter()
    ask = q._World.ask

    def counting(self, t, model):
        got = ask(self, t, model)
        if got["kind"] == "bool" and t.key[0] == "u":
            seen[q.attribute_group(t.key, model)] += 1
        return got

    monkeypatch.setattr(q._World, "ask", counting)
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for i in range(n):
        s = q.generate(random.Random(f"closed:{i}"), Style(), 1 + i % 8, i % 4, closed_world=closed_world)
        tok.encode(s.context, s.questions)
        as_request(s.context, s.questions)
    return seen


def test_closed_world_probes_ask_who_has_an_attribute(monkeypatch):
    """generate(closed_world=1.0): more of the yes/no questions are ones that reading "is the
    attribute said anywhere?" gets wrong (said of another entity, not of the asked one; a rule's
    conclusion asked where its conditions fail), and the
    sets stay well-formed; closed_world=0 is the family's own draw."""
    plain, closed = _unary_questions(monkeypatch, 0.0), _unary_questions(monkeypatch, 1.0)
    share = {name: c["false, said of another"] / sum(c.values()) for name, c in (("plain", plain), ("closed", closed))}
    assert share["closed"] >= 0.3 and share["closed"] >= share["plain"] + 0.05, share
    nobody = {name: c["false, said of nobody"] / sum(c.values()) for name, c in (("plain", plain), ("closed", closed))}
    assert nobody["closed"] >= nobody["plain"] + 0.02, nobody  # more broken chains: conclusions that do not follow
    assert q.generate(random.Random("c"), Style(), 5, 2).context == \
        q.generate(random.Random("c"), Style(), 5, 2, closed_world=0.0).context
    with pytest.raises(ValueError, match="share"):
        q.generate(random.Random(0), Style(), 4, 1, closed_world=-0.1)


def test_the_closed_world_probe_answers_are_what_the_text_says():
    """bench/closed_world_probe.py: every probe's answer, re-derived from its own sentences
    (facts, whom each entity relates to, one rule, closed world), and every "no" asks an
    attribute the text does say, of someone else or in a rule: the probe tells binding from
    word spotting."""
    from closed_world_probe import FORMS, VERBS, probe

    rule = re.compile(r"^(?:If someone is (\w+) then they are (\w+)|All (\w+) things are (\w+)|(\w+) things are (\w+)"
                      r"|If something is (\w+) then it is (\w+))\.$")
    verb = "|".join(v for v, _ in VERBS)
    related = re.compile(rf"^(?:If something ({verb}) something (\w+) then it is (\w+)|Anything that ({verb}) a "
                         rf"(\w+) thing is (\w+)|Whoever ({verb}) someone who is (\w+) is (\w+))\.$")
    relation = re.compile(rf"^(?:If something ({verb}) (.+) then it is (\w+)|Anything that ({verb}) (.+) is (\w+)"
                          rf"|Whoever ({verb}) (.+) is (\w+))\.$")
    asked = (r"^Is it true that (.+) is (\w+)\?$", r"^(.+) is (\w+): yes or no\?$", r"^Is (.+) (\w+)\?$")
    rng = random.Random(0)
    for form in FORMS:
        for _ in range(200):
            context, question, yes = probe(rng, form)
            has: dict[str, set[str]] = collections.defaultdict(set)
            rels, rules, rel_rules = [], [], []
            for sentence in re.split(r"(?<=\.) ", context):
                if got := rule.match(sentence):
                    cond, concl = [g for g in got.groups() if g]
                    rules.append((cond.lower(), concl))
                elif got := related.match(sentence):
                    rel_rules.append(("related", *[g for g in got.groups() if g]))
                elif got := relation.match(sentence):
                    rel_rules.append(("relation", *[g for g in got.groups() if g]))
                elif got := re.match(rf"^(.+) ({verb}) (.+)\.$", sentence):
                    rels.append((got[1].lower(), got[2], got[3].lower()))
                else:
                    ent, attrs = re.match(r"^(.+) is (\w+(?: and \w+)?)\.$", sentence).groups()
                    has[ent.lower()] |= set(attrs.split(" and "))
            for cond, concl in rules:
                for attrs in has.values():
                    if cond in attrs:
                        attrs.add(concl)
            for kind, v, what, concl in rel_rules:
                for e, v2, o in rels:
                    if v2 == v and (o == what.lower() if kind == "relation" else what in has[o]):
                        has[e].add(concl)
            ent, attr = next(m.groups() for m in (re.match(p, question) for p in asked) if m)
            assert (attr in has[ent.lower()]) is yes, (context, question, yes)
            assert attr in context
