"""What the yes/no probes share (bench/closed_world_probe.py, rights_probe.py, role_probe.py):
fine-tuning a copy in memory first, and answering the probes with the engine."""

from __future__ import annotations

import random
from collections.abc import Callable

from stats import yes_no_summary

Probe = tuple[str, str, bool]  # (context, question, is the answer yes)


def learn(ckpt, steps: int, spec, probe: Callable[[random.Random], Probe], *, start: int, lr: float, bf16: bool,
          seed: int, depth: int = 0) -> None:
    """Fine-tune ckpt.model in place (batches of 16, AdamW at `lr`, word embeddings frozen,
    training accuracy printed every 50 steps): on the corpus sets of `spec` (a CorpusSpec) from
    index `start`, with the trainer's support dropping, or with `spec` None on probes drawn from
    a stream of their own (apart from the measured ones), each asked alone at rule depth `depth`."""
    import torch
    from decider.engine.training.corpus import make_set, yes_no_set
    from decider.engine.training.train import fine_tune

    torch.manual_seed(seed)
    model = ckpt.model.float()
    model.word_embeddings.weight.requires_grad_(False)
    rng, index = random.Random(f"learn:{seed}"), start

    def draw() -> list:
        nonlocal index
        if spec is not None:
            index += 1
            return [make_set(spec, index - 1)]
        context, question, yes = probe(rng)
        return [yes_no_set([context], question, yes, depth=depth)]

    fine_tune(model, ckpt.tokenizer, draw, steps, lr=lr, bf16=bf16, rng=rng,
              drop_support=0.5 if spec is not None else 0.0)


def measure(engine, drawn: list[Probe]) -> dict:
    """The engine's answers to the probes, one question each: yes_no_summary's figures."""
    results = engine.decide([{"context": c, "questions": [{"id": "q", "text": q, "type": "boolean"}],
                              "options": {"return_distributions": True}} for c, q, _ in drawn])
    return {"probes": len(drawn), **yes_no_summary(results, [yes for _, _, yes in drawn])}


def cli(doc: str, probe: Callable[[random.Random], Probe], learn, sources: tuple[str, str], tag: str) -> int:
    """A probe script's command line: --checkpoint, --probes, --seed, and --learn STEPS from one of
    `sources` ("probes" first; `learn(ckpt, steps, source, lr, bf16, seed)`); prints `measure`'s
    figures on probes drawn from the stream `<seed>:<tag>`."""
    import argparse
    import json

    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--learn", type=int, default=0, metavar="STEPS", help="fine-tune a copy first (in memory)")
    p.add_argument("--learn-from", choices=("probes", *sources), default="probes",
                   help="with --learn: the probe's own sentences or a family's sets (see the module docstring)")
    p.add_argument("--lr", type=float, default=1.5e-4, help="with --learn")
    p.add_argument("--bf16", action="store_true", help="with --learn: bf16 autocast, as the trainer on a fast-bf16 CPU")
    args = p.parse_args()
    from decider.engine.checkpoint import load_checkpoint
    from decider.engine.core import build_engine

    ckpt = load_checkpoint(args.checkpoint)
    if args.learn:
        learn(ckpt, args.learn, args.learn_from, args.lr, args.bf16, args.seed)
    engine = build_engine(ckpt, precision="fp32", prefix_cache_bytes=0)
    rng = random.Random(f"{args.seed}:{tag}")
    print(json.dumps(measure(engine, [probe(rng) for _ in range(args.probes)])))
    return 0
