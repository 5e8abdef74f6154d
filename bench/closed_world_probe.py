"""Does the model read who has an attribute, or only whether the attribute is said at all?

    python bench/closed_world_probe.py [--checkpoint DIR] [--probes 100] [--family-sets N]

Short contexts of facts about a few people, animals or tagged items, each with attributes of
its own ("The bear is big. The dog is kind."), and one yes/no question: an attribute asked of
the entity it is said of (yes) or of another entity the text names (no: closed world). Form
`rule` adds a rule ("If someone is big then they are red.") and asks its conclusion of an
entity that meets the condition (yes) and of one that does not (no). Forms `relation` and
`related` say whom each entity relates to ("The bear likes the dog.") and the rule reads that:
"If something likes the dog then it is kind." or what it relates to: "If something likes
something red then it is kind.". A model that answers
from whether the words occur says yes to both; one that binds attributes to entities tells
them apart. Prints per form the accuracy and the mean P(yes) of both groups.

`--learn STEPS` first fine-tunes a copy of the checkpoint in memory (batches of 16, AdamW at
`--lr`, word embeddings frozen): on the rulebase family's binding sets (`--learn-from binding`,
corpus.CorpusSpec.binding; the trainer's support dropping), on its other sets with one question
each (`--learn-from family`: `rulebase@1:1`), or on the rule form's own probes, drawn apart from
the measured ones (`--learn-from probes`), printing the training accuracy every
50 steps; how fast the model learns to bind, and whether one source teaches the other's.
`--save DIR` writes the fine-tuned checkpoint (for bench/realistic_eval.py).

`--family-sets N` also answers N quantified validation sets of the corpus and splits their
yes/no questions about an attribute by the generator's own solution: true; false and said of
another entity; false and said of nobody (a rule's conclusion whose conditions fail, say);
false and stated as false. Per-item accuracy per group (parallel, T = 1, fp32).
"""

from __future__ import annotations

import argparse
import json
import random

from decider.engine.core import build_engine
import probing

ENTITIES = {
    "animal": ("the bear", "the dog", "the cat", "the mouse", "the rabbit", "the squirrel", "the tiger", "the lion",
               "the cow", "the eagle"),
    "person": ("Anne", "Bob", "Charlie", "Dave", "Erin", "Fiona", "Gary", "Harry", "Olga", "Tomas"),
    "item": ("pump P-12", "drum D-40", "valve XV-7", "tank TK-3", "fan FN-21", "motor M-9", "filter F-55",
             "heater H-18"),
}
ATTRIBUTES = ("big", "small", "red", "green", "blue", "white", "round", "rough", "quiet", "loud", "cold", "hot",
              "heavy", "clean", "wet", "nice")
FACT = ("{e} is {a}.", "{e} is {a} and {b}.")
RULE = ("If someone is {a} then they are {c}.", "All {a} things are {c}.", "{A} things are {c}.",
        "If something is {a} then it is {c}.")
QUESTION = ("Is {e} {a}?", "Is it true that {e} is {a}?", "{E} is {a}: yes or no?")
VERBS = (("likes", "like"), ("watches", "watch"), ("feeds", "feed"), ("pushes", "push"), ("guards", "guard"))
RELATION = ("{e} {r} {o}.",)
RULE_RELATION = ("If something {r} {o} then it is {c}.", "Anything that {r} {o} is {c}.",
                 "Whoever {r} {o} is {c}.")
RULE_RELATED = ("If something {r} something {a} then it is {c}.", "Anything that {r} a {a} thing is {c}.",
                "Whoever {r} someone who is {a} is {c}.")
