"""The filter-policy language's shape as JSON Schema, for the OpenAPI document: what a schema can
say, it says (each operator and its argument, at most 5 keys, no empty arrays or objects, ``$or``
of two or more), so generated clients and schemathesis know it. What no JSON Schema can say — at
most 150 combinations, 256 KiB, a range's lower bound below its upper one — is refused by
``roomcast.filters.policy.check_policy``, which checks everything, the shape included, and
answers 400 naming the rule and where.

The models below describe; they never validate a request: a body's ``filterPolicy`` is any JSON
object to pydantic (``roomcast.filters.schema.FilterPolicyBody``), and only its JSON
Schema is theirs. The language is recursive, so they are models, which the document names in its
components. Nothing imports this module until a JSON Schema is generated (the OpenAPI document,
docs/decisions/0008-cold-start.md): building the models is a cold start's cost for nothing."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

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
