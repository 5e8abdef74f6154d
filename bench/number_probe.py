"""Does the model compare a reading with its set point? Short probes, nothing else to read.

    python bench/number_probe.py [--checkpoint DIR] [--probes 60] [--distractors 0 1 3]

"TT-1 reads 123.4 °C. The high-temperature trip setting for TT-1 is 130 °C." and "Is TT-1 above
its trip setting?", with readings drawn above and below the trip. With `--distractors N` the
context also holds N other instruments, each with its own reading and trip setting, in shuffled
order: the model must find the asked instrument's two numbers among 2 (N + 1) before comparing
them. A model that compares gives "yes" a higher probability when the reading is above; prints,
per distractor count, the mean P(yes) of both groups and the accuracy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

from decider.engine.core import build_engine


def _instrument(rng: random.Random, tag: str) -> tuple[list[str], bool]:
    reading = round(rng.uniform(20, 200), 1)
    trip = round(reading + rng.choice([-1, 1]) * rng.uniform(0.5, 30))
    return [f"{tag} reads {reading} °C.", f"The high-temperature trip setting for {tag} is {trip} °C."], reading > trip


def probes(n: int, distractors: int, seed: int = 0) -> tuple[list[dict], list[bool]]:
    rng = random.Random(seed)
    requests, above = [], []
    for i in range(n):
        tags = rng.sample(range(100, 1000), distractors + 1)
        sentences, is_above = _instrument(rng, f"TT-{tags[0]}")
        for t in tags[1:]:
            sentences += _instrument(rng, f"TT-{t}")[0]
        if distractors:
            rng.shuffle(sentences)
        requests.append({"context": " ".join(sentences),
                         "questions": [{"id": "q", "text": f"Is TT-{tags[0]} above its trip setting?",
                                        "type": "boolean"}],
                         "options": {"return_distributions": True}})
        above.append(is_above)
    return requests, above


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=60)
    p.add_argument("--distractors", type=int, nargs="+", default=[0], help="other instruments in the context")
    args = p.parse_args()
    engine = build_engine(args.checkpoint, precision="fp32", prefix_cache_bytes=0)
    for d in args.distractors:
        requests, above = probes(args.probes, d)
        results = engine.decide(requests)
        p_yes = [r.answers[0].distribution[0] for r in results]
        right = [(r.answers[0].answer == "yes") == a for r, a in zip(results, above)]
        print(json.dumps({"distractors": d, "probes": len(requests), "accuracy": round(sum(right) / len(right), 3),
                          "p_yes_when_above": round(statistics.mean(p for p, a in zip(p_yes, above) if a), 3),
                          "p_yes_when_below": round(statistics.mean(p for p, a in zip(p_yes, above) if not a), 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
