"""Does the model compare a reading with its set point? Short probes, nothing else to read.

    python bench/number_probe.py [--checkpoint DIR] [--probes 60] [--distractors 0 1 3]
    python bench/number_probe.py --learn 300 --distractors 3 [--number-relative 8] [--name-links 8]
        [--question-compare 4] [--number-links] [--form trip|limits|number|stated]
        [--learn-mix ENTRY[=W] ... [--twins] [--stated SHARE]] [--bf16] [--family-sets N]
    python bench/number_probe.py --learn 1000 --compare-sets 200 [--plain] [--number-targets 1.0] --bf16

"TT-1 reads 123.4 °C. The high-temperature trip setting for TT-1 is 130 °C." and "Is TT-1 above
its trip setting?", with readings drawn above and below the trip. With `--distractors N` the
context also holds N other instruments, each with its own reading and trip setting, in shuffled
order: the model must find the asked instrument's two numbers among 2 (N + 1) before comparing
them. A model that compares gives "yes" a higher probability when the reading is above; prints,
per distractor count, the mean P(yes) of both groups and the accuracy.

`--form limits`: every instrument has a high alarm, a high-high alarm and a trip setting, and the
question names one of them ("Is TT-1 above its high-high alarm?"): which of the instrument's
numbers to compare is in the question's words. `--form number`: the question gives the number
("Is TT-1 above 131 °C?"), and the instrument's trip setting is one more number beside its
reading. `--form stated`: the context says it in words ("TT-1 is above its trip setting." or "TT-1
is not above its trip setting."): nothing to compare, only to read, so a model at chance there
does not read comparison questions at all, whatever it can do with numbers.

`--learn STEPS`: how fast can the model learn it? Fine-tunes a copy of the checkpoint (in memory,
nothing saved) on probes of the last distractor count alone, 16 per step (the trainer's
learning rates: 1.5e-4, new number parts at 10x, link biases at 100x), optionally after adding the
number comparison term (`--number-relative`), the linked comparison (`--name-links`,
engine/names.py), the question comparison (`--question-compare`) or the number tokens' link bias
(`--number-links`); prints the training accuracy every 50 steps, then the probe figures above on
fresh probes. `--learn-mix ENTRY[=W] ...` fine-tunes on corpus training sets of that mix instead
(e.g. `readings@0:1`, single questions on short plant contexts): does what the corpus teaches
carry over to the probes? With `--twins` every readings set of that mix comes with its twin
(corpus.make_twins: the same set with one comparison turned the other way by a number);
`--stated SHARE`: that share of their comparisons also says its outcome in words ("TT-1 reads
131.5 °C, above 128 °C"): a way in through words. `--bf16` trains under bf16 autocast, as the
trainer does where bf16 is fast. `--family-sets N`
also answers N depth-0 readings validation sets (the corpus family's own phrasings) before and
after `--learn`, per-item accuracy by answer kind, yes/no split by whether the question gives a
number: does what the probes teach carry over to the family?

`--compare-sets N` answers N sets of one instrument of the readings family's comparison block
(a reading and one or two named limits in the family's phrasings, one question; `--plain`:
yes/no questions that give no number and negate nothing) before and after `--learn`, and with
`--learn` fine-tunes on such sets instead of probes: the family's language with nothing else to
find. `--number-targets W` adds the trainer's number targets at weight W (TrainConfig.
number_targets: each number of a set learns, through a number head, how its instrument's
reading compares with it; the training accuracy of those targets is printed beside the slots').
"""

from __future__ import annotations

import argparse
import json
import random
import re

from decider.engine.core import build_engine
from stats import yes_no_summary


FORMS = ("trip", "limits", "number", "stated")
LIMITS = ("high alarm", "high-high alarm", "trip setting")


def _near(rng: random.Random, reading: float) -> int:
    return round(reading + rng.choice([-1, 1]) * rng.uniform(0.5, 30))


