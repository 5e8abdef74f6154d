"""The model on hand-written requests: contract review, plant reports, robot summaries and
facts-and-rules text written by people, not by the corpus generator (bench/realistic/*.jsonl).

    python bench/realistic_eval.py [--checkpoint DIR ...] [--policies parallel,independent]
                                   [--json docs/eval/realistic.json] [--precision fp32]

A development set: it tells whether training on the generator's language carries over to
the language users write. Nothing trains on it, and nothing should be tuned on it either:
a figure that rises here because the generator learned these sentences measures nothing.

Per file and in all, per policy: per-item accuracy against what answering at random scores
(the mean of 1 / choices), all-correct sets, ECE, the answers kept at confidence 0.9 and how
many of them are right, confidently wrong answers (>= 0.9), and on yes/no questions how
often it says yes against how often yes is right (a model at its prior says yes whatever
the text says). Several checkpoints are measured in one run, one after the other.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint
from decider.engine.training.dataset import load_jsonl
from decider.engine.training.evaluate import SELECTIVE, Scored, run_policy, summarise

HERE = Path(__file__).parent / "realistic"


def summary(scored: Scored) -> dict:
    """evaluate.summarise's figures that mean something here, and what answering at random
    scores, the confidently wrong answers and how often the model says yes."""
    s = summarise(scored)
    items = [(q, t, c, p, chosen) for st, cs, ps, ch in zip(scored.sets, scored.correct, scored.confidence, scored.chosen)
             for q, t, c, p, chosen in zip(st.questions, st.answers, cs, ps, ch)]
    yes_no = [(t, chosen) for q, t, _, _, chosen in items if q.kind == "boolean"]
    return {
        "sets": s["sets"], "questions": s["items"], "per_item": s["per_item_accuracy"],
        "chance": round(sum(1 / len(q.choices) for q, *_ in items) / len(items), 4),
        "all_correct": s["all_correct"], "ece": s["ece"],
        "kept_at_0.9": s[f"selective_kept_{SELECTIVE}"], "right_at_0.9": s[f"selective_accuracy_{SELECTIVE}"],
        "confidently_wrong": sum(1 for _, _, c, p, _ in items if p >= SELECTIVE and not c),
        "says_yes": round(sum(ch == 0 for _, ch in yes_no) / len(yes_no), 4) if yes_no else None,
        "yes_is_right": round(sum(t == 0 for t, _ in yes_no) / len(yes_no), 4) if yes_no else None,
    }


def _part(scored: Scored, idx: range) -> Scored:
    return Scored(*[[getattr(scored, f.name)[i] for i in idx] for f in fields(Scored)])


def measure(checkpoint: str | None, files: list[Path], policies: list[str], precision: str) -> dict:
    """Every file's sets decided in one run per policy, then summarised per file and in all."""
    ckpt = load_checkpoint(checkpoint)
    data = {f.stem: load_jsonl(f) for f in files}
    every = [s for sets in data.values() for s in sets]
    out = {"checkpoint": checkpoint or "shipped", "version": ckpt.version, "temperature": ckpt.temperature}
    for policy in policies:
        scored = run_policy(ckpt, every, policy, 0.9, ckpt.temperature, precision=precision)
        rows, start = {}, 0
        for name, sets in data.items():
            rows[name] = summary(_part(scored, range(start, start + len(sets))))
            start += len(sets)
        rows["all"] = summary(scored)
        out[policy] = rows
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", nargs="*", default=[None], help="checkpoint folders (default: the shipped one)")
    p.add_argument("--files", nargs="*", type=Path, default=sorted(HERE.glob("*.jsonl")))
    p.add_argument("--policies", default="parallel,independent")
    p.add_argument("--precision", default="fp32", choices=("auto", "fp32", "bf16"),
                   help="fp32 (default): the same answers on every CPU")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if not args.files:
        raise SystemExit(f"no labelled files in {HERE}")
    report = [measure(c, args.files, args.policies.split(","), args.precision) for c in args.checkpoint]
    for r in report:
        print(f"\n{r['checkpoint']} (decider-small {r['version']}, T = {r['temperature']})")
        for policy in args.policies.split(","):
            print(f"\n| {policy} | sets | questions | per item | chance | all correct | ECE | kept at 0.9 | "
                  "right at 0.9 | confidently wrong | says yes | yes is right |")
            print("|---|" + "---|" * 11)
            for name, s in r[policy].items():
                print(f"| {name} | {s['sets']} | {s['questions']} | {s['per_item']} | {s['chance']} | "
                      f"{s['all_correct']} | {s['ece']} | {s['kept_at_0.9']} | {s['right_at_0.9']} | "
                      f"{s['confidently_wrong']} | {s['says_yes']} | {s['yes_is_right']} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
