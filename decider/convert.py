"""Protobuf <-> domain conversion: the only place that knows both (the engine knows no protobuf)."""

from __future__ import annotations

from decider_client.v1 import decider_pb2 as pb
from google.protobuf import json_format

from decider.engine.request import DecisionRequest, DecisionResult
from decider.engine.request import DecisionInputError

_KINDS = {pb.Constraint.IMPLIES: "implies", pb.Constraint.EXCLUDES: "excludes", pb.Constraint.EQUAL: "equal",
          pb.Constraint.DIFFERENT: "different", pb.Constraint.AT_MOST_ONE: "at_most_one",
          pb.Constraint.AT_LEAST_ONE: "at_least_one", pb.Constraint.EXACTLY_ONE: "exactly_one"}
_TYPES = {pb.Question.BOOLEAN: "boolean", pb.Question.CATEGORICAL: "categorical"}
_POLICIES = {pb.DecodeOptions.POLICY_UNSPECIFIED: "parallel", pb.DecodeOptions.PARALLEL: "parallel",
             pb.DecodeOptions.SEQUENTIAL: "sequential"}
_STATUS = {"decided": pb.Answer.DECIDED, "forced": pb.Answer.FORCED, "undecided": pb.Answer.UNDECIDED}


def request_from_pb(m: pb.DecideRequest) -> DecisionRequest:
    """Validated domain request; raises DecisionInputError naming the field."""
    o = m.options
    if o.policy not in _POLICIES:
        raise DecisionInputError(f"options.policy: unknown policy {o.policy}; use PARALLEL or SEQUENTIAL",
                                 field="options.policy")
    options = {"policy": _POLICIES[o.policy],
               "return_distributions": not o.omit_distributions, "truncate": o.truncate}
    if o.HasField("threshold"):
        options["threshold"] = o.threshold
    if o.HasField("min_confidence"):
        options["min_confidence"] = o.min_confidence
    if o.max_steps:
        options["max_steps"] = o.max_steps
    return DecisionRequest.parse({
        "request_id": m.request_id or None,
        "context": m.context,
        "questions": [{"id": q.id, "text": q.text, "type": _TYPES.get(q.type, "unspecified"),
                       "options": list(q.options)} for q in m.questions],
        "constraints": [{"kind": _KINDS.get(c.kind, "unspecified"), "name": c.name or None,
                         "literals": [{"question": l.question, "option": l.option} for l in c.literals]}
                        for c in m.constraints],
        "options": options,
    })


def pb_from_json(data: dict) -> pb.DecideRequest:
    """A request in the proto's JSON mapping (camelCase or the proto's own field names);
    enum names in any case ("boolean" or "BOOLEAN"). A labelled set (`decider corpus`, training
    data) is a request plus `answers`: they are set aside here. Raises DecisionInputError."""
    data = {k: v for k, v in data.items() if k != "answers"}
    data["questions"] = [_upper(q, "type") for q in data.get("questions", [])]
    data["constraints"] = [_upper(c, "kind") for c in data.get("constraints", [])]
    if isinstance(data.get("options"), dict):
        data["options"] = _upper(data["options"], "policy")
    try:
        return json_format.ParseDict(data, pb.DecideRequest())
    except json_format.ParseError as e:
        raise DecisionInputError(f"request: {e}", field="request") from None


def request_from_json(data: dict) -> DecisionRequest:
    return request_from_pb(pb_from_json(data))


def _upper(record, key: str):
    if isinstance(record, dict) and isinstance(record.get(key), str):
        return {**record, key: record[key].upper()}
    return record


def response_to_pb(r: DecisionResult, model_name: str, model_version: str) -> pb.DecideResponse:
    return pb.DecideResponse(
        request_id=r.request_id,
        answers=[pb.Answer(question_id=a.question, status=_STATUS[a.status], choice=a.answer or "",
                           option_index=-1 if a.index is None else a.index, confidence=a.confidence,
                           distribution=a.distribution, commit_step=a.step) for a in r.answers],
        joint_confidence=r.joint_confidence, forward_passes=r.forward_passes,
        timings=pb.Timings(queue_ms=r.timings.queue_ms, prefix_ms=r.timings.prefix_ms,
                           denoise_ms=r.timings.denoise_ms),
        model_name=model_name, model_version=model_version, prefix_cached=r.prefix_cached)


def to_json(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)
