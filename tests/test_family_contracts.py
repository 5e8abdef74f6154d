"""Corpus v2 family `contracts`: hand-built clauses of every kind (with the edge cases a
reviewer trips on), determinism, 1,500+ generated sets accepted by the service, the phrasebook
and the held-out-template and novel-lexicon splits."""

import random
import re

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.evaluate import contradicts
from decider.engine.training.families import base
from decider.engine.training.families import contracts as c
from decider.engine.training.families.base import Style

JUR = {j.country: j for j in c.JURISDICTIONS}
GERMANY, FRANCE, ENGLAND = JUR["Germany"], JUR["France"], JUR["England and Wales"]
CONF = ("breach of its confidentiality obligations", "breach of confidentiality")
FRAUD = ("fraud or fraudulent misrepresentation", "fraud")
LATE = ("late delivery", "late delivery")
STYLES = (Style(), Style(heldout=True), Style(novel=True))


def doc(seed: int = 0, style: Style = Style(), max_links: int = 5) -> c.Doc:
    """Acme Logistics (the Supplier, German) and Beta Foods (the Customer, French)."""
    d = c.Doc(random.Random(seed), style, max_links)
    d.preamble(roles=("Supplier", "Customer"), jurs=(GERMANY, FRANCE), names_=(("Acme", "Logistics"), ("Beta", "Foods")))
    return d


def only_answer(d: c.Doc, key, negated: bool = False):
    ds = d.ask_keys([key], [key] if negated else [])
    q = ds.questions[0]
    return q.choices[ds.answers[0]], ds


# ----------------------------------------------------------------------------- small functions
def test_comparisons_are_exact_at_the_boundary():
    assert c.within(30, c.D(30)) and not c.within(31, c.D(30)) and c.within(1, c.D(14))
    assert c.exceeds(61, c.D(60)) and not c.exceeds(60, c.D(60))
    assert c.timely(90, c.D(90)) and not c.timely(89, c.D(90))
    assert c.cap_applies(True, False) and not c.cap_applies(True, True) and not c.cap_applies(False, False)
    with pytest.raises(ValueError):
        c.within(10, c.M(1))


def test_periods_in_words_and_digits():
    assert c.number_words(90) == "ninety" and c.number_words(45) == "forty-five"
    assert c.number_words(120) == "one hundred and twenty" and c.number_words(12) == "twelve"
    assert c.D(90).label() == "90 days" and c.M(6).label() == "six months" and c.Y(1).label() == "one year"
    rng, seen = random.Random(0), set()
    for _ in range(200):
        text = c.notice_text(rng, Style(), c.D(90))
        assert re.fullmatch(r"(ninety \(90\)|90|ninety|90 \(ninety\)) days'", text), text
        seen.add(text)
        assert re.fullmatch(r"(six \(6\)|6|six|6 \(six\)) months'", c.notice_text(rng, Style(), c.M(6)))
        assert c.notice_text(rng, Style(), c.M(1)).endswith("month's")
    assert {"ninety (90) days'", "90 days'"} <= seen
    assert c.notice_text(random.Random(1), Style(heldout=True), c.D(90)) == "90 calendar days'"
    # the clause says it in words and digits, the question's options in digits
    for seed in range(6):
        d = doc(seed)
        d.termination(who="B", notice=c.D(90), exception=None, raise_notice=False, only_cause_other=False)
        assert re.search(r"(ninety|90)( \((90|ninety)\))? days' ", d.sb.sentences[-1])
        answer, ds = only_answer(d, ("notice", "B"))
        assert answer == "90 days" and "90 days" in ds.questions[0].options


def test_ordering_of_options_is_natural():
    d = doc(3)
    d.termination(who="either", notice=c.M(6), exception=None, raise_notice=False)
    for seed in range(20):
        d.rng = random.Random(seed)
        answer, ds = only_answer(d, ("notice", "A"))
        opts = ds.questions[0].options
        assert answer == "six months"
        order = [x.label() for x in c.NOTICE_PERIODS]
        assert [order.index(o) for o in opts] == sorted(order.index(o) for o in opts)


