"""The model on facts-and-rules text by depth: how many rule steps each answer lies from the facts.

    python bench/depth_eval.py [--checkpoint DIR ...] [--sets 400] [--split validation]
                               [--deep 1.0] [--aggregate 0] [--hypothetical 0]
                               [--policies parallel,independent] [--json F]

Draws `--sets` sets of the rulebase family (families/rulebase.py) from a split no run trains on,
a `--deep` share of them deep ones (a chain of three to five rules, each reading the conclusion
of the one before it, fired for an entity or two), decides them with each checkpoint under each
policy, and prints per-item accuracy at each depth (0: stated, or false in the closed world) and
in all. Each checkpoint after the first is also compared with the first answer by answer, per
depth: answers turned right and wrong, and a two-sided sign test over them. The family is
training only, so these sets are drawn here rather than by an evaluation split; the depth of
each answer is the generator's (DecisionSet.depth), which a JSONL file does not keep. With
`--aggregate`, that share of the "which" questions end in none and more than one among their
options, and with `--hypothetical` that share of the sets ask what would follow from a supposed
attribute; the accuracy of each kind is printed apart as well ("aggregate", "hypothetical").
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.training.evaluate import run_policy
from decider.engine.training.families import rulebase

from stats import sign_test


def by_depth(sets, correct) -> dict[int, list[bool]]:
    """Every answer's rightness, grouped by its depth."""
    out = defaultdict(list)
    for s, right in zip(sets, correct, strict=True):
        for d, r in zip(s.depth, right, strict=True):
            out[d].append(bool(r))
    return dict(sorted(out.items()))


def rightness_where(sets, correct, kind) -> list[bool]:
    """The rightness of the answers to the questions `kind` picks (rulebase.is_aggregate, ...)."""
    return [bool(r) for s, right in zip(sets, correct, strict=True)
            for q, r in zip(s.questions, right, strict=True) if kind(q)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", nargs="*", default=[None], help="checkpoint folders (default: the shipped one)")
    p.add_argument("--sets", type=int, default=400)
    p.add_argument("--split", default="validation", choices=("validation", "test", "novel", "heldout"))
    p.add_argument("--deep", type=float, default=1.0, help="share of the sets that are deep ones (0 to 1)")
    p.add_argument("--aggregate", type=float, default=0.0,
                   help="share of the 'which' questions whose options end in none and more than one (0 to 1); "
                        "their own accuracy is printed as 'aggregate'")
    p.add_argument("--hypothetical", type=float, default=0.0,
                   help="share of the sets that ask what would follow from a supposed attribute (0 to 1); "
                        "those questions' own accuracy is printed as 'hypothetical'")
    p.add_argument("--max-links", type=int, default=5)
    p.add_argument("--policies", default="parallel,independent")
    p.add_argument("--precision", default="fp32", choices=("auto", "fp32", "bf16"))
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    spec = CorpusSpec(split=args.split, max_links=args.max_links, mix=(("rulebase", 1.0),), deep=args.deep,
                      aggregate=args.aggregate, hypothetical=args.hypothetical)
    sets = make_sets(spec, args.sets)
    report, first = [], {}
    for c in args.checkpoint:
        ckpt = load_checkpoint(c)
        row = {"checkpoint": c or "shipped", "version": ckpt.version, "sets": len(sets), "split": args.split,
               "deep": args.deep}
        for policy in args.policies.split(","):
            correct = run_policy(ckpt, sets, policy, 0.9, ckpt.temperature, precision=args.precision).correct
            depths = by_depth(sets, correct)
            every = [r for rs in depths.values() for r in rs]
            for name, kind in (("aggregate", rulebase.is_aggregate), ("hypothetical", rulebase.is_hypothetical)):
                if picked := rightness_where(sets, correct, kind):
                    depths[name] = picked
            row[policy] = {"all": {"questions": len(every), "per_item": round(sum(every) / len(every), 4)},
                           **{str(d): {"questions": len(rs), "per_item": round(sum(rs) / len(rs), 4)}
                              for d, rs in depths.items()}}
            if policy in first:
                row[policy]["against_first"] = {str(d): sign_test(first[policy][d], rs) for d, rs in depths.items()}
            else:
                first[policy] = depths
        report.append(row)
        print(f"\n{row['checkpoint']} (decider-small {row['version']}), {len(sets)} {args.split} sets, "
              f"deep share {args.deep}")
        for policy in args.policies.split(","):
            r = row[policy]
            print(f"{policy:12s} " + "  ".join(f"{d}: {v['per_item']} ({v['questions']})"
                                               for d, v in r.items() if d != "against_first"))
            for d, t in r.get("against_first", {}).items():
                print(f"{'':12s} depth {d}: {t['turned_right']} turned right, {t['turned_wrong']} wrong (p = {t['p']})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
