"""What a caller sends and what it gets back, as domain types (no protobuf, no torch).

A `DecisionRequest` is validated here once, whoever built it (the gRPC front, batch mode,
the CLI): every error is a `DecisionInputError` whose message says what to fix and whose
`field` names the offending field, e.g. `questions[2].options`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from decider.engine.constraints import Constraint
from decider.engine.corpus import Question
from decider.engine.tokenizer import MAX_OPTIONS, MAX_QUESTIONS, DecisionInputError


def _utf8(text: str, what: str) -> str:
    """Strings arrive from JSON and protobuf; a lone surrogate cannot be encoded to UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{what} is not valid UTF-8 text (bad character at position {e.start})") from None
    return text


class QuestionSpec(BaseModel):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    type: Literal["boolean", "categorical"]
    options: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self):
        _utf8(self.id, "question id")
        _utf8(self.text, f"question '{self.id}': text")
        if not self.text.strip():
            raise ValueError(f"question '{self.id}': text is blank")
        if self.type == "categorical":
            if not 2 <= len(self.options) <= MAX_OPTIONS:
                raise ValueError(f"question '{self.id}': categorical question needs 2..{MAX_OPTIONS} "
                                 f"options, got {len(self.options)}")
            for o in self.options:
                _utf8(o, f"question '{self.id}': option")
                if not o.strip():
                    raise ValueError(f"question '{self.id}': an option is blank")
            if len(set(self.options)) != len(self.options):
                dup = sorted({o for o in self.options if self.options.count(o) > 1})
                raise ValueError(f"question '{self.id}': options must be distinct, {dup} repeat")
        elif self.options:
            raise ValueError(f"question '{self.id}': a boolean question takes no options "
                             "(its answers are yes and no)")
        return self

    def to_question(self) -> Question:
        return Question(self.id, self.text, self.type, tuple(self.options))


class DecodeOptions(BaseModel):
    policy: Literal["parallel", "sequential"] = Field(
        "parallel", description="parallel: commit every slot above the threshold per pass (at least one); "
                                "sequential: one slot per pass")
    threshold: float = Field(0.9, ge=0.0, le=1.0, allow_inf_nan=False,
                             description="parallel commit threshold on the calibrated confidence")
    min_confidence: float | None = Field(None, ge=0.0, le=1.0, allow_inf_nan=False,
                                         description="a slot that cannot reach it is returned undecided")
    max_steps: int | None = Field(None, ge=1, description="most forward passes; the last one decides every "
                                                          "open slot")
    return_distributions: bool = True
    truncate: bool = Field(False, description="cut a context that does not fit the window instead of refusing it")


class DecisionRequest(BaseModel):
    context: str
    questions: list[QuestionSpec] = Field(min_length=1)
    constraints: list[Constraint] = Field(default_factory=list)
    options: DecodeOptions = Field(default_factory=DecodeOptions)
    request_id: str | None = None

    @field_validator("context")
    @classmethod
    def _context(cls, v: str) -> str:
        _utf8(v, "context")
        if not v.strip():
            raise ValueError("context is empty: give the facts and rules the questions are about")
        return v

    @field_validator("questions")
    @classmethod
    def _questions(cls, v: list[QuestionSpec]) -> list[QuestionSpec]:
        if len(v) > MAX_QUESTIONS:
            raise ValueError(f"at most {MAX_QUESTIONS} questions per request, got {len(v)}; "
                             "split them into several requests")
        ids = [q.id for q in v]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"question ids must be unique, {dup} repeat")
        return v

    @classmethod
    def parse(cls, data: dict) -> "DecisionRequest":
        """Validate a plain dict (JSON), turning pydantic's errors into a DecisionInputError."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in err["loc"]).replace(".[", "[")
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = "is required"
            raise DecisionInputError(f"{where or 'request'}: {msg}", field=where) from None

    def to_questions(self) -> list[Question]:
        return [q.to_question() for q in self.questions]


Status = Literal["decided", "forced", "undecided"]


@dataclass
class SlotAnswer:
    question: str
    status: Status                 # decided by the model, forced by the constraints, or undecided
    answer: str | None             # "yes"/"no" or the option; None when undecided
    index: int | None              # index into the question's answers; None when undecided
    confidence: float              # calibrated probability of `answer` (undecided: of the best answer)
    distribution: list[float]      # over the question's answers, at commit (empty if not asked for)
    step: int                      # forward pass at which it was settled (0 = before any pass)


@dataclass
class Timings:
    queue_ms: float = 0.0
    prefix_ms: float = 0.0
    denoise_ms: float = 0.0


@dataclass
class DecisionResult:
    request_id: str
    answers: list[SlotAnswer]
    joint_confidence: float        # product of the settled answers' confidences
    forward_passes: int
    prefix_cached: bool
    timings: Timings = field(default_factory=Timings)

    def as_dict(self) -> dict:
        """The JSON shape batch mode writes."""
        return {
            "request_id": self.request_id,
            "answers": [{"question": a.question, "status": a.status, "answer": a.answer, "index": a.index,
                         "confidence": round(a.confidence, 6), "step": a.step,
                         **({"distribution": [round(p, 6) for p in a.distribution]} if a.distribution else {})}
                        for a in self.answers],
            "joint_confidence": round(self.joint_confidence, 6),
            "forward_passes": self.forward_passes,
            "prefix_cached": self.prefix_cached,
            "timings": {k: round(v, 3) for k, v in vars(self.timings).items()},
        }


def joint(confidences: list[float]) -> float:
    return math.prod(confidences) if confidences else 1.0
