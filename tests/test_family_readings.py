"""Corpus-v2 family `readings`: exact comparisons on hand-built cases, forward chaining and
supports on hand-built worlds, and the generated sets (service limits, balance, held-out
phrasings, novel lexicon, determinism)."""

import random
import re
from collections import Counter
from decimal import Decimal

import pytest
from dataclasses import replace

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.families import readings as R
from decider.engine.numbers import number_spans
from decider.engine.training.corpus import CorpusSpec, make_set, make_sets
from decider.engine.training.families.base import COUNTS, Style, held_out_templates, is_held_out

STYLES = (Style(), Style(heldout=True), Style(novel=True))


# ----------------------------------------------------------------------------- exact comparisons
@pytest.mark.parametrize("op, x, t, want", [
    (">", "131.5", "131.5", False), (">=", "131.5", "131.5", True),     # equal to the threshold
    ("<", "131.5", "131.5", False), ("<=", "131.5", "131.5", True),
    (">", "131.6", "131.5", True), ("<", "131.4", "131.5", True),
    (">", "128", "128.0", False), (">=", "128.0", "128", True),         # integers vs decimals
    ("<=", "0.80", "0.8", True), ("<", "0.8", "0.80", False), (">", "0.81", "0.8", True),
    (">=", "1,480", "1480", True), (">", "1,480", "1479.9", True),       # thousands separators
])
def test_threshold_comparisons_are_exact(op, x, t, want):
    assert R.compare(op, x, t) is want


def test_between_is_inclusive_and_outside_is_its_complement():
    for x, want in [("2.0", True), ("2", True), ("3.5", True), ("3.50", True), ("2.7", True),
                    ("1.99", False), ("3.51", False)]:
        assert R.compare("between", x, "2.0", "3.5") is want
        assert R.compare("outside", x, "2.0", "3.5") is (not want)
    assert R.compare("between", "3", "3.5", "2.0")  # ends in either order


def test_within_x_of_the_set_point_holds_at_exactly_x():
    for x, want in [("3.5", True), ("2.5", True), ("3.0", True), ("3.50", True), ("3.51", False), ("2.49", False)]:
        assert R.compare("within", x, "3.0", "0.5") is want
        assert R.compare("beyond", x, "3.0", "0.5") is (not want)


def test_percent_of_rated_is_exact():
    assert R.percent_of(110, 40) == Decimal("44")
    assert not R.compare(">", "44.0", R.percent_of(110, "40"))   # "above 110% of rated (40 A)" at 44.0 A
    assert R.compare(">=", "44.0", R.percent_of(110, "40"))
    assert R.percent_of(115, "37") == Decimal("42.55")


def test_alarm_state_takes_the_highest_band_crossed():
    lims = {"LL": 10, "L": 20, "H": 80, "HH": 90}
    assert [R.alarm_state(x, lims) for x in (5, 15, 50, 85, 95)] == ["LL", "L", "normal", "H", "HH"]
    assert R.alarm_state(95, {"H": 80}) == "H" and R.alarm_state(5, {"H": 80}) == "normal"


def test_numbers_are_written_without_changing_their_value():
    for v in ("128", "128.0", "0.8", "0.80", "1480", "12345.67", "0.05"):
        for places in (0, 1, 2):
            for thousands in (False, True):
                text = R.fmt_number(R.dec(v), places, thousands)
                assert R.dec(text) == R.dec(v), text
    assert R.fmt_number(Decimal("128"), 1) == "128.0" and R.fmt_number(Decimal("0.80"), 0) == "0.8"
    assert R.fmt_number(Decimal("1480"), 0, thousands=True) == "1,480"


def test_similar_numbers_are_confusable():
    near = R.similar_numbers("204", [str(i) for i in range(100, 1000)])
    assert "240" in near and "402" in near and "205" in near and "204" not in near and "333" not in near


# ----------------------------------------------------------------------------- hand-built worlds
def world() -> R.World:
    return R.World(random.Random(0), Style())


def reading(w: R.World, tag: str, value: str, text: str) -> int:
    s = w.say(text)
    w.reading(tag, value, s)
    return s


def test_a_similarly_named_tag_is_not_read():
    w = world()
    reading(w, "FT-204", "30.0", "FT-204 (P-3 discharge flow) reads 30.0 m³/h.")
    reading(w, "FT-240", "50", "FT-240 (P-4 discharge flow) reads 50 m³/h.")
    lim = w.say("The high alarm on FT-204 is set at 40 m³/h.")
    mine, other = w.cmp_atom("FT-204", ">", "40", src=lim), w.cmp_atom("FT-240", ">", "40")
    answers, depths, supports = w.evaluate([("truth", mine, True), ("truth", other, True)])
    assert answers == [False, True] and depths == [0, 0]
    assert supports == [lim, 1]  # each comparison stands alone on its own sentence


