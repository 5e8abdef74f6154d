"""bench/steps_eval.py: its labels name questions of the written held-out sets, one step each,
and it scores a checkpoint's answers per step."""

from pathlib import Path

from steps_eval import LABELS, NOTES, STEPS, by_step, rows

from decider.engine.training.dataset import load_jsonl

HELDOUT = Path(__file__).parents[1] / "engine" / "training" / "written" / "heldout"


def labels() -> list[dict]:
    return rows(LABELS)


def test_every_label_is_one_held_out_question_with_one_step():
    labelled = labels()
    keys = {(x["file"], x["set"], x["question"]) for x in labelled}
    assert len(labelled) == len(keys) == 240
    assert {x["category"] for x in labelled} <= set(STEPS)
    assert {x["notes"] for x in labelled if "notes" in x} <= set(NOTES)
    compare = [x for x in labelled if x["category"] == "compare"]
    assert [x for x in labelled if "notes" in x] == compare
    for file in {f for f, _, _ in keys}:
        sets = load_jsonl(HELDOUT / f"{file}.jsonl")
        for f, set_, question in keys:
            if f == file:
                assert question in [q.text for q in sets[set_].questions], (file, set_, question)


def test_answers_are_scored_per_step_and_checkpoint():
    a, b = labels()[:2]
    answers = [{"checkpoint": "x", "file": a["file"], "set": a["set"], "question": a["question"],
                "options": ["yes", "no"], "right": True},
               {"checkpoint": "x", "file": b["file"], "set": b["set"], "question": b["question"],
                "options": ["p", "q", "r", "s"], "right": False},
               {"checkpoint": "x", "file": "nowhere", "set": 0, "question": "?", "options": ["yes", "no"],
                "right": True}]
    table = by_step(labels(), answers)["x"]
    assert table["all"] == {"n": 2, "right": 0.5, "random": 0.375}
    assert a["category"] != b["category"]
    assert table[a["category"]]["right"] == 1.0 and table[b["category"]]["right"] == 0.0
