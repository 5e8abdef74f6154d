"""Does the model compare a reading with its set point? Two-sentence probes, nothing else to read.

    python bench/number_probe.py [--checkpoint DIR] [--probes 60]

"TT-1 reads 123.4 °C. The high-temperature trip setting for TT-1 is 130 °C." and "Is TT-1 above
its trip setting?", with readings drawn above and below the trip. A model that compares the
numbers gives "yes" a higher probability when the reading is above; prints the mean P(yes) of
both groups and the accuracy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

from decider.engine.core import build_engine


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint")
    p.add_argument("--probes", type=int, default=60)
    args = p.parse_args()
    engine = build_engine(args.checkpoint, precision="fp32", prefix_cache_bytes=0)
    rng = random.Random(0)
    requests, above = [], []
    for i in range(args.probes):
        reading = round(rng.uniform(20, 200), 1)
        trip = round(reading + rng.choice([-1, 1]) * rng.uniform(0.5, 30))
        tag = f"TT-{100 + i}"
        requests.append({"context": f"{tag} reads {reading} °C. The high-temperature trip setting for {tag} is "
                                    f"{trip} °C.",
                         "questions": [{"id": "q", "text": f"Is {tag} above its trip setting?", "type": "boolean"}],
                         "options": {"return_distributions": True}})
        above.append(reading > trip)
    results = engine.decide(requests)
    p_yes = [r.answers[0].distribution[0] for r in results]
    right = [(r.answers[0].answer == "yes") == a for r, a in zip(results, above)]
    print(json.dumps({"probes": len(requests), "accuracy": round(sum(right) / len(right), 3),
                      "p_yes_when_above": round(statistics.mean(p for p, a in zip(p_yes, above) if a), 3),
                      "p_yes_when_below": round(statistics.mean(p for p, a in zip(p_yes, above) if not a), 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
