"""bench/depth_eval.py: answers grouped by rule depth, and the aggregate "which" questions apart."""

import random

from depth_eval import by_depth, rightness_where

from decider.engine.training.families import base
from decider.engine.training.families import rulebase as rb


def test_answers_group_by_depth_and_aggregate_questions_are_picked_out():
    sets = [rb.generate(random.Random(f"depth-eval:{i}"), base.Style(), 8, 3, aggregate=1.0) for i in range(60)]
    # right exactly where the question is an aggregate one, so that the two groupings can be told apart
    correct = [[rb.is_aggregate(q) for q in s.questions] for s in sets]
    agg = rightness_where(sets, correct, rb.is_aggregate)
    assert len(agg) > 10 and all(agg)
    depths = by_depth(sets, correct)
    assert sum(len(v) for v in depths.values()) == sum(len(s.questions) for s in sets)
    assert sum(sum(v) for v in depths.values()) == len(agg)
    assert not rightness_where(sets, [[not r for r in rs] for rs in correct], rb.is_aggregate).count(True)
    assert not rightness_where(sets, correct, rb.is_hypothetical)