def test_a_mode_is_overridden_by_its_case_or_keeps_its_default():
    for value, mode, depth, support in [("1.1", "MANUAL", 1, 1), ("1.2", "AUTO", 0, None), ("1.20", "AUTO", 0, None),
                                        ("1.19", "MANUAL", 1, 1)]:
        w = world()
        reading(w, "PT-3", value, f"PT-3 (line 3 suction pressure) reads {value} bar.")
        s = w.say("Line 3 runs in AUTO unless the suction pressure is below 1.2 bar, in which case it goes to MANUAL.")
        low = w.cmp_atom("PT-3", "<", "1.2")
        w.p.default(("mode", "line 3"), "AUTO", s)
        w.p.cases(("mode", "line 3"), [([(low, True)], "MANUAL", s)])
        answers, depths, supports = w.evaluate([("cat", ("mode", "line 3")), ("is", ("mode", "line 3"), "AUTO", True)])
        assert answers == [mode, mode == "AUTO"] and depths == [depth, depth]
        assert supports[0] == support


def compressor_world(temp: str, op: str, bypass: bool = False):
    """TT-101 against a 128 °C trip: K-101 trips, K-102 starts and line 3 goes to MANUAL."""
    w = world()
    reading(w, "TT-101", temp, f"TT-101 (K-101 discharge temperature) reads {temp} °C.")
    lim = w.say("The high-temperature trip on TT-101 is set at 128 °C.")
    lineup = w.say("K-101 duty, K-102 standby.")
    w.p.default(("status", "K-101"), "running", lineup)
    w.p.default(("status", "K-102"), "standby", lineup)
    mode = w.say("Line 3 is in AUTO.")
    w.p.default(("mode", "line 3"), "AUTO", mode)
    hot = w.cmp_atom("TT-101", op, "128", src=lim)
    body = [(hot, True)]
    if bypass:
        w.p.fact(("bypass", "TT-101"), True, w.say("TT-101 is in bypass for maintenance."))
    trip = w.say("K-101 trips if TT-101 goes above its trip setting, unless TT-101 is in bypass.")
    w.p.rule(body + [(("bypass", "TT-101"), False)], (("status", "K-101"), "tripped"), trip)
    both = w.say("When K-101 trips, K-102 starts and line 3 goes to MANUAL.")
    w.p.rule([(("status", "K-101"), "tripped")], (("status", "K-102"), "running"), both)
    w.p.rule([(("status", "K-101"), "tripped")], (("mode", "line 3"), "MANUAL"), both)
    targets = [("truth", hot, True), ("is", ("status", "K-101"), "running", True), ("cat", ("status", "K-102")),
               ("cat", ("mode", "line 3"))]
    return w, targets, dict(lim=lim, trip=trip, both=both)


def test_a_trip_chains_to_the_standby_unit_and_the_line_mode():
    w, targets, s = compressor_world("131.5", ">")
    answers, depths, supports = w.evaluate(targets)
    assert answers == [True, False, "running", "MANUAL"]
    assert depths == [0, 1, 2, 2]
    # the set point stands for the asked comparison; the trip rule for "still running?"
    # cannot be revealed by a "no" (not running is not one value); the shared rule
    # sentence concludes two asked answers, so it supports neither
    assert supports == [s["lim"], None, None, None]
    assert w.chained(targets)
    assert not w.chained(targets[:1] + targets[2:3])


@pytest.mark.parametrize("temp, op, tripped", [
    ("128", ">", False), ("128.0", ">", False), ("128", ">=", True), ("128.0", ">=", True), ("128.1", ">", True),
    ("127.9", ">=", False)])
def test_the_trip_at_exactly_its_setting_depends_on_the_wording(temp, op, tripped):
    w, targets, _ = compressor_world(temp, op)
    answers, _, _ = w.evaluate(targets)
    assert answers == [tripped, not tripped, "running" if tripped else "standby", "MANUAL" if tripped else "AUTO"]


def test_an_exception_hides_the_trip():
    w, targets, _ = compressor_world("140", ">", bypass=True)
    answers, depths, _ = w.evaluate(targets + [("truth", ("bypass", "TT-101"), True)])
    assert answers == [True, True, "standby", "AUTO", True]
    assert depths == [0, 0, 0, 0, 0]


def test_a_valve_mentioned_but_never_opened_is_closed():
    w = world()
    reading(w, "PT-3", "4.1", "PT-3 (V-2 pressure) reads 4.1 bar.")
    w.say("PSV-12 protects V-2.")
    rule = w.say("If PT-3 exceeds 4.5 bar, PSV-12 opens.")
    w.p.rule([(w.cmp_atom("PT-3", ">", "4.5"), True)], (("open", "PSV-12"), True), rule)
    targets = [("truth", ("open", "PSV-12"), True), ("truth", ("open", "PSV-12"), False),
               ("pos", ("open", "PSV-12"), "open", "closed")]
    answers, depths, supports = w.evaluate(targets)
    assert answers == [False, True, "closed"] and depths == [0, 0, 0] and supports == [None, None, None]


