"""The model on hand-written requests: contract review, plant reports, robot summaries and
facts-and-rules text written by people, not by the corpus generator (bench/realistic/*.jsonl).

    python bench/realistic_eval.py [--checkpoint DIR ...] [--policies parallel,independent]
                                   [--json docs/eval/realistic.json] [--precision fp32]
                                   [--parallel-rest one|all|one,all] [--reading-notes trained|0-3,...]

A development set: it tells whether training on the generator's language carries over to
the language users write. Nothing trains on it, and nothing should be tuned on it either:
a figure that rises here because the generator learned these sentences measures nothing.

Per file, per domain where several files share one (a file's name up to its first dash), and
in all, per policy: per-item accuracy against what answering at random scores
(the mean of 1 / choices), all-correct sets, ECE, the answers kept at confidence 0.9 and how
many of them are right, confidently wrong answers (>= 0.9), and on yes/no questions how
often it says yes against how often yes is right (a model at its prior says yes whatever
the text says), and per kind of question (yes/no; categorical by number of options). Several
checkpoints are measured in one run, one after the other; each after the first is also compared
with the first answer by answer: how many answers it turned right and wrong, and a two-sided
sign test over them (what tells a gain from the noise of 522 answers).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import fields
from pathlib import Path

from decider.engine.checkpoint import load_checkpoint
from decider.engine.notes import LATEST_RULES
from decider.engine.training.dataset import load_jsonl
from decider.engine.training.evaluate import SELECTIVE, Scored, run_policy, summarise
from decider.engine.training.train import options_shuffled

import stats

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


NONE_OR_ALL = {"both", "neither", "none", "none of them", "all", "all three", "0"}


def over_several(text: str, options) -> bool:
    """A question asked over several units: how many of them, or which one with a way to say
    none or more than one among its options."""
    return text.lower().startswith("how many") or bool(NONE_OR_ALL & set(options))


def by_kind(scored: Scored) -> dict:
    """Per-item accuracy per kind of question: yes/no, categorical by number of options, and
    (overlapping those) the questions asked over several units, with how often the model
    answered one of NONE_OR_ALL and how often that was the truth."""
    groups: dict[str, list[bool]] = {}
    several = []
    chosen = scored.chosen or [[None] * len(st.questions) for st in scored.sets]
    for st, cs, ch in zip(scored.sets, scored.correct, chosen):
        for q, t, c, k in zip(st.questions, st.answers, cs, ch):
            groups.setdefault("yes/no" if q.kind == "boolean" else f"{len(q.choices)} options", []).append(c)
            if q.kind != "boolean" and over_several(q.text, q.choices):
                several.append((c, k is not None and q.choices[k] in NONE_OR_ALL, q.choices[t] in NONE_OR_ALL))
    out = {k: {"questions": len(v), "per_item": round(sum(v) / len(v), 4)} for k, v in sorted(groups.items())}
    if several:
        out["over several units"] = {"questions": len(several), "per_item": round(sum(c for c, *_ in several)
                                                                                   / len(several), 4),
                                     "answered_none_or_all": sum(a for _, a, _ in several),
                                     "none_or_all_is_right": sum(t for *_, t in several)}
    return out


def answer_rows(checkpoint: str, policy: str, where: list[tuple[str, int]], scored: Scored) -> list[dict]:
    """One row per question: its file and set, what it asks, the truth, the answer and its
    confidence (`where`: each set's file and place in it)."""
    return [{"checkpoint": checkpoint, "policy": policy, "file": name, "set": i, "question": q.text,
             "options": list(q.choices), "truth": q.choices[t], "answer": None if k is None else q.choices[k],
             "confidence": round(p, 4), "right": bool(c)}
            for (name, i), st, cs, ps, ch in zip(where, scored.sets, scored.correct, scored.confidence, scored.chosen)
            for q, t, c, p, k in zip(st.questions, st.answers, cs, ps, ch)]


def sign_test(base: Scored, other: Scored) -> dict:
    """Answers `other` turned right and wrong against `base`, and the two-sided sign test's p."""
    return stats.sign_test([c for cs in base.correct for c in cs], [c for cs in other.correct for c in cs])


def domain(name: str) -> str:
    """The domain a file of sets belongs to: its name up to the first dash (contracts-leases ->
    contracts)."""
    return name.split("-", 1)[0]


def _part(scored: Scored, idx) -> Scored:
    return Scored(*[[getattr(scored, f.name)[i] for i in idx] for f in fields(Scored)])


def measure(checkpoint: str | None, files: list[Path], policies: list[str], precision: str,
            first: int | None = None, shuffle: int | None = None, parallel_rest: str = "one",
            reading_notes: str = "trained") -> tuple[dict, dict]:
    """Every file's sets (its first `first` when given; with `shuffle`, each categorical
    question's options in an order drawn from that seed) decided in one run per policy, then
    summarised per file, per kind of question and in all; also returns each policy's Scored (for
    the sign test). `reading_notes`: the pairing rules the tokenizer writes notes by (0: none),
    or "trained": the checkpoint's own."""
    ckpt = load_checkpoint(checkpoint)
    if reading_notes != "trained":
        ckpt.tokenizer.reading_notes = int(reading_notes)
    data = {f.stem: load_jsonl(f)[:first] for f in files}
    if shuffle is not None:
        rng = random.Random(shuffle)
        data = {name: [options_shuffled(s, rng) for s in sets] for name, sets in data.items()}
    every = [s for sets in data.values() for s in sets]
    out = {"checkpoint": checkpoint or "shipped", "version": ckpt.version, "temperature": ckpt.temperature,
           "parallel_rest": parallel_rest, "reading_notes": reading_notes}
    every_scored = {}
    for policy in policies:
        scored = run_policy(ckpt, every, policy, 0.9, ckpt.temperature, precision=precision, parallel_rest=parallel_rest)
        rows, start, domains = {}, 0, {}
        for name, sets in data.items():
            rows[name] = summary(_part(scored, range(start, start + len(sets))))
            domains.setdefault(domain(name), []).extend(range(start, start + len(sets)))
            start += len(sets)
        if len(domains) < len(data):  # several files of a domain: a row for each domain too
            rows |= {f"{name} (all)": summary(_part(scored, idx)) for name, idx in domains.items()}
        rows["all"] = summary(scored)
        rows["all"]["by_kind"] = by_kind(scored)
        out[policy] = rows
        every_scored[policy] = scored
    return out, every_scored


def per_checkpoint(flag: str, value: str, allowed: set[str], n: int) -> list[str]:
    """A comma-separated option given once (for every checkpoint) or once per checkpoint."""
    values = value.split(",")
    if len(values) not in (1, n) or not set(values) <= allowed:
        raise SystemExit(f"{flag}: one of {sorted(allowed)}, once or once per checkpoint ({n}), got {value!r}")
    return values * n if len(values) == 1 else values


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", nargs="*", default=[None], help="checkpoint folders (default: the shipped one)")
    p.add_argument("--files", nargs="*", type=Path, default=sorted(HERE.glob("*.jsonl")))
    p.add_argument("--policies", default="parallel,independent")
    p.add_argument("--precision", default="fp32", choices=("auto", "fp32", "bf16"),
                   help="fp32 (default): the same answers on every CPU")
    p.add_argument("--first", type=int, help="only each file's first N sets (e.g. a sample of the training files)")
    p.add_argument("--shuffle-options", type=int, metavar="SEED",
                   help="give each categorical question's options in an order drawn from SEED, so that where "
                        "the writer put the right option no longer helps")
    p.add_argument("--parallel-rest", default="one",
                   help="the parallel policy's rule where no answer is sure (EngineConfig.parallel_rest): one or "
                        "all, or one per checkpoint, comma-separated (--checkpoint C C --parallel-rest one,all "
                        "compares the two rules on C)")
    p.add_argument("--reading-notes", default="trained",
                   help="the pairing rules the notes are written by when answering (engine/notes.py): trained "
                        f"(each checkpoint's own) or 0 (none) to {LATEST_RULES}, once or once per checkpoint, comma-separated "
                        "(--checkpoint C C --reading-notes trained,0 measures what C's notes do)")
    p.add_argument("--json", type=Path)
    p.add_argument("--answers", type=Path, help="also write every question's answer here (JSON lines)")
    args = p.parse_args()
    if not args.files:
        raise SystemExit(f"no labelled files in {HERE}")
    policies = args.policies.split(",")
    n = len(args.checkpoint)
    rests = per_checkpoint("--parallel-rest", args.parallel_rest, {"one", "all"}, n)
    notes = per_checkpoint("--reading-notes", args.reading_notes, {"trained", *map(str, range(LATEST_RULES + 1))}, n)
    measured = [measure(c, args.files, policies, args.precision, args.first, args.shuffle_options, rest, rules)
                for c, rest, rules in zip(args.checkpoint, rests, notes)]
    report = [r for r, _ in measured]
    for r, (_, scored) in zip(report[1:], measured[1:]):
        r["against_first"] = {p: sign_test(measured[0][1][p], scored[p]) for p in policies}
    for r in report:
        print(f"\n{r['checkpoint']} (decider-small {r['version']}, T = {r['temperature']}, "
              f"parallel rest {r['parallel_rest']}, reading notes {r['reading_notes']})")
        for policy in args.policies.split(","):
            print(f"\n| {policy} | sets | questions | per item | chance | all correct | ECE | kept at 0.9 | "
                  "right at 0.9 | confidently wrong | says yes | yes is right |")
            print("|---|" + "---|" * 11)
            for name, s in r[policy].items():
                print(f"| {name} | {s['sets']} | {s['questions']} | {s['per_item']} | {s['chance']} | "
                      f"{s['all_correct']} | {s['ece']} | {s['kept_at_0.9']} | {s['right_at_0.9']} | "
                      f"{s['confidently_wrong']} | {s['says_yes']} | {s['yes_is_right']} |")
            kinds = r[policy]["all"]["by_kind"]
            print("\nper kind: " + ", ".join(f"{k} {v['per_item']} ({v['questions']})" for k, v in kinds.items()))
            if "over several units" in kinds:
                k = kinds["over several units"]
                print(f"over several units: answered none/both/all/0 {k['answered_none_or_all']} times, "
                      f"the truth {k['none_or_all_is_right']} times")
            if "against_first" in r:
                t = r["against_first"][policy]
                print(f"against {report[0]['checkpoint']}: {t['turned_right']} answers turned right, "
                      f"{t['turned_wrong']} wrong (sign test p = {t['p']})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    if args.answers:
        first = report[0][policies[0]]  # each file's set count, from the summary rows
        where = [(f.stem, i) for f in args.files for i in range(first[f.stem]["sets"])]
        # the settings too: one checkpoint may be measured twice, under other rules
        rows = [{**row, "parallel_rest": r["parallel_rest"], "reading_notes": r["reading_notes"]}
                for r, (_, scored) in zip(report, measured) for policy in policies
                for row in answer_rows(r["checkpoint"], policy, where, scored[policy])]
        args.answers.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
