"""What a caller sends and what it gets back, as domain types (no protobuf, no torch).

A `DecisionRequest` is validated here once, whoever built it (the gRPC front, batch mode,
the CLI): every error is a `DecisionInputError` whose message says what to fix and whose
`field` names the offending field, e.g. `questions[2].options`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal
from typing import Literal as TypingLiteral

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator



MAX_QUESTIONS = 8
MAX_OPTIONS = 16
MAX_REQUEST_ID = 128  # ids travel back as gRPC metadata (x-request-id): printable ASCII, bounded
N_ANSWER_CLASSES = 2 + MAX_OPTIONS  # shared by all questions: 0 = yes, 1 = no, 2 + k = option k
YES, NO = 0, 1
BOOLEAN_CHOICES = ("yes", "no")


class DecisionInputError(ValueError):
    """A request the caller must fix; the message says what to fix and `field` where."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    kind: Literal["boolean", "categorical"]
    options: tuple[str, ...] = ()

    @property
    def choices(self) -> tuple[str, ...]:
        """What an answer index points into: ("yes", "no") or the options."""
        return BOOLEAN_CHOICES if self.kind == "boolean" else self.options


def answer_classes(question: Question) -> list[int]:
    """Answer classes a question may take, in the order of `question.choices`."""
    if question.kind == "boolean":
        return [YES, NO]
    return [2 + k for k in range(len(question.options))]


ConstraintKind = TypingLiteral["implies", "excludes", "equal", "different", "at_most_one", "at_least_one",
                               "exactly_one"]
PAIRWISE = ("implies", "excludes", "equal", "different")
MAX_CONSTRAINTS = 64
MAX_LITERALS = 16


class AnswerLiteral(BaseModel):
    """One answer of one question: `option` is "yes"/"no" for a boolean question, else one of its options."""

    question: str
    option: str

    def __str__(self) -> str:
        return f"{self.question} = {self.option}"


class Constraint(BaseModel):
    kind: ConstraintKind
    literals: list[AnswerLiteral] = Field(min_length=1)
    name: str | None = Field(None, description="how errors refer to it; default c1, c2, ... by position")

    def describe(self) -> str:
        lits = [str(l) for l in self.literals]
        if self.kind in PAIRWISE and len(lits) == 2:
            word = {"implies": "implies", "excludes": "excludes", "equal": "holds exactly when",
                    "different": "holds exactly when not"}[self.kind]
            return f"{lits[0]} {word} {lits[1]}"
        return f"{self.kind.replace('_', ' ')} of {', '.join(lits)}"


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

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v):
        return v.lower() if isinstance(v, str) else v  # "BOOLEAN" in the proto's JSON mapping

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

    @field_validator("request_id")
    @classmethod
    def _request_id(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if len(v) > MAX_REQUEST_ID:
            raise ValueError(f"request_id is {len(v)} characters long; at most {MAX_REQUEST_ID}")
        bad = next((c for c in v if not " " <= c <= "~"), None)
        if bad is not None or not v.strip():
            raise ValueError(f"request_id must be printable ASCII (letters, digits, punctuation, spaces), got "
                             f"{'a blank id' if bad is None else repr(bad)}; it comes back as gRPC metadata")
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


def as_request(context: str, questions: list[Question], policy: str = "parallel",
               threshold: float = 0.9) -> DecisionRequest:
    """A request for `questions` about `context` (what eval, tests and benchmarks send)."""
    return DecisionRequest(
        context=context,
        questions=[QuestionSpec(id=q.id, text=q.text, type=q.kind, options=list(q.options)) for q in questions],
        options=DecodeOptions(policy=policy, threshold=threshold))