def test_a_shared_reading_supports_no_comparison_but_a_private_set_point_does():
    w = world()
    r = reading(w, "LT-301", "92", "LT-301 (TK-12 level) reads 92 %.")
    hh = w.say("HH alarm on LT-301 at 90%.")
    h = w.say("High alarm on LT-301 at 85%.")
    above_hh, above_h = w.cmp_atom("LT-301", ">=", "90", src=hh), w.cmp_atom("LT-301", ">", "85", src=h)
    answers, _, supports = w.evaluate([("truth", above_hh, True), ("truth", above_h, True)])
    assert answers == [True, True] and supports == [hh, h]
    # the same comparisons without named limits rest on the reading alone, which both share
    a, b = w.cmp_atom("LT-301", ">=", "90"), w.cmp_atom("LT-301", ">", "85")
    _, _, supports = w.evaluate([("truth", a, True), ("truth", b, True)])
    assert supports == [None, None]
    assert r == 0


def test_alarm_state_band_position_and_the_higher_of_two_readings():
    w = world()
    reading(w, "LT-301", "88.5", "LT-301 (TK-12 level) reads 88.5 %.")
    pair = w.say("LT-301 alarms: H at 85 %, HH at 90 %.")
    var = w.alarm_var("LT-301", {"H": ("85", pair), "HH": ("90", pair)})
    reading(w, "PT-7", "3.5", "PT-7 (P-7 discharge pressure) reads 3.5 bar.")
    window = w.say("PT-7 must stay between 2.0 and 3.5 bar.")
    band = w.band_var("PT-7", "2.0", "3.5", window)
    reading(w, "PT-8", "3.4", "PT-8 (P-8 discharge pressure) reads 3.4 bar.")
    reading(w, "FT-9", "7", "FT-9 (P-9 flow) reads 7 m³/h.")
    sp = w.say("FT-9 set point 7.5 m³/h, tolerance ±0.5 m³/h.")
    within = w.cmp_atom("FT-9", "within", "7.5", "0.5", src=sp)
    rel = w.rel_var("FT-9", "7.0")
    targets = [("cat", var), ("cat", band), ("cat", w.pair_var("PT-7", "PT-8")), ("truth", w.pair_atom("PT-8", "PT-7"),
                                                                                  True),
               ("truth", within, True), ("cat", rel)]
    answers, depths, supports = w.evaluate(targets)
    assert answers == ["high", "within", "PT-7", False, True, "at"]
    assert depths == [0] * 6
    assert supports[0] == pair and supports[1] == window and supports[4] == sp


# ----------------------------------------------------------------------------- generated sets
@pytest.fixture(scope="module")
def sample():
    """1,584 sets over every question count, link bound and style, with the targets asked."""
    targets: list[list[tuple]] = []
    evaluate = R.World.evaluate

    def spy(self, ts):
        targets.append(list(ts))
        return evaluate(self, ts)
    R.World.evaluate = spy
    try:
        sets = []
        for seed in range(11):
            for n in range(1, 9):
                for links in range(6):
                    for k, style in enumerate(STYLES):
                        s = R.generate(random.Random(f"readings:{seed}:{n}:{links}:{k}"), style, n, links)
                        sets.append((n, links, style, s, targets[-1]))
    finally:
        R.World.evaluate = evaluate
    return sets


def test_generated_sets_are_accepted_by_the_service(sample):
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    assert len(sample) >= 1500
    longest = 0
    for n, links, _, s, _ in sample:
        assert len(s.questions) == n == len(s.answers) == len(s.depth) == len(s.support)
        assert s.domain == R.DOMAIN and s.context.strip()
        assert max(s.depth) <= links
        assert len({q.text for q in s.questions}) == n
        for text in s.sentences + [q.text for q in s.questions]:
            assert "{" not in text and ".." not in text and "  " not in text, text
        for q in s.questions:  # a negated question wraps a statement, never another question
            assert "?" not in q.text[:-1], q.text
        as_request(s.context, s.questions)
        longest = max(longest, len(tok.encode(s.context, s.questions).prefix_ids))
        for q, a, sup in zip(s.questions, s.answers, s.support):
            assert 0 <= a < len(q.choices)
            if q.kind == "categorical":
                assert 2 <= len(q.options) <= 8 and len(set(q.options)) == len(q.options)
                assert all(o.strip() for o in q.options)
            assert sup is None or 0 <= sup < len(s.sentences)
    assert longest <= 400


