"""`decider eval`: accuracy, all-correct rate, forward passes and calibration per policy.

Per policy (parallel, sequential, independent) on N held-out sets:
  per_item_accuracy      share of questions answered right
  all_correct            share of sets with every answer right
  all_correct_chained    the same on chained sets only
  all_correct_8_chained  the same on chained sets of exactly 8 questions
  forward_passes_mean    block forward passes per set (independent: one per question)
  forward_passes_8       the same on 8-question sets
  ece                    expected calibration error (15 bins) of per-item confidence
  by_depth               per-item accuracy by the question's rule-chain depth
Diagnostic `oracle`: each slot predicted with every other slot revealed (true answers),
and `flip_sensitivity`: how often revealing flipped answers instead changes a prediction.
If the model ignores the slots, oracle equals independent and sensitivity is ~0.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import torch
from decider.engine.checkpoint import Checkpoint, calibration, load_checkpoint
from decider.engine.core import build_engine
from decider.engine.decode import Batch, answer_probs
from decider.engine.device import Precision, autocast_for, resolve_device
from decider.engine.model import BlockDiffusionModel, PrefixKV
from decider.engine.request import DecisionResult, answer_classes, as_request
from decider.engine.tokenizer import EncodedRequest
from decider.engine.training.calibration import (
    expected_calibration_error,
    fit_reader_weight,
    fit_temperature,
)
from decider.engine.training.corpus import V1_ONLY, V2_MIX, CorpusSpec, DecisionSet, family_of, make_sets
from decider.engine.training.dataset import load_jsonl


@dataclass
class Scored:
    sets: list[DecisionSet]
    correct: list[list[bool]]
    confidence: list[list[float]]
    distributions: list[list[list[float]]]
    passes: list[int]
    chosen: list[list[int | None]]  # answer index per question (None: undecided)


def run_policy(ckpt: Checkpoint, sets: list[DecisionSet], policy: str, threshold: float,
               temperature: float, batch_size: int = 32, precision: Precision = "auto", **engine) -> Scored:
    """Decide every set through the serving engine (continuous batching of `batch_size`; `engine`:
    further EngineConfig settings)."""
    core = build_engine(ckpt, max_running=batch_size, prefix_cache_bytes=0, precision=precision, **engine)
    core.temperature = temperature
    order = sorted(range(len(sets)), key=lambda i: len(sets[i].context))  # similar lengths share a cohort
    if policy == "independent":  # each question in a request of its own
        jobs = [(i, [q]) for i in order for q in sets[i].questions]
        sub = "sequential"
    else:
        jobs = [(i, sets[i].questions) for i in order]
        sub = policy
    results = core.decide([as_request(sets[i].context, qs, sub, threshold) for i, qs in jobs])
    per_set: dict[int, list[DecisionResult]] = {}
    for (i, _), r in zip(jobs, results):
        per_set.setdefault(i, []).append(r)
    scored = Scored(sets, [], [], [], [], [])
    for i, s in enumerate(sets):
        answers = [a for r in per_set[i] for a in r.answers]
        scored.correct.append([a.index == t for a, t in zip(answers, s.answers)])
        scored.confidence.append([a.confidence for a in answers])
        scored.distributions.append([a.distribution for a in answers])
        scored.passes.append(sum(r.forward_passes for r in per_set[i]))
        scored.chosen.append([a.index for a in answers])
    return scored


def summarise(sc: Scored) -> dict:
    items = [c for cs in sc.correct for c in cs]
    chained = [i for i, s in enumerate(sc.sets) if s.chained]
    eight = [i for i, s in enumerate(sc.sets) if len(s.questions) == 8]
    eight_chained = [i for i in chained if len(sc.sets[i].questions) == 8]
    by_depth: dict[int, list[bool]] = {}
    for s, cs in zip(sc.sets, sc.correct):
        for d, c in zip(s.depth, cs):
            by_depth.setdefault(d, []).append(c)

    def rate(idx):
        return round(sum(all(sc.correct[i]) for i in idx) / len(idx), 4) if idx else None

    confident = [c for cs, ps in zip(sc.correct, sc.confidence) for c, p in zip(cs, ps) if p >= SELECTIVE]
    linked = [i for i, s in enumerate(sc.sets) if s.links]
    contradicted = [i for i in linked if contradicts(sc.sets[i].links, sc.chosen[i])]
    return {
        "sets": len(sc.sets),
        "items": len(items),
        "per_item_accuracy": round(sum(items) / len(items), 4),
        "all_correct": rate(range(len(sc.sets))),
        "all_correct_chained": rate(chained),
        "all_correct_8_chained": rate(eight_chained),
        "forward_passes_mean": round(sum(sc.passes) / len(sc.passes), 3),
        "forward_passes_8": round(sum(sc.passes[i] for i in eight) / len(eight), 3) if eight else None,
        "ece": round(expected_calibration_error([c for cs in sc.confidence for c in cs], items), 4),
        "by_depth": {d: round(sum(v) / len(v), 4) for d, v in sorted(by_depth.items())},
        f"selective_accuracy_{SELECTIVE}": round(sum(confident) / len(confident), 4) if confident else None,
        f"selective_kept_{SELECTIVE}": round(len(confident) / len(items), 4),
        "linked_sets": len(linked),
        "rule_contradictions": round(len(contradicted) / len(linked), 4) if linked else None,
    }


def summarise_by_family(sc: Scored) -> dict:
    """The same summary per corpus family (v1, readings, contracts, reports, quantified)."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(sc.sets):
        groups.setdefault(family_of(s), []).append(i)
    return {family: summarise(Scored(*[[getattr(sc, f.name)[i] for i in idx] for f in fields(Scored)]))
            for family, idx in sorted(groups.items())}


