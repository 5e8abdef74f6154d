"""End to end with the shipped checkpoint: the model trained by `make train` answers."""

import json
import subprocess
import sys

from sample_requests import CHAINED as EXAMPLE
from decider.engine.core import EngineCore


def _answer(ckpt, request):
    (r,) = EngineCore(ckpt).decide([request])
    return {a.question: a.answer for a in r.answers}, r


def test_answers_a_fixed_chained_example(shipped):
    answers, r = _answer(shipped, EXAMPLE)
    assert answers == {"pump_running": "yes", "valve_open": "yes", "tank_pressurized": "yes",
                       "line_mode": "maintenance", "fan_enabled": "no"}
    assert r.forward_passes <= len(EXAMPLE["questions"])
    assert all(0.0 < a.confidence <= 1.0 for a in r.answers)


def test_stated_facts_drive_the_answers(shipped):
    negated = dict(EXAMPLE, context=EXAMPLE["context"].replace("Pump 3 is running.", "Pump 3 is not running.")
                   .replace("Fan 5 is not enabled.", "Fan 5 is enabled."))
    answers, _ = _answer(shipped, negated)
    assert answers["pump_running"] == "no" and answers["fan_enabled"] == "yes"
    # A stated categorical value is read, whatever the option order.
    request = {"context": "The risk level of clause 4 is high. Section 2 is signed.",
               "questions": [{"id": "risk", "text": "What is the risk level of clause 4?", "type": "categorical",
                              "options": ["critical", "low", "high", "medium"]},
                             {"id": "signed", "text": "Is section 2 signed?", "type": "boolean"}]}
    answers, _ = _answer(shipped, request)
    assert answers == {"risk": "high", "signed": "yes"}


def test_same_request_same_answers_bit_for_bit(shipped):
    _, a = _answer(shipped, EXAMPLE)
    _, b = _answer(shipped, EXAMPLE)
    assert [(x.index, x.confidence, x.step) for x in a.answers] == \
           [(x.index, x.confidence, x.step) for x in b.answers]


def test_eval_cli_prints_the_scripted_interface():
    out = subprocess.run([sys.executable, "-m", "decider.cli", "eval", "--split", "test", "--sets", "24",
                          "--json", "--quiet"], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    for policy in ("parallel", "sequential", "independent"):
        assert {"per_item_accuracy", "all_correct", "all_correct_chained", "forward_passes_mean", "ece"} <= set(report[policy])
    assert report["sequential"]["forward_passes_mean"] >= report["parallel"]["forward_passes_mean"]
    assert report["parallel"]["per_item_accuracy"] > 0.6  # well above chance on mixed 2..8-way questions


def _cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "decider.cli", *args], capture_output=True, text=True, check=check)


def test_demo_answers_the_readme_worked_example_and_flags_override_only_what_they_name(tmp_path):
    from decider.cli import EXAMPLE as WORKED

    assert WORKED == json.loads(open("docs/examples/interlock.json").read())  # the README's example
    out = _cli("demo").stdout
    assert "line-4-check" in out and "forward pass" in out
    assert "line_mode" in out and "maintenance" not in out.split("line_mode")[1].split("\n")[0]  # the interlock holds
    passes = int(out.split("joint confidence")[1].split(";")[1].split()[0])
    assert (f"{passes} forward pass;" if passes == 1 else f"{passes} forward passes;") in out
    # a file's own options stay unless a flag names them
    request = dict(WORKED, options={"policy": "SEQUENTIAL", "min_confidence": 0.8})
    (tmp_path / "r.json").write_text(json.dumps(request))
    sequential = _cli("demo", "--file", str(tmp_path / "r.json")).stdout
    assert "5 forward passes" in sequential  # sequential: one commit per pass, as the file asks
    assert "5 forward passes" not in _cli("demo", "--file", str(tmp_path / "r.json"), "--policy", "parallel").stdout


def test_corpus_output_is_accepted_by_batch_and_decide(tmp_path):
    """One request format: a labelled set is a request plus its answers."""
    from decider.batch import BatchConfig, run
    from decider.engine.training.dataset import load_jsonl

    sets = tmp_path / "sets.jsonl"
    sets.write_text(_cli("corpus", "--split", "test", "--sets", "4").stdout)
    summary = run(BatchConfig(input=sets, output=tmp_path / "out.jsonl", progress=False), log=lambda m: None)
    assert summary.ok and summary.errors_total == 0
    assert len(load_jsonl(sets)) == 4
    (tmp_path / "one.json").write_text(sets.read_text().splitlines()[0])
    assert "joint confidence" in _cli("demo", "--file", str(tmp_path / "one.json")).stdout


def test_corpus_writes_any_family_from_any_index():
    """`decider corpus --mix` writes one family's sets (training-only ones too), from --start on,
    as the generator makes them; an unknown family is refused with the choices."""
    from decider.engine.training.corpus import CorpusSpec, make_sets
    from decider.engine.training.dataset import to_record

    lines = _cli("corpus", "--split", "validation", "--mix", "rulebase", "--start", "5", "--sets", "3").stdout
    want = make_sets(CorpusSpec(split="validation", mix=(("rulebase", 1.0),)), 3, start=5)
    assert [json.loads(line) for line in lines.splitlines()] == [to_record(s) for s in want]
    refused = _cli("corpus", "--mix", "rulebase,nope", check=False)
    assert refused.returncode != 0 and "unknown corpus mix entry 'nope'" in refused.stderr


def test_fit_temperature_writes_only_into_a_named_checkpoint(tmp_path):
    from decider.engine.checkpoint import DEFAULT_CHECKPOINT

    before = (DEFAULT_CHECKPOINT / "calibration.json").read_text()
    refused = _cli("eval", "--fit-temperature", "--sets", "8", check=False)
    assert refused.returncode == 2 and "--checkpoint" in refused.stderr
    assert (DEFAULT_CHECKPOINT / "calibration.json").read_text() == before


def test_answers_do_not_depend_on_the_rest_of_the_batch(shipped):
    """The default precision on this machine (fp32 on any CPU) keeps a request's answers, steps
    and confidences the same alone and in a batch of 24, and a prefix-cache hit of the batched
    prefix gives the same again."""
    from decider.engine.core import build_engine
    from decider.engine.request import as_request
    from decider.engine.training.corpus import V2_MIX, CorpusSpec, make_sets

    sets = make_sets(CorpusSpec(split="test", mix=V2_MIX), 24)
    requests = [as_request(s.context, s.questions) for s in sets]
    alone = [build_engine(shipped, prefix_cache_bytes=0).decide([r])[0] for r in requests[:6]]
    engine = build_engine(shipped)
    batched = engine.decide(requests)[:6]
    cached = [engine.decide([r])[0] for r in requests[:6]]
    for a, b, c in zip(alone, batched, cached):
        assert c.prefix_cached
        for other in (b, c):
            assert [(x.index, x.step) for x in a.answers] == [(x.index, x.step) for x in other.answers]
            assert a.forward_passes == other.forward_passes
            assert max(abs(x.confidence - y.confidence) for x, y in zip(a.answers, other.answers)) < 1e-5
