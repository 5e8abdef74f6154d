"""Does the model read which unit of a duty/standby pair a rule's role names, or only the tags?

    python bench/role_probe.py [--checkpoint DIR] [--probes 100] [--seed 0]
                               [--learn STEPS --learn-from probes|roles|family]

Plant text as operators write it: a pair's line-up ("Line-up: P-7B duty, P-7A standby."), a
rule that names a unit by its role ("If the duty pump trips, FIC-201 goes to MANUAL."), the
state of what the rule acts on ("FIC-201 in AUTO."), then one unit of the pair tripping, and one
yes/no question on the rule's consequence ("Is FIC-201 in manual?"). Which unit trips and which
role the rule names are drawn apart, so every probe says the same things of both units and the
answer turns only on which of them the line-up gave the role to. Prints the accuracy and the
mean P(yes) when the answer is yes and when it is no.

`--learn STEPS` first fine-tunes a copy of the checkpoint in memory (batches of 16, AdamW at
`--lr`, word embeddings frozen), printing the training accuracy every 50 steps: on probes drawn
apart from the measured ones (`--learn-from probes`), on the readings family's sets with pairs
named by role (`--learn-from roles`, corpus.CorpusSpec.roles) or on its other sets
(`--learn-from family`): does what the family teaches carry over to these sentences.
"""

from __future__ import annotations

import argparse
import json
import random

from stats import yes_no_summary

PAIRS = (("pump", "P-{n}"), ("compressor", "K-{n}"), ("fan", "FN-{n}"), ("blower", "BL-{n}"),
         ("chiller", "CH-{n}"), ("generator", "G-{n}"))
LINEUPS = ("Line-up: {d} duty, {s} standby.", "{d} is the duty {kind}; {s} is on standby.",
           "{kind}s {a} and {b}: {d} on duty, {s} standing by.", "{d} running as duty, {s} in auto-standby.")
ROLES = {"duty": ("the duty {kind}", "the {kind} on duty"), "standby": ("the standby {kind}", "the {kind} on standby")}
RULES = ("If {r} trips, {c}.", "On a trip of {r}, {c}.", "Should {r} trip, {c}.")
# (what the rule does, the state before, the question); {n} a loop or valve number
CONSEQUENCES = (("FIC-{n} goes to MANUAL", "FIC-{n} in AUTO.", "Is FIC-{n} in manual?"),
                ("XV-{n} closes", "XV-{n} is open.", "Is XV-{n} closed?"),
                ("the unit goes to reduced rate", "The unit is at normal rate.", "Is the unit at reduced rate?"),
                ("alarm PA-{n} is raised", "No alarms standing.", "Is alarm PA-{n} raised?"))
TRIPS = ("{x} tripped at {t} on high vibration.", "{x} has tripped.", "{t} {x} trip, motor overload.",
         "{x} tripped out at {t}.")


def probe(rng: random.Random) -> tuple[str, str, bool]:
    """(context, question, answer) of one probe."""
    kind, tag = rng.choice(PAIRS)
    n = rng.randint(10, 899)
    a, b = tag.format(n=f"{n}A"), tag.format(n=f"{n}B")
    duty = rng.choice((a, b))
    standby = b if duty == a else a
    role, tripped = rng.choice(sorted(ROLES)), rng.choice((a, b))
    m = rng.randint(100, 999)
    does, before, question = (x.format(n=m) for x in rng.choice(CONSEQUENCES))
    rule = rng.choice(RULES).format(r=rng.choice(ROLES[role]).format(kind=kind), c=does)
    t = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
    sentences = [rng.choice(LINEUPS).format(a=a, b=b, d=duty, s=standby, kind=kind), rule[0].upper() + rule[1:],
                 before, rng.choice(TRIPS).format(x=tripped, t=t)]
    return " ".join(sentences), question, tripped == (duty if role == "duty" else standby)


def learn(ckpt, steps: int, source: str, lr: float, bf16: bool, seed: int) -> None:
    """Fine-tune ckpt.model in place (see the module docstring)."""
    import torch

    from decider.engine.training.corpus import CorpusSpec, make_set, yes_no_set
    from decider.engine.training.train import fine_tune

    torch.manual_seed(seed)
    model = ckpt.model.float()
    model.word_embeddings.weight.requires_grad_(False)
    rng, index = random.Random(f"learn:{seed}"), 32_000_000
    spec = CorpusSpec(split="train", mix=(("readings", 1.0),), roles=1.0 if source == "roles" else 0.0,
                      more_phrasings=True)

    def draw() -> list:
        nonlocal index
        if source != "probes":
            index += 1
            return [make_set(spec, index - 1)]
        context, question, yes = probe(rng)
        return [yes_no_set([context], question, yes, depth=1)]

    fine_tune(model, ckpt.tokenizer, draw, steps, lr=lr, bf16=bf16, rng=rng,
              drop_support=0.0 if source == "probes" else 0.5)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--learn", type=int, default=0, metavar="STEPS", help="fine-tune a copy first (in memory)")
    p.add_argument("--learn-from", choices=("probes", "roles", "family"), default="probes",
                   help="with --learn: the probe's own sentences, the readings family's sets with pairs named by "
                        "role, or its other sets")
    p.add_argument("--lr", type=float, default=1.5e-4, help="with --learn")
    p.add_argument("--bf16", action="store_true", help="with --learn: bf16 autocast, as the trainer on a fast-bf16 CPU")
    args = p.parse_args()
    from decider.engine.checkpoint import load_checkpoint
    from decider.engine.core import build_engine

    ckpt = load_checkpoint(args.checkpoint)
    if args.learn:
        learn(ckpt, args.learn, args.learn_from, args.lr, args.bf16, args.seed)
    engine = build_engine(ckpt, precision="fp32", prefix_cache_bytes=0)
    rng = random.Random(f"{args.seed}:roles")
    drawn = [probe(rng) for _ in range(args.probes)]
    results = engine.decide([{"context": c, "questions": [{"id": "q", "text": q, "type": "boolean"}],
                              "options": {"return_distributions": True}} for c, q, _ in drawn])
    print(json.dumps({"probes": len(drawn), **yes_no_summary(results, [d[2] for d in drawn])}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