def test_generated_answers_are_balanced_and_varied(sample):
    kinds, yes, boolean, deep, chained = Counter(), 0, 0, Counter(), 0
    for _, links, _, s, targets in sample:
        for q, a, t in zip(s.questions, s.answers, targets):
            kinds[(t[0], t[1][0])] += 1
            if q.kind == "boolean":
                boolean += 1
                yes += a == 0
        deep.update(s.depth)
        chained += s.chained
    total = sum(kinds.values())
    assert 0.35 < yes / boolean < 0.65
    assert 0.25 < (total - boolean) / total < 0.45  # about a third categorical
    assert all(deep[d] > 0 for d in range(6))
    assert chained > len(sample) * 0.4
    for kind in [("truth", "cmp"), ("cat", "alarm"), ("cat", "band"), ("cat", "rel"), ("cat", "higher"),
                 ("truth", "pair"), ("cat", "status"), ("is", "status"), ("cat", "mode"), ("is", "mode"),
                 ("cat", "plant"), ("cat", "duty"), ("truth", "open"), ("truth", "closed"), ("pos", "open"),
                 ("truth", "disabled"), ("truth", "permissive"), ("truth", "bypass"), ("pos", "bypass")]:
        assert kinds[kind] > 0, kind
    negated = [t for *_, targets in sample for t in targets if t[0] in ("truth", "is") and t[-1] is False]
    assert len(negated) > total * 0.1


def test_generated_comparisons_often_sit_exactly_on_their_threshold():
    """place() puts a reading exactly on its threshold in a good share of the comparisons."""
    hits = total = 0
    for seed in range(160):
        w = R.World(random.Random(seed), Style())
        w.plan(8, seed % 6)
        for key in w.direct:
            if key[0] == "cmp" and key[2] in (">", ">=", "<", "<="):
                total += 1
                hits += w.value(key[1]) == key[3]
    assert 0.08 < hits / total < 0.5


def test_same_seed_same_set():
    for n, links in [(1, 0), (5, 2), (8, 5)]:
        for style in STYLES:
            a = R.generate(random.Random(7), style, n, links)
            b = R.generate(random.Random(7), style, n, links)
            assert a == b
    assert R.generate(random.Random(7), Style(), 8, 5) != R.generate(random.Random(8), Style(), 8, 5)


# ----------------------------------------------------------------------------- phrasings and lexicon
def test_every_pattern_has_enough_phrasings():
    for name, phrasings in R.TEMPLATES.items():
        assert len(phrasings) >= 5, name
        assert len(set(phrasings)) == len(phrasings), name
        assert all("{" in p for p in phrasings), name
    for name in R.FREQUENT:
        assert 10 <= len(R.TEMPLATES[name]) <= 30, name
    # no phrasing tuple lives outside TEMPLATES (so none escapes the held-out split)
    registered = {id(v) for v in R.TEMPLATES.values()}
    for attr, value in vars(R).items():
        if isinstance(value, tuple) and value and all(isinstance(x,
                                                                 str) for x in value) and any("{" in x for x in value):
            assert id(value) in registered, attr


def _marked(monkeypatch):
    """Every held-out phrasing starts with ZZHELD (longer texts: the token budget is lifted)."""
    monkeypatch.setattr(R, "TOKEN_BUDGET", 10_000)
    for name, phrasings in R.TEMPLATES.items():
        monkeypatch.setitem(R.TEMPLATES, name, tuple(("ZZHELD " + p) if is_held_out(i) else p
                                                      for i, p in enumerate(phrasings)))


def test_seen_styles_never_use_a_held_out_phrasing(monkeypatch):
    _marked(monkeypatch)
    for seed in range(160):
        style = STYLES[0] if seed % 2 else STYLES[2]
        s = R.generate(random.Random(seed), style, seed % 8 + 1, seed % 6)
        assert "ZZHELD" not in s.context and not any("ZZHELD" in q.text for q in s.questions)


def test_the_held_out_style_uses_only_held_out_phrasings(monkeypatch):
    _marked(monkeypatch)
    for seed in range(80):
        s = R.generate(random.Random(seed), Style(heldout=True), seed % 8 + 1, seed % 6)
        assert all(x.startswith("ZZHELD") for x in s.sentences)
        assert all(q.text.startswith("ZZHELD") for q in s.questions)
    assert all(held_out_templates(p) for p in R.TEMPLATES.values())


TAG = re.compile(r"\b[A-Z]{1,4}-(\d{1,3})[AB]?\b")


@pytest.mark.parametrize("style", STYLES)
def test_names_come_from_the_head_or_the_novel_tail(monkeypatch, style):
    drawn = []
    real = R.names

    def spy(rng, pool, st, novel_share=0.25):
        name = real(rng, pool, st, novel_share)
        drawn.append((tuple(pool), name))
        return name
    monkeypatch.setattr(R, "names", spy)
    seen_numbers, novel_numbers = set(R.half(R.NUMBERS, Style())), set(R.half(R.NUMBERS, Style(novel=True)))
    assert not seen_numbers & novel_numbers
    for seed in range(80):
        s = R.generate(random.Random(seed), style, seed % 8 + 1, seed % 6)
        for text in s.sentences + [q.text for q in s.questions]:
            for num in TAG.findall(text):
                assert num in (novel_numbers if style.novel else seen_numbers), (num, text)
    pools = Counter()
    for pool, name in drawn:
        head, tail = R.half(pool, Style()), R.half(pool, Style(novel=True))
        assert name in (tail if style.novel else head)
        assert name not in (head if style.novel else tail)
        pools[pool[:2]] += 1
    assert len(pools) >= 6  # numbers, equipment, valves, disablers, lines/areas, reasons...


