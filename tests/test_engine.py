"""The engine core's loop: commit rule, abstention, constraints, batching, cache, bad input.

The decode rule is tested with a scripted model (fixed logits); batching, determinism and
the prefix cache with the tiny random model (real prefix K/V)."""

import pytest
import torch
from fake_model import scripted, yes_logits

from decider.engine.core import EngineConfig, EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.request import as_request
from decider.engine.request import DecisionInputError


def _request(n=3, categorical=0, **options):
    qs = [{"id": f"q{i + 1}", "text": f"Is valve {i + 1} open?", "type": "boolean"} for i in range(n - categorical)]
    qs += [{"id": f"m{i + 1}", "text": f"What is the mode of line {i + 1}?", "type": "categorical",
            "options": ["manual", "automatic", "maintenance"]} for i in range(categorical)]
    return {"context": "Valve 1 is open. The mode of line 1 is manual.", "questions": qs, "options": options}


def _core(tokenizer_path, rest="one", **kw):
    return EngineCore(scripted(tokenizer_path, **kw), EngineConfig(precision="fp32", parallel_rest=rest))


def test_parallel_commits_everything_above_threshold_in_one_pass(tokenizer_path):
    (r,) = _core(tokenizer_path, logits=yes_logits([0.99, 0.98, 0.97, 0.995])).decide([_request(4)])
    assert r.forward_passes == 1 and all(a.step == 1 and a.answer == "yes" for a in r.answers)
    assert abs(r.joint_confidence - 0.99 * 0.98 * 0.97 * 0.995) < 1e-5


def test_parallel_commits_at_least_the_most_confident_slot(tokenizer_path):
    (r,) = _core(tokenizer_path, logits=yes_logits([0.6, 0.7, 0.55])).decide([_request(3, threshold=0.99)])
    assert [a.step for a in r.answers] == [2, 1, 3] and r.forward_passes == 3


def test_parallel_rest_all_commits_every_unsure_slot_together(tokenizer_path):
    core = _core(tokenizer_path, rest="all", logits=yes_logits([0.95, 0.6, 0.55]), pull=3.0)
    (r,) = core.decide([_request(3)])  # the sure slot first, then the rest in one pass, in its light
    assert [a.step for a in r.answers] == [1, 2, 2] and r.forward_passes == 2
    (r,) = core.decide([_request(3, threshold=0.99)])  # none sure: all at once
    assert [a.step for a in r.answers] == [1, 1, 1] and r.forward_passes == 1
    (r,) = core.decide([_request(3, policy="sequential")])  # sequential keeps one per pass
    assert r.forward_passes == 3


def test_parallel_rest_all_with_min_confidence_leaves_the_unsure_undecided(tokenizer_path):
    core = _core(tokenizer_path, rest="all", logits=yes_logits([0.8, 0.7, 0.55]))
    (r,) = core.decide([_request(3, min_confidence=0.65)])  # the Python rule, one pass
    assert [a.status for a in r.answers] == ["decided", "decided", "undecided"]
    assert [a.step for a in r.answers[:2]] == [1, 1]


def test_commits_feed_later_steps(tokenizer_path):
    core = _core(tokenizer_path, logits=yes_logits([0.8, 0.6, 0.6]), pull=3.0)
    (r,) = core.decide([_request(3)])
    assert r.answers[0].step == 1 and {a.step for a in r.answers[1:]} == {2}


def test_sequential_takes_one_slot_per_pass(tokenizer_path):
    (r,) = _core(tokenizer_path, logits=yes_logits([0.99] * 5)).decide([_request(5, policy="sequential")])
    assert sorted(a.step for a in r.answers) == [1, 2, 3, 4, 5] and r.forward_passes == 5


def test_answers_stay_inside_each_questions_options(tokenizer_path):
    logits = torch.zeros(8, 18)
    logits[:, 10] = 50.0  # a class no question here allows
    logits[2, 3] = 2.0    # slot 3 (categorical): option 1, "automatic"
    (r,) = _core(tokenizer_path, logits=logits).decide([_request(3, categorical=1)])
    assert r.answers[0].answer in ("yes", "no") and r.answers[2].answer == "automatic"
    assert len(r.answers[2].distribution) == 3 and abs(sum(r.answers[2].distribution) - 1) < 1e-5


def test_every_request_takes_at_most_one_pass_per_question(tokenizer_path):
    core = _core(tokenizer_path, logits=yes_logits([0.5] * 8))
    out = core.decide([_request(8, threshold=1.0), _request(1, threshold=1.0), _request(3, threshold=1.0)])
    assert [r.forward_passes for r in out] == [8, 1, 3]


def test_temperature_changes_confidence_not_choice(tokenizer_path):
    core = _core(tokenizer_path, logits=yes_logits([0.8]))
    core.temperature = 2.0
    (hot,) = core.decide([_request(1)])
    core.temperature = 0.5
    (cold,) = core.decide([_request(1)])
    assert hot.answers[0].answer == cold.answers[0].answer == "yes"
    assert hot.answers[0].confidence < 0.8 < cold.answers[0].confidence