# ----------------------------------------------------------------------------- liability
def test_cap_with_a_carve_out():
    d = doc()
    d.liability(who="A", basis="fees12", claims=[CONF, FRAUD], form="plain", raise_cap=False, plain=[LATE],
                uncapped_other=False)
    assert d.truth(("capped", "A")) is True
    assert d.truth(("capped_for", "A", CONF[0])) is False      # carved out: not capped for this claim
    assert d.truth(("capped_for", "A", FRAUD[0])) is False
    assert d.truth(("capped_for", "A", LATE[0])) is True       # capped in general
    assert d.truth(("carved", CONF[0])) is True and d.truth(("carved", LATE[0])) is False
    assert d.truth(("basis", "A")) == "fees paid in the last 12 months"
    assert d.truth(("capped", "B")) is False                   # the customer's liability: mentioned, never capped
    assert c.cap_applies(True, True) is False
    ds = d.ask_keys([("capped", "A"), ("capped_for", "A", CONF[0]), ("capped_for", "A", LATE[0])])
    assert ds.chained and sorted(ds.depth) == [0, 0, 1]   # a rule that does not fire adds no depth
    answer, _ = only_answer(d, ("capped", "A"), negated=True)   # "Is the supplier's liability unlimited?"
    assert answer == "no"


def test_cap_other_than_inline_and_conditional_cap():
    d = doc(1)
    d.liability(who="either", basis="fixed", claims=[FRAUD], form="other_than", raise_cap=False, plain=[LATE])
    assert "other than" in d.sb.sentences[-1].lower() or "save in respect of" in d.sb.sentences[-1].lower() \
        or "except for" in d.sb.sentences[-1].lower() or "excluding" in d.sb.sentences[-1].lower()
    for X in "AB":
        assert d.truth(("capped", X)) is True and d.truth(("capped_for", X, FRAUD[0])) is False
        assert d.truth(("capped_for", X, LATE[0])) is True and d.truth(("basis", X)) == "a fixed amount"
    for insured, capped in (("true", True), ("false", False), ("unknown", False)):
        d = doc(2)
        d.sit("insured", truth=insured)
        d.liability(who="A", basis="pct", claims=[], form="provided", raise_cap=False, plain=[LATE])
        assert d.truth(("capped", "A")) is capped
        assert d.truth(("basis", "A")) == ("a percentage of the annual charges" if capped else "no cap")
        assert d.truth(("capped_for", "A", LATE[0])) is capped


def test_a_later_clause_replaces_the_cap():
    for holds, basis in (("true", "a fixed amount"), ("false", "fees paid in the last 12 months")):
        d = doc(4)
        cond = d.sit_condition("coc", "A", truth=holds)
        d.liability(who="A", basis="fees12", claims=[], form="plain", raise_cap=True, cond=cond, basis2="fixed", plain=[])
        assert d.truth(("basis", "A")) == basis
        answer, ds = only_answer(d, ("basis", "A"))
        assert answer == basis and ds.depth == [1 if holds == "true" else 0]
        # the stated cap (default) or the replacing clause (override) supports the answer
        assert ds.support[0] is not None


# ----------------------------------------------------------------------------- termination
def test_unless_with_its_condition_true_and_false():
    for running, allowed in (("true", False), ("false", True), ("unknown", True)):
        d = doc(5)
        d.sit("initial", truth=running)       # "except where the Initial Term has not yet expired"
        d.termination(who="B", notice=c.D(30), exception="inline", exception_kind="initial", raise_notice=False,
                      only_cause_other=False)
        assert d.truth(("conv", "B")) is allowed
        assert d.truth(("conv", "A")) is False
        assert d.truth(("who_conv",)) == ("only the customer" if allowed else "neither party")
        answer, _ = only_answer(d, ("conv", "B"), negated=True)   # "Is it true that X cannot terminate without cause?"
        assert answer == ("no" if allowed else "yes")
    for u, allowed in (("true", False), ("false", True), ("unknown", True)):
        d = doc(6)
        nodes = d.chain(1, start="breach", forms=["unless"], truths={0: "true", 1: u})
        assert d.truth(nodes[1]) is allowed
        assert re.search(r"\b(unless|except|save|other than)\b", " ".join(d.sb.sentences).lower())