def test_the_lexicon_is_large():
    sizes = {"numbers": len(R.NUMBERS), "equipment": len(R.KINDS), "valves": len(R.VALVE_KINDS),
             "disablers": len(R.DISABLER_KINDS), "lines": len(R.LINES), "areas": len(R.AREAS)}
    assert sum(sizes.values()) > 900
    for pool in (R.NUMBERS, R.KINDS, R.VALVE_KINDS, R.DISABLER_KINDS, R.LINES, R.AREAS, R.OOS_REASONS, R.TRIP_CAUSES):
        assert len(set(pool)) == len(pool)
    # the novel equipment still has duty/standby pairs and machines that trip
    tail = R.half(R.KINDS, Style(novel=True))
    assert any(R.EQUIPMENT[k].pairs for k in tail) and any(R.EQUIPMENT[k].rotating for k in tail)


# ----------------------------------------------------------------------------- twins
def _digits_masked(text: str) -> str:
    return re.sub(r"\d[\d.,]*", "#", text)


def test_a_twin_differs_from_its_set_by_numbers_and_answers():
    """generate_twins: the same sentences, tags and limits with one comparison drawn the other
    way; only numbers differ in most twins (where the flip changes which questions fit, more
    may), most twins' answers differ, and every twin is a well-formed set whose ground truth is
    the generator's own (its supports are checked by deletion as any set's are)."""
    pairs = [R.generate_twins(random.Random(f"twins:{i}"), Style(), 1 + i % 8, i % 3) for i in range(40)]
    twins = [p for p in pairs if len(p) == 2]
    assert len(twins) >= 36  # a set that compares nothing comes alone
    alike = [a for a, b in twins if len(a.sentences) == len(b.sentences)
             and list(map(_digits_masked, a.sentences)) == list(map(_digits_masked, b.sentences))]
    assert len(alike) >= 0.75 * len(twins)
    assert sum(a.context != b.context for a, b in twins) >= 0.9 * len(twins)
    assert sum(a.answers != b.answers for a, b in twins) >= 0.65 * len(twins)
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for _, b in twins:
        tok.encode(b.context, b.questions)  # fits the window
        as_request(b.context, b.questions)  # the service accepts it



# ----------------------------------------------------------------------------- outcomes in words
def test_stated_outcomes_say_what_the_numbers_say():
    """generate(stated=1.0): comparisons also have their outcome said on the reading's
    sentence ("TT-101 reads 131.5 °C, above 128 °C."), and what is said is true of the numbers;
    the sets stay well-formed (supports checked by deletion as any set's are) and fit."""
    up, down = ("above", "over", "higher than", "exceeding", "more than"), ("below", "under", "lower than",
                                                                           "short of", "less than")
    number = r"(?<![\w.\-])(-?\d[\d,]*(?:\.\d+)?)"
    said = re.compile(number + r"[^\d,]*, (?:which is |i\.e\. )?(" + "|".join(up + down) + r") " + number)
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    checked, with_clause = 0, 0
    for i in range(40):
        s = R.generate(random.Random(f"stated:{i}"), Style(), 1 + i % 8, i % 3, stated=1.0)
        tok.encode(s.context, s.questions)
        as_request(s.context, s.questions)
        with_clause += any(re.search(r", (?:" + "|".join(up + down) + r"|alarm|no alarm|not in alarm|alarms clear"
                                     r"|between|inside|within|right at|exactly|level with) ", x) for x in s.sentences)
        for x, word, a in (m for sentence in s.sentences for m in said.findall(sentence)):
            x, a = (Decimal(v.replace(",", "")) for v in (x, a))
            assert (x > a) if word in up else (x < a), (s.context, x, word, a)
            checked += 1
    assert with_clause >= 30 and checked >= 20
    plain = R.generate(random.Random("stated:0"), Style(), 4, 1)
    assert plain.context == R.generate(random.Random("stated:0"), Style(), 4, 1, stated=0.0).context
    with pytest.raises(ValueError, match="share"):
        R.generate(random.Random(0), Style(), 4, 1, stated=1.5)


@pytest.mark.parametrize("op, want", [(">", False), ("<=", True), (">=", False), ("<", True), ("outside", True)])
def test_a_limit_of_one_step_leaves_no_reading_below_it(op, want):
    """A limit of 0.1 on a 0.1 grid: "not above it" is the limit itself, "below it" cannot be
    drawn (the set is drawn again; a training run once stopped on it), "outside 0.1 to 0.5"
    lies above."""
    w = world()
    m = R.Meas(id="AT-1", tag="AT-1", equip=None, pn="residual chlorine", qty="concentration", unit="mg/l",
               grid=Decimal("0.1"), step=Decimal("0.1"), lo=Decimal("0.1"), hi=Decimal(5))
    b = Decimal("0.5") if op == "outside" else None
    for _ in range(20):
        if (op, want) in ((">=", False), ("<", True)):
            with pytest.raises(R.NoRoom):
                w.place(m, op, Decimal("0.1"), b, want, eq=0.0)
        else:
            x = w.place(m, op, Decimal("0.1"), b, want, eq=0.0)
            assert x > 0 and R.compare(op, x, Decimal("0.1"), b) == want