def test_min_confidence_leaves_unsure_slots_undecided(tokenizer_path):
    (r,) = _core(tokenizer_path, logits=yes_logits([0.99, 0.6, 0.3])).decide([_request(3, min_confidence=0.9)])
    assert [a.status for a in r.answers] == ["decided", "undecided", "undecided"]
    assert r.answers[1].answer is None and r.answers[1].index is None
    assert abs(r.answers[1].confidence - 0.6) < 1e-5 and abs(r.answers[2].confidence - 0.7) < 1e-5  # best answer
    assert abs(sum(r.answers[2].distribution) - 1) < 1e-5
    assert abs(r.joint_confidence - 0.99) < 1e-5  # undecided slots do not count


def test_max_steps_decides_every_open_slot_on_the_last_pass(tokenizer_path):
    (r,) = _core(tokenizer_path, logits=yes_logits([0.6, 0.7, 0.55])).decide(
        [_request(3, threshold=0.99, max_steps=2)])
    assert r.forward_passes == 2 and [a.step for a in r.answers] == [2, 1, 2]
    assert all(a.status == "decided" for a in r.answers)


def test_a_constraint_forces_the_answer_the_model_disliked(tokenizer_path):
    request = _request(2) | {"constraints": [
        {"kind": "implies", "literals": [{"question": "q1", "option": "yes"}, {"question": "q2", "option": "no"}]}]}
    (r,) = _core(tokenizer_path, logits=yes_logits([0.99, 0.9])).decide([request])
    assert (r.answers[0].answer, r.answers[0].status) == ("yes", "decided")
    assert (r.answers[1].answer, r.answers[1].status, r.answers[1].confidence) == ("no", "forced", 1.0)
    assert r.forward_passes == 1


def test_constraints_that_fix_an_answer_settle_it_before_any_pass(tokenizer_path):
    request = _request(2) | {"constraints": [{"kind": "at_least_one", "literals": [{"question": "q2", "option": "no"}]}]}
    (r,) = _core(tokenizer_path, logits=yes_logits([0.99, 0.99])).decide([request])
    assert (r.answers[1].answer, r.answers[1].status, r.answers[1].step) == ("no", "forced", 0)


def test_unsatisfiable_constraints_name_a_minimal_conflict(tokenizer_path):
    lit = lambda q, o: {"question": q, "option": o}  # noqa: E731
    request = _request(3) | {"constraints": [
        {"kind": "implies", "literals": [lit("q1", "yes"), lit("q2", "yes")], "name": "pump-needs-valve"},
        {"kind": "at_most_one", "literals": [lit("q2", "yes"), lit("q3", "yes")]},
        {"kind": "excludes", "literals": [lit("q1", "yes"), lit("q2", "yes")]},
        {"kind": "at_least_one", "literals": [lit("q1", "yes")]},
    ]}
    with pytest.raises(DecisionInputError) as e:
        _core(tokenizer_path, logits=yes_logits([0.5])).add_request(request)
    msg = str(e.value)
    assert msg.startswith("constraints pump-needs-valve, c3 and c4 cannot all hold")
    assert "c2" not in msg and e.value.field == "constraints"


@pytest.mark.parametrize("literal, wanted", [
    ({"question": "q9", "option": "yes"}, "no question 'q9'"),
    ({"question": "m1", "option": "off"}, "question 'm1' has no answer 'off'"),
])
def test_constraints_naming_unknown_things_are_refused(tokenizer_path, literal, wanted):
    request = _request(2, categorical=1) | {"constraints": [{"kind": "at_least_one", "literals": [literal]}]}
    with pytest.raises(DecisionInputError, match=wanted):
        _core(tokenizer_path, logits=yes_logits([0.5])).add_request(request)


def test_abort_drops_a_request_between_steps(tokenizer_path):
    core = _core(tokenizer_path, logits=yes_logits([0.6, 0.7, 0.55]))
    a = core.add_request(_request(3, threshold=0.99))
    b = core.add_request(_request(3, threshold=0.99))
    core.step()
    assert core.abort(a) and not core.abort("nobody")
    done = []
    while core.has_unfinished():
        done += core.step()
    assert [r.request_id for r in done] == [b]
    assert core.num_running == 0 and core.num_waiting == 0


def test_requests_join_between_steps(tiny):
    sets = make_sets(CorpusSpec(split="test", max_links=3), 6)
    alone = [EngineCore(tiny).decide([as_request(s.context, s.questions, threshold=1.0)])[0] for s in sets]
    core = EngineCore(tiny)
    done = {}
    for k, s in enumerate(sets):  # one newcomer per step while the others are mid-way
        core.add_request(as_request(s.context, s.questions, threshold=1.0), request_id=str(k))
        done |= {r.request_id: r for r in core.step()}
    while core.has_unfinished():
        done |= {r.request_id: r for r in core.step()}
    for k, r in enumerate(alone):
        assert [a.index for a in done[str(k)].answers] == [a.index for a in r.answers]


