"""Does the model answer questions asked over several units? Generated sets, held-out phrasings.

    python bench/group_probe.py [--checkpoint DIR ...] [--sets 150] [--json FILE]

Readings sets whose blocks are groups of alike readings against one shared limit ("TT-1011A,
TT-1011B and TT-1011C read 562, 548 and 566 °C." with "How many of TT-1011A/B/C are at or above
the trip?", families/readings.py `block_group`) and reports sets that are robot fleets ("Which
robot has an obstacle closer than 1.0 m?", families/reports.py `_fleet`), in the held-out
phrasings that training never draws, on seeds of their own. Per checkpoint and family: per-item
accuracy on the questions over the group (how many, which one, any, none, all, at least k)
against answering at random, how often a "which" or "how many" question is answered with none /
both / neither / 0 (or their like) and how often that is the truth, and per item on the sets'
other questions. Every checkpoint answers the same sets (fp32).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint
from decider.engine.training.evaluate import run_policy
from decider.engine.training.families import readings, reports
from decider.engine.training.families.base import COUNTS, NONE_OR_MORE, Style

NONE_WORDS = {"neither", "both", *COUNTS[0][:1], *COUNTS[1][:1]} | {w for pair in NONE_OR_MORE for w in pair}


def probe_sets(n: int) -> dict[str, tuple[list, list[list[bool]]]]:
    """Per family: n sets with 1-8 questions and, per set, which of its questions ask over the group."""
    style, out = Style(heldout=True), {}
    sets, over = [], []
    for i in range(n):
        s, w = readings.generate_world(random.Random(f"group-probe:readings:{i}"), style, 1 + i % 8, 0, groups=1.0)
        target = dict(w.worded)
        sets.append(s)
        over.append([target[q.text][1][0] == "group" for q in s.questions])
    out["readings"] = (sets, over)
    sets, over = [], []
    for i in range(n):
        s, _, asked = reports.generate_world(random.Random(f"group-probe:reports:{i}"), style, 1 + i % 8, 0,
                                             fleets=1.0)
        target = dict(asked)
        sets.append(s)
        over.append([target[q.text][1][0] in ("fleet", "fleet_count", "fleet_which") for q in s.questions])
    out["reports"] = (sets, over)
    return out


def measure(checkpoint: str | None, probes: dict) -> dict:
    ckpt = load_checkpoint(checkpoint)
    out = {"checkpoint": checkpoint or "shipped", "version": ckpt.version}
    for family, (sets, over) in probes.items():
        scored = run_policy(ckpt, sets, "parallel", 0.9, ckpt.temperature, precision="fp32")
        group, other, chance, said_none, none_true = [], [], [], 0, 0
        for s, flags, right, chosen in zip(sets, over, scored.correct, scored.chosen):
            for q, a, flag, c, k in zip(s.questions, s.answers, flags, right, chosen):
                if not flag:
                    other.append(c)
                    continue
                group.append(c)
                chance.append(1 / len(q.choices))
                if q.kind != "boolean":
                    said_none += k is not None and q.choices[k] in NONE_WORDS
                    none_true += q.choices[a] in NONE_WORDS
        out[family] = {"group_questions": len(group), "per_item": round(sum(group) / len(group), 4),
                       "chance": round(sum(chance) / len(chance), 4), "answered_none_or_all": said_none,
                       "none_or_all_is_right": none_true, "other_questions": len(other),
                       "other_per_item": round(sum(other) / len(other), 4) if other else None}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", nargs="*", default=[None], help="checkpoint folders (default: the shipped one)")
    p.add_argument("--sets", type=int, default=150, help="sets per family")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    probes = probe_sets(args.sets)
    report = [measure(c, probes) for c in args.checkpoint]
    print("| checkpoint | family | group questions | per item | chance | answered none/both/0 | "
          "that was right | other questions | per item |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in report:
        for family in probes:
            f = r[family]
            print(f"| {r['checkpoint']} ({r['version']}) | {family} | {f['group_questions']} | {f['per_item']} | "
                  f"{f['chance']} | {f['answered_none_or_all']} | {f['none_or_all_is_right']} | "
                  f"{f['other_questions']} | {f['other_per_item']} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