def _pair_line_ups(sentences) -> dict:
    """kind -> (duty unit, standby unit), read from the line-up sentences alone."""
    unit, kinds = r"[A-Z]+-\d+[AB]", "|".join(sorted(R.EQUIPMENT, key=len, reverse=True))
    out = {}
    for template in R.TEMPLATES["lineup"]:
        pattern = re.escape(template).replace(r"\{a\}", f"(?P<a>{unit})").replace(r"\{b\}", f"(?P<b>{unit})") \
            .replace(r"\{kind\}", f"(?:{kinds})")
        for sentence in sentences:
            if m := re.fullmatch(pattern, sentence, re.IGNORECASE):
                kind = next(k for k, e in R.EQUIPMENT.items() if e.pairs and m["a"].split("-")[0] in e.prefixes)
                out.setdefault(kind, set()).add((m["a"], m["b"]))
    return out


@pytest.mark.parametrize("role_rules", [0.0, 0.6])
def test_roles_sets_name_the_unit_the_line_up_gives_the_role(role_rules):
    """generate(roles=1.0): either unit of a pair may have the duty; a rule that names a unit by
    its role ("if the duty pump trips") concludes from or about exactly the units its words name,
    the role read from the line-up sentence (pairs of one kind are never two when one is named
    by role); without roles the A unit always has the duty, as before. With `role_rules` the
    chains that start on a pair's duty unit are many more, and the same holds of them."""
    kinds = "|".join(sorted(R.EQUIPMENT, key=len, reverse=True))
    role = {name: re.compile(r"(?<!becomes )(?<!is )(?:" + "|".join(  # not "P-7B becomes the duty pump"
        re.escape(t).replace(r"\{kind\}", f"(?P<k{i}>{kinds})") for i, t in enumerate(R.TEMPLATES[name])) + ")",
        re.IGNORECASE)  # a rule may start with its role ("The compressor that has duty trips => ...")
        for name in ("role_duty", "role_standby")}
    duty_b = named = 0
    for i in range(150):
        w = R.World(random.Random(f"roles:{i}"), Style(), roles=random.Random(i), role_rules=role_rules)
        w.plan(1 + i % 8, 1 + i % 5)
        sentences = w.b.sentences
        line_ups = _pair_line_ups(sentences)
        duty_b += sum(d.endswith("B") for pairs in line_ups.values() for d, _ in pairs)
        rules: dict[int, list] = {}  # a sentence with two conclusions states two rules
        for d in w.p.definitions:
            if isinstance(d, R.Rule) and d.sentence is not None:
                rules.setdefault(d.sentence, []).append(d)
        for index, stated in rules.items():
            text = sentences[index]
            said = {}
            for name, pattern in role.items():
                for m in pattern.finditer(text):
                    kind = next(v for v in m.groupdict().values() if v)
                    (pair,) = line_ups[kind]
                    said[pair[0] if name == "role_duty" else pair[1]] = pair
            status = set(re.findall(r"\('status', '([A-Z]+-\d+[AB])'\)", repr(stated)))
            for unit, pair in said.items():
                assert unit in status, text
                assert all(u in said or re.search(rf"{re.escape(u)}\b", text) for u in status & set(pair)), text
                named += 1
    assert named >= (120 if role_rules else 30) and duty_b >= 20, (named, duty_b)
    for i in range(40):
        plain = R.World(random.Random(f"roles:{i}"), Style())
        plain.plan(1 + i % 8, 1 + i % 5)
        assert all(d.endswith("A") for pairs in _pair_line_ups(plain.b.sentences).values() for d, _ in pairs)
    with pytest.raises(ValueError, match="share"):
        R.generate(random.Random(0), Style(), 4, 1, roles=2.0)
    with pytest.raises(ValueError, match="role_rules"):
        R.generate(random.Random(0), Style(), 4, 1, roles=1.0, role_rules=-0.1)


def test_role_rules_make_most_roles_sets_name_a_role():
    """`role_rules` is what makes a rule name a role in most roles sets (one in four without it),
    and a stage's knob reaches the family through the corpus spec."""
    def naming(role_rules: float) -> float:
        hits = 0
        for i in range(200):
            w = R.World(random.Random(f"share:{i}"), Style(), roles=random.Random(i), role_rules=role_rules)
            w.plan(8, 5)
            hits += bool(w.role_kinds)
        return hits / 200

    assert naming(0.0) < 0.4 and naming(0.6) > 0.6
    spec = CorpusSpec(split="train", mix=(("readings", 1.0),), roles=1.0, role_rules=0.6)
    assert sum(make_set(spec, i) != make_set(replace(spec, role_rules=0.0), i) for i in range(20)) >= 5


