"""The filter-policy language's shape as JSON Schema, for the OpenAPI document: what a schema can
say, it says (each operator and its argument, at most 5 keys, no empty arrays or objects, ``$or``
of two or more), so generated clients and schemathesis know it. What no JSON Schema can say — at
most 150 combinations, 256 KiB, a range's lower bound below its upper one — is refused by
``roomcast.domain.filter_policy.check_policy``, which checks everything, the shape included, and
answers 400 naming the rule and where.

The models below describe; they never validate a request: a body's ``filterPolicy`` is any JSON
object to pydantic (``FilterPolicyBody``), and only its JSON Schema is theirs (``_ShapeOf``). The
language is recursive, so they are models, which the document names in its components."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, JsonValue, TypeAdapter
from pydantic.json_schema import JsonSchemaValue, SkipJsonSchema
from pydantic_core import core_schema

Text = Annotated[str, Field(min_length=1)]
Comparison = Literal["=", "<", "<=", ">", ">="]


class _Operator(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PrefixCondition(_Operator):
    prefix: Text


class SuffixCondition(_Operator):
    suffix: Text


class EqualsIgnoreCaseCondition(_Operator):
    equals_ignore_case: Text = Field(alias="equals-ignore-case")


class ExistsCondition(_Operator):
    exists: bool


class NumericCondition(_Operator):
    numeric: (
        tuple[Comparison, float]
        | Annotated[
            tuple[Literal[">", ">="], float, Literal["<", "<="], float],
            Field(description="A range: a lower bound, then an upper one above it."),
        ]
    )


class AnythingButCondition(_Operator):
    anything_but: (
        str | float | Annotated[list[str | float], Field(min_length=1)] | PrefixCondition | SuffixCondition
    ) = Field(alias="anything-but")


Condition = Annotated[
    str
    | float
    | bool
    | PrefixCondition
    | SuffixCondition
    | EqualsIgnoreCaseCondition
    | AnythingButCondition
    | NumericCondition
    | ExistsCondition
    | None,
    Field(description="An exact value, or one operator."),
]


class FilterPolicyNested(BaseModel):
    """The conditions on a property's own properties."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"minProperties": 1})

    any_of: Annotated[list[FilterPolicyNested], Field(min_length=2)] | SkipJsonSchema[None] = Field(
        default=None, alias="$or", description="Holds when one of these policies does."
    )
    __pydantic_extra__: dict[
        str,
        Annotated[list[Condition], Field(min_length=1, description="One of them must hold.")]
        | FilterPolicyNested,
    ]


class FilterPolicy(FilterPolicyNested):
    """An SNS filter policy with message-body scope (docs/filters.md)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"minProperties": 1, "maxProperties": 5})


class _ShapeOf:
    """A field's JSON Schema taken from another type (which never validates it)."""

    def __init__(self, shape: type[Any]) -> None:
        self.shape = shape

    def __get_pydantic_json_schema__(
        self, _schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(TypeAdapter(self.shape).core_schema)


FilterPolicyBody = Annotated[
    dict[str, JsonValue],
    _ShapeOf(FilterPolicy),
    Field(
        description=(
            "Which payloads it receives, beyond its event types: an SNS filter policy with message-body "
            "scope (docs/filters.md), applied to the message's `payload`. At most 5 keys, 150 "
            "combinations and 256 KiB; an invalid policy is refused with 400 `invalid_filter_policy` "
            "naming the rule and where."
        ),
        examples=[{"amount": [{"numeric": [">=", 100]}], "region": [{"prefix": "eu-"}]}],
    ),
]