def _instrument(rng: random.Random, tag: str, form: str = "trip") -> tuple[list[str], str, bool]:
    """(sentences, question, its answer) of one instrument."""
    reading = round(rng.uniform(20, 200), 1)
    said = [f"{tag} reads {reading} °C."]
    if form == "limits":
        limits = {name: _near(rng, reading) for name in LIMITS}
        said += [f"The {name} for {tag} is set at {v} °C." for name, v in limits.items()]
        name = rng.choice(LIMITS)
        return said, f"Is {tag} above its {name}?", reading > limits[name]
    trip = _near(rng, reading)
    if form == "stated":  # the comparison written out: nothing to compare, only to read
        said.append(f"{tag} is {'above' if reading > trip else 'not above'} its trip setting.")
        return said, f"Is {tag} above its trip setting?", reading > trip
    said.append(f"The high-temperature trip setting for {tag} is {trip} °C.")
    if form == "number":
        asked = _near(rng, reading)
        return said, f"Is {tag} above {asked} °C?", reading > asked
    return said, f"Is {tag} above its trip setting?", reading > trip


def probe(rng: random.Random, distractors: int, form: str = "trip") -> tuple[list[str], str, bool]:
    """(sentences, question, whether the asked reading is above what the question names)."""
    tags = rng.sample(range(100, 1000), distractors + 1)
    sentences, question, above = _instrument(rng, f"TT-{tags[0]}", form)
    for t in tags[1:]:
        sentences += _instrument(rng, f"TT-{t}", form)[0]
    if distractors:
        rng.shuffle(sentences)
    return sentences, question, above


def probes(n: int, distractors: int, seed: int = 0, form: str = "trip") -> tuple[list[dict], list[bool]]:
    rng = random.Random(seed)
    requests, above = [], []
    for _ in range(n):
        sentences, question, is_above = probe(rng, distractors, form)
        requests.append({"context": " ".join(sentences),
                         "questions": [{"id": "q", "text": question, "type": "boolean"}],
                         "options": {"return_distributions": True}})
        above.append(is_above)
    return requests, above


def untagged(text: str) -> str:
    """`text` without its tags ("TT-101", "P-7B"): what is left of its digits are numbers."""
    return re.sub(r"\b[A-Z]+-\d+[A-Z]?\b", "", text)


def compare_set(seed: str, plain: bool, style=None):
    """One instrument of the readings family's comparison block (World.block_compare: a reading,
    one or two named limits, in the family's phrasings) and one of its questions; `plain`: a
    yes/no question that gives no number and negates nothing ("Is PI-783 below its HH alarm
    limit setting?"). The family's language with nothing else to find."""
    from decider.engine.training.families import readings as R
    from decider.engine.training.families.base import Style

    for attempt in range(400):
        w = R.World(random.Random(f"{seed}:{attempt}"), style or Style())
        w.n = 1
        cands, _ = w.block_compare(0, 1)
        w.asked = [w.rng.choice(cands)]
        s = w.finish()
        if s is None:
            continue
        text = untagged(s.questions[0].text)
        if not plain or (s.questions[0].kind == "boolean" and not re.search(r"\d|\bnot\b|n't|\bno\b", text)):
            return s
    raise RuntimeError(f"no comparison set fits seed {seed}")


def compare_accuracy(ckpt, n: int, plain: bool) -> dict:
    """Per-item accuracy on n one-instrument comparison sets (compare_set; validation
    phrasings; parallel, T = 1, fp32)."""
    from decider.engine.training.evaluate import run_policy

    sets = [compare_set(f"compare-eval:{i}", plain) for i in range(n)]
    scored = run_policy(ckpt, sets, "parallel", 0.9, 1.0, precision="fp32")
    return {"compare_sets": n, "plain": plain, "accuracy": round(sum(c[0] for c in scored.correct) / n, 3)}