def test_notwithstanding_overrides_the_restriction():
    cases = [("true", "true", True, False), ("true", "false", False, False), ("false", "false", True, True),
             ("false", "true", True, True)]
    for running, coc, customer, supplier in cases:
        d = doc(7)
        d.sit("initial", truth=running)
        cond = d.sit_condition("coc", "A", truth=coc)
        d.termination(who="either", notice=c.D(60), exception="restrict", exception_kind="initial", override=True,
                      cond=cond, override_who="B", raise_notice=False)
        text = " ".join(d.sb.sentences)
        assert re.search(r"notwithstanding|despite|shall not prevent|nothing in", text.lower())
        assert d.truth(("conv", "B")) is customer, (running, coc)
        assert d.truth(("conv", "A")) is supplier
    for restricted, override, allowed in (("true", "true", True), ("true", "false", False), ("false", "false", True)):
        d = doc(8)
        nodes = d.chain(1, start="insolvent", forms=["notwithstanding"], truths={0: "true", 1: restricted, -1: override})
        assert d.truth(nodes[1]) is allowed


def test_subject_to_makes_the_right_conditional():
    for restricted, allowed in (("true", False), ("false", True), ("unknown", True)):
        d = doc(9)
        nodes = d.chain(1, start="breach", forms=["subject"], truths={0: "true", 1: restricted})
        assert d.truth(nodes[1]) is allowed
        grant = next(x for x in d.sb.sentences if re.search(r"subject|save as|except as|unless .* provides", x.lower()))
        restriction = d.ref(dict(a=0, b=0, c="a")).split()[0]
        assert restriction.lower().rstrip(".") in grant.lower()  # the grant names the restricting clause


def test_termination_for_cause_compares_the_cure_period():
    for days, can in ((20, False), (30, False), (31, True), (45, True)):
        d = doc(10)
        d.cause(who="B", cure=c.D(30), breach="true", cure_note="days", cured_days=days, breacher="A",
                insolvency=False, coc=False)
        assert f"{days} days" in " ".join(d.sb.sentences)
        assert d.truth(("may", "terminate", "B")) is can, days
        assert d.truth(("cured", "A", 30)) is (not can)
        assert d.truth(("may", "terminate", "A")) is False
    for insolvent in ("true", "false", "unknown"):
        d = doc(11)
        d.sit("insolvent", "A", truth=insolvent)
        d.cause(who="B", cure=c.D(30), breach="false", breacher="A", insolvency=True, coc=False)
        assert d.truth(("may", "terminate", "B")) is (insolvent == "true")


def test_a_party_named_in_the_question_and_by_role_in_the_clause():
    names, answers = set(), set()
    for seed in range(40):
        d = doc(seed)
        d.liability(who="A", basis="fixed", claims=[], form="plain", raise_cap=False, plain=[], uncapped_other=False)
        clauses = d.sb.sentences[1:]
        assert all("Acme" not in s and "Supplier" in s for s in clauses)
        answer, ds = only_answer(d, ("capped", "A"))
        answers.add(answer)
        q = ds.questions[0].text
        names.add("name" if "Acme" in q else "role" if "supplier" in q.lower() else q)
    assert answers == {"yes"} and names == {"name", "role"}


def test_held_out_questions_name_parties_by_initials_that_are_not_words():
    for seed in range(200):
        d = c.Doc(random.Random(seed), Style(heldout=True), 2)
        d.preamble()
        a, b = d.parties["A"], d.parties["B"]
        assert a.abbr != b.abbr and a.abbr not in c._WORDLIKE and b.abbr not in c._WORDLIKE
        d.liability(who="A", claims=[], raise_cap=False, plain=[])
        answer, ds = only_answer(d, ("capped", "A"))
        assert ds.questions[0].text.split()[1].startswith(a.abbr) or a.abbr in ds.questions[0].text


