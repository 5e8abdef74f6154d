"""End to end with the shipped checkpoint: the model trained by `make train` answers."""

import json
import subprocess
import sys

from decider.cli import EXAMPLE
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
