"""Reading notes: each reading compared with its limits in words, written into the context.

"02:40 TT-1104 131.5 °C" and, two sentences earlier, "K-101 trips on high discharge temperature
(TT-1104 > 128 °C)": the number ranks and name links (engine/numbers.py, engine/names.py) give a
small encoder what it needs to compare the two, and it has never learned to (NOTES.md, versions 6
to 38). Comparing two numbers is arithmetic, so code does it, and the encoder reads the result as
words: the reading becomes "131.5 °C (above 128 °C)", and "Has K-101 tripped?" is then a question
about the words "above" and "trips", which the encoder reads well.

What is compared:
- a quantity is a number with a unit after it ("131.5 °C", "(90) days", "64%", "1.2 m/s") or a
  currency before it ("$250,000", "EUR 1,200"); units are compared as written, after folding
  spellings ("days"/"business days"/"day", "°C"/"degC"), never converted;
- a limit is a quantity that a limit word shortly before it introduces, within its clause ("trip",
  "alarm", "set point", "SP", "limit", "rated", "at least", "not exceed", "closer than", ">", ...),
  or a band ("normal window 2.0 to 3.5 barg", "between 40 and 60 %"); every quantity a question
  writes is a limit as well ("Is the interstage temperature above 128 °C?");
- every other quantity of the context is a reading, and is compared with at most `MAX_LIMITS`
  limits of its unit, from the first of these that has any: the limits of its own sentence; the
  limits of sentences that name its tag (the last tag before it in its sentence, else the first
  after: "TT-1104"); of sentences that name another tag of its sentence ("II-917 [motor current
  of BL-642A] 456.7 A"); of sentences that name no tag. A question's limits join the readings of the tags it
  names (every reading of the unit, for a question that names none, and a reading that follows
  no tag takes every question's).
- pairing rules 2 (`RULES`, decider-small 40's; rules 1 are version 39's): a list under a heading that names
  limits is of limits ("Wind limits: mean 10 m/s, gust 12 m/s"), and what a rule sets (a quantity
  of a sentence with a condition that no limit word introduces: "if a person is within 2 m, slow
  to 0.3 m/s") is neither a reading nor a limit. In a unit that measures many things in one text
  (`SHARED_UNITS`: days, %, money, ...), where several limits that no sentence or tag ties to a
  reading are left, only those that share a word with it count: the words a few before each (and
  a few after a reading) name what it measures, so "AGV-03: battery 18%" meets "return to dock
  when battery is below 20%" and not "credits shall not exceed 25%"; a question's limits
  likewise; where none shares a word, those with no words to tell keep their place. A reading's
  own sentence reaches past ";" to the full stop ("battery 22 %; return-to-charge threshold
  20 %").

- pairing rules 3 (`LATEST_RULES`) add times and dates (engine/clock.py): a point is a limit where a
  deadline or boundary word introduces it ("deadline", "cut-off", "sunset", "last day", "no later
  than"; right before it "by", "before", "after", "until"), a span where a window word stands
  before it ("between", "from", "permitted hours"); a question's time is an event's, never a
  limit. Every other point is a reading compared by the rules above with the limits of its kind
  ("17:30 (after 17:02)"), and a point that a limit on a duration binds is timed from the
  earlier point the limit counts from ("within 4 hours of losing supply": "10:00 (4.5 h after
  05:30: above 4 hours)", `since`). A time's digits are then no quantity.

The note says "above", "below" or "equal to" the limit, "within" or "outside" a band, and for
times and dates "after", "before", "at" or "on". The text is otherwise unchanged. This module knows
nothing of the model or of torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from decider.engine import clock
from decider.engine.names import sentence_spans
from decider.engine.numbers import PERCENT_OF, number_spans

MAX_LIMITS = 2  # limits a note names, nearest first
RULES = 2  # the pairing rules a model reads by default (ModelConfig.reading_notes: 0 none, 1, 2, 3)
LATEST_RULES = 3

# unit spellings, folded to one key each; a unit must end at a word boundary
UNITS = {
    "°C": "degC", "° C": "degC", "degC": "degC", "deg C": "degC", "degrees C": "degC", "degrees Celsius": "degC",
    "deg. C": "degC", "°F": "degF", "degF": "degF", "deg F": "degF", "degrees F": "degF",
    "degrees Fahrenheit": "degF", "amps": "A", "amp": "A", "amperes": "A", "volts": "V", "kilovolts": "kV",
    "lpm": "l/min", "m³/hr": "m3/h", "m3/hr": "m3/h", "metres": "m", "meters": "m", "metre": "m", "meter": "m",
    "millimetres": "mm", "mm/sec": "mm/s", "m/sec": "m/s", "kilograms": "kg", "kilometres": "km",
    "%": "%", "percent": "%", "per cent": "%", "%RH": "%RH",
    "barg": "barg", "bara": "bara", "bar": "bar", "mbar": "mbar", "psi": "psi", "psig": "psig",
    "Pa": "Pa", "kPa": "kPa", "MPa": "MPa", "mmHg": "mmHg", "inH2O": "inH2O",
    "A": "A", "mA": "mA", "kA": "kA", "V": "V", "kV": "kV", "mV": "mV",
    "W": "W", "kW": "kW", "MW": "MW", "kWh": "kWh", "MWh": "MWh", "kVA": "kVA", "MVA": "MVA",
    "Hz": "Hz", "rpm": "rpm", "RPM": "rpm", "r/min": "rpm", "rev/min": "rpm", "pct": "%", "bar g": "barg",
    "bar(g)": "barg", "bar a": "bara", "C": "degC", "F": "degF", "deg. F": "degF",
    "m": "m", "mm": "mm", "cm": "cm", "km": "km", "µm": "um", "um": "um",
    "m/s": "m/s", "mm/s": "mm/s", "km/h": "km/h", "mph": "mph", "m/s2": "m/s2", "m/s²": "m/s2",
    "m3/h": "m3/h", "m³/h": "m3/h", "Nm3/h": "Nm3/h", "t/h": "t/h", "tph": "t/h", "t/hr": "t/h", "kg/h": "kg/h", "kg/hr": "kg/h",
    "bbl": "bbl", "bpd": "bpd", "gal": "gal", "gallons": "gal", "MMscfd": "MMscfd", "scfm": "scfm", "Nm3": "Nm3",
    "l/min": "l/min", "L/min": "l/min", "l/s": "l/s", "L/s": "l/s", "gpm": "gpm",
    "L": "l", "l": "l", "litres": "l", "liters": "l", "ml": "ml", "mL": "ml", "m3": "m3", "m³": "m3",
    "kg": "kg", "g": "g", "mg": "mg", "t": "t", "tonnes": "t", "tons": "t", "lb": "lb", "lbs": "lb",
    "ppm": "ppm", "ppb": "ppb", "mg/L": "mg/l", "mg/l": "mg/l", "mg/m3": "mg/m3", "mg/Nm3": "mg/Nm3",
    "NTU": "NTU", "µS/cm": "uS/cm", "uS/cm": "uS/cm", "%LEL": "%LEL", "LEL": "%LEL", "Nm": "Nm",
    "N": "N", "kN": "kN", "dB": "dB", "dBA": "dBA", "dB(A)": "dBA", "lux": "lux", "mSv/h": "mSv/h",
    "µSv/h": "uSv/h", "Ah": "Ah", "mAh": "mAh", "cycles": "cycles",
    "ms": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
    "day": "day", "days": "day", "business days": "day", "working days": "day", "calendar days": "day",
    "Business Days": "day", "Working Days": "day", "week": "week", "weeks": "week",
    "month": "month", "months": "month", "year": "year", "years": "year",
}
CURRENCIES = {"$": "USD", "US$": "USD", "USD": "USD", "£": "GBP", "GBP": "GBP", "€": "EUR", "EUR": "EUR",
              "CHF": "CHF", "JPY": "JPY", "¥": "JPY", "CAD": "CAD", "AUD": "AUD"}
_UNIT = re.compile(r"(?:\s?\([a-z][a-z -]*\))?\)?\s?(" + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
                   + r")(?![\w/²³])")
_CURRENCY = re.compile(r"(?:" + "|".join(re.escape(c) for c in sorted(CURRENCIES, key=len, reverse=True))
                       + r")\s?$")
SCALES = {"k": 10**3, "m": 10**6, "million": 10**6, "bn": 10**9, "billion": 10**9}
_SCALE = re.compile(r"\s?(million|m|bn|billion|k)\b", re.IGNORECASE)

# words that make the quantity after them a limit, within its clause
LIMIT_WORDS = re.compile(
    r"\b(?:trips?|tripped|trip point|alarms?|limits?|limited|set ?points?|thresholds?|max(?:imum)?|"
    r"min(?:imum)?|rated|rating|exceeds?|exceeding|above|below|over|under|greater|less|lower|higher|more|"
    r"fewer|at least|at most|up to|no more|not (?:to )?exceed|closer|further|farther|within|window|"
    r"band|between|caps?|capped|ceiling|floor|allowed|allowable|permitted|permissible|target|spec|"
    r"specification|tolerance|setting|interlock|shutdown|cut-?out|cut-?in|"
    r"high|low|design|quota|budget|cap of|threshold of|ceiling of|no later than|"
    r"no less than|no fewer than|not less than|not more than|minimum of|maximum of|reach|reaches|reaching|hits?|"
    r"comes? up to|falls? to|drops? to|gets? to)\b|[<>≤≥]|=<|>=|<=",
    re.IGNORECASE)
LIMIT_MARKS = re.compile(r"\b(?:HH|LL|H|L|SP|PAH|PAL|TAH|TAL|PSHH|MAWP|MOP)\b")  # as written, not "3 h at 80 °C"
# ... or that a few words after it name as a limit: "90.0 °C is the hi-hi alarm", "20% or less"
LIMIT_AFTER = re.compile(
    r"\W{0,3}(?:or (?:less|more|lower|higher|above|below|greater|fewer|over|under)|and (?:above|below|over|under)|"
    r"(?:is|are|as|being) (?:the|its|their|a|an)\b[^,;.]{0,40}?\b(?:alarm|trip|limit|set ?point|setting|threshold|"
    r"rating|maximum|minimum|cap))", re.IGNORECASE)
# (rules 2) a list after a heading that names limits is of limits: "Wind limits: M3E-02 mean 10 m/s,
# gust 12 m/s"; the other quantities of a rule are what it sets, neither readings nor limits: a
# sentence with a condition, "If that share is at least 65%, the rebate is 3%", "if a person is
# within 2 m, slow to 0.3 m/s"; a list after a heading that names rules or prices
CONDITION = re.compile(r"\b(?:if|unless|whenever|provided(?: that)?|as long as|in case|only when)\b", re.IGNORECASE)
# a heading's first or last word ("Wind limits", "Maximum interruption per instruction", "Price list")
LIMIT_HEADING = re.compile(r"\b(?:limits?|settings?|set ?points?|thresholds?|specs?|specifications?|ratings?|"
                           r"maxim(?:um|a)|minim(?:um|a)|criteria)\b", re.IGNORECASE)
RULE_HEADING = re.compile(r"\b(?:rules?|polic(?:y|ies)|tariffs?|rates?|prices?|list|fees?)\b", re.IGNORECASE)
BAND_WORDS = re.compile(r"\b(?:range|window|band|between|normal|operating|allowed|limits?)\b", re.IGNORECASE)
BAND = re.compile(r"\s*(?:to|and|-|–|—)\s*")
CLAUSE_START = re.compile(r"[,;.(\n]\s|[(\[]")
WORDS_BACK = 9
FULL_STOP = re.compile(r"(?<=[.!?])\s+|\n+")  # tags are a reading's across ";": "PT-700 is at 90 mbar; that is DR-186's"

# units that measure many things in one text (a notice period, a term and a payment delay in days;
# a battery's charge and a share of fees in %): a reading in one is paired by words as well
SHARED_UNITS = frozenset({"%", "day", "week", "month", "year", "h", "min", "s", *CURRENCIES.values(),
                          "clock", "date", "datetime"})  # (times and dates: rules 3)
# what a quantity measures: the words a few before it in its clause, and for a reading a few after
WORDS_ABOUT, WORDS_AFTER = 9, 3
_WORD = re.compile(r"[A-Za-z][a-z]+")  # "battery", "Availability"; not tags or units ("TT", "AGV")
STOP_WORDS = frozenset("""
    the and for with from that this these those than then when whenever where which while who whom whose its
    their his her our your has have had was were are been being is be not nor but any all each every some
    other others into onto upon over under per via off out about after before during until unless only also
    shall must may might can could should would will it they them there here now today
    set still just very such same own what how why reads read reading readings value values level levels
    report reported shows showing logged log current currently actual measured approx approximately
    """.split())

NUMBER_WORDS = re.compile(r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|"
                          r"forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|cent|percent)",
                          re.IGNORECASE)


def _about(text: str, start: int, end: int, sentence_start: int, sentence_end: int, after: bool) -> frozenset[str]:
    """The words that say what the quantity at text[start:end] measures: up to `WORDS_ABOUT` before
    it within its clause, and with `after` up to `WORDS_AFTER` after it, to the next clause mark;
    limit words and the commonest words left out, each word cut to its first four letters."""
    words = _clause_before(re.sub(r"\([^()]*\d[^()]*\)", " ", text[sentence_start:start]))[-WORDS_ABOUT:]
    if after:
        words += re.split(r"[,;.(\n]", text[end:sentence_end], maxsplit=1)[0].split()[:WORDS_AFTER]
    return _content(" ".join(words))


def _content(text: str) -> frozenset[str]:
    """The words of `text` that can name a thing, each cut to its first four letters."""
    return frozenset(w.lower()[:4] for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in STOP_WORDS
                     and not LIMIT_WORDS.fullmatch(w) and not NUMBER_WORDS.fullmatch(w))


TAG = re.compile(r"(?<![\w-])[A-Z]{1,6}-[A-Z0-9]*\d[A-Z0-9]*(?:-[A-Z0-9]+)*(?![\w-])")


@dataclass
class Quantity:
    start: int        # where its number starts
    end: int          # where the note goes: after its unit
    value: Decimal
    unit: str
    text: str         # as written, number and unit
    sentence: int
    limit: bool = False
    high: Decimal | None = None  # a band's upper end (value is its lower end)
    tag: str | None = None      # its tag: the nearest before it in its sentence (to a full stop), else the nearest after
    tags: frozenset[str] = frozenset()  # every tag of that sentence
    stop: int = 0  # where that sentence (to a full stop) starts
    rule: bool = False  # (rules 2) a value a rule sets: neither a reading nor a limit
    about: frozenset[str] = frozenset()  # what it measures, in words (_about)
    event: frozenset[str] = frozenset()  # (rules 3) a time's: the words right next to it (_events)


def _sentence_of(spans: list[tuple[int, int]], pos: int) -> int:
    return next((i for i, (s, e) in enumerate(spans) if s <= pos <= e), len(spans) - 1)


def _is_limit(text: str, start: int, end: int, sentence_start: int) -> bool:
    """A limit word among the few words before `start`, within the clause, or a limit named right
    after `end`."""
    if LIMIT_AFTER.match(text, end):
        return True
    window = " ".join(_clause_before(text[sentence_start:start])[-WORDS_BACK:])
    return bool(LIMIT_WORDS.search(window) or LIMIT_MARKS.search(window))


def _clause_before(window: str) -> list[str]:
    """The words of `window` (text up to a quantity) after its last clause mark; "ninety (90)
    days": the words before "("."""
    window = re.sub(r"\(\s*$", "", window)
    cut = 0
    for m in CLAUSE_START.finditer(window):
        cut = m.end()
    return window[cut:].split()


def _figure(value: Decimal) -> str:
    """6800.00 -> "6800", 352.80 -> "352.8"."""
    return format(value.normalize(), "f")


def _unit_after(text: str, end: int) -> tuple[str, int, str] | None:
    """The unit written right after a number that ends at `end`: (its key, where it ends, how the
    note writes number and unit: " °C", "%", " days" for "ninety (90) days")."""
    m = _UNIT.match(text, end)
    if m is None:
        return None
    space = " " if text[m.start(1) - 1].isspace() else ""
    return UNITS[m.group(1)], m.end(), space + m.group(1)


def quantities(text: str, rules: int = RULES) -> list[Quantity]:
    """Every number with a unit (or currency) in `text`, bands joined, each marked limit or not
    (and by pairing rules 2, a value a rule sets: `rule`)."""
    sentences = sentence_spans(text)
    spans = number_spans(text)
    out: list[Quantity] = []
    if rules >= 3:  # times and dates are points (engine/clock.py), and their digits no quantity's
        times = clock.points(text)
        spans = [n for n in spans if not any(p.start <= n[0] < p.end for p in times)]
        out += [_point(text, p, sentences) for t in times for p in _limit_or_parts(text, t, sentences)]
    i = 0
    while i < len(spans):
        s, e, value = spans[i]
        sentence = _sentence_of(sentences, s)
        opens = sentences[sentence][0]
        start, end, unit, written = s, e, None, ""
        if after := _unit_after(text, e):
            unit, end, written = after
        elif c := _CURRENCY.search(text, max(0, s - 4), s):
            unit, start = CURRENCIES[c.group(0).strip()], c.start()
            if sc := _SCALE.match(text, e):
                end, written = sc.end(), sc.group(0)
                value *= SCALES[sc.group(1).lower()]
        # "80% of rated (8500 r/min)": the share's value (number_spans), in the unit of its base
        if unit == "%" and (of := PERCENT_OF.match(text, e)) and i + 1 < len(spans) and of.end() == spans[i + 1][0] \
                and (base := _unit_after(text, spans[i + 1][1])):
            unit, end, written = base
            out.append(Quantity(start, end, value, unit, _figure(value) + written, sentence,
                                limit=_is_limit(text, start, end, opens)))
            i += 2
            continue
        # a band: "2.0 to 3.5 barg", "between 40 % and 60 %", where a limit word says it is one
        band = BAND.match(text, end if after else e)
        if i + 1 < len(spans) and band and band.end() == spans[i + 1][0]:
            _, e2, high = spans[i + 1]
            after2 = _unit_after(text, e2)
            unit2, end2, written2 = after2 if after2 else (unit, e2, written)
            if unit2 is not None and unit in (None, unit2) and high > value and (
                    _is_limit(text, start, end2, opens) or BAND_WORDS.search(text, max(opens, start - 40), start)
                    or BAND_WORDS.match(text, end2 + 1)):
                out.append(Quantity(start, end2, value, unit2, text[start:e2] + written2, sentence, limit=True,
                                    high=high))
                i += 2
                continue
        if unit is not None:
            out.append(Quantity(start, end, value, unit, text[start:e] + written, sentence,
                                limit=_is_limit(text, start, end, opens)))
        i += 1
    out.sort(key=lambda q: q.start)
    stops = [0, *(m.end() for m in FULL_STOP.finditer(text)), len(text) + 1]
    limits_by_wording = [q for q in out if q.limit]
    for q in out:
        opens = max(a for a in stops if a <= q.start)
        closes = min(a for a in stops if a > q.start)
        before, after = TAG.findall(text[opens:q.start]), TAG.findall(text[q.end:closes])
        q.tag = before[-1] if before else after[0] if after else None
        q.tags = frozenset(before + after)
        q.stop = opens
        a, b = sentences[q.sentence]
        if rules >= 2:  # rules 1 know neither headings nor rules' values, and pair without words
            if not q.limit:
                heading = _heading(text, opens, a, q.start)
                q.limit = bool(heading and LIMIT_HEADING.search(heading))
                q.rule = not q.limit and (bool(heading and RULE_HEADING.search(heading))
                                          or _in_a_rule(text, a, b, q, limits_by_wording))
            q.about = _about(text, q.start, q.end, a, b, after=not q.limit)
            if q.unit in TIME_UNITS and not q.limit:  # a log line's event follows its time: "14:35:53, HX-3 door shut"
                q.about |= _content(" ".join(text[q.end:closes].split()[:WORDS_AFTER + 2]))
    if rules >= 3:
        _events(text, [q for q in out if q.unit in TIME_UNITS and not q.limit])
    return out


# (rules 3) words that make the time or date after them a limit, within its clause
# (a limit word among the few before a time is more often an event's: "started 06:10", "due at 14:00",
# "closing the valve at 09:12"; these are the words that a deadline or a boundary keeps)
TIME_LIMIT_WORDS = re.compile(
    r"\b(?:deadlines?|cut-?off|sunrise|sunset|dawn|dusk|expir(?:y|es|ed|ing|ation)|last day|curfew|latest|earliest|"
    r"no later than|not later than|no earlier than|not earlier than)\b", re.IGNORECASE)
TIME_LIMIT_BEFORE = re.compile(r"\b(?:by|before|after|until|till)\W*$", re.IGNORECASE)  # right before it
TIME_LIMIT_AFTER = re.compile(r"\W{0,3}(?:is|was|as|being) (?:the|its|their)\b[^,;.]{0,30}?\b(?:deadline|last day|"
                              r"cut-?off|closing date|due date|expiry)", re.IGNORECASE)  # "30 June is the deadline"
# a span is a limit where one of these is among the few words before it: "between 06:00 and 22:00",
# "permitted hours 09:00-18:00", "from 02:00 to 05:00"; "flushing 15:10-15:50" is two times
SPAN_WORDS = re.compile(r"\b(?:between|from|window|hours|permitted|allowed|only|open|opening|curfew|quiet|"
                        r"restricted)\b", re.IGNORECASE)
TIME_UNITS = frozenset({"clock", "date", "datetime"})
SECONDS = {"s": 1, "min": 60, "h": 3600, "day": 86400, "week": 604800}  # durations an elapsed time is written in
WORKING = re.compile(r"\b(?:working|business)\b", re.IGNORECASE)
DURATION_WORDS = {"s": "s", "min": "min", "h": "h", "day": "days", "week": "weeks"}


def _events(text: str, times: list[Quantity]) -> None:
    """Each time's event: the few words between it and the time before it (in its sentence, "was
    paid on 15 April") and up to the next ("09:02 LT-301 alarm raised. 09:06 ...")."""
    bounds = [0, *(q.end for q in times)], [*(q.start for q in times), len(text)]
    for q, before, after in zip(times, bounds[0], bounds[1][1:]):
        before = _clause_before(text[max(before, q.stop):q.start])[-3:]
        after = re.split(r"[.!?\n]\s", text[q.end:after], maxsplit=1)[0].split()[:WORDS_AFTER + 2]
        q.event = _content(" ".join(before + after))


def _time_limit(text: str, start: int, end: int, sentence_start: int, span: bool = False) -> bool:
    window = " ".join(_clause_before(text[sentence_start:start])[-WORDS_BACK:])
    return bool(TIME_LIMIT_WORDS.search(window) or TIME_LIMIT_BEFORE.search(window) or TIME_LIMIT_AFTER.match(text, end)
                or span and SPAN_WORDS.search(window))


def _limit_or_parts(text: str, point: clock.Point, sentences: list[tuple[int, int]]) -> list[clock.Point]:
    """A span that a limit word introduces is one limit ("from 02:00 to 05:00"); any other is its
    two points ("flushing 15:10-15:50")."""
    opens = sentences[_sentence_of(sentences, point.start)][0]
    if point.parts is None or _time_limit(text, point.start, point.end, opens, span=True):
        return [point]
    return list(point.parts)


def _point(text: str, p: clock.Point, sentences: list[tuple[int, int]]) -> Quantity:
    sentence = _sentence_of(sentences, p.start)
    return Quantity(p.start, p.end, Decimal(p.value), p.kind, p.text, sentence,
                    limit=p.high is not None or _time_limit(text, p.start, p.end, sentences[sentence][0]),
                    high=None if p.high is None else Decimal(p.high))


def _heading(text: str, opens: int, clause: int, start: int) -> str | None:
    """The first and last words of the heading the quantity at `start` is listed under, if any:
    up to four words before the first colon of its sentence (from `opens`), no tag among them
    ("Wind limits (company figures): ...", "Maximum interruption per instruction: ..."); it
    reaches a ";"-clause (from `clause`) of its own or one that names no tag ("...; AGV-03
    battery now 18%" is not the list's)."""
    head = text[opens:start].split(":", 1)
    if len(head) < 2:
        return None
    bare = re.sub(r"\([^()]*\)", " ", head[0])
    words = [re.sub(r"\W", "", w) for w in bare.split()]
    if not 0 < len(words) <= 4 or TAG.search(bare) or opens + len(head[0]) < clause and TAG.search(text, clause, start):
        return None
    return f"{words[0]} {words[-1]}"


def _in_a_rule(text: str, a: int, b: int, q: Quantity, limits: list[Quantity]) -> bool:
    """Whether the quantity `q` is what a rule sets: its clause (a ";"-clause from `a` to `b`, cut at
    " | ") has a condition and a limit ("if a person is within 2 m, slow to 0.3 m/s")."""
    a = max(a, text.rfind(" | ", a, q.start))
    if (cut := text.find(" | ", q.end, b)) >= 0:
        b = cut
    return bool(CONDITION.search(text, a, b)) and any(a <= lim.start < b for lim in limits)


def relation(reading: Quantity, limit: Quantity) -> str:
    """How `reading` stands to `limit`: above, below, equal to; within or outside a band; for times
    and dates after, before, at or on (engine/clock.py)."""
    if limit.unit in TIME_UNITS:
        return clock.relation(int(reading.value), int(limit.value), None if limit.high is None else int(limit.high),
                              limit.unit)
    if limit.high is not None:
        return "within" if limit.value <= reading.value <= limit.high else "outside"
    if reading.value > limit.value:
        return "above"
    return "below" if reading.value < limit.value else "equal to"


def _same_thing(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two quantities' words (or a quantity's and a question's) say they measure one thing:
    they share a word, or one of them has none to tell."""
    return not a or not b or bool(a & b)


def pairs(context: str, questions: list[str] = (), rules: int = RULES) -> list[tuple[Quantity, list[Quantity]]]:
    """Each reading of `context` that has limits to compare with, and those limits (the
    context's nearest first, then the questions'; one of each value), by pairing rules `rules`."""
    return _pairs(context, quantities(context, rules), questions, rules)


def _pairs(context: str, qs: list[Quantity], questions: list[str], rules: int) -> list[tuple[Quantity, list[Quantity]]]:
    sentences = sentence_spans(context)
    tags_of = [set(TAG.findall(context[s:e])) for s, e in sentences]
    limits = [q for q in qs if q.limit]
    asked = []  # each quantity a question writes, with the question's tags and words
    for text in questions:
        tags, words = set(TAG.findall(text)), _content(text) if rules >= 2 else frozenset()
        asked += [(q, tags, words) for q in quantities(text, rules) if q.unit not in TIME_UNITS]  # an event's time
    out = []
    for r in qs:
        if r.limit or r.rule:
            continue
        same = [q for q in limits if q.unit == r.unit]
        by_words = rules >= 2 and r.unit in SHARED_UNITS
        untied = [q for q in same if not tags_of[q.sentence]]
        if by_words and len(untied) > 1:  # words choose among several limits; a lone one is the unit's
            untied = ([q for q in untied if q.about & r.about]
                      or [q for q in untied if _same_thing(q.about, r.about)]
                      or (untied if r.unit in TIME_UNITS else []))  # "17:30 OC-3 on yard road" and "sunset 17:02"
        tiers = (
            [q for q in same if q.sentence == r.sentence or rules >= 2 and q.stop == r.stop],
            [q for q in same if r.tag in tags_of[q.sentence]],
            [q for q in same if tags_of[q.sentence] & r.tags],
            untied,
        )
        chosen = sorted(next((t for t in tiers if t), []), key=lambda q: abs(q.start - r.start))[:MAX_LIMITS]
        chosen += [q for q, q_tags, q_words in asked
                   if q.unit == r.unit and q.value != r.value
                   and (q_tags & r.tags if q_tags and r.tags else not by_words or _same_thing(q_words, r.about))]
        unique = {}
        for q in chosen:
            unique.setdefault((q.value, q.high), q)
        if unique:
            out.append((r, list(unique.values())))
    return out


def since(context: str, qs: list[Quantity]) -> list[tuple[Quantity, Quantity, Quantity, Quantity]]:
    """(rules 3) Each time or date of `context` that a limit on a duration binds, with the earlier
    point it is timed from, the time between them (in the limit's unit) and the limit: "10:00"
    of "received bottled water 10:00" from "supply lost 05:30" against "must receive bottled water
    within 4 hours of losing supply". A limit binds a point that shares a word with it; the point
    timed from is, of the earlier ones (those of the same tag first), the last that shares a word
    with what the limit counts from ("of losing supply"), else the first that shares one with the
    limit itself ("blocked for more than 45 seconds": the first "blocked"); else there is none."""
    points = [q for q in qs if q.unit in TIME_UNITS and not q.limit and not q.rule]
    durations = [q for q in qs if q.unit in SECONDS and q.limit and not q.rule and q.high is None]
    out = []
    for r in points:
        earlier = [p for p in points if p.start < r.start and p.unit == r.unit]
        own = [p for p in earlier if r.tag and p.tag == r.tag]
        found = sorted((d for d in durations if d.about & r.about), key=lambda d: abs(d.start - r.start))
        for d in found[:MAX_LIMITS] if earlier else ():
            cue = _content(" ".join(re.split(r"[,;.(\n]", context[d.end:d.end + 80], maxsplit=1)[0].split()[:4]))
            if r.event & cue:  # "09:02 LT-301 alarm raised" is what "within 5 minutes of being raised" counts from
                continue
            start = next((p for p in [*reversed(own), *reversed(earlier)] if p.event & cue),
                         next((p for p in [*own, *earlier] if p.event & d.about), None))
            if start and (seconds := clock.elapsed(int(r.value), int(start.value), r.unit)):
                value = (Decimal(seconds) / SECONDS[d.unit]).quantize(Decimal("0.01")).normalize()
                if r.unit == "date" and WORKING.search(d.text):  # "within 5 Working Days": weekdays only
                    value = Decimal(clock.working_days(int(r.value), int(start.value)))
                took = f"{_figure(value)} {DURATION_WORDS[d.unit]}"
                out.append((r, start, Quantity(r.start, r.end, value, d.unit, took, r.sentence), d))
    return out


def notes_on(context: str, questions: list[str] = (), rules: int = RULES) -> list[tuple[Quantity, str]]:
    """Every note of `context`, with the reading it follows: its limits compared ("above 128 °C"),
    and by rules 3 what a limit on a duration binds ("52 s after 14:03:10: above 45 seconds")."""
    qs = quantities(context, rules)
    out = [(r, f"{relation(r, q)} {q.text}") for r, limits in _pairs(context, qs, questions, rules) for q in limits]
    return out + [(r, f"{took.text} after {start.text}: {relation(took, limit)} {limit.text}")
                  for r, start, took, limit in (since(context, qs) if rules >= 3 else ())]


def annotate(context: str, questions: list[str] = (), rules: int = RULES) -> str:
    """`context` with its notes (`notes_on`) in brackets after each reading, each note once."""
    notes: dict[int, list[str]] = {}
    for r, note in notes_on(context, questions, rules):
        notes.setdefault(r.end, []).append(note)
    out, last = [], 0
    for end in sorted(notes):
        out += [context[last:end], " (", "; ".join(dict.fromkeys(notes[end])), ")"]
        last = end
    out.append(context[last:])
    return "".join(out)