def test_same_answers_alone_and_in_a_batch_of_31_others(tiny):
    sets = make_sets(CorpusSpec(split="test"), 32)
    requests = [as_request(s.context, s.questions) for s in sets]
    first = EngineCore(tiny).decide(requests[:1])[0]
    again = EngineCore(tiny).decide(requests[:1])[0]
    batched = EngineCore(tiny).decide(requests[1:16] + requests[:1] + requests[16:])[15]
    assert [(a.index, a.confidence, a.step) for a in first.answers] == \
           [(a.index, a.confidence, a.step) for a in again.answers]  # bit for bit
    assert [a.index for a in batched.answers] == [a.index for a in first.answers]
    for x, y in zip(batched.answers, first.answers):
        assert abs(x.confidence - y.confidence) < 1e-5


def test_prefix_cache_hits_skip_the_prefix_pass_and_eviction_is_safe(tiny):
    sets = make_sets(CorpusSpec(split="test"), 3)
    requests = [as_request(s.context, s.questions) for s in sets]
    core = EngineCore(tiny)
    cold = core.decide(requests)
    warm = core.decide(requests)
    assert not any(r.prefix_cached for r in cold) and all(r.prefix_cached for r in warm)
    assert core.cache.hits == 3 and core.cache.misses == 3
    assert [[a.confidence for a in r.answers] for r in warm] == [[a.confidence for a in r.answers] for r in cold]
    # room for about one prefix: each admission evicts the last, running requests are unharmed
    one = max(core.cache.entries.values(), key=lambda kv: kv.nbytes()).nbytes()
    small = EngineCore(tiny, EngineConfig(prefix_cache_bytes=one))
    for _ in range(2):
        out = small.decide(requests)
        assert [[a.index for a in r.answers] for r in out] == [[a.index for a in r.answers] for r in cold]
    assert small.cache.evictions >= 3 and small.cache.bytes <= one


BAD = [
    ({"context": "  "}, "context", "context is empty"),
    ({"questions": [{"id": f"q{i}", "text": "Is it on?", "type": "boolean"} for i in range(9)]},
     "questions", "at most 8 questions"),
    ({"questions": [{"id": "q", "text": "Is it on?", "type": "boolean"}] * 2}, "questions", "'q'] repeat"),
    ({"questions": [{"id": "m", "text": "Which mode?", "type": "categorical", "options": ["auto"]}]},
     "questions[0]", "needs 2..16 options, got 1"),
    ({"questions": [{"id": "m", "text": "Which mode?", "type": "categorical", "options": [str(i) for i in range(17)]}]},
     "questions[0]", "got 17"),
    ({"questions": [{"id": "m", "text": "Which mode?", "type": "categorical", "options": ["a", "b", "a"]}]},
     "questions[0]", "options must be distinct"),
    ({"context": "pump " * 600}, "context", "context is 600 tokens but the model's window leaves room for"),
    ({"questions": [{"id": f"m{i}", "text": "Which mode is the line in?", "type": "categorical",
                     "options": [f"option number {j}" for j in range(16)]} for i in range(8)]},
     "questions", "the questions alone take"),
    ({"context": "Pump 3 is on \udc80."}, "context", "not valid UTF-8"),
    ({"options": {"threshold": float("nan")}}, "options.threshold", "finite"),
    ({"options": {"min_confidence": 1.5}}, "options.min_confidence", "less than or equal to 1"),
    ({"questions": []}, "questions", "at least 1 item"),
    ({"context": None}, "context", "valid string"),
]


@pytest.mark.parametrize("patch, field, wanted", BAD)
def test_bad_input_says_what_to_fix_and_the_engine_keeps_serving(tokenizer_path, patch, field, wanted):
    core = _core(tokenizer_path, logits=yes_logits([0.99] * 8))
    good = core.add_request(_request(2))
    with pytest.raises(DecisionInputError) as e:
        core.add_request(_request(2) | patch)
    assert wanted in str(e.value) and e.value.field == field, (str(e.value), e.value.field)
    (r,) = core.step()
    assert r.request_id == good and [a.answer for a in r.answers] == ["yes", "yes"]


def test_truncation_only_when_asked(tokenizer_path):
    core = _core(tokenizer_path, logits=yes_logits([0.99]))
    (r,) = core.decide([_request(1, truncate=True) | {"context": "pump " * 600}])
    assert r.answers[0].answer == "yes"


def test_a_slot_whose_answer_was_ruled_out_is_predicted_again(tokenizer_path):
    logits = yes_logits([0.999])
    logits[1, 2:5] = torch.tensor([0.0, 1.0, 5.0])  # m1: maintenance (0.98), less sure than q1
    request = _request(2, categorical=1) | {"constraints": [
        {"kind": "excludes", "literals": [{"question": "q1", "option": "yes"},
                                          {"question": "m1", "option": "maintenance"}]}]}
    (r,) = _core(tokenizer_path, logits=logits).decide([request])
    assert (r.answers[0].answer, r.answers[0].step) == ("yes", 1)
    # not committed on the pass that ruled maintenance out; decided on the next one
    assert (r.answers[1].answer, r.answers[1].status, r.answers[1].step) == ("automatic", "decided", 2)
    assert r.answers[1].distribution[2] == 0.0
