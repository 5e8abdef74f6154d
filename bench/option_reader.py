"""What the option reader (engine/reader.py) buys and costs: categorical answers on the
hand-written requests (bench/realistic) from the model alone, the reader alone and the two
together, and batch-1 latency with the reader off and on.

    decider export --checkpoint engine/checkpoints/decider-small --out /tmp/with-reader --reader
    decider eval --checkpoint /tmp/with-reader --corpus v2 --fit-temperature --sets 1000
    python bench/option_reader.py --checkpoint /tmp/with-reader [--sets 40] [--rounds 3] [--json F]

Accuracy (fp32, the parallel policy, the checkpoint's temperature): per file, the categorical
questions answered right by the model with the reader off, by the reader's scores alone (the
best-scoring option) and by the engine as the checkpoint configures it (the reader's scores
added at the fitted weight). Latency: `--sets` 8-question v2 test sets that ask at least one
categorical question, each decided alone by an engine with the reader off and one with it on
(as `decider serve` builds them on this CPU: warmed up, prefix cache off, the reader's own
cache off), alternating, `--rounds` times; p50 / p90 per engine, and the reader's own time
per request.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from edge_latency import cpu
from stats import pct

from decider.engine.checkpoint import load_checkpoint
from decider.engine.core import build_engine
from decider.engine.request import as_request
from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets
from decider.engine.training.dataset import load_jsonl
from decider.engine.training.evaluate import run_policy

REALISTIC = Path(__file__).parent / "realistic"


def categorical_accuracy(ckpt, sets) -> dict:
    """Right answers to the categorical questions of `sets`: model alone, reader alone, both."""
    def right(scored) -> list[bool]:
        return [c for s, cs in zip(sets, scored.correct) for q, c in zip(s.questions, cs) if q.kind == "categorical"]

    alone = right(run_policy(ckpt, sets, "parallel", 0.9, ckpt.temperature, precision="fp32", option_reader=False))
    both = right(run_policy(ckpt, sets, "parallel", 0.9, ckpt.temperature, precision="fp32"))
    reader = []
    for s in sets:
        for q, row, a in zip(s.questions, ckpt.reader.option_scores(ckpt.tokenizer, s.context, s.questions), s.answers):
            if q.kind == "categorical":
                reader.append(max(range(len(row)), key=row.__getitem__) == a)
    n = len(alone)
    return {"questions": n, "model": round(sum(alone) / n, 4), "reader": round(sum(reader) / n, 4),
            "both": round(sum(both) / n, 4)}


def latency(ckpt, n_sets: int, rounds: int) -> dict:
    sets = [s for s in make_sets(CorpusSpec(split="test", mix=V2_MIX, eight_fraction=1.0), 20 * n_sets)
            if len(s.questions) == 8 and any(q.kind == "categorical" for q in s.questions)][:n_sets]
    engines = {on: build_engine(ckpt, option_reader=on, prefix_cache_bytes=0, reader_cache=0) for on in (False, True)}
    for e in engines.values():
        e.warm_up()
    ms = {False: [], True: []}
    for _ in range(rounds):
        for s in sets:
            for on, e in engines.items():
                t = time.perf_counter()
                e.decide([as_request(s.context, s.questions)])
                ms[on].append((time.perf_counter() - t) * 1e3)
    on = engines[True]
    t = time.perf_counter()
    for s in sets:
        on.reader.option_scores(on.tok, s.context, s.questions)
    return {"sets": len(sets), "rounds": rounds, "precision": on.precision,
            "prefix_tokens_median": statistics.median(len(on.tok.encode(s.context, s.questions).prefix_ids)
                                                      for s in sets),
            "categorical_per_set": round(statistics.mean(sum(q.kind == "categorical" for q in s.questions)
                                                         for s in sets), 2),
            "off_p50_ms": round(pct(ms[False], 0.5), 2), "off_p90_ms": round(pct(ms[False], 0.9), 2),
            "on_p50_ms": round(pct(ms[True], 0.5), 2), "on_p90_ms": round(pct(ms[True], 0.9), 2),
            "reader_ms": round((time.perf_counter() - t) * 1e3 / len(sets), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", required=True, help="a checkpoint with a reader (decider export --reader) "
                                                          "whose weight is fitted (decider eval --fit-temperature)")
    ap.add_argument("--sets", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    ckpt = load_checkpoint(args.checkpoint)
    if ckpt.reader is None or ckpt.reader_weight <= 0:
        raise SystemExit(f"{args.checkpoint}: no option reader with a fitted weight; add one with `decider export "
                         "--reader` and fit it with `decider eval --fit-temperature`")
    report = {"checkpoint": args.checkpoint, "weight": ckpt.reader_weight, "temperature": ckpt.temperature,
              "cpu": cpu(), "categorical": {}}
    every = []
    for f in sorted(REALISTIC.glob("*.jsonl")):
        sets = load_jsonl(f)
        every += sets
        report["categorical"][f.stem] = categorical_accuracy(ckpt, sets)
    report["categorical"]["all"] = categorical_accuracy(ckpt, every)
    report["latency"] = latency(ckpt, args.sets, args.rounds)
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
