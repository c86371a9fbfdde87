"""A subscription's ``filterPolicy`` as its request models take it (``FilterPolicyBody``): any JSON
object to pydantic, checked by ``roomcast.filters.policy.check_policy`` (400 naming the rule
and where), documented with the filter-policy language's shape (``filter_policy_shape``).

The shape's models exist only for the JSON Schema, so ``_ShapeOf`` imports them when a schema is
generated, not when a request model is defined (docs/decisions/0008-cold-start.md). They stay
importable from here (``FilterPolicy`` and the conditions) for the tests and tools that name them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, GetJsonSchemaHandler, JsonValue, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

if TYPE_CHECKING:
    from roomcast.filters.shape import (
        AnythingButCondition,
        Condition,
        EqualsIgnoreCaseCondition,
        ExistsCondition,
        FilterPolicy,
        FilterPolicyNested,
        NumericCondition,
        PrefixCondition,
        SuffixCondition,
    )

_SHAPE_MODULE = "roomcast.filters.shape"
__all__ = [
    "AnythingButCondition",
    "Condition",
    "EqualsIgnoreCaseCondition",
    "ExistsCondition",
    "FilterPolicy",
    "FilterPolicyBody",
    "FilterPolicyNested",
    "NumericCondition",
    "PrefixCondition",
    "SuffixCondition",
]


def __getattr__(name: str) -> Any:
    """The shape's names, from the module that defines them (imported on first use)."""
    if name in __all__:
        return getattr(importlib.import_module(_SHAPE_MODULE), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _ShapeOf:
    """A field's JSON Schema taken from another type (which never validates it), named by its
    module and name: the type is imported when a JSON Schema is generated, and only then."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __get_pydantic_json_schema__(
        self, _schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        shape = getattr(importlib.import_module(self.module), self.name)
        return handler(TypeAdapter(shape).core_schema)


FilterPolicyBody = Annotated[
    dict[str, JsonValue],
    _ShapeOf(_SHAPE_MODULE, "FilterPolicy"),
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