# ----------------------------------------------------------------------------- renewal, assignment, others
def test_renewal_unless_notice_is_served_in_time():
    for served, renews in ((45, True), (60, False), (75, False)):
        d = doc(12)
        d.renewal(mode="auto", who="B", nn=c.D(60), serve=True, server="B", served_days=served)
        assert d.truth(("auto",)) is True and d.truth(("renews",)) is renews
        assert d.truth(("timely", "B")) is (not renews) and d.truth(("nr_notice",)) == "60 days"
        assert d.truth(("stop", "B")) == "serve a non-renewal notice"
        assert d.truth(("stop", "A")) == "it cannot stop it"
    d = doc(13)
    d.termination(who="A", notice=c.D(30), exception=None, raise_notice=False, only_cause_other=False)
    d.renewal(mode="fixed")
    assert d.truth(("auto",)) is False and d.truth(("renews",)) is False
    assert d.truth(("stop", "B")) == "nothing: it expires"
    answer, _ = only_answer(d, ("auto",), negated=True)   # "Does the agreement simply expire at the end of the term?"
    assert answer == "yes"
    d = doc(14)
    d.termination(who="A", notice=c.D(30), exception=None, raise_notice=False, only_cause_other=False)
    d.renewal(mode="auto", who="B", nn=c.D(90), serve=False)
    assert d.truth(("stop", "A")) == "terminate for convenience" and d.truth(("renews",)) is True


def test_assignment_consent_and_affiliates():
    d = doc(15)
    d.assignment(kind="consent", who="either", qual="reasonable", aff=True, aff_who="A")
    assert d.truth(("afree", "A")) is False and d.truth(("afree", "B")) is False
    assert d.truth(("aff", "A")) is True and d.truth(("aff", "B")) is False
    assert d.truth(("reasonable", "B")) is True
    answer, ds = only_answer(d, ("afree", "B"), negated=True)  # "Is it true that the customer cannot assign without consent?"
    assert answer == "yes" and ds.support[0] is not None
    d = doc(16)
    d.assignment(kind="consent", who="A", qual="absolute", aff=False)
    assert d.truth(("reasonable", "A")) is False
    d = doc(17)
    d.assignment(kind="free", who="B")
    assert d.truth(("afree", "B")) is True and d.truth(("aff", "B")) is True and d.truth(("afree", "A")) is False


def test_exclusivity_lapses_and_non_compete():
    for failing, exclusive in (("true", False), ("false", True), ("unknown", True)):
        d = doc(18)
        d.sit("sla_fail", truth=failing)
        d.exclusivity(kind="excl", lapse=True, lapse_kind="sla_fail")
        assert d.truth(("excl",)) is exclusive
        answer, _ = only_answer(d, ("excl",), negated=True)    # "Is the customer free to buy ... elsewhere?"
        assert answer == ("no" if exclusive else "yes")
    d = doc(19)
    d.exclusivity(kind="none")
    assert d.truth(("excl",)) is False
    d.noncompete(who="A", dur=c.M(12))
    assert d.truth(("nc", "A")) is True and d.truth(("nc", "B")) is False and d.truth(("nc_dur", "A")) == "twelve months"
    # one sentence states both: it supports neither when both are asked, and the period when it is asked alone
    ds = d.ask_keys([("nc", "A"), ("nc_dur", "A")])
    assert ds.support == [None, None]
    ds = d.ask_keys([("nc_dur", "A")])
    assert ds.support[0] is not None and "compet" in ds.sentences[ds.support[0]]