def contradicts(links, chosen: list[int | None]) -> bool:
    """Whether the returned answers meet every condition of a rule of the context but not its conclusion."""
    return any(all(chosen[q] == a for q, a in conditions) and chosen[concl[0]] is not None
               and chosen[concl[0]] != concl[1] for conditions, concl in links)


def _batched(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i:i + size]


@torch.no_grad()
def decode_revealed(model: BlockDiffusionModel, requests: list[EncodedRequest],
                    reveals: list[list[list[int]]], *, temperature: float = 1.0, pad_id: int = 0,
                    bf16: bool = True) -> list[list[list[torch.Tensor]]]:
    """For each reveal v, request b and slot i: the answer distribution of slot i when every
    other slot j holds `reveals[v][b][j]` (an answer class). One prefix pass per request
    serves every reveal; one block pass covers all variants. Used by the oracle diagnostic
    (true answers revealed) and the flip test (wrong answers revealed)."""
    device = next(model.parameters()).device
    C = model.cfg.n_answers
    batch = Batch.collate(requests, pad_id, C, device)
    B, S = batch.positions.shape
    rows, answers = [], []
    for revealed in reveals:
        for b, r in enumerate(requests):
            for i in range(r.n_slots):
                row = [model.mask_token] * S
                for j, cls in enumerate(revealed[b]):
                    if j != i:
                        row[j] = cls
                rows.append(b)
                answers.append(row)
    index = torch.tensor(rows, device=device)
    with autocast_for(device, bf16):
        prefix: PrefixKV = batch.prefix_forward(model)
        choices = batch.answer_vectors(model, prefix)[index]
        logits = model.block_forward(torch.tensor(answers, device=device), batch.positions[index],
                                     batch.slot_valid[index], prefix.select(index), choices)
        probs = answer_probs(logits, batch.allowed[index], temperature).cpu()
    out, k = [], 0
    for _ in reveals:
        per_request = []
        for r in requests:
            per_request.append([probs[k + i, i] for i in range(r.n_slots)])
            k += r.n_slots
        out.append(per_request)
    return out