def learn(ckpt, steps: int, distractors: int, relative: int, links: int, compare: int = 0, seed: int = 1,
          form: str = "trip", number_links: bool = False, mix: dict | None = None, twins: bool = False,
          bf16: bool = False, stated: float = 0.0, compare_sets: bool = False, plain: bool = False,
          number_targets: float = 0.0, uniform_lr: bool = False, drills: float = 0.0) -> None:
    """Fine-tune ckpt.model in place on probes, corpus sets (`mix`, that share of its readings sets
    comparison drills) or else one-instrument comparison sets (`compare_sets`), with the number
    targets at weight `number_targets` (see the module docstring)."""
    import torch

    from decider.engine.training.corpus import CorpusSpec, make_set, make_twins, yes_no_set
    from decider.engine.training.families.base import Style
    from decider.engine.training.train import fine_tune

    torch.manual_seed(seed)
    model = ckpt.model.float().train()
    if relative and model.cfg.number_relative != relative:
        model.add_number_relative(relative)
    if links and model.cfg.name_links != links:
        model.add_name_links(links)
    if compare and model.cfg.question_compare != compare:
        model.add_question_compare(compare)
    if number_links and not model.cfg.number_links:
        model.add_number_links()
    if number_targets and not model.cfg.number_head:
        model.add_number_head()
    model.word_embeddings.weight.requires_grad_(False)
    if uniform_lr:  # every part at the model's rate, the number head (new) at 10x
        fresh = [p for n, p in model.named_parameters() if n.startswith("number_head.")]
        biases = []
    else:
        fresh = [p for n, p in model.named_parameters() if n.startswith(("number_proj.", "link_proj.", "number_head."))
                 or ".rank_out." in n or ".compare_out." in n]
        biases = [p for n, p in model.named_parameters() if n.endswith((".link_bias", ".number_link_bias"))]
    ids = {id(p) for p in fresh + biases}
    rest = [p for p in model.parameters() if p.requires_grad and id(p) not in ids]
    opt = torch.optim.AdamW([g for g in ({"params": rest, "lr": 1.5e-4},
                                         {"params": fresh, "lr": 1.5e-3, "weight_decay": 0.0},
                                         {"params": biases, "lr": 1.5e-2, "weight_decay": 0.0}) if g["params"]])
    rng, index = random.Random(seed), 20_000_000
    spec = CorpusSpec(split="train", mix=tuple(mix.items()), stated=stated, drills=drills) if mix else None

    def draw() -> list:
        nonlocal index
        index += 1
        if spec:
            return make_twins(spec, index - 1) if twins else [make_set(spec, index - 1)]
        if compare_sets:
            return [compare_set(f"compare-train:{seed}:{index}", plain, Style(more=True))]
        sentences, question, above = probe(rng, distractors, form)
        return [yes_no_set(sentences, question, above)]

    fine_tune(model, ckpt.tokenizer, draw, steps, opt=opt, bf16=bf16, rng=rng, number_weight=number_targets)


def family_accuracy(ckpt, n: int, stated: float = 0.0) -> dict:
    """Per-item accuracy on n depth-0 readings validation sets (parallel, T = 1, fp32), by
    answer kind, yes/no split by whether the question gives a number besides its tags. With
    `stated`, that share of their comparisons also says its outcome in words (not a split the
    card measures: sets drawn for this probe alone)."""
    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.training.evaluate import run_policy

    sets = make_sets(CorpusSpec(split="validation", max_links=0, mix=(("readings", 1.0),), stated=stated), n)
    scored = run_policy(ckpt, sets, "parallel", 0.9, 1.0, precision="fp32")
    groups: dict[str, list[bool]] = {}
    for s, correct in zip(sets, scored.correct):
        for q, ok in zip(s.questions, correct):
            kind = q.kind
            if kind == "boolean":
                kind += " with a number" if re.search(r"\d", untagged(q.text)) else " without"
            groups.setdefault(kind, []).append(ok)
    return {k: f"{sum(v) / len(v):.3f} of {len(v)}" for k, v in sorted(groups.items())}


