from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Question(_message.Message):
    __slots__ = ("id", "text", "type", "options")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TYPE_UNSPECIFIED: _ClassVar[Question.Type]
        BOOLEAN: _ClassVar[Question.Type]
        CATEGORICAL: _ClassVar[Question.Type]
    TYPE_UNSPECIFIED: Question.Type
    BOOLEAN: Question.Type
    CATEGORICAL: Question.Type
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    type: Question.Type
    options: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., type: _Optional[_Union[Question.Type, str]] = ..., options: _Optional[_Iterable[str]] = ...) -> None: ...

class Literal(_message.Message):
    __slots__ = ("question", "option")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    OPTION_FIELD_NUMBER: _ClassVar[int]
    question: str
    option: str
    def __init__(self, question: _Optional[str] = ..., option: _Optional[str] = ...) -> None: ...

class Constraint(_message.Message):
    __slots__ = ("kind", "literals", "name")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Constraint.Kind]
        IMPLIES: _ClassVar[Constraint.Kind]
        EXCLUDES: _ClassVar[Constraint.Kind]
        EQUAL: _ClassVar[Constraint.Kind]
        DIFFERENT: _ClassVar[Constraint.Kind]
        AT_MOST_ONE: _ClassVar[Constraint.Kind]
        AT_LEAST_ONE: _ClassVar[Constraint.Kind]
        EXACTLY_ONE: _ClassVar[Constraint.Kind]
    KIND_UNSPECIFIED: Constraint.Kind
    IMPLIES: Constraint.Kind
    EXCLUDES: Constraint.Kind
    EQUAL: Constraint.Kind
    DIFFERENT: Constraint.Kind
    AT_MOST_ONE: Constraint.Kind
    AT_LEAST_ONE: Constraint.Kind
    EXACTLY_ONE: Constraint.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    LITERALS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    kind: Constraint.Kind
    literals: _containers.RepeatedCompositeFieldContainer[Literal]
    name: str
    def __init__(self, kind: _Optional[_Union[Constraint.Kind, str]] = ..., literals: _Optional[_Iterable[_Union[Literal, _Mapping]]] = ..., name: _Optional[str] = ...) -> None: ...

class DecodeOptions(_message.Message):
    __slots__ = ("policy", "threshold", "min_confidence", "max_steps", "omit_distributions", "truncate")
    class Policy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        POLICY_UNSPECIFIED: _ClassVar[DecodeOptions.Policy]
        PARALLEL: _ClassVar[DecodeOptions.Policy]
        SEQUENTIAL: _ClassVar[DecodeOptions.Policy]
    POLICY_UNSPECIFIED: DecodeOptions.Policy
    PARALLEL: DecodeOptions.Policy
    SEQUENTIAL: DecodeOptions.Policy
    POLICY_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    MIN_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    OMIT_DISTRIBUTIONS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATE_FIELD_NUMBER: _ClassVar[int]
    policy: DecodeOptions.Policy
    threshold: float
    min_confidence: float
    max_steps: int
    omit_distributions: bool
    truncate: bool
    def __init__(self, policy: _Optional[_Union[DecodeOptions.Policy, str]] = ..., threshold: _Optional[float] = ..., min_confidence: _Optional[float] = ..., max_steps: _Optional[int] = ..., omit_distributions: _Optional[bool] = ..., truncate: _Optional[bool] = ...) -> None: ...

