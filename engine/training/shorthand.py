"""Shorthand: a generated set rewritten the way people write in a hurry, with the same answers.

The families write whole words and full sentences. Shift logs, alarm lists and review notes
do not: "disch temp 131.5", "K-102 on S/B w/ line 3 in auto", "02:40 PT-1101 2.4 barg",
"isn't", "Update: ...". A model that has only read the long forms treats the short ones as
other words, and a question written in one register about a context written in another as
a question about something else. So a share of training sets (`CorpusSpec.shorthand`) goes
through rewrites that change how things are said and never what is said:

- words and their short forms, both ways ("temperature" / "temp", "with" / "w/",
  "is not" / "isn't", "shall" / "must"), drawn per occurrence, in the context and in each
  question on their own, so that the question's word is often not the context's;
- clock times before some of a context's sentences, in order ("02:40 K-101 trips."): more
  numbers that are not the ones asked about, as in every log;
- a lead-in on a few sentences ("Update:", "Note:", "Per the board op,").
Agreements keep their layout (word forms only).

Never rewritten: the options of a categorical question, and every word of the set that
an option contains (an option must still be found where the context says it), negation
is kept (a negated form only becomes another negated form), and the rewrite works within a
sentence, so support indices hold. Training only: no evaluation split draws it (the held-out
split measures phrasing the model never saw; this would blur that).
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from decider.engine.training.corpus import DecisionSet

# (long form, short forms, whether a short form may grow back into the long one). Every pair
# says the same thing in any sentence the families write. One-way pairs have short forms that
# are other words elsewhere ("s", "m", "as"); words that are entities or option values somewhere
# ("press", "maintenance") are left out or protected by the option rule. No short form ends in
# ".": "pres. measured" would end a sentence where engine/names.py looks for one.
FORMS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("temperature", ("temp",), True),
    ("pressure", ("pres",), True),
    ("discharge", ("disch",), True),
    ("suction", ("suct",), True),
    ("level", ("lvl",), True),
    ("alarm", ("alm",), True),
    ("maximum", ("max",), True),
    ("approximately", ("approx", "~"), True),
    ("degrees", ("deg",), True),
    ("standby", ("stand-by", "S/B"), True),
    ("operator", ("op",), False),
    ("supervisor", ("supv",), True),
    ("automatic", ("auto",), True),
    ("with", ("w/",), True),
    ("without", ("w/o",), True),
    ("and", ("&",), True),
    ("hours", ("h", "hrs"), False),
    ("minutes", ("mins",), True),
    ("seconds", ("s", "sec"), False),
    ("percent", ("%", "pct"), True),
    ("kilograms", ("kg",), False),
    ("metres", ("m",), False),
    ("immediately", ("at once", "straight away"), False),
    ("is not", ("isn't",), True),
    ("are not", ("aren't",), True),
    ("does not", ("doesn't",), True),
    ("do not", ("don't",), True),
    ("has not", ("hasn't",), True),
    ("have not", ("haven't",), True),
    ("was not", ("wasn't",), True),
    ("will not", ("won't",), True),
    ("cannot", ("can't", "can not"), True),
    ("shall not", ("must not",), True),
    ("shall", ("must",), True),
)
LEAD_INS = ("Update: ", "Note: ", "FYI ", "Per the board op, ", "Field report: ", "Confirmed: ", "As logged, ",
            "Shift notes: ", "Remark: ")
# sentence openings a lead-in ending in ", " may put in lower case (never a name)
OPENERS = frozenset("the a an if when once all every each no any some it its there this these".split())  # noqa: SIM905


def _table() -> dict[str, tuple[str, ...]]:
    """Every form -> the forms it may become (a long form's shorts; where the pair goes both
    ways, a short's long form and its sibling shorts)."""
    table: dict[str, tuple[str, ...]] = {}  # keys in lower case: matches are looked up that way
    for long, shorts, both_ways in FORMS:
        table[long] = shorts
        if both_ways:
            for s in shorts:
                table[s.lower()] = (long,) + tuple(o for o in shorts if o != s)
    return table


TABLE = _table()
# longest first, so that "is not" wins over a bare "is"; a form stands alone: no letter, digit
# or apostrophe on either side, no "-" or "/" joining it to a longer word ("P-7B's", "ON/OFF")
PATTERN = re.compile(r"(?<![\w/'-])(" + "|".join(re.escape(f) for f in sorted(TABLE, key=len, reverse=True))
                     + r")(?![\w/'-])", re.IGNORECASE)


def _protected(s: DecisionSet) -> set[str]:
    """Lower-case words of every option of the set: never rewritten anywhere."""
    return {w.lower() for q in s.questions for o in q.options for w in re.findall(r"[\w/~%&'-]+|\S", o)}


def rewrite_text(text: str, rng: random.Random, rate: float, protected: set[str]) -> str:
    """`text` with each form of FORMS that it holds swapped, with probability `rate`, for one
    of the forms it may become (the first letter's case kept)."""
    def swap(m: re.Match) -> str:
        word = m.group(0)
        key = word.lower()
        if any(w in protected for w in key.split()) or rng.random() >= rate:
            return word
        new = rng.choice(TABLE[key])
        return new[0].upper() + new[1:] if word[0].isupper() else new

    return PATTERN.sub(swap, text)


def rewrite(s: DecisionSet, seed: str) -> DecisionSet:
    """The set in another register: the same questions asked, the same answers, the same
    support indices (module docstring). Each sentence and question draws from a stream of
    its own (`seed` and its place): a twin (corpus.make_twins) whose sentence differs from
    its set's only in a number gets that sentence rewritten alike."""
    rng = random.Random(seed)
    protected = _protected(s)
    rate = rng.uniform(0.3, 0.9)  # some sets barely touched, some written in shorthand throughout
    sentences = [rewrite_text(t, random.Random(f"{seed}:s{i}"), rate, protected) for i, t in enumerate(s.sentences)]
    if s.domain != "contracts":  # an agreement keeps its layout: no clock times, no lead-ins
        _lay_out(sentences, rng)
    questions = [replace(q, text=rewrite_text(q.text, random.Random(f"{seed}:q{j}"), rate, protected))
                 for j, q in enumerate(s.questions)]
    return replace(s, sentences=sentences, questions=questions)


def _lay_out(sentences: list[str], rng: random.Random) -> None:
    """In place: a log's clock times, in order, before some sentences; or a lead-in on one or
    two of them; or neither."""
    if rng.random() < 0.35:
        minute = rng.randrange(0, 20 * 60)
        for i in range(len(sentences)):
            if rng.random() < 0.6:
                sentences[i] = f"{minute // 60:02d}:{minute % 60:02d} {sentences[i]}"
                minute = min(minute + rng.randint(1, 45), 23 * 60 + 59)
    elif rng.random() < 0.4:
        for i in rng.sample(range(len(sentences)), k=min(len(sentences), rng.randint(1, 2))):
            lead = rng.choice(LEAD_INS)
            lower = lead.endswith(", ") and sentences[i].split(" ", 1)[0].lower() in OPENERS
            sentences[i] = lead + (sentences[i][0].lower() + sentences[i][1:] if lower else sentences[i])
