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
named by role (`--learn-from roles`, corpus.CorpusSpec.roles, with three in five of their chains
starting on a pair's duty unit: `role_rules` 0.6) or on its other sets
(`--learn-from family`): does what the family teaches carry over to these sentences.
"""

from __future__ import annotations

import random

import probing

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
    from decider.engine.training.corpus import CorpusSpec

    spec = None if source == "probes" else CorpusSpec(
        split="train", mix=(("readings", 1.0),), roles=1.0 if source == "roles" else 0.0,
        role_rules=0.6 if source == "roles" else 0.0, more_phrasings=True)
    probing.learn(ckpt, steps, spec, probe, start=32_000_000, lr=lr, bf16=bf16, seed=seed, depth=1)


def main() -> int:
    return probing.cli(__doc__, probe, learn, ("roles", "family"), "roles")


if __name__ == "__main__":
    raise SystemExit(main())
