"""bench/realistic: the hand-written development set is well-formed (every record a request the
service takes, within the window, every label explained), balanced, and its bench scores what
the engine answers."""

import json
from pathlib import Path

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.dataset import load_jsonl

FILES = sorted((Path(__file__).parents[1] / "bench" / "realistic").glob("*.jsonl"))


def test_every_domain_has_a_file():
    assert {f.stem for f in FILES} >= {"contracts", "plant", "robot", "rules"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_records_are_requests_with_explained_and_balanced_labels(path):
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json")
    sets = load_jsonl(path)
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(sets) == len(records) >= 16
    for s, r in zip(sets, records):
        as_request(s.context, s.questions)
        assert len(tok.encode(s.context, s.questions).prefix_ids) <= 400, s.context[:60]
        assert set(r["why"]) == {q.id for q in s.questions}, s.context[:60]
    yes_no = [s.questions[i].choices[a] for s in sets for i, a in enumerate(s.answers)
              if s.questions[i].kind == "boolean"]
    assert 0.4 <= yes_no.count("yes") / len(yes_no) <= 0.6, path.stem


def test_the_bench_scores_what_the_engine_answers(tiny):
    from realistic_eval import summary

    from decider.engine.training.evaluate import run_policy

    sets = load_jsonl(FILES[0])[:4]
    scored = run_policy(tiny, sets, "parallel", 0.9, 1.0, precision="fp32")
    s = summary(scored)
    right = sum(c for cs in scored.correct for c in cs)
    assert s["questions"] == sum(len(x.questions) for x in sets)
    assert s["per_item"] == round(right / s["questions"], 4)
    assert 0 < s["chance"] < 1 and s["sets"] == 4


def test_the_sign_test_counts_the_answers_that_changed():
    from realistic_eval import by_kind, sign_test

    from decider.engine.training.evaluate import Scored

    sets = load_jsonl(FILES[0])[:2]
    n = [len(s.questions) for s in sets]
    base = Scored(sets, [[False] * k for k in n], [], [], [], [])
    same = sign_test(base, base)
    assert same == {"turned_right": 0, "turned_wrong": 0, "p": 1.0}
    better = Scored(sets, [[True] * k for k in n], [], [], [], [])
    t = sign_test(base, better)
    assert t["turned_right"] == sum(n) and t["turned_wrong"] == 0
    assert t["p"] == round(2 / 2 ** sum(n), 4)  # every change one way: 2 * 0.5^n
    assert sign_test(better, base)["turned_wrong"] == sum(n)
    kinds = by_kind(better)
    assert sum(k["questions"] for name, k in kinds.items() if name != "over several units") == sum(n)
    assert all(k["per_item"] == 1.0 for k in kinds.values())


def test_questions_over_several_units_are_counted_and_every_answer_written():
    """by_kind's "over several units": how many, or none / both / neither among the options,
    with how often the model said one of those; answer_rows: one row per question."""
    from realistic_eval import NONE_OR_ALL, answer_rows, by_kind, over_several

    from decider.engine.training.evaluate import Scored

    assert over_several("How many pumps run?", ("0", "1", "2"))
    assert over_several("Which pump runs?", ("P-1A", "P-1B", "both", "neither"))
    assert not over_several("Which pump has the duty?", ("P-1A", "P-1B"))
    sets = [s for path in FILES for s in load_jsonl(path)]
    picked = [s for s in sets if any(q.kind != "boolean" and over_several(q.text, q.choices) for q in s.questions)]
    assert picked, "the hand-written sets ask over several units"
    s = picked[0]
    chosen = [[q.choices.index("neither") if "neither" in q.choices else 0 for q in s.questions]]
    correct = [[a == k for a, k in zip(s.answers, chosen[0])]]
    scored = Scored([s], correct, [[0.5] * len(s.questions)], [], [1], chosen)
    several = by_kind(scored)["over several units"]
    wanted = [(q, a, k) for q, a, k in zip(s.questions, s.answers, chosen[0])
              if q.kind != "boolean" and over_several(q.text, q.choices)]
    assert several["questions"] == len(wanted)
    assert several["answered_none_or_all"] == sum(q.choices[k] in NONE_OR_ALL for q, _, k in wanted)
    rows = answer_rows("x", "parallel", [("plant", 3)], scored)
    assert len(rows) == len(s.questions) and rows[0]["file"] == "plant" and rows[0]["set"] == 3
    assert [r["right"] for r in rows] == correct[0]
    assert all(r["truth"] == q.choices[a] for r, q, a in zip(rows, s.questions, s.answers))


def test_the_notes_can_be_changed_when_answering(tiny, tmp_path):
    """--reading-notes: a checkpoint answered with other pairing rules than it was trained with
    (0: none) sees other text, so its confidences move; given once or once per checkpoint."""
    from realistic_eval import measure, per_checkpoint

    from decider.engine.checkpoint import save_checkpoint

    folder = save_checkpoint(tiny, tmp_path / "ck")
    plant = [f for f in FILES if f.stem == "plant"]
    runs = {rules: measure(str(folder), plant, ["parallel"], "fp32", first=3, reading_notes=rules)
            for rules in ("trained", "2")}
    assert [r["reading_notes"] for r, _ in runs.values()] == ["trained", "2"]
    confidence = {rules: scored["parallel"].confidence for rules, (_, scored) in runs.items()}
    assert confidence["trained"] != confidence["2"]  # the tiny model reads no notes; with rules 2 it does
    assert per_checkpoint("--reading-notes", "2", {"trained", "2"}, 3) == ["2", "2", "2"]
    assert per_checkpoint("--reading-notes", "trained,2", {"trained", "2"}, 2) == ["trained", "2"]
    with pytest.raises(SystemExit, match="once per checkpoint"):
        per_checkpoint("--reading-notes", "trained,2", {"trained", "2"}, 3)
    with pytest.raises(SystemExit, match="one of"):
        per_checkpoint("--reading-notes", "4", {"trained", "2"}, 1)


def test_files_of_one_domain_are_summed_up_as_a_domain(tiny, tmp_path):
    """Several files of a domain (contracts-a, contracts-b) get a row for the domain too, made of
    exactly their sets; a domain of one file (bench/realistic's) gets none."""
    from realistic_eval import measure

    from decider.engine.checkpoint import save_checkpoint

    folder = save_checkpoint(tiny, tmp_path / "ck")
    lines = next(f for f in FILES if f.stem == "plant").read_text().splitlines()
    for name, part in (("plant-a", lines[:2]), ("plant-b", lines[2:5]), ("robot-x", lines[5:6])):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(part) + "\n")
    files = sorted(tmp_path.glob("*.jsonl"))
    rows = measure(str(folder), files, ["parallel"], "fp32")[0]["parallel"]
    assert set(rows) == {"plant-a", "plant-b", "robot-x", "plant (all)", "robot (all)", "all"}
    assert rows["plant (all)"]["sets"] == 5 and rows["robot (all)"] == rows["robot-x"]
    assert rows["plant (all)"]["questions"] == rows["plant-a"]["questions"] + rows["plant-b"]["questions"]
    alone = measure(str(folder), [files[0]], ["parallel"], "fp32")[0]["parallel"]
    assert set(alone) == {"plant-a", "all"}
