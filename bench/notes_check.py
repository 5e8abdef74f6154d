"""Are the reading notes right? The generator knows, for every limit it writes, how the reading
of the instrument it is about compares with it (DecisionSet.number_labels); a note compares a
reading with a limit it found by heuristics (engine/notes.py). Where the two meet, they agree
only if the note paired the limit with the right reading.

    python bench/notes_check.py [--sets 500] [--split validation] [--family readings] [--rules 2]
    python bench/notes_check.py --judged [bench/notes_pairs.jsonl]
    python bench/notes_check.py --judged-times [bench/time_notes_judged.jsonl]

Prints, over the notes of N generated sets: how many notes name a limit the generator labels,
and how often the note's word (above, below, equal to) is the label's; bands (within, outside)
are left out. Also the share of the generator's limits (in the context and in the questions; those
the reading equals are left out, as the labels cannot tell them from readings) that a note names.

With --judged: people's text, where no generator knows the answer. bench/notes_pairs.jsonl holds
two samples of 70 sets each of the written training files (engine/training/written) and, for
each set, every candidate pair of a reading and a limit of its unit (the limit in the context or
in a question), each judged by a reader: would a note comparing the two be meaningful (the
limit applies to the very quantity the reading measures), and is the "reading" a limit or a
rule's value itself. The first sample's candidates are those pairing rules 1 could name, and
rules 2 were worked out on it; the second's are those rules 1 or 2 could name, drawn and judged
after rules 2 were written, so it tells whether they carry. Prints, per sample and pairing
rules, how many notes name a judged pair, the share of them that are meaningful (precision) and
the share of the meaningful pairs that get a note (recall).

With --judged-times: the notes pairing rules 3 write on times and dates. bench/time_notes_judged.jsonl
holds two samples of 60 sets each of the written training files (not of the 32 no version trains
on) and every time note on them, each judged by a reader: is the comparison one a careful reader
of the text would make (meaningful), and is its arithmetic right (correct). The first sample's
notes are those of a first draft of rules 3 (356 notes, 14% meaningful), which the rules were
then tightened on; the second was drawn and judged after. Prints, per sample, how many notes the
rules write now, how many of them were judged, and the shares meaningful and correct.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from decider.engine.notes import LATEST_RULES, RULES, TIME_UNITS, notes_on, pairs, quantities, relation
from decider.engine.training.corpus import CorpusSpec, make_set

WORDS = {0: "below", 1: "equal to", 2: "above"}


def check(n_sets: int, split: str, family: str, rules: int = RULES) -> Counter:
    spec = CorpusSpec(split=split, mix=((family, 1.0),))
    seen = Counter()
    for index in range(n_sets):
        s = make_set(spec, index)
        # the set's sentence of each character offset (its sentences joined by spaces)
        starts = [0]
        for sentence in s.sentences[:-1]:
            starts.append(starts[-1] + len(sentence) + 1)
        labels = {("context", i, v): label for i, v, label in s.number_labels}
        labels |= {("question", k, v): label for k, v, label in s.question_labels}
        where = {(q.start, q.text): ("context", max(i for i, a in enumerate(starts) if a <= q.start))
                 for q in quantities(s.context)}
        for k, question in enumerate(s.questions):
            where |= {(q.start, q.text): ("question", k) for q in quantities(question.text)}
        limits = {key for key, label in labels.items() if label != 1}  # 1: a reading, in its own sentence
        named = set()
        for reading, found in pairs(s.context, [q.text for q in s.questions], rules):
            for limit in found:
                if limit.high is not None:
                    continue
                seen["notes"] += 1
                key = (*where[limit.start, limit.text], limit.value)
                if key not in labels:
                    seen["unlabelled"] += 1
                    continue
                named.add(key)
                seen["labelled"] += 1
                seen["agree"] += WORDS[labels[key]] == relation(reading, limit)
        seen["limits"] += len(limits)
        seen["named"] += len(named & limits)
        seen["sets"] += 1
    return seen


def judged(path: Path, rules: int, sample: str = "first") -> Counter:
    seen = Counter()
    for line in path.read_text().splitlines():
        item = json.loads(line)
        if item["sample"] != sample:
            continue
        noted = {(r.start, q.start, q.text) for r, found in pairs(item["context"], item["questions"], rules)
                 for q in found}
        judged_pairs = {(c["reading"][0], c["limit"][0], c["limit"][1]) for c in item["candidates"]}
        seen["unjudged"] += len(noted - judged_pairs)
        for c in item["candidates"]:
            named = (c["reading"][0], c["limit"][0], c["limit"][1]) in noted
            seen["notes"] += named
            seen["right"] += named and c["meaningful"]
            seen["meaningful"] += c["meaningful"]
    return seen


def time_notes(context: str) -> set[tuple[int, str]]:
    """(where its point starts, what it says) of every time note pairing rules 3 write on `context`."""
    return {(r.start, note) for r, note in notes_on(context, [], 3) if r.unit in TIME_UNITS}


def judged_times(path: Path, sample: str) -> Counter:
    seen = Counter()
    for line in path.read_text().splitlines():
        item = json.loads(line)
        if item["sample"] != sample:
            continue
        judged_notes = {(n["at"], n["note"]): n for n in item["notes"]}
        for key in time_notes(item["context"]):
            n = judged_notes.get(key)
            seen["notes"] += 1
            seen["judged"] += n is not None
            seen["meaningful"] += bool(n and n["meaningful"])
            seen["correct"] += bool(n and n["correct"])
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=int, default=500)
    ap.add_argument("--split", default="validation")
    ap.add_argument("--family", default="readings")
    ap.add_argument("--rules", type=int, default=RULES, choices=range(1, LATEST_RULES + 1),
                    help="the pairing rules (engine/notes.py)")
    ap.add_argument("--judged", nargs="?", const=Path(__file__).parent / "notes_pairs.jsonl", type=Path,
                    help="measure on pairs judged by a reader (every pairing rules) instead")
    ap.add_argument("--judged-times", nargs="?", const=Path(__file__).parent / "time_notes_judged.jsonl", type=Path,
                    help="measure pairing rules 3's notes on times and dates on sets whose notes a reader judged")
    args = ap.parse_args()
    if args.judged_times:
        for sample in ("first", "second"):
            c = judged_times(args.judged_times, sample)
            print(f"{sample} sample: {c['notes']} time notes, {c['judged']} of them judged; meaningful "
                  f"{c['meaningful'] / max(c['judged'], 1):.3f} and correct {c['correct'] / max(c['judged'], 1):.3f} "
                  "of the judged")
        return
    if args.judged:
        every = range(1, LATEST_RULES + 1)
        for sample, rules in ((sample, rules) for sample in ("first", "second") for rules in every):
            c = judged(args.judged, rules, sample)
            print(f"{sample} sample, rules {rules}: {c['notes']} notes name a judged pair; meaningful {c['right'] / max(c['notes'], 1):.3f}"
                  f" of them; {c['right'] / max(c['meaningful'], 1):.3f} of the {c['meaningful']} meaningful pairs "
                  f"named" + (f"; {c['unjudged']} notes name a pair that rules 1 do not (not judged)" if rules > 1 else ""))
        return
    c = check(args.sets, args.split, args.family, args.rules)
    print(f"{c['sets']} {args.family} sets ({args.split}), rules {args.rules}: {c['notes']} comparisons in notes, "
          f"{c['labelled']} with a limit the generator labels, {c['unlabelled']} with a number it does not")
    if c["labelled"]:
        print(f"  the note's word is the generator's: {c['agree'] / c['labelled']:.3f}")
    if c["limits"]:
        print(f"  the generator's limits that the reading is not equal to (context and questions), named by a note: "
              f"{c['named'] / c['limits']:.3f}")


if __name__ == "__main__":
    main()
