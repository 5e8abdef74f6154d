"""decider against its autoregressive twin, side by side, in one process.

    python bench/compare_ar.py --twin runs/ar-twin [--sets 200] [--json docs/eval/compare_ar.json] [--markdown]

The twin (bench/ar_twin.py, trained by bench/train_ar_twin.py on decider's schedule)
decodes greedily with its KV cache under outlines' constraints in three ways: the whole
answer object under its JSON schema, answers one constrained choice at a time, and each
question in its own call. decider decodes with its parallel policy. Every set carries two
declared implications that its true answers satisfy: decider enforces them, the twin cannot,
so its violations are counted. Per set the systems run one after another (interleaved), on
the same threads; wall times are per set, median and p90.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from ar_twin import TwinDecoder, choices_of
from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request

SYSTEMS = ("decider", "twin-json", "twin-answers", "twin-independent")


def load_twin(folder: Path):
    from safetensors.torch import load_model
    from transformers import BertConfig, BertLMHeadModel

    model = BertLMHeadModel(BertConfig.from_json_file(str(folder / "config.json")))
    load_model(model, str(folder / "model.safetensors"), strict=False)
    model.tie_weights()
    return model.eval()


def implications(s) -> list[tuple[int, int]]:
    """Two (if, then) pairs of question indices whose true answers the constraints name."""
    n = len(s.questions)
    return [(i, i + 1) for i in range(0, min(n - 1, 4), 2)]


def violated(s, answers: list[int | None], pairs) -> int:
    """Declared implications broken by the answers (index into choices; None = no answer)."""
    return sum(answers[i] == s.answers[i] and answers[j] is not None and answers[j] != s.answers[j]
               for i, j in pairs)


def request_with_constraints(s, pairs) -> dict:
    req = as_request(s.context, s.questions).model_dump()
    lit = lambda i: {"question": s.questions[i].id, "option": s.questions[i].choices[s.answers[i]]}  # noqa: E731
    req["constraints"] = [{"kind": "implies", "literals": [lit(i), lit(j)]} for i, j in pairs]
    return req


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--twin", required=True, type=Path, help="folder written by bench/train_ar_twin.py")
    p.add_argument("--sets", type=int, default=200, help="test sets (plus half as many novel-lexicon sets)")
    p.add_argument("--json")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()

    ckpt = load_checkpoint()
    core = EngineCore(ckpt, EngineConfig(prefix_cache_bytes=0))
    decoder = TwinDecoder(load_twin(args.twin), ckpt.tokenizer)
    sets = ([("test", s) for s in make_sets(CorpusSpec(split="test", max_links=5), args.sets)]
            + [("novel", s) for s in make_sets(CorpusSpec(split="novel", max_links=5), args.sets // 2)])
    rows: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    for k, (split, s) in enumerate(sets):
        if k % 20 == 0:
            print(f"set {k}/{len(sets)}", flush=True)
        pairs = implications(s)
        t = time.perf_counter()
        (r,) = core.decide([request_with_constraints(s, pairs)])
        rows["decider"].append({"set": s, "answers": [a.index for a in r.answers], "passes": r.forward_passes,
                                "seconds": time.perf_counter() - t, "pairs": pairs, "where": split})
        for mode in ("json", "answers", "independent"):
            before = decoder.forward_passes
            t = time.perf_counter()
            labels = decoder.decide(s.context, s.questions, mode)
            seconds = time.perf_counter() - t
            answers = [choices_of(q).index(l) if l in choices_of(q) else None for q, l in zip(s.questions, labels)]
            rows[f"twin-{mode}"].append({"set": s, "answers": answers, "passes": decoder.forward_passes - before,
                                         "seconds": seconds, "pairs": pairs, "where": split})

    def summary(items):
        sets_ = [x["set"] for x in items]
        correct = [[a == t for a, t in zip(x["answers"], s.answers)] for x, s in zip(items, sets_)]
        chained = [c for c, s in zip(correct, sets_) if s.chained]
        novel = [c for c, x in zip(correct, items) if x["where"] == "novel"]
        secs = sorted(x["seconds"] for x in items)
        eight = [x for x in items if len(x["set"].questions) == 8]
        return {
            "per_item_accuracy": round(sum(map(sum, correct)) / sum(map(len, correct)), 4),
            "all_correct": round(sum(map(all, correct)) / len(correct), 4),
            "all_correct_chained": round(sum(map(all, chained)) / len(chained), 4) if chained else None,
            "all_correct_novel": round(sum(map(all, novel)) / len(novel), 4) if novel else None,
            "constraint_violations": sum(violated(x["set"], x["answers"], x["pairs"]) for x in items),
            "forward_passes_mean": round(statistics.mean(x["passes"] for x in items), 2),
            "ms_median": round(statistics.median(secs) * 1e3, 1),
            "ms_p90": round(secs[int(0.9 * (len(secs) - 1))] * 1e3, 1),
            "ms_median_8q": round(statistics.median(x["seconds"] for x in eight) * 1e3, 1) if eight else None,
        }

    report = {name: summary(items) for name, items in rows.items()}
    ours = report["decider"]["ms_median_8q"]
    for name in SYSTEMS[1:]:
        theirs = report[name]["ms_median_8q"]
        report[name]["decider_speedup_8q"] = round(theirs / ours, 2) if ours and theirs else None
    report["settings"] = {"machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                          "threads": torch.get_num_threads(), "torch": torch.__version__,
                          "date": time.strftime("%Y-%m-%d"), "sets": len(sets), "twin": str(args.twin),
                          "twin_trained": json.loads((args.twin / "trained.json").read_text())
                          if (args.twin / "trained.json").is_file() else None}
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if args.markdown:
        print("\n| system | per-item | all-correct | chained all-correct | novel all-correct | constraint violations "
              "| passes/set | ms/set median | ms/set p90 | decider faster (8-q sets) |\n|---|---|---|---|---|---|---|---|---|---|")
        for name in SYSTEMS:
            r = report[name]
            print(f"| {name} | {r['per_item_accuracy']} | {r['all_correct']} | {r['all_correct_chained']} | "
                  f"{r['all_correct_novel']} | {r['constraint_violations']} | {r['forward_passes_mean']} | "
                  f"{r['ms_median']} | {r['ms_p90']} | {r.get('decider_speedup_8q', '')} |")


if __name__ == "__main__":
    main()