def test_payment_default_and_override_and_confidentiality():
    for holds, days in (("true", "14 days"), ("false", "30 days"), ("unknown", "30 days")):
        d = doc(20)
        cond = d.sit_condition("insolvent", "B", truth=holds)
        d.payment(dur=c.D(30), override=True, cond=cond, dur2=c.D(14))
        assert d.truth(("pay",)) == days
    d = doc(21)
    d.confidentiality(kind="indef")
    assert d.truth(("conf_dur",)) == c.INDEFINITELY and d.truth(("conf_surv",)) is True
    d = doc(22)
    d.confidentiality(kind="end")
    assert d.truth(("conf_surv",)) is False


def test_incorporation_country_is_not_the_governing_law():
    mentioned = False
    for seed in range(30):
        d = doc(seed)
        d.law(jur=ENGLAND, courts=True, city="London", schedule=False)
        d.distractor("party")
        d.distractor("other")
        mentioned |= "Germany" in d.sb.sentences[0] or "France" in d.sb.sentences[0]
        assert d.truth(("law",)) == "English law" and d.truth(("courts",)) == "London"
        answer, ds = only_answer(d, ("law",))
        assert answer == "English law"
    assert mentioned
    d = doc(23)
    d.law(jur=GERMANY, courts=False, schedule=True)
    assert d.truth(("law",)) == "German law" and d.truth(("dp_law",)) not in (None, "German law")


def test_chains_of_clause_references():
    d = doc(24)
    nodes = d.chain(3, start="breach", forms=["plain"] * 3, truths={0: "true"})
    solved = d.solve()
    assert [solved[k].depth for k in nodes[1:]] == [1, 2, 3]
    ds = d.ask_keys(nodes, negated=[nodes[2]])
    assert ds.chained and sorted(ds.depth) == [0, 1, 2, 3]
    by_text = {q.text: a for q, a in zip(ds.questions, ds.answers)}
    assert sorted(by_text.values()) == [0, 0, 0, 1]          # the negated question about link 2 is answered no
    # each link as a rule between answers; flipping one conclusion contradicts the context
    assert len(ds.links) == 3 and not contradicts(ds.links, ds.answers)
    for conditions, (q, a) in ds.links:
        wrong = list(ds.answers)
        wrong[q] = 1 - a
        assert contradicts(ds.links, wrong)
    # the reference names the clause that grants the earlier right
    assert re.search(r"under|pursuant to|rely on", " ".join(d.sb.sentences))
    d = doc(25)
    nodes = d.chain(3, start="breach", forms=["plain"] * 3, truths={0: "false"})
    assert all(d.truth(k) is False for k in nodes)


# ----------------------------------------------------------------------------- generated sets
def test_same_seed_same_set():
    for n, links in ((1, 0), (5, 3), (8, 5)):
        a = c.generate(random.Random(7), Style(), n, links)
        b = c.generate(random.Random(7), Style(), n, links)
        assert a == b
    assert c.generate(random.Random(7), Style(), 4, 2) != c.generate(random.Random(8), Style(), 4, 2)


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        c.generate(random.Random(0), Style(), 0, 1)
    with pytest.raises(ValueError):
        c.generate(random.Random(0), Style(), 3, 6)