def oracle(ckpt: Checkpoint, sets: list[DecisionSet], temperature: float, batch_size: int = 32,
           seed: int = 0) -> dict:
    """Accuracy with every other answer revealed, and the flip test."""
    tok, rng = ckpt.tokenizer, random.Random(seed)
    hits = changed = total = 0
    chained_hits = chained_total = 0
    for chunk in _batched([s for s in sets if len(s.questions) > 1], batch_size):
        encs = tok.encode_batch([(s.context, s.questions) for s in chunk])
        truth = [[answer_classes(q)[a] for q, a in zip(s.questions, s.answers)] for s in chunk]
        flipped = [[rng.choice([c for c in answer_classes(q) if c != t]) for q, t in zip(s.questions, ts)]
                   for s, ts in zip(chunk, truth)]
        true_rev, flip_rev = decode_revealed(ckpt.model, encs, [truth, flipped], temperature=temperature,
                                             pad_id=tok.pad)
        for s, ts, pt, pf, enc in zip(chunk, truth, true_rev, flip_rev, encs):
            for i, t in enumerate(ts):
                a_true = enc.allowed[i][int(pt[i][enc.allowed[i]].argmax())]
                a_flip = enc.allowed[i][int(pf[i][enc.allowed[i]].argmax())]
                hits += a_true == t
                changed += a_true != a_flip
                total += 1
                if s.chained:
                    chained_hits += a_true == t
                    chained_total += 1
    return {"per_item_accuracy": round(hits / max(total, 1), 4),
            "per_item_accuracy_chained": round(chained_hits / max(chained_total, 1), 4),
            "flip_sensitivity": round(changed / max(total, 1), 4), "items": total}


SELECTIVE = 0.9  # the min_confidence the selective-accuracy figures keep answers at
EVAL_SPLITS = ("validation", "test", "novel", "heldout")
CORPORA = {"v1": V1_ONLY, "v2": V2_MIX}


def held_out_sets(split: str, n: int, corpus: str = "v1") -> list[DecisionSet]:
    """`n` sets of an eval split of corpus v1 (its patterns only) or v2 (the family mix);
    `heldout` (phrasings never used in training) exists for v2 only."""
    if split not in EVAL_SPLITS or corpus not in CORPORA or (split == "heldout" and corpus == "v1"):
        raise ValueError(f"eval split must be one of {EVAL_SPLITS} of corpus v1 or v2 (heldout: v2 only), "
                         f"got {split!r} of {corpus!r}")
    return make_sets(CorpusSpec(split=split, max_links=5, mix=CORPORA[corpus]), n)


def evaluate(ckpt: Checkpoint, sets: list[DecisionSet], policies=("parallel", "sequential", "independent"),
             threshold: float = 0.9, oracle_sets: int = 500, batch_size: int = 32, progress=None,
             precision: Precision = "auto", parallel_rest: str = "one") -> dict:
    """`oracle_sets`: how many of the sets the (diagnostic, costlier) oracle runs on; 0 = none.
    `parallel_rest`: EngineConfig.parallel_rest."""
    report = {}
    for policy in policies:
        if progress:
            progress(f"policy {policy} on {len(sets)} sets")
        scored = run_policy(ckpt, sets, policy, threshold, ckpt.temperature, batch_size, precision,
                            parallel_rest=parallel_rest)
        report[policy] = summarise(scored)
        report[policy]["by_family"] = summarise_by_family(scored)
    if oracle_sets:
        if progress:
            progress(f"oracle and flip test on {min(oracle_sets, len(sets))} sets")
        report["oracle"] = oracle(ckpt, sets[:oracle_sets], ckpt.temperature, batch_size)
    report["settings"] = {"threshold": threshold, "temperature": ckpt.temperature, "precision": precision,
                          "parallel_rest": parallel_rest}
    return report


def calibrate(ckpt: Checkpoint, sets: list[DecisionSet], threshold: float = 0.9, batch_size: int = 32,
              parallel_rest: str = "one") -> float:
    """Fit the temperature on held-out sets (validation) from the parallel policy at T = 1
    (its rule for the rest: EngineConfig.parallel_rest).
    Where the checkpoint has an option reader, first its weight (set on `ckpt`), from the
    categorical answers of the model alone and the reader's scores of their options."""
    if ckpt.reader is not None:
        ckpt.reader_weight = 0.0
        alone = run_policy(ckpt, sets, "parallel", threshold, 1.0, batch_size, parallel_rest=parallel_rest)
        dists, scores, labels = [], [], []
        for s, ds in zip(sets, alone.distributions):
            for q, d, row, a in zip(s.questions, ds, ckpt.reader.option_scores(ckpt.tokenizer, s.context, s.questions),
                                    s.answers):
                if q.kind == "categorical":
                    dists.append(d)
                    scores.append(row)
                    labels.append(a)
        if dists:
            ckpt.reader_weight = fit_reader_weight(dists, scores, labels)
    sc = run_policy(ckpt, sets, "parallel", threshold, 1.0, batch_size, parallel_rest=parallel_rest)
    dists, labels = [], []
    for s, ds in zip(sc.sets, sc.distributions):
        for d, a in zip(ds, s.answers):
            dists.append(d)
            labels.append(a)
    return fit_temperature(dists, labels)


