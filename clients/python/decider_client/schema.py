"""Questions from a pydantic model, and constraints from plain tuples.

A field typed `bool` becomes a yes/no question, `Literal["a", "b"]` or an `Enum` a
categorical one; the question text is the field's description. At most 8 fields.

    class Interlock(BaseModel):
        valve_open: bool = Field(description="Is valve 7 open?")
        mode: Literal["manual", "automatic"] = Field(description="What is the mode of line 4?")

    questions_of(Interlock)              -> [Question(id="valve_open", ...), Question(id="mode", ...)]
    implies(("valve_open", False), ("mode", "manual"))
"""

from __future__ import annotations

import enum
import typing
from typing import Any

from pydantic import BaseModel

from decider_client.v1 import decider_pb2 as pb

MAX_QUESTIONS = 8
Literal_ = tuple[str, Any]  # (question id, answer: bool, option string or Enum member)


def _options(name: str, annotation: Any) -> list[str] | None:
    """None for a boolean field, the options for a categorical one."""
    if annotation is bool:
        return None
    if typing.get_origin(annotation) is typing.Literal:
        values = typing.get_args(annotation)
        if not all(isinstance(v, str) for v in values):
            raise TypeError(f"field '{name}': Literal options must be strings, got {values}")
        return list(values)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(m.value) for m in annotation]
    raise TypeError(f"field '{name}': decider answers bool, Literal[...] or Enum fields, got {annotation!r}")


def questions_of(schema: type[BaseModel]) -> list[pb.Question]:
    fields = schema.model_fields
    if len(fields) > MAX_QUESTIONS:
        raise ValueError(f"{schema.__name__} has {len(fields)} fields; decider answers at most "
                         f"{MAX_QUESTIONS} questions per request")
    out = []
    for name, info in fields.items():
        if not info.description:
            raise ValueError(f"field '{name}': give the question text as Field(description=...)")
        options = _options(name, info.annotation)
        if options is None:
            out.append(pb.Question(id=name, text=info.description, type=pb.Question.BOOLEAN))
        else:
            out.append(pb.Question(id=name, text=info.description, type=pb.Question.CATEGORICAL, options=options))
    return out


def value_of(schema: type[BaseModel], name: str, choice: str) -> Any:
    """The Python value of an answer for field `name`."""
    annotation = schema.model_fields[name].annotation
    if annotation is bool:
        return choice == "yes"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return next(m for m in annotation if str(m.value) == choice)
    return choice


def _literal(lit: Literal_) -> pb.Literal:
    question, option = lit
    if isinstance(option, bool):
        option = "yes" if option else "no"
    elif isinstance(option, enum.Enum):
        option = str(option.value)
    return pb.Literal(question=question, option=str(option))


def _constraint(kind: int, literals: tuple[Literal_, ...], name: str | None) -> pb.Constraint:
    return pb.Constraint(kind=kind, literals=[_literal(l) for l in literals], name=name or "")


def implies(a: Literal_, b: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.IMPLIES, (a, b), name)


def excludes(a: Literal_, b: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.EXCLUDES, (a, b), name)


def equal(a: Literal_, b: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.EQUAL, (a, b), name)


def different(a: Literal_, b: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.DIFFERENT, (a, b), name)


def at_most_one(*literals: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.AT_MOST_ONE, literals, name)


def at_least_one(*literals: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.AT_LEAST_ONE, literals, name)


def exactly_one(*literals: Literal_, name: str | None = None) -> pb.Constraint:
    return _constraint(pb.Constraint.EXACTLY_ONE, literals, name)
