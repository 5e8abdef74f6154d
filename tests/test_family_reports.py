"""The "reports" family of corpus v2: shift logs, alarm lists, robot summaries and policies.

Hand-built worlds pin the semantics (latest entry wins, ACK is not RTN, first matching rule
wins, inclusive vs strict limits, a count of zero, closed world, defaults and overrides);
generated sets are checked for the service's limits, balance, determinism and splits."""

import random
import re
from collections import Counter

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.numbers import number_spans
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.families import base, reports as r
from decider.engine.training.families.base import Style, held_out_templates, seen_templates

STYLES = (Style(), Style(heldout=True), Style(novel=True))


def _args(i):
    """Every (n_questions, max_links, style) combination in turn."""
    return 1 + i % 8, (i // 8) % 6, STYLES[(i // 48) % 3]


class _Run:
    """1,536 generated sets (every n_questions, max_links and style; a tenth of them fleets),
    with each phrasing picked (base.pick) and each name drawn (base.names, _lookalike) on the way."""

    def __init__(self):
        self.sets, self.picks, self.drawn = [], [], []
        real_pick, real_names, real_look = base.pick, base.names, r._lookalike

        def pick(rng, templates, style):
            choice = real_pick(rng, templates, style)
            self.picks.append((templates, style, choice))
            return choice

        def names(rng, pool, style, novel_share=0.25):
            x = real_names(rng, pool, style, novel_share)
            self.drawn.append((pool, style, x))
            return x

        def look(rng, style, pool, like, avoid=frozenset()):
            x = real_look(rng, style, pool, like, avoid)
            self.drawn.append((r.POOLS[pool], style, x))
            return x

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(base, "pick", pick)
            mp.setattr(base, "names", names)
            mp.setattr(r, "_lookalike", look)
            for i in range(1536):
                n, links, style = _args(i)
                s, world, asked = r.generate_world(random.Random(f"reports-test:{i}"), style, n, links,
                                                   fleets=0.1)  # fleets are drawn in training only
                self.sets.append((i, n, links, style, s, world, asked))


@pytest.fixture(scope="module")
def run():
    return _Run()


@pytest.fixture(scope="module")
def many(run):
    return [(i, n, links, style, s) for i, n, links, style, s, _, _ in run.sets]


def ans(w, target, **kw):
    return r.answer_of(target, r.evaluate(w, **kw))


# ----------------------------------------------------------------------------- exact pieces
def test_comparisons_are_exact_at_the_limit():
    assert r.compare(10, "<=", 10) and not r.compare(10, "<", 10)        # "within 1.0 m" vs "closer than 1.0 m"
    assert r.compare(20, ">=", 20) and not r.compare(20, ">", 20)        # "at least 20%" vs "above 20%"
    assert r.compare(9, "<", 10) and r.compare(11, ">", 10)
    with pytest.raises(ValueError):
        r.compare(1, "==", 1)


def test_latest_entry_and_alarm_states():
    assert r.latest([(1, "open"), (2, "closed")]) == "closed"          # opened 07:02, closed 07:40
    assert r.latest([(1, "tripped"), (3, "running")]) == "running"     # tripped, then restarted
    assert r.latest([]) is None
    assert r.alarm_status(["ALM"]) == ("active, not acknowledged", False)
    assert r.alarm_status(["ALM", "ACK"]) == ("active, acknowledged", True)   # ACK is not RTN
    assert r.alarm_status(["ALM", "ACK", "RTN"]) == ("returned to normal", True)
    assert r.alarm_status(["ALM", "RTN"]) == ("returned to normal", False)
    assert r.alarm_status(["ALM", "ACK", "RTN", "ALM"]) == ("active, not acknowledged", False)  # raised again
    assert r.alarm_status([]) == (None, False)
    assert r.first_match([([True], "stop"), ([True], "slow down")], "continue") == "stop"
    assert r.first_match([([False], "stop"), ([True, False], "slow down")], "continue") == "continue"


# ----------------------------------------------------------------------------- hand-built worlds
def test_valve_opened_then_closed_is_closed():
    w = r.World()
    s1 = w.say("07:02 V-12 opened for draining.")
    w.set(s1, ("pos", "V-12"), "open")
    s2 = w.say("07:40 V-12 closed.")
    w.set(s2, ("pos", "V-12"), "closed")
    shut, open_ = w.need(("is", ("pos", "V-12"), "closed")), w.need(("is", ("pos", "V-12"), "open"))
    assert ans(w, ("atom", shut, False)) == (True, 0)                  # "Is V-12 shut?"
    assert ans(w, ("atom", open_, False))[0] is False                 # "Is V-12 open?"
    assert ans(w, ("atom", open_, True))[0] is True                   # "Is it true that V-12 is not open?"
    assert ans(w, ("cat", ("pos", "V-12"), r.VALVE_STATES))[0] == "closed"
    assert ans(w, ("atom", open_, False), drop={s2})[0] is True       # without the later entry it is open
    ev = r.evaluate(w)
    assert r.support_of(w, [("atom", shut, False)], [True], 0, ev) == s2
    # asked together with "Is V-12 open?", the line is not a support for either
    both = [("atom", shut, False), ("atom", open_, False)]
    assert r.support_of(w, both, [True, False], 0, ev) is None


def test_pump_tripped_then_restarted_and_the_duty_pump():
    w = r.World()
    s1 = w.say("06:14 P-101A tripped on low suction pressure; P-101B started.")
    w.set(s1, ("status", "P-101A"), "tripped")
    w.set(s1, ("status", "P-101B"), "running")
    s2 = w.say("07:30 P-101A restarted; P-101B on standby.")
    w.set(s2, ("status", "P-101A"), "running")
    w.set(s2, ("status", "P-101B"), "on standby")
    w.duties.append((("duty", "P-101"), ("status", "P-101A"), ("status", "P-101B"), "P-101A", "P-101B"))
    run_a = w.need(("is", ("status", "P-101A"), "running"))
    trip_a = w.need(("is", ("status", "P-101A"), "tripped"))
    other = w.need(("is", ("status", "P-110A"), "running"))            # a similar tag, never mentioned
    duty = ("cat", ("duty", "P-101"), ("P-101A", "P-101B", "neither"))
    assert ans(w, ("atom", run_a, False))[0] is True
    assert ans(w, ("atom", trip_a, False))[0] is False
    assert ans(w, duty)[0] == "P-101A"
    assert ans(w, duty, drop={s2})[0] == "P-101B"
    assert ans(w, ("atom", run_a, True), drop={s2})[0] is True          # "Is P-101A down?" before the restart
    assert ans(w, duty, drop={s1, s2})[0] == "neither"
    assert ans(w, ("atom", other, False)) == (False, 0)                 # closed world
    assert ans(w, ("atom", other, True))[0] is True


def test_acknowledged_alarm_stays_active_until_rtn():
    w = r.World()
    k = ("LT-301", "HH")
    s1 = w.say("08:12 ALM HH LT-301 92%.")
    w.alarm(s1, k, "ALM")
    s2 = w.say("08:15 LT-301 HH ACK.")
    w.alarm(s2, k, "ACK")
    s3 = w.say("08:50 LT-301 HH RTN.")
    w.alarm(s3, k, "RTN")
    active, acked = w.need(("active",) + k), w.need(("acked",) + k)
    low = w.need(("active", "LT-301", "LL"))
    state = ("cat", ("alarm",) + k, r.ALARM_STATES)
    assert ans(w, ("atom", active, False), drop={s3})[0] is True       # acknowledged, still active
    assert ans(w, ("atom", acked, False), drop={s3})[0] is True
    assert ans(w, state, drop={s3})[0] == "active, acknowledged"
    assert ans(w, ("atom", active, False))[0] is False                 # returned to normal
    assert ans(w, ("atom", active, True))[0] is True                   # "Has it returned to normal?"
    assert ans(w, state)[0] == "returned to normal"
    assert ans(w, state, drop={s2, s3})[0] == "active, not acknowledged"
    assert ans(w, ("atom", low, False))[0] is False                    # the LL was never raised
    s4 = w.say("09:30 ALM HH LT-301 95%.")
    w.alarm(s4, k, "ALM")
    assert ans(w, state)[0] == "active, not acknowledged"              # raised again after the ACK


def _policy_world(person=8, obstacle=15, obstacle_lane="2", crossing=False):
    w = r.World()
    R = "AGV-07"
    s_p = w.say(f"Person at {r.tenths(person)} m.")
    w.reading(s_p, ("person", R), person)
    s_o = w.say(f"Obstacle at {r.tenths(obstacle)} m in lane {obstacle_lane}.")
    w.reading(s_o, ("obstacle", obstacle_lane), obstacle)
    s_l = w.say("AGV-07 in lane 2.")
    w.set(s_l, ("lane", R), "2")
    if crossing:
        w.set(w.say("Forklift FL-4 crossing."), ("fl", "FL-4"), "crossing")
    within = w.need(("cmp", ("person", R), "<=", 10))
    obst = w.need(("cmp", ("obstacle", ("@", ("lane", R))), "<=", 20))
    fl = w.need(("any", "fl", "crossing"))
    s = w.say("If a person is within 1.0 m, stop; otherwise, if an obstacle in its lane is within 2.0 m or a "
              "forklift is crossing, slow down; otherwise continue at the aisle limit.")
    w.cases(("action", R), [(s, [(within, True)], "stop"), (s, [(obst, True)], "slow down"),
                            (s, [(fl, True)], "slow down")], (s, "continue"))
    return w, s, s_p, s_o, ("cat", ("action", R), r.ACTIONS)


def test_first_rule_that_fires_wins_and_otherwise_applies_when_none_does():
    w, s, s_p, s_o, action = _policy_world()
    assert ans(w, action) == ("stop", 1)                               # the person hides the obstacle
    assert r.support_of(w, [action], ["stop"], 0, r.evaluate(w)) == s
    assert ans(w, action, drop={s_p}) == ("slow down", 1)
    assert ans(w, action, drop={s_p, s_o}) == ("continue", 0)          # no case fires: the "otherwise"
    w, *_, action = _policy_world(person=25, obstacle=5, obstacle_lane="3")   # the obstacle is in another lane
    assert ans(w, action)[0] == "continue"
    w, *_, action = _policy_world(person=25, obstacle=25, crossing=True)
    assert ans(w, action)[0] == "slow down"
    eq = ("eq", ("action", "AGV-07"), "continue", False)              # "Is it allowed to continue at full speed?"
    assert ans(w, eq)[0] is False


def test_within_is_inclusive_and_closer_than_is_strict():
    w = r.World()
    w.reading(w.say("Person at 1.0 m."), ("person", "R-1"), 10)
    within = w.need(("cmp", ("person", "R-1"), "<=", 10))
    closer = w.need(("cmp", ("person", "R-1"), "<", 10))
    assert ans(w, ("atom", within, False))[0] is True
    assert ans(w, ("atom", closer, False))[0] is False
    w, *_, action = _policy_world(person=10)
    assert ans(w, action)[0] == "stop"
    w, *_, action = _policy_world(person=11, obstacle=20)
    assert ans(w, action)[0] == "slow down"                            # 2.0 m is within 2.0 m


def test_count_of_zero_and_an_unreported_zone():
    w = r.World()
    w.reading(w.say("Zone B: 0 persons detected."), ("count", "B"), 0)
    for zone, anyone, clear in (("B", False, True), ("C", False, False)):   # zone C: never reported
        assert ans(w, ("atom", w.need(("cmp", ("count", zone), ">=", 1)), False))[0] is anyone
        assert ans(w, ("atom", w.need(("cmp", ("count", zone), "<=", 0)), False))[0] is clear


def test_latest_reading_wins_and_a_missing_limit_decides_nothing():
    w = r.World()
    w.reading(w.say("07:30 LT-301 at 64%."), ("read", "LT-301"), 64)
    s2 = w.say("09:10 LT-301 at 83%.")
    w.reading(s2, ("read", "LT-301"), 83)
    above = w.need(("cmp", ("read", "LT-301"), ">", 80))
    assert ans(w, ("atom", above, False))[0] is True
    assert ans(w, ("atom", above, False), drop={s2})[0] is False
    w.reading(w.say("AGV-07 speed 1.3 m/s."), ("speed", "AGV-07"), 13)
    over = w.need(("cmp", ("speed", "AGV-07"), ">", ("limit", "shared")))
    assert ans(w, ("atom", over, False))[0] is False                   # no limit stated
    w.limit(w.say("Speed limit in shared aisles 1.2 m/s."), "shared", 12)
    assert ans(w, ("atom", over, False))[0] is True


def test_event_state_mode_action_chain_defaults_and_exceptions():
    w = r.World()
    R, S = "AGV-07", "front lidar"
    s0 = w.say("Front lidar degraded.")
    w.set(s0, ("sens", S), "degraded")
    deg = w.need(("is", ("sens", S), "degraded"))
    cam = w.need(("is", ("sens", "3D camera"), "OK"))
    loc = ("d", "localisation", "unreliable")
    s1 = w.say("If the front lidar is degraded, localisation is unreliable, unless the 3D camera is OK.")
    w.rule(s1, [(deg, True), (cam, False)], (loc, True))
    s2 = w.say("AGV-07 runs in autonomous mode unless an event changes it.")
    w.default(s2, ("rmode", R), "autonomous")
    s3 = w.say("If localisation is unreliable, AGV-07 switches to manual mode.")
    w.rule(s3, [(loc, True)], (("rmode", R), "manual"))
    s4 = w.say("Policy: if AGV-07 is in manual mode, wait; otherwise continue.")
    w.cases(("action", R), [(s4, [(("rmode", R), "manual")], "wait")], (s4, "continue"))
    mode, action = ("cat", ("rmode", R), r.ROBOT_MODES), ("cat", ("action", R), r.ACTIONS)
    assert ans(w, ("atom", loc, False)) == (True, 1)
    assert ans(w, mode) == ("manual", 2)
    assert ans(w, action) == ("wait", 3)
    ev = r.evaluate(w)
    assert r.support_of(w, [mode], ["manual"], 0, ev) == s3
    assert r.is_chained(w, [("atom", loc, False), mode])
    assert r.is_chained(w, [("atom", deg, False), ("atom", loc, False)])
    assert not r.is_chained(w, [("atom", deg, False), action])
    assert ans(w, mode, drop={s0}) == ("autonomous", 0)                # default when no rule fires
    assert ans(w, ("atom", loc, False), drop={s0}) == (False, 0)       # closed world
    assert ans(w, action, drop={s0}) == ("continue", 0)
    w.set(w.say("3D camera OK."), ("sens", "3D camera"), "OK")         # the exception hides the chain
    assert ans(w, ("atom", loc, False))[0] is False
    assert ans(w, action)[0] == "continue"


def test_support_of_shared_readings_and_set_points():
    w = r.World()
    s0 = w.say("AGV-07 speed 1.3 m/s; AGV-07 battery 18%.")
    w.reading(s0, ("speed", "AGV-07"), 13)
    w.reading(s0, ("battery", "AGV-07"), 18)
    s1 = w.say("Speed limit in shared aisles 1.2 m/s.")
    w.limit(s1, "shared", 12)
    over = ("atom", w.need(("cmp", ("speed", "AGV-07"), ">", ("limit", "shared"))), False)
    low = ("atom", w.need(("cmp", ("battery", "AGV-07"), "<", 20)), False)
    low2 = ("atom", w.need(("cmp", ("battery", "AGV-07"), ">=", 15)), False)
    ev = r.evaluate(w)
    targets = [over, low]
    assert r.support_of(w, targets, [True, True], 0, ev) == s1         # a set point used by one comparison
    assert r.support_of(w, targets, [True, True], 1, ev) is None       # the reading line also carries the speed
    assert r.support_of(w, [low], [True], 0, ev) == s0
    assert r.support_of(w, [low, low2], [True, True], 0, ev) is None   # one reading, two comparisons


# ----------------------------------------------------------------------------- generated sets
def test_same_seed_same_set():
    for i in (0, 7, 123):
        n, links, style = _args(i)
        a = r.generate(random.Random(i), style, n, links)
        b = r.generate(random.Random(i), style, n, links)
        assert a == b
    assert r.generate(random.Random(1), Style(), 8, 3) != r.generate(random.Random(2), Style(), 8, 3)


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        r.generate(random.Random(0), Style(), 9, 2)
    with pytest.raises(ValueError):
        r.generate(random.Random(0), Style(), 3, 6)


_TIME = re.compile(r"^\[?(?:t=)?(\d\d)[:.]?(\d\d)(?::(\d\d))?", re.I)


def test_generated_sets_are_valid_and_balanced(many):
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    yes = no = cats = total = chained = linked_sets = with_support = 0
    for i, n, links, style, s in many:
        assert s.domain == r.DOMAIN and s.context.strip()
        assert len(s.questions) == len(s.answers) == len(s.depth) == len(s.support) == n
        as_request(s.context, s.questions)
        assert len(tok.encode(s.context, s.questions).prefix_ids) <= r.PREFIX_BUDGET
        assert max(s.depth) <= links and min(s.depth) >= 0
        assert len({q.text for q in s.questions}) == n
        for q, a, sup in zip(s.questions, s.answers, s.support):
            total += 1
            assert 0 <= a < len(q.choices)
            if q.kind == "categorical":
                cats += 1
                assert 2 <= len(q.options) <= 8 and len(set(q.options)) == len(q.options)
                assert all(o.strip() for o in q.options)
            else:
                yes, no = yes + (a == 0), no + (a == 1)
            assert sup is None or 0 <= sup < len(s.sentences)
            with_support += sup is not None
        if links >= 1 and n >= 2:
            linked_sets += 1
            chained += s.chained
        # a log keeps its order: its timestamped lines come first and their times increase
        stamps = [(k, _TIME.match(x)) for k, x in enumerate(s.sentences)]
        stamped = [(k, tuple(int(g or 0) for g in m.groups())) for k, m in stamps if m]
        if stamped:
            assert [k for k, _ in stamped] == list(range(stamped[0][0], stamped[0][0] + len(stamped)))
            assert stamped[0][0] <= 1
            assert all(a < b for (_, a), (_, b) in zip(stamped, stamped[1:]))
    assert 0.35 <= yes / (yes + no) <= 0.65
    assert 0.25 <= cats / total <= 0.42
    assert 0.3 <= chained / linked_sets
    assert 0.3 <= with_support / total


def test_answers_depths_and_supports_recheck_against_the_world(run):
    for i, n, links, style, s, w, asked in run.sets[::2]:
        ev = r.evaluate(w)
        by_text = dict(asked)
        targets = [by_text[q.text] for q in s.questions]
        answers = []
        for q, a, d, t in zip(s.questions, s.answers, s.depth, targets):
            got, depth = r.answer_of(t, ev)
            assert (("yes" if got else "no") if q.kind == "boolean" else got) == q.choices[a], q.text
            assert depth == d
            answers.append(got)
        where = {x: k for k, x in enumerate(w.sentences)}
        for j, sup in enumerate(s.support):
            if sup is None:
                continue
            ev2 = r.evaluate(w, frozenset({where[s.sentences[sup]]}), r._pins(targets[j], answers[j]))
            assert all(r.answer_of(targets[k], ev2)[0] == answers[k] for k in range(n) if k != j)


def test_the_language_covers_its_phenomena(many):
    text = " ".join(s.context + " " + " ".join(q.text for q in s.questions) for *_, s in many)
    for needle in ("Is it true that", "unless", "otherwise", " ACK", " RTN", "tripped", "closed", "within",
                   "closer than", "at least", "0 persons", "Rule 1", "by default", "standby", "shared aisles"):
        assert needle in text, needle
    kinds = Counter(q.kind for *_, s in many for q in s.questions)
    assert kinds["categorical"] and kinds["boolean"]


# ----------------------------------------------------------------------------- phrasings and names
FREQUENT = ("s_pump_start", "s_pump_trip", "s_pump_stop", "s_valve_open", "s_valve_close", "s_alm", "s_ack", "s_rtn",
            "s_read", "s_obst", "s_person", "s_count", "s_batt", "s_lane", "r_if", "d_concl", "d_cond", "q_run",
            "q_down", "q_vopen", "q_vshut", "q_aactive", "q_pstatus", "q_action", "q_derived", "q_batt", "q_person",
            "q_obst_ego", "q_rmode", "q_unit_mode", "q_read", "c_person", "k_num", "k_num_last")


def test_every_pattern_has_five_phrasings_and_frequent_ones_ten():
    for key, phrasings in r.T.items():
        optional = key.startswith(("r_prefix_", "k_head_"))  # "" = no prefix, one of the phrasings
        assert isinstance(phrasings, tuple) and all(isinstance(p, str) and (p.strip() or optional)
                                                    for p in phrasings), key
        assert len(phrasings) >= 5, key
        assert not set(held_out_templates(phrasings)) & set(seen_templates(phrasings)), key
    for key in FREQUENT:
        assert 10 <= len(r.T[key]) <= 30, key
    assert len(r.T["k_num"]) == len(r.T["k_num_last"])                 # paired by index, held out together
    # no phrasing tuple lives outside T
    for name in dir(r):
        value = getattr(r, name)
        if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            assert not any("{" in v for v in value), name


def test_heldout_phrasings_never_seen_in_training(run):
    tuples = {id(v) for v in r.T.values()}
    used = set()
    assert {style for _, style, _ in run.picks} == set(STYLES)
    for templates, style, choice in run.picks:
        assert id(templates) in tuples
        used.add(id(templates))
        assert (choice in held_out_templates(templates)) == style.heldout
    assert len(used) >= len(r.T) - 3


def test_novel_split_draws_names_from_pool_tails_only(run):
    pools = {id(p) for p in r.POOLS.values()}
    assert {style for _, style, _ in run.drawn} == set(STYLES)
    for pool, style, x in run.drawn:
        assert id(pool) in pools
        cut = max(1, int(len(pool) * 0.75))
        assert (pool.index(x) >= cut) == style.novel, (x, style)
    assert sum(len(p) for p in r.POOLS.values()) >= 1000
    for key, pool in r.POOLS.items():
        assert len(set(pool)) == len(pool), key


def test_lookalike_tags_are_similar_and_in_the_same_split():
    assert r._similar("P-101", "P-110") and r._similar("FT-204", "FT-240") and r._similar("FL-4", "FL-40")
    assert not r._similar("P-101", "P-101") and not r._similar("P-101", "P-234")
    rng = random.Random(0)
    for style in STYLES:
        part = r._part(r.POOLS["transmitter"], style)
        for _ in range(50):
            tag = rng.choice(part)
            other = r._lookalike(rng, style, "transmitter", tag)
            assert other in part and other != tag


def test_number_labels_say_how_the_current_reading_compares_with_each_number():
    """DecisionSet.number_labels: the latest reading of a quantity is its own (1), an earlier one,
    a limit and a rule's threshold are labelled by how the current reading compares with them
    (0 below, 1 at, 2 above); question_labels agree with the answers the world gives."""
    from decimal import Decimal

    w = r.World()
    early = w.say("10:02 LT-203 42%.")
    w.reading(early, ("read", "LT-203"), 42)
    late = w.say("10:40 LT-203 56%.")
    w.reading(late, ("read", "LT-203"), 56)
    limit = w.say("Shared aisle limit 1.2 m/s.")
    w.limit(limit, "shared", 12)
    speed = w.say("RB-3: v = 1.4 m/s.")
    w.reading(speed, ("speed", "RB-3"), 14)
    w.need(("cmp", ("speed", "RB-3"), ">", ("limit", "shared")))
    rule = w.say("If LT-203 is above 60%, P-1 stops.")
    w.rule(rule, [(w.need(("cmp", ("read", "LT-203"), ">", 60)), True)], (("d", "P-1", "stopped"), True))
    assert r.label_numbers(w, r.evaluate(w)) == [(early, Decimal(42), 2), (late, Decimal(56), 1),
                                                 (limit, Decimal("1.2"), 2), (speed, Decimal("1.4"), 1),
                                                 (rule, Decimal(60), 0)]
    holds = {"<": lambda label: label == 0, "<=": lambda label: label <= 1, ">": lambda label: label == 2,
             ">=": lambda label: label >= 1}
    checked = 0
    for i in range(300):
        s, _, asked = r.generate_world(random.Random(f"labels:{i}"), Style.for_split("validation"), 8, i % 4)
        target = dict(asked)
        for k, v, label in s.question_labels:
            kind, (_, _, op, _), negated = target[s.questions[k].text]
            assert kind == "atom" and s.questions[k].kind == "boolean"
            assert (s.answers[k] == 0) == (holds[op](label) != negated), (s.questions[k].text, v, label)
            checked += 1
        for j, v, label in s.number_labels:
            assert v in {x for _, _, x in number_spans(s.sentences[j])}, (s.sentences[j], v)
    assert checked >= 300, checked


def test_fleets_count_what_the_readings_say():
    """A fleet: several robots' alike readings against a number the question writes. How many
    pass it, which one does (or none / both / more than one), whether any, none, all or at least
    k do, each worked out here from the world's readings alone; supports recheck as for any set.
    A stage's `fleets` reaches the family through the corpus spec; the service accepts the sets."""
    from dataclasses import replace

    from decider.engine.training.corpus import CorpusSpec, make_set

    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    seen, exact = Counter(), 0
    for i in range(120):
        s, w, asked = r.generate_world(random.Random(f"fleet:{i}"), Style(), 1 + i % 8, i % 3, fleets=1.0)
        as_request(s.context, s.questions)
        assert len(tok.encode(s.context, s.questions).prefix_ids) <= 400
        value = {q: v for _, _, q, v in w.readings}  # one reading per robot and measure
        by_text = dict(asked)
        targets = [by_text[q.text] for q in s.questions]
        answers = [r.answer_of(t, r.evaluate(w))[0] for t in targets]
        where = {x: k for k, x in enumerate(w.sentences)}
        for j, sup in enumerate(s.support):
            if sup is not None:
                ev2 = r.evaluate(w, frozenset({where[s.sentences[sup]]}), r._pins(targets[j], answers[j]))
                assert all(r.answer_of(targets[k], ev2)[0] == answers[k] for k in range(len(targets)) if k != j)
        for q, a in zip(s.questions, s.answers):
            target = by_text[q.text]
            key = target[1]
            if key[0] == "fleet":
                _, how, qtys, op, thr, k = key
            elif key[0] in ("fleet_count", "fleet_which"):
                how, qtys, op, thr = key
            else:
                continue
            past = [subject for (_, subject) in qtys if r.compare(value[(qtys[0][0], subject)], op, thr)]
            exact += any(value[q_] == thr for q_ in qtys)
            got = q.choices[a]
            if how == "fleet_count":
                assert got == target[2][len(past)], (q.text, past)
            elif how == "fleet_which":
                assert (got == past[0]) if len(past) == 1 else (got not in [x for _, x in qtys]), (q.text, past)
                assert (got in ("neither", "none", "none of them")) == (not past), (q.text, got)
            else:
                holds = {"any": bool(past), "all": len(past) == len(qtys), "least": len(past) >= k}[how]
                assert (got == "yes") == (holds != target[2]), (q.text, past)
            seen[how] += 1
    assert min(seen[k] for k in ("fleet_count", "fleet_which", "any", "all", "least")) >= 10, seen
    assert exact >= 10
    spec = CorpusSpec(split="train", max_links=1, mix=(("reports", 1.0),), fleets=1.0)
    fleets = [make_set(spec, i) for i in range(10)]
    assert sum(x != make_set(replace(spec, fleets=0.0), i) for i, x in enumerate(fleets)) >= 8
    with pytest.raises(ValueError, match="fleets"):
        r.generate(random.Random(0), Style(), 4, 0, fleets=1.5)
