"""Declared constraints, property-based: whatever the questions, the constraints and the
model's logits, returned answers satisfy every constraint; unsatisfiable sets are refused
with a conflict that really is one, and minimal.

The checks below re-implement the constraint semantics by brute force over all full
assignments, independently of engine/constraints.py."""

import itertools

import torch
from fake_model import scripted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decider.engine.core import EngineConfig, EngineCore
from decider.engine.request import DecisionInputError

KINDS = ["implies", "excludes", "equal", "different", "at_most_one", "at_least_one", "exactly_one"]


def holds(kind, truth):
    if kind == "implies":
        return (not truth[0]) or truth[1]
    if kind == "excludes":
        return not (truth[0] and truth[1])
    if kind == "equal":
        return truth[0] == truth[1]
    if kind == "different":
        return truth[0] != truth[1]
    n = sum(truth)
    return {"at_most_one": n <= 1, "at_least_one": n >= 1, "exactly_one": n == 1}[kind]


def answers_of(q):
    return ["yes", "no"] if q["type"] == "boolean" else q["options"]


def full_assignments(questions):
    return itertools.product(*[answers_of(q) for q in questions])


def satisfied(constraints, questions, assignment):
    ids = [q["id"] for q in questions]
    for c in constraints:
        truth = [assignment[ids.index(l["question"])] == l["option"] for l in c["literals"]]
        if not holds(c["kind"], truth):
            return False
    return True


def extendable(constraints, questions, partial):
    """Some full assignment agrees with every settled answer and satisfies all constraints."""
    return any(all(p is None or p == a for p, a in zip(partial, full)) and satisfied(constraints, questions, full)
               for full in full_assignments(questions))


@st.composite
def decision(draw):
    n = draw(st.integers(1, 5))
    questions = []
    for i in range(n):
        if draw(st.booleans()):
            questions.append({"id": f"q{i}", "text": f"Is valve {i} open?", "type": "boolean"})
        else:
            k = draw(st.integers(2, 4))
            questions.append({"id": f"q{i}", "text": f"What is the mode of line {i}?", "type": "categorical",
                              "options": [f"mode{j}" for j in range(k)]})
    literal = st.integers(0, n - 1).flatmap(
        lambda i: st.sampled_from(answers_of(questions[i])).map(lambda o: {"question": f"q{i}", "option": o}))
    constraints = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(KINDS))
        size = 2 if kind in KINDS[:4] else draw(st.integers(1, 3))
        constraints.append({"kind": kind, "literals": [draw(literal) for _ in range(size)]})
    # adversarial logits: a fresh large random table per number of committed slots
    seed = draw(st.integers(0, 2**31 - 1))
    min_conf = draw(st.sampled_from([None, None, 0.6, 0.95]))
    policy = draw(st.sampled_from(["parallel", "sequential"]))
    return questions, constraints, seed, min_conf, policy


def adversarial(seed):
    def script(answers):
        g = torch.Generator().manual_seed(seed + int((answers != 18).sum()))
        B, S = answers.shape
        return torch.randn(B, S, 18, generator=g) * 12.0
    return script


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision())
def test_returned_answers_always_satisfy_the_constraints(tokenizer_path, case):
    questions, constraints, seed, min_conf, policy = case
    request = {"context": "Valve 1 is open.", "questions": questions, "constraints": constraints,
               "options": {"policy": policy, "min_confidence": min_conf}}
    core = EngineCore(scripted(tokenizer_path, script=adversarial(seed)), EngineConfig(precision="fp32"))
    possible = any(satisfied(constraints, questions, a) for a in full_assignments(questions))
    if not possible:
        try:
            core.add_request(request)
        except DecisionInputError as e:
            assert "cannot" in str(e) and e.field == "constraints"
            return
        raise AssertionError("unsatisfiable constraints were accepted")
    (r,) = core.decide([request])
    partial = [a.answer for a in r.answers]
    assert all((a.answer is None) == (a.status == "undecided") for a in r.answers)
    if None not in partial:
        assert satisfied(constraints, questions, partial)
    assert extendable(constraints, questions, partial)
    assert r.forward_passes <= len(questions)
    if min_conf is None:
        assert None not in partial


@settings(max_examples=100, deadline=None)
@given(decision())
def test_a_named_conflict_is_real_and_minimal(tokenizer_path, case):
    questions, constraints, *_ = case
    named = [dict(c, name=f"k{i}") for i, c in enumerate(constraints)]
    core = EngineCore(scripted(tokenizer_path, script=adversarial(0)), EngineConfig(precision="fp32"))
    try:
        core.add_request({"context": "Valve 1 is open.", "questions": questions, "constraints": named})
        return
    except DecisionInputError as e:
        message = str(e)
    core_names = [c["name"] for c in named if f"{c['name']}:" in message]
    conflict = [c for c in named if c["name"] in core_names]
    assert conflict
    assert not any(satisfied(conflict, questions, a) for a in full_assignments(questions))  # a real conflict
    for drop in conflict:  # and a minimal one
        rest = [c for c in conflict if c is not drop]
        assert any(satisfied(rest, questions, a) for a in full_assignments(questions))


def test_lookahead_scales_to_eight_wide_questions(tokenizer_path):
    """Eight 8-way questions under chained constraints decide quickly (domains collapse)."""
    import time
    questions = [{"id": f"q{i}", "text": f"What is the mode of line {i}?", "type": "categorical",
                  "options": [f"m{j}" for j in range(8)]} for i in range(8)]
    constraints = [{"kind": "different", "literals": [{"question": f"q{i}", "option": "m0"},
                                                      {"question": f"q{i + 1}", "option": "m0"}]} for i in range(7)]
    constraints += [{"kind": "exactly_one", "literals": [{"question": f"q{i}", "option": f"m{i}"} for i in range(8)]}]
    core = EngineCore(scripted(tokenizer_path, script=adversarial(1)), EngineConfig(precision="fp32"))
    t0 = time.perf_counter()
    (r,) = core.decide([{"context": "Line 1 runs.", "questions": questions, "constraints": constraints}])
    assert time.perf_counter() - t0 < 5.0
    assert satisfied(constraints, questions, [a.answer for a in r.answers])
