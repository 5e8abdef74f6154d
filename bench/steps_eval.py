"""Which step do the answers on people's text fail at? Per-item accuracy by the step a careful
reader needs for each question, from the answers `bench/realistic_eval.py --answers` wrote.

    python bench/realistic_eval.py --checkpoint A B --policies parallel \\
        --files <the written held-out files> --answers answers.jsonl
    python bench/steps_eval.py --answers answers.jsonl [--labels bench/written_steps.jsonl]

bench/written_steps.jsonl labels 240 questions of the written held-out sets
(engine/training/written/heldout/; drawn with random.Random(55).sample from version 40's 5,304
answers to the held-out sets of the 157 files version 41 trains on, in file order), each with the
one step it needs, judged from the text and the set's explanation, not from any model's answer:

    lookup     the answer is stated in one place, perhaps in other words
    compare    one stated figure against one stated limit (equal-to cases included)
    time       times, dates, durations or notice periods compared or counted
    arith      a sum, difference, product, share or count of stated figures
    rule       a stated rule, condition, priority or exception applied to stated facts
    rule+num   a rule whose condition needs a comparison or arithmetic first
    other      anything else (the label's note says what)

Each "compare" question also says how the reading note (engine/notes.py, pairing rules 2) on
the figure that decides it came out, judged on `annotate`'s text: right (it names the limit that
decides, with the right relation), missing (no note on that figure), wrong-limit (it names other
limits only), n/a (arithmetic comes before any comparison). A second table scores those.

A question is found in the answers by file, set and question text; labelled questions the
answers do not hold are left out. Random is the mean of 1 / options.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

LABELS = Path(__file__).with_name("written_steps.jsonl")
STEPS = ("lookup", "compare", "time", "arith", "rule", "rule+num", "other")
NOTES = ("right", "missing", "wrong-limit", "n/a")


def rows(path: Path) -> list[dict]:
    """The JSON objects of a JSON-lines file, one per non-blank line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def by_step(labels: list[dict], answers: list[dict], field: str = "category") -> dict[str, dict[str, dict]]:
    """checkpoint -> label -> {n, right, random} over the labelled questions each checkpoint
    answered, by the labels' `field` (category: the step; notes: how the note came out)."""
    step = {(x["file"], x["set"], x["question"]): x[field] for x in labels if field in x}
    got: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for a in answers:
        s = step.get((a["file"], a["set"], a["question"]))
        if s is not None:
            got[a["checkpoint"]][s].append(a)
            got[a["checkpoint"]]["all"].append(a)
    return {ck: {s: {"n": len(rows), "right": round(sum(r["right"] for r in rows) / len(rows), 3),
                     "random": round(sum(1 / len(r["options"]) for r in rows) / len(rows), 3)}
                 for s, rows in steps.items()}
            for ck, steps in got.items()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--answers", type=Path, required=True, help="realistic_eval.py --answers output")
    p.add_argument("--labels", type=Path, default=LABELS)
    args = p.parse_args()
    labels, answers = rows(args.labels), rows(args.answers)
    for field, title, kinds in (("category", "step", STEPS), ("notes", "compare: the note", NOTES)):
        table = by_step(labels, answers, field)
        if not table:
            raise SystemExit(f"{args.answers}: none of its answers is one of the {len(labels)} questions of "
                             f"{args.labels}")
        cks = list(table)
        print(f"\n| {title} | questions | random | " + " | ".join(cks) + " |\n|---|---|---|" + "---|" * len(cks))
        for s in (*kinds, "all"):
            first = next((t[s] for t in table.values() if s in t), None)
            if first:
                cells = " | ".join(str(table[ck][s]["right"]) if s in table[ck] else "-" for ck in cks)
                print(f"| {s} | {first['n']} | {first['random']} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
