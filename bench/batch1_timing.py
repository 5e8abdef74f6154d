"""Batch-1 decisions of this checkout's engine, for comparing two revisions of the code
(bench/ab_latency.sh runs it in both, alternately).

    python bench/batch1_timing.py [--rounds 3] [--sets 12]

For 8-question test sets near 110 and 248 prefix tokens (bench/edge_latency.py's) and near
450 (most of the window), in the engine's default precision, prefix cache off: the median
latency of `EngineCore.decide([r])`, the median prefix pass and block pass, and every answer of
the first round (so that two revisions can be checked for the same answers). One JSON line.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time

from edge_latency import sets_near

from decider.engine.core import build_engine
from decider.engine.request import as_request


def timed(fn, into: list):
    """fn, appending each call's seconds to `into`."""
    def run(*a, **k):
        t = time.perf_counter()
        out = fn(*a, **k)
        into.append(time.perf_counter() - t)
        return out
    return run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sets", type=int, default=12)
    args = p.parse_args()
    engine = build_engine(prefix_cache_bytes=0)
    out = {}
    model = engine.model
    for tokens in (110, 248, 450):
        requests = [as_request(s.context, s.questions) for s in sets_near(tokens, engine.tok, n=args.sets)]
        for r in requests[:3]:  # warm
            engine.decide([r])
        prefixes, passes, latency, answers = [], [], [], []

        engine.model = timed_model = copy.copy(model)  # the engine's own model, two passes timed
        timed_model.prefix_forward = timed(model.prefix_forward, prefixes)
        timed_model.block_forward = timed(model.block_forward, passes)
        for round_ in range(args.rounds):
            for r in requests:
                t = time.perf_counter()
                result = engine.decide([r])[0]
                latency.append(time.perf_counter() - t)
                if round_ == 0:
                    answers.append([a.answer for a in result.answers])
        engine.model = model
        out[tokens] = {"p50_ms": round(statistics.median(latency) * 1e3, 2),
                       "prefix_pass_ms": round(statistics.median(prefixes) * 1e3, 2),
                       "block_pass_ms": round(statistics.median(passes) * 1e3, 2), "answers": answers}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