def _mix(entries: list[str]) -> dict:
    """["readings@0:1=0.5", "v1"] -> {"readings@0:1": 0.5, "v1": 1.0}, entries checked."""
    from decider.engine.training.corpus import mix_entry

    out = {}
    for e in entries:
        name, _, weight = e.partition("=")
        mix_entry(name)  # raises saying what an entry may be
        out[name] = float(weight or 1.0)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=60)
    p.add_argument("--distractors", type=int, nargs="+", default=[0], help="other instruments in the context")
    p.add_argument("--learn", type=int, default=0, metavar="STEPS", help="fine-tune on probes first (in memory)")
    p.add_argument("--number-relative", type=int, default=0, help="with --learn: add the comparison term first")
    p.add_argument("--name-links", type=int, default=0, help="with --learn: add the linked comparison first")
    p.add_argument("--question-compare", type=int, default=0, help="with --learn: add the question comparison first")
    p.add_argument("--number-links", action="store_true", help="with --learn: add the number tokens' link bias first")
    p.add_argument("--form", choices=FORMS, nargs="+", default=["trip"],
                   help="what the question compares the reading with (--learn on probes: of the first)")
    p.add_argument("--family-sets", type=int, default=0, help="also answer this many depth-0 readings sets")
    p.add_argument("--learn-mix", nargs="+", metavar="ENTRY[=W]",
                   help="with --learn: fine-tune on corpus training sets of this mix, not on probes")
    p.add_argument("--twins", action="store_true",
                   help="with --learn-mix: sets come with their twins where the family draws them (readings)")
    p.add_argument("--bf16", action="store_true", help="with --learn: bf16 autocast, as the trainer on a fast-bf16 CPU")
    p.add_argument("--stated", type=float, default=0.0, metavar="SHARE",
                   help="with --learn-mix: that share of the readings sets' comparisons also says its outcome in "
                        "words (corpus.CorpusSpec.stated); with --family-sets: also answer as many such sets")
    p.add_argument("--compare-sets", type=int, default=0, metavar="N",
                   help="also answer N one-instrument comparison sets (the family's comparison block alone, "
                        "one question each); with --learn and no --learn-mix: fine-tune on such sets, not on probes")
    p.add_argument("--plain", action="store_true",
                   help="with --compare-sets: yes/no questions that give no number and negate nothing")
    p.add_argument("--uniform-lr", action="store_true",
                   help="with --learn: the number parts and link biases at the model's learning rate, not at "
                        "10x / 100x (they are trained in every shipped version)")
    p.add_argument("--drills", type=float, default=0.0, metavar="SHARE",
                   help="with --learn-mix: that share of its readings sets are comparison drills "
                        "(corpus.CorpusSpec.drills)")
    p.add_argument("--number-targets", type=float, default=0.0, metavar="W",
                   help="with --learn: the trainer's number targets at this weight (a number head is added)")
    args = p.parse_args()
    ckpt = None
    if args.learn or args.family_sets or args.compare_sets:
        from decider.engine.checkpoint import load_checkpoint

        ckpt = load_checkpoint(args.checkpoint)

    def family(when: str) -> None:
        for share in sorted({0.0, args.stated}):
            print(json.dumps({"readings_depth_0": when, **({"stated": share} if share else {}),
                              **family_accuracy(ckpt, args.family_sets, share)}), flush=True)

    def compared(when: str) -> None:
        if args.compare_sets:
            print(json.dumps({"when": when, **compare_accuracy(ckpt, args.compare_sets, args.plain)}), flush=True)

    if args.family_sets:
        family("before" if args.learn else "as is")
    compared("before" if args.learn else "as is")
    if args.learn:
        learn(ckpt, args.learn, args.distractors[-1], args.number_relative, args.name_links,
              args.question_compare, form=args.form[0], number_links=args.number_links,
              mix=_mix(args.learn_mix) if args.learn_mix else None, twins=args.twins, bf16=args.bf16,
              stated=args.stated, compare_sets=bool(args.compare_sets), plain=args.plain,
              number_targets=args.number_targets, uniform_lr=args.uniform_lr, drills=args.drills)
        if args.family_sets:
            family("after")
        compared("after")
    engine = build_engine(ckpt or args.checkpoint, precision="fp32", prefix_cache_bytes=0)
    for form, d in ((f, d) for f in args.form for d in args.distractors):
        requests, above = probes(args.probes, d, form=form)
        results = engine.decide(requests)
        print(json.dumps({"form": form, "distractors": d, "probes": len(requests),
                          **yes_no_summary(results, above, when=("above", "below"))}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