class DecideRequest(_message.Message):
    __slots__ = ("request_id", "context", "questions", "constraints", "options")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    context: str
    questions: _containers.RepeatedCompositeFieldContainer[Question]
    constraints: _containers.RepeatedCompositeFieldContainer[Constraint]
    options: DecodeOptions
    def __init__(self, request_id: _Optional[str] = ..., context: _Optional[str] = ..., questions: _Optional[_Iterable[_Union[Question, _Mapping]]] = ..., constraints: _Optional[_Iterable[_Union[Constraint, _Mapping]]] = ..., options: _Optional[_Union[DecodeOptions, _Mapping]] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("question_id", "status", "choice", "option_index", "confidence", "distribution", "commit_step")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSPECIFIED: _ClassVar[Answer.Status]
        DECIDED: _ClassVar[Answer.Status]
        FORCED: _ClassVar[Answer.Status]
        UNDECIDED: _ClassVar[Answer.Status]
    STATUS_UNSPECIFIED: Answer.Status
    DECIDED: Answer.Status
    FORCED: Answer.Status
    UNDECIDED: Answer.Status
    QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    OPTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    COMMIT_STEP_FIELD_NUMBER: _ClassVar[int]
    question_id: str
    status: Answer.Status
    choice: str
    option_index: int
    confidence: float
    distribution: _containers.RepeatedScalarFieldContainer[float]
    commit_step: int
    def __init__(self, question_id: _Optional[str] = ..., status: _Optional[_Union[Answer.Status, str]] = ..., choice: _Optional[str] = ..., option_index: _Optional[int] = ..., confidence: _Optional[float] = ..., distribution: _Optional[_Iterable[float]] = ..., commit_step: _Optional[int] = ...) -> None: ...

class Timings(_message.Message):
    __slots__ = ("queue_ms", "prefix_ms", "denoise_ms")
    QUEUE_MS_FIELD_NUMBER: _ClassVar[int]
    PREFIX_MS_FIELD_NUMBER: _ClassVar[int]
    DENOISE_MS_FIELD_NUMBER: _ClassVar[int]
    queue_ms: float
    prefix_ms: float
    denoise_ms: float
    def __init__(self, queue_ms: _Optional[float] = ..., prefix_ms: _Optional[float] = ..., denoise_ms: _Optional[float] = ...) -> None: ...

class DecideResponse(_message.Message):
    __slots__ = ("request_id", "answers", "joint_confidence", "forward_passes", "timings", "model_name", "model_version", "prefix_cached")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    JOINT_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    FORWARD_PASSES_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
    MODEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    PREFIX_CACHED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    answers: _containers.RepeatedCompositeFieldContainer[Answer]
    joint_confidence: float
    forward_passes: int
    timings: Timings
    model_name: str
    model_version: str
    prefix_cached: bool
    def __init__(self, request_id: _Optional[str] = ..., answers: _Optional[_Iterable[_Union[Answer, _Mapping]]] = ..., joint_confidence: _Optional[float] = ..., forward_passes: _Optional[int] = ..., timings: _Optional[_Union[Timings, _Mapping]] = ..., model_name: _Optional[str] = ..., model_version: _Optional[str] = ..., prefix_cached: _Optional[bool] = ...) -> None: ...

class DecideStreamResponse(_message.Message):
    __slots__ = ("request_id", "response", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    response: DecideResponse
    error: _status_pb2.Status
    def __init__(self, request_id: _Optional[str] = ..., response: _Optional[_Union[DecideResponse, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class GetModelInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ModelInfo(_message.Message):
    __slots__ = ("name", "version", "max_questions", "max_options", "context_window", "temperature", "calibrated_on", "kernel_backend", "device", "precision", "family", "parameters")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    CALIBRATED_ON_FIELD_NUMBER: _ClassVar[int]
    KERNEL_BACKEND_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    max_questions: int
    max_options: int
    context_window: int
    temperature: float
    calibrated_on: str
    kernel_backend: str
    device: str
    precision: str
    family: str
    parameters: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., max_questions: _Optional[int] = ..., max_options: _Optional[int] = ..., context_window: _Optional[int] = ..., temperature: _Optional[float] = ..., calibrated_on: _Optional[str] = ..., kernel_backend: _Optional[str] = ..., device: _Optional[str] = ..., precision: _Optional[str] = ..., family: _Optional[str] = ..., parameters: _Optional[int] = ...) -> None: ...
