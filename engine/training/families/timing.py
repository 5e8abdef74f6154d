"""Family `timing`: times of day, dates and how long things took, against the windows,
deadlines, cut-offs and time limits that shift logs, notices and dispatch records set.

    Alarms must be acknowledged within 5 minutes of being raised.
    09:02 LT-301 high-level alarm raised. 09:04 PT-112 alarm raised. 09:06 LT-301 alarm
    acknowledged. 09:11 PT-112 alarm acknowledged.
    Was the LT-301 alarm acknowledged in time? (yes)  Did PT-112 wait longer than allowed? (yes)

Four patterns, each over two to four things (people, orders, tags, parties) so that a question
is about one line of several:
- a window of clock times ("Hot work on the east rack is permitted from 08:00 to 16:00", some
  past midnight, some as an opening and a closing time), and when each thing started;
- a cut-off ("Orders received by 14:00 ship the same day"), and when each came in;
- a deadline date ("Notice of non-renewal must be given no later than 30 November 2024"), and
  the date each party acted;
- a limit on how long something may take ("within 5 minutes of being raised"), and the times
  each thing started and ended, as a log writes them, in time order.
Times equal to a limit are drawn often: "by 14:00" and "within" are inclusive, "before" and
"after" strict. Ground truth is Python's arithmetic on the times (never engine/clock.py, which
writes the reading notes the model reads: the two must agree, not share code). Training only;
its phrasings keep the held-out fifth apart (base.pick) as the other families' do.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from decider.engine.training.corpus import DecisionSet
from decider.engine.training.families import base

DOMAIN = "timing"

# ------------------------------------------------------------------------------ lexicon
PEOPLE = ("Ada Okafor", "Bram Visser", "Chen Wei", "Dana Price", "Eero Laine", "Farah Haddad", "Gus Moreno",
          "Hana Sato", "Ivan Petrov", "Jia Lin", "Kofi Mensah", "Lena Marsh", "Mateo Ruiz", "Nora Berg",
          "Omar Aziz", "Priya Raman", "Quinn Doyle", "Rosa Vidal", "Sven Dahl", "Tara Quinn", "Uma Patel",
          "Viktor Hale", "Wen Zhou", "Yusuf Demir")
CREWS = ("the welding crew", "the scaffolding team", "the painters", "the night cleaners", "the lifting crew",
         "the electricians", "the insulation team", "the roofers", "the drone team", "the survey crew",
         "the pipefitters", "the riggers")
PLACES = ("the east pipe rack", "tank farm B", "the loading bay", "the roof of building 4", "the north yard",
          "the compressor house", "the cold store", "line 3", "the dock apron", "the boiler house", "the car park",
          "the reefer row", "the substation yard", "the mezzanine")
ACTIVITIES = ("hot work", "crane lifts", "noisy work", "deliveries", "drone flights", "spray painting", "roof access",
              "jet washing", "forklift traffic")
ORDERS = ("ORD-{n}", "order {n}", "SO-{n}", "PO {n}", "job {n}", "ticket #{n}")
PARTIES = ("Fjordlys AS", "Kincardine Freight Ltd", "Aurelia Foods plc", "Brightwater Utilities", "Castell Mining",
           "Dunmore Logistics", "Elbe Precision GmbH", "Harrow & Vale LLP", "Ionia Shipping SA", "Juniper Health",
           "Kestrel Systems", "Lomond Estates", "Marisol Retail", "Northcape Energy", "Orchid Pharma",
           "Pinecrest Builders", "the Customer", "the Supplier", "the Tenant", "the Licensee")
# (what the deadline is for, as a noun; the same after a possessive; what a party does to meet it)
DEADLINES = (("notice of non-renewal", "notice", "gave notice of non-renewal"),
             ("the signed acceptance form", "acceptance form", "returned the signed acceptance form"),
             ("a warranty claim", "warranty claim", "filed its warranty claim"),
             ("the renewal fee", "payment", "paid the renewal fee"),
             ("objections to the draft accounts", "objection", "sent its objections"),
             ("the option notice", "option notice", "served the option notice"),
             ("the completed tender", "tender", "submitted its tender"),
             ("the annual compliance certificate", "certificate", "delivered its compliance certificate"))
# (limit's subject, its start as a noun phrase "of ...", the log's start line, the log's end line)
TIMED = (
    ("alarms must be acknowledged", "of being raised", "{x} alarm raised", "{x} alarm acknowledged"),
    ("a standby pump must be running", "of the duty pump tripping", "{x} duty pump tripped", "{x} standby running"),
    ("a help request must be answered", "of the request", "{x} help request sent", "{x} help request answered"),
    ("a gas detector fault must be reset", "of the fault", "{x} detector fault", "{x} detector fault reset"),
    ("every work order must be closed", "of being opened", "{x} work order opened", "{x} work order closed"),
    ("a dock door must be shut again", "of opening", "{x} dock door opened", "{x} dock door shut"),
)
TAGS = ("LT-301", "PT-112", "TT-1104", "FT-204", "AGV-07", "AMR-55", "P-7B", "K-101", "GD-14", "HX-3", "DR-186",
        "WO-5521", "D-12", "CV-01")

# ------------------------------------------------------------------------------ phrasings
T: dict[str, tuple[str, ...]] = {
    "window": ("{A} on {P} is permitted only from {a} to {b}.", "{A} on {P} may take place between {a} and {b}.",
               "Permitted hours for {a_} on {P}: {a} to {b}.", "{P}: {a_} allowed from {a} to {b} only.",
               "{A} on {P} is restricted to the window {a}-{b}.", "The {a_} window for {P} runs from {a} to {b}.",
               "On {P}, {a_} must not start before {a} or after {b}.",
               "Site rule: {a_} on {P} only between {a} and {b}.", "{A} is allowed on {P} from {a} until {b}.",
               "Hours for {a_} on {P} are {a} to {b}; at any other time it is not allowed."),
    "start": ("{t} {who} started {a_} on {P}.", "{who} began {a_} on {P} at {t}.",
              "{t}: {a_} on {P} started ({who}).", "{who} - {a_} on {P} - start {t}.",
              "At {t} {who} started {a_} on {P}.", "{who} started {a_} on {P} at {t}.", "{t} {a_} started on {P} by {who}.",
              "Start of {a_} by {who}: {t}.", "{who}: started {t}.", "{who} got going on {P} at {t}."),
    "q_in": ("Did {who} start within the permitted hours?", "Was {whose} start inside the allowed window?",
             "Was {who} allowed to start {a_} at that time?", "Did {who} start {a_} during the permitted window?",
             "Was {whose} start time within the hours allowed for {a_}?"),
    "q_out": ("Did {who} start outside the permitted hours?", "Was {whose} start outside the allowed window?",
              "Did {who} break the time rule for {a_}?", "Was {whose} start of {a_} outside the allowed hours?",
              "Did {who} start {a_} at a time the rule does not allow?"),
    "cutoff": ("Orders received by {c} ship the same day; later orders ship the next working day.",
               "The same-day dispatch cut-off is {c}: anything received later goes out the next working day.",
               "Orders placed after {c} are dispatched the next working day; earlier ones leave the same day.",
               "Same-day shipping applies to orders received no later than {c}; the rest ship next day.",
               "Cut-off for same-day dispatch: {c}. Orders after that ship the following working day.",
               "Anything that arrives by {c} ships today; after {c} it waits for tomorrow's truck.",
               "Orders in before {c} leave the same day, and orders from {c} on leave the next working day.",
               "Dispatch rule: received at or before {c} means same-day dispatch; otherwise next day.",
               "Latest time for same-day dispatch is {c}; orders after that go next working day.",
               "Orders must be in by {c} to ship the same day."),
    "received": ("{o} received {t}.", "{t} {o} received.", "{o} came in at {t}.", "{o}: received {t}.",
                 "{o} was placed at {t}.", "{t}: new order {o}.", "{o} arrived at {t}.", "{o} logged at {t}.",
                 "At {t} {o} was received.", "{o} - in at {t}."),
    "q_same": ("Does {o} ship the same day?", "Will {o} go out today?", "Does {o} make same-day dispatch?",
               "Is {o} dispatched on the day it was received?", "Does {o} leave on the same day?"),
    "q_next": ("Does {o} have to wait for the next working day?", "Will {o} ship the next working day?",
               "Did {o} miss the same-day cut-off?", "Is {o} too late for same-day dispatch?",
               "Does {o} go out the following day?"),
    "q_when": ("When does {o} ship?", "When will {o} be dispatched?", "Which dispatch day applies to {o}?",
               "When is {o} sent out?", "On which day does {o} leave?"),
    "deadline": ("{P} must give {d} no later than {D}.", "The last day for {d} is {D}.",
                 "{D_} is the deadline for {d}.", "{d_} is due by {D}.", "{d_} must be received on or before {D}.",
                 "Deadline for {d}: {D}.", "{d_} shall be delivered by {D} at the latest.",
                 "Any party wishing to act must send {d} by {D}.", "{d_}: no later than {D}.",
                 "The final date for {d} is {D}; anything later is out of time."),
    "acted": ("{who} {did} on {t}.", "On {t} {who} {did}.", "{who} {did}, dated {t}.", "{who}: {did} {t}.",
              "{t}: {who} {did}.", "{who} {did} on {t}, by courier.", "Records show {who} {did} on {t}.",
              "{who} {did} on {t} by e-mail and letter.", "It was on {t} that {who} {did}.",
              "{who} finally {did} on {t}."),
    "q_ontime": ("Did {who} act in time?", "Was {whose} {d} on time?", "Did {who} meet the deadline?",
                 "Was {who} within the deadline?", "Is {whose} {d} in time?"),
    "q_late": ("Did {who} miss the deadline?", "Was {who} late?", "Is {whose} {d} out of time?",
               "Did {who} act after the deadline?", "Was {whose} {d} too late?"),
    "limit": ("{S} within {n} {u} {of}.", "Rule: {s} within {n} {u} {of}.", "Standing order: {s} within {n} {u} {of}.",
              "{S} no more than {n} {u} {of}.", "Target: {s} within {n} {u} {of}.",
              "{S} within {n} {u} {of}; a longer wait is a breach.", "{S} inside {n} {u} {of}.",
              "Per procedure, {s} within {n} {u} {of}.", "{S} at most {n} {u} {of}.",
              "{S} within {n} {u} {of}, every time."),
    "line": ("{t} {e}.", "{t} - {e}.", "[{t}] {e}.", "{t}: {e}.", "{t} {e}", "at {t} {e}.", "{t} | {e}.",
             "{t} {e} (logged).", "{t}, {e}.", "{t} -- {e}."),
    "q_met": ("Was {x} handled within the limit?", "Did {x} meet the time limit?", "Was the limit met for {x}?",
              "Was {x} dealt with in time?", "Did {x} stay within the allowed time?"),
    "q_breach": ("Did {x} take longer than allowed?", "Was the time limit breached for {x}?",
                 "Did {x} miss the time limit?", "Was {x} too slow?", "Did {x} go over the allowed time?"),
}
SAME, NEXT = ("same day", "next working day"), ("today", "the next working day")
UNITS = (("seconds", 1, (20, 30, 45, 60, 90, 120)), ("minutes", 60, (2, 3, 5, 10, 15, 20, 30, 45)),
         ("hours", 3600, (1, 2, 3, 4, 6, 8, 12)))


def _pick(rng: random.Random, style: base.Style, key: str, **kw) -> str:
    return base.cap(base.pick(rng, T[key], style).format(**kw))


def _whose(name: str) -> str:
    """"Ada Okafor" -> "Ada Okafor's", "Marisol Retail" -> "Marisol Retail's", "the painters" -> "the painters'"."""
    return name + ("'" if name.endswith("s") else "'s")


def _clock(seconds: int, with_seconds: bool = False) -> str:
    seconds %= 86400
    h, m, s = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{h:02d}:{m:02d}:{s:02d}" if with_seconds else f"{h:02d}:{m:02d}"


def _day(d: date, rng: random.Random) -> str:
    return rng.choice((f"{d.day} {d:%B %Y}", f"{d:%B} {d.day}, {d.year}", f"{d:%a} {d.day} {d:%B %Y}",
                       f"{d.isoformat()}", f"{d.day} {d:%b %Y}"))


def _near(rng: random.Random, limit: int, step: int, spread: int) -> int:
    """A time at the limit (a third of the time) or up to `spread` steps either side."""
    return limit if rng.random() < 0.3 else limit + rng.choice((-1, 1)) * step * rng.randint(1, spread)


def _window(rng: random.Random, style: base.Style, sb: base.SetBuilder, n: int) -> int:
    act = rng.choice(ACTIVITIES)
    place = rng.choice(PLACES)
    overnight = rng.random() < 0.2
    a = rng.choice((20, 21, 22)) * 3600 if overnight else rng.randint(6, 10) * 3600 + rng.choice((0, 1800))
    b = rng.choice((5, 6, 7)) * 3600 if overnight else rng.randint(15, 19) * 3600 + rng.choice((0, 1800))
    sb.say(_pick(rng, style, "window", A=base.cap(act), a_=act, P=place, a=_clock(a), b=_clock(b)))
    who = rng.sample(PEOPLE + CREWS, rng.randint(2, 4))
    asked = 0
    for w in who:
        edge = rng.choice((a, b))
        t = _near(rng, edge, 300, 18) % 86400
        inside = (a <= t <= b) if a < b else (t >= a or t <= b)
        s = sb.say(_pick(rng, style, "start", t=_clock(t), who=w, a_=act, P=place))
        if asked < n:
            neg = rng.random() < 0.4
            sb.ask_boolean(_pick(rng, style, "q_out" if neg else "q_in", who=w, whose=_whose(w), a_=act),
                           inside != neg, 1, s)
            asked += 1
    return asked


def _cutoff(rng: random.Random, style: base.Style, sb: base.SetBuilder, n: int) -> int:
    c = rng.randint(11, 17) * 3600 + rng.choice((0, 0, 1800, 2700))
    rule = base.pick(rng, T["cutoff"], style)
    sb.say(base.cap(rule.format(c=_clock(c))))
    late_at_cutoff = "from {c} on" in rule  # "orders from 14:00 on leave the next day"; every other keeps 14:00
    words = rng.choice((SAME, NEXT))
    asked = 0
    for k in rng.sample(range(100, 999), rng.randint(2, 4)):
        o = rng.choice(ORDERS).format(n=k)
        t = _near(rng, c, 60 * rng.choice((1, 5, 10)), 12)
        s = sb.say(_pick(rng, style, "received", o=o, t=_clock(t)))
        same = t < c or t == c and not late_at_cutoff
        if asked < n:
            kind = rng.choice(("q_same", "q_next", "q_when"))
            if kind == "q_when":
                options = list(words)
                rng.shuffle(options)
                sb.ask_choice(_pick(rng, style, kind, o=o), options, words[0] if same else words[1], 1, s)
            else:
                sb.ask_boolean(_pick(rng, style, kind, o=o), same == (kind == "q_same"), 1, s)
            asked += 1
    return asked


def _deadline(rng: random.Random, style: base.Style, sb: base.SetBuilder, n: int) -> int:
    what, short, did = rng.choice(DEADLINES)
    due = date(rng.choice((2024, 2025, 2026)), rng.randint(1, 12), rng.randint(1, 28))
    written = _day(due, rng)
    sb.say(_pick(rng, style, "deadline", P=rng.choice(("Each party", "A party", "The Tenant", "The Customer")),
                 d=what, d_=base.cap(what), D=written, D_=base.cap(written)))
    asked = 0
    for who in rng.sample(PARTIES, rng.randint(2, 4)):
        when = due + timedelta(days=0 if rng.random() < 0.3 else rng.choice((-1, 1)) * rng.randint(1, 40))
        s = sb.say(_pick(rng, style, "acted", who=who, did=did, t=_day(when, rng)))
        if asked < n:
            late = rng.random() < 0.5
            sb.ask_boolean(_pick(rng, style, "q_late" if late else "q_ontime", who=who, whose=_whose(who), d=short),
                           (when > due) == late, 1, s)
            asked += 1
    return asked


def _timed(rng: random.Random, style: base.Style, sb: base.SetBuilder, n: int) -> int:
    subject, of, start_line, end_line = rng.choice(TIMED)
    unit, size, amounts = rng.choice(UNITS)
    limit = rng.choice(amounts)
    sb.say(_pick(rng, style, "limit", S=base.cap(subject), s=subject, n=limit, u=unit, of=of))
    tags = rng.sample(TAGS, rng.randint(2, 3))
    begin = rng.randint(0, 20) * 3600 + rng.randint(0, 59) * 60
    events, took = [], {}
    for i, x in enumerate(tags):
        start = begin + i * rng.randint(1, limit) * size // 2 + rng.randint(0, 59) * (size >= 60)
        took[x] = max(1, _near(rng, limit * size, max(1, size // (1 if size == 1 else 10)) * 5, 6))
        events += [(start, 0, start_line.format(x=x)), (start + took[x], 1, end_line.format(x=x))]
    with_seconds = size == 1 or any(t % 60 for t, _, _ in events)
    lines = {}
    for t, _, e in sorted(events):
        lines[e] = sb.say(_pick(rng, style, "line", t=_clock(t, with_seconds), e=e))
    asked = 0
    for x in tags:
        if asked < n:
            breach = rng.random() < 0.5
            sb.ask_boolean(_pick(rng, style, "q_breach" if breach else "q_met", x=x),
                           (took[x] > limit * size) == breach, 1, lines[end_line.format(x=x)])
            asked += 1
    return asked


CLOCKED = (_window, _cutoff, _timed)  # times of day; at most one of them in a set, so limits stay apart


def generate(rng: random.Random, style: base.Style, n_questions: int, max_links: int) -> DecisionSet:
    """One set of at most `n_questions` questions (a pattern, and half the time a second one in
    dates where the first is in times of day or the other way round; `max_links` is unused: every
    answer is one comparison away from the text)."""
    if not 1 <= n_questions <= 8:
        raise ValueError(f"n_questions must be 1..8, got {n_questions}")
    sb = base.SetBuilder(DOMAIN)
    first, second = rng.sample((rng.choice(CLOCKED), _deadline), 2)
    asked = first(rng, style, sb, n_questions)
    if asked < n_questions and rng.random() < 0.5:
        second(rng, style, sb, n_questions - asked)
    return sb.build(rng, shuffle="none")
