"""The timing family: windows, cut-offs, deadlines and time limits. Its answers come from its own
arithmetic on the times; the reading notes (engine/notes.py, pairing rules 3) work the same
comparisons out of the text alone, so where a note stands on the line a question asks about,
the two must agree."""

from __future__ import annotations

import random
import re
from collections import Counter

from decider.engine.notes import annotate, notes_on
from decider.engine.training.families import base
from decider.engine.training.families import timing
from family_checks import deterministic_and_accepted, held_out_phrasings_stay_out


def _sets(n: int, style: base.Style | None = None):
    return [timing.generate(random.Random(f"timing-test:{i}"), style or base.Style(), 8, 3) for i in range(n)]


# a question that asks about the late, outside or too-slow side
LATE_SIDE = re.compile(r"outside|break|not allow|next working day|wait for|miss|late|following day|out of time|"
                       r"after the deadline|longer|breach|too slow|go over")


def _note_words(s) -> dict[int, list[str]]:
    """The relation word of every note (rules 3: "after", "within", "above" of "52 s after 14:03:10:
    above 45 seconds"), by the sentence their point is in."""
    starts = [0]
    for sentence in s.sentences[:-1]:
        starts.append(starts[-1] + len(sentence) + 1)
    out: dict[int, list[str]] = {}
    for r, note in notes_on(s.context, [], 3):
        out.setdefault(max(i for i, a in enumerate(starts) if a <= r.start), []).append(note.split(": ")[-1].split()[0])
    return out


def test_the_notes_agree_with_the_answers_where_they_stand_on_the_asked_line():
    seen = Counter()
    for s in _sets(400):
        words = _note_words(s)
        strict = "from " in s.context and " on leave the next" in s.context  # "orders from 14:00 on": 14:00 is late
        for q, answer, line in zip(s.questions, s.answers, s.support):
            seen["questions"] += 1
            if not (said := words.get(line)):
                continue
            late = any(w in ("outside", "above") for w in said) or "after" in said and "before" not in said \
                or strict and "at" in said
            if q.kind == "boolean":
                asks_late = (q.choices[answer] == "yes") == bool(LATE_SIDE.search(q.text))
            else:
                asks_late = "next" in q.choices[answer]
            seen["noted"] += 1
            seen["agree"] += late == asks_late
    assert seen["noted"] > 0.85 * seen["questions"]
    assert seen["agree"] > 0.98 * seen["noted"]


def test_yes_and_no_are_balanced_and_limits_are_often_met_exactly():
    sets = _sets(300)
    answers = Counter(q.choices[a] for s in sets for q, a in zip(s.questions, s.answers) if q.kind == "boolean")
    assert 0.4 < answers["yes"] / (answers["yes"] + answers["no"]) < 0.6
    equal = sum("(at " in a or "(on " in a or "equal to" in a for a in (_annotated(s) for s in sets))
    assert equal > 0.2 * len(sets)  # "by 14:00" and "within" are inclusive: a time at the limit is asked often


def _annotated(s) -> str:
    return annotate(s.context, [q.text for q in s.questions], 3)


def test_deterministic_within_limits_and_accepted_by_the_service():
    deterministic_and_accepted("timing")


def test_held_out_phrasings_stay_out_of_training(monkeypatch):
    held_out_phrasings_stay_out(monkeypatch, lambda style: _sets(100, style))