def test_drills_ask_only_what_the_numbers_say():
    """A comparison drill asks only values read straight off the numbers (a reading against a
    limit, a band, an alarm state), at any chain length, of every instrument it names (no
    distractors); other sets also ask facts and rules' outcomes. A stage's `drills` reaches the
    family through the corpus spec, labels and all."""
    def read_off(drill: bool, max_links: int) -> int:
        off = 0
        for i in range(60):
            w = R.World(random.Random(f"drill:{i}"), Style(), drill=drill)
            w.plan(1 + i % 8, max_links)
            off += all(c.key in w.direct for c in w.asked)
            if drill:  # no distractors: every instrument it names is asked about
                assert {m.id for m in w.meas} <= {c.key[1] for c in w.asked}, w.b.sentences
        return off

    assert read_off(True, 0) == read_off(True, 3) == 60
    assert read_off(False, 0) < 30 and read_off(False, 3) < 10
    spec = CorpusSpec(split="train", max_links=0, mix=(("readings@0:1", 1.0),), drills=1.0)
    drilled = [make_set(spec, i) for i in range(20)]
    assert sum(s != make_set(replace(spec, drills=0.0), i) for i, s in enumerate(drilled)) >= 10
    assert all(len(s.questions) == 1 and s.number_labels for s in drilled)
    assert sum(any(label != 1 for _, _, label in s.number_labels) for s in drilled) >= 15  # limits said beside
    with pytest.raises(ValueError, match="drills"):
        R.generate(random.Random(0), Style(), 4, 0, drills=1.5)


def test_groups_count_what_the_numbers_say():
    """A group of alike readings against one shared limit: how many are past it, which one (or
    none / both / more than one), whether any, all or at least k are, each worked out here from
    the readings and the limit alone; a limit hit exactly counts for "at or above"; a member is
    always named by its tag. A stage's `groups` reaches the family through the corpus spec."""
    seen, exact = Counter(), 0
    for i in range(150):
        w = R.World(random.Random(f"group:{i}"), Style(), groups=1.0)
        try:
            w.plan(1 + i % 8, i % 3)
        except R.NoRoom:
            continue
        targets, texts, _ = w.word_questions(w._solve()[0])
        answers, _, _ = w.evaluate(targets)
        for target, text, answer in zip(targets, texts, answers):
            key = target[1]
            if key[0] == "cmp" and key[1] in w.grouped:
                assert key[1] in text, text  # never "the temperature of MX-252": every member has that
            if key[0] != "group":
                continue
            name, ids, op, limit = key[1:5]
            values = [w.value(m) for m in ids]
            past = [m for m, x in zip(ids, values) if {">": x > limit, ">=": x >= limit,
                                                       "<": x < limit, "<=": x <= limit}[op]]
            exact += any(x == limit for x in values)
            expected = {"count": len(past), "any": bool(past), "all": len(past) == len(ids),
                        "least": len(past) >= (key[-1] if name == "least" else 0),
                        "which": past[0] if len(past) == 1 else ("none" if not past else "many")}[name]
            if name == "count":
                assert answer in (str(expected), COUNTS[1][expected]), (text, values, limit)
            elif name == "which" and expected in ("none", "many"):
                assert answer not in ids and (answer in ("neither", "none", "none of them")) == (expected == "none"), text
            else:
                assert (answer if target[0] == "cat" else answer == target[2]) == expected, (text, values, limit)
            seen[name] += 1
    assert min(seen[k] for k in ("count", "which", "any", "all", "least")) >= 10, seen
    assert exact >= 5
    spec = CorpusSpec(split="train", max_links=1, mix=(("readings", 1.0),), groups=1.0)
    grouped = [make_set(spec, i) for i in range(12)]
    assert sum(s != make_set(replace(spec, groups=0.0), i) for i, s in enumerate(grouped)) >= 8
    assert sum(bool(re.search(r"(?:how many|which|any|all|none|at least)\b.* of ", q.text, re.I))
               for s in grouped for q in s.questions) >= 10
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    for i in range(40):  # eight questions over groups still fit, and the service accepts them
        s = R.generate(random.Random(i), Style(), 8, i % 3, groups=1.0)
        as_request(s.context, s.questions)
        assert len(tok.encode(s.context, s.questions).prefix_ids) <= 400
        assert all("{" not in t and ".." not in t and "  " not in t for t in s.sentences + [q.text for q in s.questions])
    with pytest.raises(ValueError, match="groups"):
        R.generate(random.Random(0), Style(), 4, 0, groups=1.5)