def calibrate_checkpoint(folder: str | Path, sets: int | None = None, threshold: float = 0.9, device: str = "auto",
                         corpus: str = "v1", data: Path | Sequence[Path] | None = None,
                         parallel_rest: str = "one") -> dict:
    """Fit the temperature of the checkpoint in `folder` (and its option reader's weight, where
    it has one) on `sets` validation sets of `corpus` (1,000 when None), or on the labelled sets
    of the JSONL file(s) `data` (a team's own decisions; all of them, or the first `sets`), and
    write it into that folder (only ever the folder named: calibration.json for decider's
    checkpoints, decider-calibration.json beside a Hugging Face model's weights). Returns what
    it wrote."""
    from decider.engine.lm_loader import CALIBRATION, is_hf_folder

    folder = Path(folder)
    ckpt = load_checkpoint(folder, device=resolve_device(device))
    files = [data] if isinstance(data, (str, Path)) else list(data or [])
    chosen = ([s for f in files for s in load_jsonl(f)][:sets] if files
              else held_out_sets("validation", sets or 1000, corpus))
    ckpt.temperature = calibrate(ckpt, chosen, threshold, parallel_rest=parallel_rest)
    if files:
        by_parent: dict[str, list[str]] = {}
        for f in files:
            by_parent.setdefault(Path(f).parent.name, []).append(Path(f).name)
        named = " + ".join(names[0] if len(names) == 1 else f"{len(names)} files in {parent}/"
                           for parent, names in by_parent.items())
        fitted_on = f"{named}:{len(chosen)}"
    else:
        fitted_on = f"validation:{len(chosen)}" if corpus == "v1" else f"{corpus} validation:{len(chosen)}"
    if parallel_rest != "one":  # the rule its confidences were fitted under, where not the default
        fitted_on += f"; parallel rest {parallel_rest}"
    target = folder / (CALIBRATION if is_hf_folder(folder) else "calibration.json")
    written = calibration(ckpt, fitted_on)
    target.write_text(json.dumps(written, indent=2) + "\n")
    return written


def evaluate_checkpoint(checkpoint: str | Path | None = None, *, split: str = "test", corpus: str = "v1",
                        data: Path | None = None,
                        sets: int = 2000, policies=("parallel", "sequential", "independent"), threshold: float = 0.9,
                        oracle_sets: int = 500, device: str = "auto", precision: Precision = "auto",
                        progress=None, parallel_rest: str = "one") -> dict:
    """`decider eval`: the report of a checkpoint (default: the shipped one) on `sets` sets of a
    split, or on the first `sets` labelled sets of a JSONL file."""
    ckpt = load_checkpoint(checkpoint, device=resolve_device(device))
    chosen = load_jsonl(data)[:sets] if data else held_out_sets(split, sets, corpus)
    t0 = time.time()
    report = evaluate(ckpt, chosen, policies=policies, threshold=threshold, oracle_sets=oracle_sets,
                      progress=progress, precision=precision, parallel_rest=parallel_rest)
    report["settings"].update(split=str(data) if data else split, corpus=None if data else corpus,
                              seconds=round(time.time() - t0))
    return report


def report_lines(report: dict) -> list[str]:
    """The human-readable summary `decider eval` prints."""
    lines = []
    for policy in [p for p in ("parallel", "sequential", "independent") if p in report]:
        r = report[policy]
        lines.append(f"{policy:12s} item {r['per_item_accuracy']:.4f}  all {r['all_correct']:.4f}  "
                     f"chained {r['all_correct_chained']}  passes {r['forward_passes_mean']:.2f}  ece {r['ece']:.4f}")
    if "oracle" in report:
        lines.append(f"{'oracle':12s} item {report['oracle']['per_item_accuracy']:.4f}  "
                     f"flip sensitivity {report['oracle']['flip_sensitivity']:.4f}")
    return lines
