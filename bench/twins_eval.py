"""Does the model read the detail that decides, or recall the set? Each contrast twin
(engine/training/written/twins/) is its set written again with a small edit that changes two
answers or more; the model answers both, and its answers are compared question by question.

    python bench/twins_eval.py [--checkpoint DIR ...] [--files TWINS.jsonl ...] [--policy parallel] [--json F]

For the questions the edit changes: per-item accuracy on the set and on the twin, both right,
how often the model's answer moved with the edit, and how often it gave the twin the set's
truth (recall where reading was asked for). For the questions the edit leaves as they were:
accuracy on both and how often the answer stayed. A model that reads gets both sides right; one
that answers from the look of the text gives the twin its set's answer.

The default files are the twins of training sets (engine/training/written/twins/): runs from
version 33 on trained on their sets, and from version 36 on the twins too, so a trained model
can score them from memory. The twins of held-out sets (`--files
engine/training/written/heldout/twins/*.jsonl`) are text no run trained on. `--generated N`
adds N of the generator's own twins (corpus.make_twins, readings sets of the validation split:
one comparison turned the other way by a number), text in the register the model was built on.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint
from decider.engine.training.corpus import CorpusSpec, make_twins
from decider.engine.training.dataset import load_jsonl, load_twins
from decider.engine.training.evaluate import run_policy

WRITTEN = Path(__file__).parents[1] / "engine" / "training" / "written"


def pairs(twin_files: list[Path]) -> dict[str, list[tuple]]:
    """Per file, (set, twin) for each twin; its sets are in the file of the same name one folder up."""
    out = {}
    for path in twin_files:
        of = path.parents[1] / path.name
        sets = load_jsonl(of)
        out[path.stem] = [(sets[i], twin) for i, twin in sorted(load_twins(path, of).items())]
    return out


def generated(n: int) -> list[tuple]:
    """The first `n` readings sets of the validation split that have a twin, with it."""
    spec = CorpusSpec(split="validation", max_links=5, max_questions=8, max_extra=3, mix=(("readings", 1.0),))
    out, index = [], 0
    while len(out) < n:
        drawn = make_twins(spec, index)
        index += 1
        if len(drawn) == 2:
            out.append(tuple(drawn))
    return out


def compare(rows: list[tuple[str, str, str, str]]) -> dict:
    """Rows of (set truth, set answer, twin truth, twin answer), one per question asked of
    both, summarised for the questions the edit changes and those it leaves."""
    def share(xs):
        return round(sum(xs) / len(xs), 4) if xs else None

    changed = [r for r in rows if r[0] != r[2]]
    same = [r for r in rows if r[0] == r[2]]
    return {
        "changed": {"questions": len(changed), "set_right": share([a == t for t, a, _, _ in changed]),
                    "twin_right": share([b == u for _, _, u, b in changed]),
                    "both_right": share([a == t and b == u for t, a, u, b in changed]),
                    "answer_moved": share([a != b for _, a, _, b in changed]),
                    "twin_given_set_truth": share([b == t for t, _, _, b in changed])},
        "unchanged": {"questions": len(same), "set_right": share([a == t for t, a, _, _ in same]),
                      "twin_right": share([b == u for _, _, u, b in same]),
                      "answer_stayed": share([a == b for _, a, _, b in same])},
    }


def measure(checkpoint: str | None, data: dict[str, list[tuple]], policy: str, precision: str) -> dict:
    ckpt = load_checkpoint(checkpoint)
    every = [s for file_pairs in data.values() for pair in file_pairs for s in pair]
    scored = run_policy(ckpt, every, policy, 0.9, ckpt.temperature, precision=precision)
    answers = iter(zip(scored.sets, scored.chosen))
    per_file = {}
    for name, file_pairs in data.items():
        rows = []
        for _ in file_pairs:
            (s, sa), (t, ta) = next(answers), next(answers)
            said = {q.text: (q.choices[a], None if k is None else q.choices[k])
                    for q, a, k in zip(s.questions, s.answers, sa)}
            for q, a, k in zip(t.questions, t.answers, ta):
                if q.text in said:
                    truth, answer = said[q.text]
                    rows.append((truth, answer, q.choices[a], None if k is None else q.choices[k]))
        per_file[name] = rows
    report = {name: compare(rows) for name, rows in per_file.items()}
    report["all written"] = compare([r for name, rows in per_file.items() if name != "generated readings" for r in rows])
    return {"checkpoint": checkpoint or "shipped", "version": ckpt.version, "policy": policy, "files": report}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", nargs="*", default=[None], help="checkpoint folders (default: the shipped one)")
    p.add_argument("--files", nargs="*", type=Path, default=sorted((WRITTEN / "twins").glob("*.jsonl")))
    p.add_argument("--generated", type=int, default=0, metavar="N",
                   help="also N of the generator's readings twins (validation split)")
    p.add_argument("--policy", default="parallel")
    p.add_argument("--precision", default="fp32", choices=("auto", "fp32", "bf16"))
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    data = pairs(args.files)
    if args.generated:
        data["generated readings"] = generated(args.generated)
    report = [measure(c, data, args.policy, args.precision) for c in args.checkpoint]
    for r in report:
        print(f"\n{r['checkpoint']} (decider-small {r['version']}, {r['policy']})")
        print("\n| file | changed | set right | twin right | both right | answer moved | twin given the set's truth "
              "| unchanged | right (set, twin) | answer stayed |")
        print("|---|" + "---|" * 9)
        for name, s in r["files"].items():
            c, u = s["changed"], s["unchanged"]
            print(f"| {name} | {c['questions']} | {c['set_right']} | {c['twin_right']} | {c['both_right']} | "
                  f"{c['answer_moved']} | {c['twin_given_set_truth']} | {u['questions']} | "
                  f"{u['set_right']}, {u['twin_right']} | {u['answer_stayed']} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