def test_the_group_probe_flags_exactly_the_questions_over_a_group():
    """bench/group_probe.py: held-out phrasings only; a flagged readings question is one whose
    target is a group's (how many, which, any, all, at least k), a flagged reports question one
    over a fleet; every set has at least one, and the sets' other questions are not flagged."""
    from group_probe import probe_sets

    probes = probe_sets(12)
    for family, (sets, over) in probes.items():
        assert len(sets) == 12 and all(len(f) == len(s.questions) for s, f in zip(sets, over))
        assert sum(any(f) for f in over) >= 10, family
        assert sum(not x for f in over for x in f) >= 5, family
    for s, flags in zip(*probes["readings"]):
        for q, flag in zip(s.questions, flags):
            worded = re.search(r"\b(how many|number of|count of|which|any|all|none|every|each|at least|or more)\b", q.text, re.I)
            assert not flag or worded, q.text
    assert probe_sets(3)["reports"][0] == probe_sets(3)["reports"][0]  # the same sets for every checkpoint


def test_the_role_probe_answers_are_what_the_line_up_says():
    """bench/role_probe.py: the rule's consequence holds exactly when the unit that trips is the
    one the line-up gives the role the rule names; both units trip, and both roles are named,
    about as often (every probe says the same of both units)."""
    from role_probe import LINEUPS, ROLES, probe

    rng, answers, tripped_duty, roles_named = random.Random(0), [], 0, Counter()
    for _ in range(300):
        context, question, yes = probe(rng)
        sentences = context.split(". ")
        unit = r"[A-Z]+-\d+[AB]"
        line_up = next(m for t in LINEUPS for s in sentences[:1] if (m := re.match(
            re.escape(t).replace(r"\{d\}", f"(?P<d>{unit})").replace(r"\{s\}", f"(?P<s>{unit})")
            .replace(r"\{a\}", unit).replace(r"\{b\}", unit).replace(r"\{kind\}", r"\w+"), s + ".")))
        role = next(r for r, phrases in ROLES.items() for p in phrases
                    if re.search(re.escape(p).replace(r"\{kind\}", r"\w+") + r"\b", sentences[1]))
        tripped = re.search(rf"({unit}) (?:tripped|has tripped|trip)", context)[1]
        assert yes is (tripped == line_up["d" if role == "duty" else "s"]), context
        assert all(tag in sentences[1] for tag in re.findall(r"[A-Z]+-\d+", question)), context  # what the rule acts on
        answers.append(yes)
        tripped_duty += tripped == line_up["d"]
        roles_named[role] += 1
    assert 0.4 < sum(answers) / 300 < 0.6 and 0.4 < tripped_duty / 300 < 0.6 and min(roles_named.values()) > 120


def test_number_labels_say_how_the_reading_compares_with_each_number():
    """DecisionSet.number_labels: a reading is its own (1); a limit is labelled by how its
    instrument's reading compares with it (0 below, 1 equal, 2 above). Hand-built, then read back
    from generated text: for a limit in a sentence with a tag that exactly one labelled reading
    sentence also names, the label is that reading against the limit; the same of a threshold a
    question writes (question_labels)."""
    w = R.World(random.Random(0), Style())
    m = w.new_meas()
    read = w.say_reading(m, Decimal("131.5"))
    below, equal, above = (w.say(f"Limit {v} on {m.id}.") for v in ("128", "131.50", "140"))
    for s, v in ((below, "128"), (equal, "131.50"), (above, "140")):
        w.cmp_atom(m.id, ">", v, None, s)
    assert w.label_numbers() == [(read, Decimal("131.5"), 1), (below, Decimal("128"), 2),
                                 (equal, Decimal("131.50"), 1), (above, Decimal("140"), 0)]
    tag = re.compile(r"\b[A-Z]{1,4}-\d+[A-Z]?\b")
    checked = asked = 0
    for split, shorthand in (("validation", 0.0), ("train", 0.5)):
        for s in make_sets(CorpusSpec(split=split, mix=(("readings", 1.0),), shorthand=shorthand), 150):
            readings = {}
            for i, v, label in s.number_labels:
                assert v in {x for _, _, x in number_spans(s.sentences[i])}, (v, s.sentences[i])
                if label == 1:
                    for t in tag.findall(s.sentences[i]):
                        readings.setdefault(t, set()).add((i, v))
            for i, v, label in s.number_labels:
                named = {r for t in tag.findall(s.sentences[i]) for r in readings.get(t, ()) if r[0] != i}
                if len(named) == 1 and not any(r[0] == i for t in tag.findall(s.sentences[i])
                                               for r in readings.get(t, ())):
                    (_, x), = named
                    assert label == (x > v) - (x < v) + 1, (s.sentences[i], v, x, label)
                    checked += 1
            for q, v, label in s.question_labels:  # a threshold the question writes itself
                text = s.questions[q].text
                assert v in {x for _, _, x in number_spans(text)}, (v, text)
                named = {r for t in tag.findall(text) for r in readings.get(t, ())}
                if len(named) == 1:
                    (_, x), = named
                    assert label == (x > v) - (x < v) + 1, (text, v, x, label)
                    asked += 1
    assert checked >= 100 and asked >= 30, (checked, asked)