def test_generated_sets_are_accepted_by_the_service():
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    yes = no = cat = total = deep = chained = 0
    for i in range(1512):
        n, links, style = 1 + i % 8, (i // 8) % 6, STYLES[(i // 48) % 3]
        s = c.generate(random.Random(f"contracts:{i}"), style, n, links)
        assert s.domain == "contracts" and s.context.strip() and len(s.questions) == n
        assert len({q.text for q in s.questions}) == n
        as_request(s.context, s.questions)
        assert len(tok.encode(s.context, s.questions).prefix_ids) <= 400
        for q, a, d, sup in zip(s.questions, s.answers, s.depth, s.support):
            assert 0 <= a < len(q.choices) and 0 <= d <= links
            assert sup is None or 1 <= sup < len(s.sentences)
            if q.kind == "categorical":
                assert 2 <= len(q.options) <= 8 and len(set(q.options)) == len(q.options)
                assert all(o.strip() for o in q.options)
                cat += 1
            else:
                yes += a == 0
                no += a == 1
            total += 1
            deep += d >= 2
        chained += s.chained
        assert not contradicts(getattr(s, "links", []), s.answers)
    assert 0.35 <= yes / (yes + no) <= 0.65
    assert 0.2 <= cat / total <= 0.45
    assert deep > 100 and chained > 300


def test_every_pattern_has_enough_phrasings():
    book = c.phrasebook()
    assert len(book) > 100
    for name, phrasings in book.items():
        assert isinstance(phrasings, tuple) and all(isinstance(p, str) for p in phrasings), name
        assert len(phrasings) >= 5, name
        assert len(set(phrasings)) == len(phrasings), name
    for name in c.FREQUENT:
        assert 10 <= len(book[name]) <= 30, name
    # every module-level tuple of template strings is in the phrasebook
    registered = {id(v) for v in book.values()}
    for attr, value in vars(c).items():
        if isinstance(value, tuple) and value and all(isinstance(x, str) and "{" in x for x in value):
            assert id(value) in registered or attr == "HEADINGS", attr


def _recording(monkeypatch, fn_name):
    calls = []
    original = getattr(base, fn_name)

    def wrapper(rng, pool, style, *args, **kw):
        out = original(rng, pool, style, *args, **kw)
        calls.append((pool, out, style))
        return out
    monkeypatch.setattr(base, fn_name, wrapper)
    return calls


def test_held_out_phrasings_are_never_used_in_training_splits(monkeypatch):
    calls = _recording(monkeypatch, "pick")
    book_ids = {id(v) for v in c.phrasebook().values()}
    for i in range(240):
        c.generate(random.Random(i), STYLES[i % 3], 1 + i % 8, i % 6)
    assert len(calls) > 5000
    used_held = 0
    for templates, out, style in calls:
        assert id(templates) in book_ids
        held = base.held_out_templates(templates)
        if style.heldout:
            assert out in held
            used_held += 1
        else:
            assert out not in held
    assert used_held > 1000


def test_novel_names_come_from_the_tails_only(monkeypatch):
    calls = _recording(monkeypatch, "names")
    pools = {id(v) for v in c.POOLS.values()}
    for i in range(240):
        c.generate(random.Random(i), STYLES[i % 3], 1 + i % 8, i % 6)
    novel = 0
    for pool, out, style in calls:
        assert id(pool) in pools
        cut = max(1, int(len(pool) * 0.75))
        if style.novel:
            assert out in pool[cut:]
            novel += 1
        else:
            assert out in pool[:cut]
    assert novel > 300
    sizes = {k: len(v) for k, v in c.POOLS.items()}
    assert sum(sizes.values()) > 300


def test_every_statement_points_at_the_sentence_that_made_it(monkeypatch):
    """Components that do not fit the window are undone (one snapshot may be restored several times):
    whatever survives must still point at the sentence that stated it."""
    said = {}

    def record(doc, s):
        if s is not None:
            said[(id(doc), s)] = doc.sb.sentences[s]

    def check(doc, s, what):
        if s is not None:
            assert doc.sb.sentences[s] == said[(id(doc), s)], what

    fact, value, rule, cases = c.Doc.fact, c.Doc.value, c.Doc.rule, c.Doc.cases
    monkeypatch.setattr(c.Doc, "fact", lambda self, k, h, s: (fact(self, k, h, s), record(self, s))[0])
    monkeypatch.setattr(c.Doc, "value", lambda self, k, v, s: (value(self, k, v, s), record(self, s))[0])
    monkeypatch.setattr(c.Doc, "rule", lambda self, conds, a, s: (rule(self, conds, a, s), record(self, s))[0])

    def cases_(self, var, cs, otherwise=None, osent=None):
        cases(self, var, cs, otherwise, osent)
        for s in [osent] + [x for _, _, x in cs]:
            record(self, s)
    monkeypatch.setattr(c.Doc, "cases", cases_)
    finish = c.Doc.finish

    def finish_(self, asked, solved):
        for k, (_, s) in list(self.facts.items()) + list(self.values.items()):
            check(self, s, k)
        for d in self.defs:
            for s in ([d.sentence] if isinstance(d, c._Rule) else [d.osent] + [x for _, _, x in d.cases]):
                check(self, s, d)
        return finish(self, asked, solved)
    monkeypatch.setattr(c.Doc, "finish", finish_)
    for i in range(150):
        c.generate(random.Random(i), STYLES[i % 3], 8 - i % 3, 5 - i % 2)


def test_the_rights_probe_answers_are_what_the_clauses_say():
    """bench/rights_probe.py: the asked party holds the right exactly when a clause gives it to
    that party; the other party's clause refuses it in the same words, and the right asked is
    always in the text (both answers are said alike)."""
    from rights_probe import RIGHTS, probe

    def said(template: str, party: str, other: str, context: str) -> bool:
        pattern = re.escape(template).replace(r"\{n\}", r"\d+").replace(r"\{P\}", re.escape(party)) \
            .replace(r"\{O\}", re.escape(other))
        return re.search(rf"\d+\.\d+ {pattern}", context) is not None

    rng, answers = random.Random(0), []
    for _ in range(300):
        context, question, yes = probe(rng)
        parties = re.match(r"This Agreement is made between the (.+?) and the (.+?)\. ", context).groups()
        asked = next(p for p in parties if f"the {p} " in question)
        other = next(p for p in parties if p != asked)
        right = next(r for r, (_, _, qs) in RIGHTS.items() if any(q.format(P=asked) == question for q in qs))
        given, refused, _ = RIGHTS[right]
        assert said(given, asked, other, context) is yes, (context, question)
        assert said(refused, asked, other, context) is not yes, (context, question)
        assert said(given, other, asked, context) is not yes and said(refused, other, asked, context) is yes
        answers.append(yes)
    assert 0.4 < sum(answers) / len(answers) < 0.6


# ----------------------------------------------------------------------------- who holds a right
def _template_regex(template: str, parties: str, rest: str = ".+?") -> re.Pattern:
    """A clause or question template as a regex: {P}/{O}/{x} a party, {vp}/{vping}/{vq}/{vqing} `rest`."""
    pattern = re.escape(template)
    for field in ("P", "O", "x"):
        pattern = pattern.replace(rf"\{{{field}\}}", rf"(?P<{field}>{parties})")
    for field in ("vp", "vping", "vq", "vqing"):
        pattern = pattern.replace(rf"\{{{field}\}}", rf"(?P<{field}>{rest})")
    return re.compile(pattern + "$", re.IGNORECASE)


def _right_questions() -> tuple[dict, dict]:
    """The rights' question phrasings (and their gerunds) -> right, and the q_may / q_may_neg
    templates as regexes that find them."""
    rights_q = {q: r for r, d in c.RIGHTS.items() for q in d["q"]}
    rights_q.update({c.gerund(q): r for q, r in list(rights_q.items())})
    rest = "|".join(re.escape(q) for q in sorted(rights_q, key=len, reverse=True))
    return rights_q, {name: [_template_regex(t, ".+?", rest) for t in c.T[name]] for name in ("q_may", "q_may_neg")}


def _holders_from_text(context: str) -> dict:
    """(right, party role) -> may it, read from the clauses alone with the family's templates (a
    party nothing gives a right to may not exercise it: closed world); no right is both given
    to a party and refused to it."""
    roles = "the Supplier|the Customer"
    forms = {name: [_template_regex(t, roles) for t in c.T[name]]
             for name in ("grant_only", "refuse_both", "grant_both", "refuse", "grant")}
    verb_phrases = {}
    for right, d in c.RIGHTS.items():
        for ctx in d["ctx"]:
            for o in ("the Supplier", "the Customer", "the other party"):
                for k in range(2, 10):
                    vp = ctx.format(O=o, Op=o + "'s", k=k).lower()
                    verb_phrases[vp] = verb_phrases[c.gerund(vp)] = right
    said = {}
    for sentence in re.split(r"(?<=\.) (?=(?:Clause |Section |Article |Art\. |Cl\. )?\d)", context):
        for name, patterns in forms.items():  # the first form whose verb phrase is a right's
            m = next((m for p in patterns if (m := p.search(sentence))
                      and (m.groupdict().get("vp") or m.group("vping")).lower() in verb_phrases), None)
            if m is None:
                continue
            fields = m.groupdict()
            right = verb_phrases[(fields.get("vp") or fields.get("vping")).lower()]
            party = (fields.get("P") or "").lower()
            given = {"grant": [party], "grant_only": [party], "grant_both": ["the supplier", "the customer"]}
            refused = {"refuse": [party], "grant_only": [fields.get("O", "").lower()],
                       "refuse_both": ["the supplier", "the customer"]}
            for p, holds in [(p, True) for p in given.get(name, [])] + [(p, False) for p in refused.get(name, [])]:
                assert said.setdefault((right, p), holds) is holds, f"{p} both given and refused {right}: {context}"
            break
    return said


def test_who_holds_a_right_is_what_the_clauses_say():
    """Holders sets: each right's question, asked of either party (by role or company name),
    is answered yes exactly when a clause gives that party the right, read back from the text
    with the family's templates; both parties are asked about, and the two answers differ
    whenever one party holds the right."""
    rights_q, questions = _right_questions()
    answers, differ = [], 0
    for seed in range(120):
        d = doc(seed)
        rng = random.Random(seed)
        rights = rng.sample(sorted(c.RIGHTS), 3)
        for right in rights:
            d.holding(right, rng.choice(("one", "refused", "only", "both", "neither")), rng.choice("AB"), right)
        ds = d.ask(6, [x for x in d.cands if x.key[1] in rights])
        said = _holders_from_text(ds.context)
        asked = {}
        for q, a in zip(ds.questions, ds.answers):
            name, m = next((name, m) for name, ps in questions.items() for p in ps if (m := p.fullmatch(q.text)))
            vq = m.groupdict().get("vq") or m.group("vqing")
            x = m.group("x").lower()
            party = "the supplier" if "supplier" in x or "acme" in x or x == "al" else "the customer"
            assert "supplier" in x or "acme" in x or x == "al" or "customer" in x or "beta" in x or x == "bf", q.text
            right = rights_q[vq]
            yes = said.get((right, party), False) != (name == "q_may_neg")
            assert q.choices[a] == ("yes" if yes else "no"), (ds.context, q.text)
            asked[(right, party)] = said.get((right, party), False)
            answers.append(yes)
        differ += sum(asked.get((r, "the supplier")) != asked.get((r, "the customer")) for r in rights
                      if len({p for (rr, p) in asked if rr == r}) == 2)
    assert 0.35 < sum(answers) / len(answers) < 0.65
    assert differ > 100


def test_holders_sets_ask_each_right_of_both_parties():
    """corpus.CorpusSpec.holders: the contracts family's holders sets ask a right of one party and,
    where two questions fit, of the other as well; yes and no about as often."""
    from decider.engine.training.corpus import CorpusSpec, make_set

    spec = CorpusSpec(split="train", mix=(("contracts", 1.0),), holders=1.0)
    rights_q, by_name = _right_questions()
    questions = by_name["q_may"] + by_name["q_may_neg"]
    pairs = singles = 0
    yes = []
    for i in range(200):
        ds = make_set(spec, i)
        asked = []
        for q, a in zip(ds.questions, ds.answers):
            m = next((m for p in questions if (m := p.fullmatch(q.text))), None)
            if m is not None:
                asked.append(rights_q[m.groupdict().get("vq") or m.group("vqing")])
            if q.kind == "boolean":
                yes.append(q.choices[a] == "yes")
        if len(ds.questions) >= 2:
            pairs += sum(asked.count(r) == 2 for r in set(asked))
            singles += sum(asked.count(r) == 1 for r in set(asked))
    assert pairs > 3 * singles and pairs > 200
    assert 0.4 < sum(yes) / len(yes) < 0.6
    assert make_set(spec, 7) == make_set(spec, 7)
