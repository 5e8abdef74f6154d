"""Batch-1 decisions of this checkout's engine, for comparing two revisions of the code
(bench/ab_latency.sh runs it in both, alternately).

    python bench/batch1_timing.py [--rounds 3] [--sets 12]

For 8-question test sets near 110 and 248 prefix tokens (bench/edge_latency.py's), in the
engine's default precision, prefix cache off: the median latency of `EngineCore.decide([r])`,
the median block pass, and every answer of the first round (so that two revisions can be
checked for the same answers). One JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from edge_latency import sets_near

from decider.engine.core import build_engine
from decider.engine.request import as_request


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sets", type=int, default=12)
    args = p.parse_args()
    engine = build_engine(prefix_cache_bytes=0)
    out = {}
    for tokens in (110, 248):
        requests = [as_request(s.context, s.questions) for s in sets_near(tokens, engine.tok, n=args.sets)]
        for r in requests[:3]:  # warm
            engine.decide([r])
        passes, latency, answers = [], [], []
        block_forward = engine.model.block_forward

        def timed(*a, **k):
            t = time.perf_counter()
            logits = block_forward(*a, **k)
            passes.append(time.perf_counter() - t)
            return logits

        engine.model.block_forward = timed
        for round_ in range(args.rounds):
            for r in requests:
                t = time.perf_counter()
                result = engine.decide([r])[0]
                latency.append(time.perf_counter() - t)
                if round_ == 0:
                    answers.append([a.answer for a in result.answers])
        engine.model.block_forward = block_forward
        out[tokens] = {"p50_ms": round(statistics.median(latency) * 1e3, 2),
                       "block_pass_ms": round(statistics.median(passes) * 1e3, 2), "answers": answers}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
