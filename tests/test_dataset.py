import json

import pytest

from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.training.dataset import load_jsonl, to_record


def test_round_trip_of_generated_sets(tmp_path):
    sets = make_sets(CorpusSpec(split="test"), 20)
    path = tmp_path / "sets.jsonl"
    path.write_text("".join(json.dumps(to_record(s)) + "\n" for s in sets))
    loaded = load_jsonl(path)
    assert [s.answers for s in loaded] == [s.answers for s in sets]
    assert [q.options for q in loaded[3].questions] == [q.options for q in sets[3].questions]


@pytest.mark.parametrize("record, message", [
    ({"context": "x", "questions": [{"id": "a", "text": "t", "type": "categorical", "options": ["only"]}],
      "answers": {"a": "only"}}, "categorical question needs 2..16 options, got 1"),
    ({"context": "x", "questions": [{"id": "a", "text": "t", "type": "boolean"}], "answers": {"a": "maybe"}},
     "answers.a: 'maybe' is not one of"),
    ({"context": "x", "questions": [{"id": "a", "text": "t", "type": "boolean"}] * 2, "answers": {"a": "yes"}},
     "question ids must be unique"),
    ({"context": "", "questions": [{"id": "a", "text": "t", "type": "boolean"}], "answers": {"a": "yes"}},
     "context"),
])
def test_bad_records_name_line_and_field(tmp_path, record, message):
    path = tmp_path / "bad.jsonl"
    good = {"context": "x", "questions": [{"id": "a", "text": "t", "type": "boolean"}], "answers": {"a": "yes"}}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: ") as e:
        load_jsonl(path)
    assert message in str(e.value)


def test_example_data_file_loads():
    from pathlib import Path
    sets = load_jsonl(Path(__file__).parents[1] / "docs" / "examples" / "decisions.jsonl")
    assert len(sets) >= 3


def test_requests_in_the_proto_json_mapping_load_as_labelled_sets(tmp_path):
    record = {"request_id": "r1", "context": "Valve 7 is open.",
              "questions": [{"id": "v", "text": "Is valve 7 open?", "type": "BOOLEAN"},
                            {"id": "m", "text": "Mode?", "type": "CATEGORICAL", "options": ["auto", "manual"]}],
              "options": {"policy": "PARALLEL"}, "answers": {"v": "yes", "m": "auto"}}
    path = tmp_path / "sets.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (s,) = load_jsonl(path)
    assert s.answers == [0, 0] and s.questions[1].kind == "categorical"