FORMS = ("facts", "rule", "relation", "related")


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def probe(rng: random.Random, form: str) -> tuple[str, str, bool]:
    """(context, question, answer) of one probe."""
    kind = rng.choice(sorted(ENTITIES))
    ents = rng.sample(ENTITIES[kind], rng.randint(2, 4))
    attrs = rng.sample(ATTRIBUTES, 2 * len(ents) + 1)
    has = {e: attrs[2 * i: 2 * i + rng.randint(1, 2)] for i, e in enumerate(ents)}
    sentences = [_cap(FACT[len(a) - 1].format(e=e, a=a[0], b=a[-1])) for e, a in has.items()]
    asked, yes = rng.choice(ents), rng.random() < 0.5
    holder = asked if yes else rng.choice([e for e in ents if e != asked])
    if form in ("relation", "related"):  # each entity relates to another; the rule reads the relation
        verb, attr = rng.choice(VERBS), attrs[-1]
        targets = {e: rng.choice([o for o in ents if o != e]) for e in ents}
        sentences += [_cap(RELATION[0].format(e=e, r=verb[0], o=o)) for e, o in targets.items()]
        if form == "relation":  # "If something likes the dog then it is kind."
            fits = [o for o in set(targets.values()) if (targets[asked] == o) == yes]
            if not fits:
                return probe(rng, form)
            sentences.append(_cap(rng.choice(RULE_RELATION).format(r=verb[0], o=rng.choice(fits), c=attr)))
        else:  # "If something likes something red then it is kind.": the attribute of what it relates to
            fits = [a for a in attrs[:-1] if any(a in h for h in has.values()) and (a in has[targets[asked]]) == yes]
            if not fits:
                return probe(rng, form)
            sentences.append(rng.choice(RULE_RELATED).format(r=verb[0], a=rng.choice(fits), c=attr))
            sentences[-1] = _cap(sentences[-1])
    elif form == "facts":
        attr = rng.choice(has[holder])
    else:
        cond, attr = rng.choice(has[holder]), attrs[-1]
        sentences.append(rng.choice(RULE).format(a=cond, A=_cap(cond), c=attr))
    rng.shuffle(sentences)
    question = _cap(rng.choice(QUESTION).format(e=asked, E=_cap(asked), a=attr))
    return " ".join(sentences), question, yes


def learn(ckpt, steps: int, source: str, lr: float, bf16: bool, seed: int) -> None:
    """Fine-tune ckpt.model in place (see the module docstring)."""
    from decider.engine.training.corpus import CorpusSpec

    spec = None if source == "probes" else CorpusSpec(
        split="train", mix=(("rulebase" if source == "binding" else "rulebase@1:1", 1.0),),
        binding=1.0 if source == "binding" else 0.0, more_phrasings=True)
    probing.learn(ckpt, steps, spec, lambda rng: probe(rng, "rule"), start=30_000_000, lr=lr, bf16=bf16, seed=seed,
                  depth=1)


def family_accuracy(ckpt, n: int) -> dict:
    """Per-item accuracy on n quantified validation sets, yes/no questions about an attribute
    grouped by the generator's solution (see the module docstring)."""
    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.training.evaluate import run_policy
    from decider.engine.training.families import quantified

    group_of: dict[str, str] = {}
    ask = quantified._World.ask

    def noting(self, t, model):
        q = ask(self, t, model)
        if q["kind"] == "bool" and t.key[0] == "u":
            group_of[_cap(q["text"])] = quantified.attribute_group(t.key, model)
        return q

    quantified._World.ask = noting
    try:
        sets = make_sets(CorpusSpec(split="validation", mix=(("quantified", 1.0),)), n)
    finally:
        quantified._World.ask = ask
    scored = run_policy(ckpt, sets, "parallel", 0.9, 1.0, precision="fp32")
    groups: dict[str, list[bool]] = {}
    for s, correct in zip(sets, scored.correct):
        for q, ok in zip(s.questions, correct):
            if q.text in group_of:
                groups.setdefault(group_of[q.text], []).append(ok)
    return {k: f"{sum(v) / len(v):.3f} of {len(v)}" for k, v in sorted(groups.items())}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=100, help="probes per form")
    p.add_argument("--form", choices=FORMS, nargs="+", default=list(FORMS))
    p.add_argument("--family-sets", type=int, default=0, help="also answer this many quantified validation sets")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--learn", type=int, default=0, metavar="STEPS", help="fine-tune a copy first (in memory)")
    p.add_argument("--learn-from", choices=("binding", "family", "probes"), default="binding",
                   help="with --learn: the rulebase family's binding sets, its other sets (one question each), "
                        "or the rule form's own probes")
    p.add_argument("--lr", type=float, default=1.5e-4, help="with --learn")
    p.add_argument("--bf16", action="store_true", help="with --learn: bf16 autocast, as the trainer on a fast-bf16 CPU")
    p.add_argument("--save", metavar="DIR", help="with --learn: write the fine-tuned checkpoint there")
    args = p.parse_args()
    from decider.engine.checkpoint import load_checkpoint, save_checkpoint

    ckpt = load_checkpoint(args.checkpoint)
    if args.learn:
        learn(ckpt, args.learn, args.learn_from, args.lr, args.bf16, args.seed)
        if args.save:
            save_checkpoint(ckpt, args.save)
    engine = build_engine(ckpt, precision="fp32", prefix_cache_bytes=0)
    for form in args.form:
        rng = random.Random(f"{args.seed}:{form}")
        drawn = [probe(rng, form) for _ in range(args.probes)]
        print(json.dumps({"form": form, **probing.measure(engine, drawn)}))
    if args.family_sets:
        print(json.dumps({"quantified_validation": args.family_sets, **family_accuracy(ckpt, args.family_sets)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
