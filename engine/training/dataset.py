"""Team-labelled decision sets in JSONL, for `decider train --data` and `decider eval --data`.

One JSON object per line:

    {"context": "Pump 3 is running. If pump 3 is running, then valve 7 is open.",
     "questions": [{"id": "q1", "text": "Is valve 7 open?", "type": "boolean"},
                   {"id": "q2", "text": "What is the mode of line 4?", "type": "categorical",
                    "options": ["manual", "automatic"]}],
     "answers": {"q1": "yes", "q2": "automatic"}}

Errors name the file, the line and the field to fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Iterator, TextIO
from pydantic import BaseModel, Field, ValidationError, model_validator

from decider.engine.training.corpus import DecisionSet

from decider.engine.request import Question
from decider.engine.request import QuestionSpec
from decider.engine.request import MAX_QUESTIONS


class LabelledSet(BaseModel):
    context: str = Field(min_length=1)
    questions: list[QuestionSpec] = Field(min_length=1, max_length=MAX_QUESTIONS)
    answers: dict[str, str]
    twin_of: int | None = Field(None, ge=1, description="a contrast twin: the line, in its set's file, of the set "
                                "it was written from (load_twins)")

    @model_validator(mode="after")
    def _answers(self):
        ids = [q.id for q in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"question ids must be unique, got {ids}")
        for q in self.questions:
            if q.id not in self.answers:
                raise ValueError(f"answers: no answer for question '{q.id}'")
            allowed = ["yes", "no"] if q.type == "boolean" else q.options
            if self.answers[q.id] not in allowed:
                raise ValueError(f"answers.{q.id}: '{self.answers[q.id]}' is not one of {allowed}")
        return self

    def to_set(self) -> DecisionSet:
        questions = [Question(q.id, q.text, q.type, tuple(q.options)) for q in self.questions]
        answers = [q.choices.index(self.answers[q.id]) for q in questions]
        n = len(questions)
        return DecisionSet([self.context], questions, answers, [0] * n, [None] * n, chained=False, domain="data")


def _records(path: str | Path) -> Iterator[tuple[int, LabelledSet]]:
    """(line number, record) for each set of a JSONL file; errors name the line and the field."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such data file")
    found = False
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield lineno, LabelledSet.model_validate(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(p) for p in err["loc"]) or "record"
                raise ValueError(f"{path}:{lineno}: {where}: {err['msg']}") from None
            found = True
    if not found:
        raise ValueError(f"{path}: no decision sets in the file")


def load_jsonl(path: str | Path) -> list[DecisionSet]:
    return [record.to_set() for _, record in _records(path)]


def load_twins(path: str | Path, of: str | Path) -> dict[int, DecisionSet]:
    """The contrast twins in `path` of the sets in `of`, keyed by their set's index there: each
    record's `twin_of` is the line of its set in `of`."""
    index = {lineno: i for i, (lineno, _) in enumerate(_records(of))}
    twins = {}
    for lineno, record in _records(path):
        if record.twin_of not in index:
            raise ValueError(f"{path}:{lineno}: twin_of: {of} has no set on line {record.twin_of}; a twin names "
                             "the line of the set it was written from")
        twins[index[record.twin_of]] = record.to_set()
    return twins


def to_record(s: DecisionSet) -> dict:
    """A DecisionSet as one JSONL record (the same format load_jsonl reads)."""
    return {
        "context": s.context,
        "questions": [{"id": q.id, "text": q.text, "type": q.kind, **({"options": list(q.options)} if q.options else {})}
                      for q in s.questions],
        "answers": {q.id: q.choices[a] for q, a in zip(s.questions, s.answers)},
    }


def write_jsonl(sets: Iterable[DecisionSet], out: TextIO) -> None:
    """Labelled sets as JSONL: each line a request every command accepts, plus its answers."""
    for s in sets:
        out.write(json.dumps(to_record(s)) + "\n")
