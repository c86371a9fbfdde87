"""Model building blocks shared by the API functions: the strict base model, field types that
several functions accept, and the error shapes every operation documents."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    JsonValue,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from roomcast.event_types import NAME_PATTERN
from roomcast.platform import camel_fields, limits

EVENT_TYPE_NAME_PATTERN = NAME_PATTERN
EVENT_VERSION_PATTERN = r"^[0-9]+(\.[0-9]+){0,3}$"


class ApiModel(BaseModel):
    """Strict: unknown fields and wrong JSON types are refused, never coerced."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, populate_by_name=True)


class _Integral:
    """An integer field of a request body takes any JSON number without a fraction:
    ``Annotated[int, Field(...), INTEGRAL]`` (last, so the bounds stay on the integer).

    JSON has one number type, and JSON Schema's ``integer`` admits 1000.0; so does the API.
    Strings, booleans and fractions stay refused by the strict int.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(_integral, handler(source))


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


INTEGRAL = _Integral()


class _NotNull:
    """A PATCH field that may be absent but not null: ``Annotated[X | None, NOT_NULL] = None``.

    Absent keeps the stored value; an explicit null is refused (``null_not_allowed``), and the
    documented schema does not offer null either.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_refuse_null, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        options = json_schema.pop("anyOf", None)
        if options:
            kept = [option for option in options if option.get("type") != "null"]
            if len(kept) == 1:
                json_schema.update(kept[0])
            else:  # a union of several kinds: each of them, and still no null
                json_schema["anyOf"] = kept
        return json_schema


def _refuse_null(value: Any) -> Any:
    if value is None:
        raise PydanticCustomError("null_not_allowed", "may not be null")
    return value


NOT_NULL = _NotNull()


def examples(
    *values: dict[str, Any], lenient: bool = False, schema: dict[str, Any] | None = None
) -> ConfigDict:
    """A model's config with its documented examples. ``lenient``: a response model deriving from a
    request model, which ignores the fields it does not declare and coerces nothing it need not;
    ``schema``: more of the model's JSON Schema (what its fields alone cannot say)."""
    extra = {"examples": list(values), **(schema or {})}
    if lenient:
        return ConfigDict(json_schema_extra=extra, extra="ignore", strict=False)
    return ConfigDict(json_schema_extra=extra)


EventTypeName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_NAME_LENGTH,
        pattern=EVENT_TYPE_NAME_PATTERN,
        examples=["order.created"],
    ),
]
EventVersion = Annotated[str, Field(pattern=EVENT_VERSION_PATTERN, max_length=32, examples=["1", "2.1"])]
RoomId = Annotated[
    str, Field(min_length=1, max_length=64, examples=["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"])
]
SubscriptionId = Annotated[
    str, Field(min_length=1, max_length=64, examples=["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"])
]


class ResponseModel(BaseModel):
    """An answer built from domain objects: ``Model.of(*sources, **fields)`` takes the fields of each
    source (``camel_fields``; later ones win) and the given fields on top, and keeps only the
    fields the model declares."""

    @classmethod
    def of(cls, *sources: object, **fields: object) -> Self:
        merged: dict[str, Any] = {}
        for source in sources:
            merged |= camel_fields(source)
        return cls.model_validate(merged | fields)


class MessageView(ResponseModel):
    """A message as its receivers see it (pulled, or kept as a dead letter)."""

    messageId: str
    correlationId: str
    eventType: str
    eventVersion: str
    payload: JsonValue
    publishedAt: str


class FilteredOutView(BaseModel):
    subscriptionId: str
    reason: str = Field(
        description="Its filter's first failed condition: `payload.amount: 50 is not >= 100`."
    )


SCHEMA_ERRORS_DESCRIPTION = (
    "How its payload breaks the schema of its event type and version, when that event type's "
    "`validation` is `warn` (it was published anyway); empty otherwise."
)
FILTERED_OUT_DESCRIPTION = (
    "Subscriptions of the room that accept its event type but whose `filterPolicy` did not match "
    "its payload: no delivery, no queue send (docs/filters.md)."
)


# -- errors ----------------------------------------------------------------------------------------


class ErrorDetail(BaseModel):
    field: str = Field(description="Where: body.<field>, query.<name>, header.<name>, or body.")
    problem: str
    type: str = Field(description="Machine-readable kind of problem (pydantic's error type, or ours).")


class ErrorBody(BaseModel):
    code: str = Field(description="Machine-readable: validation_error, not_found, conflict, ...")
    message: str = Field(description="What is wrong, in words.")
    details: list[ErrorDetail] = []


class ErrorResponse(BaseModel):
    """Every error the API itself answers."""

    error: ErrorBody


class GatewayError(BaseModel):
    """Errors API Gateway answers before a function runs (no or a wrong API key, no route)."""

    message: str


_ISO_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")


def _iso_text(value: object) -> object:
    # Lax datetime parsing would take 5 or "0.5" as Unix times: only ISO-8601 text is a time here.
    if not isinstance(value, str) or not _ISO_DATE_TIME.match(value):
        raise PydanticCustomError("datetime_type", "Input should be an ISO-8601 date-time")
    return value


def _in_utc(moment: datetime) -> datetime:
    """The moment in UTC; one whose UTC falls outside years 1 to 9999 (``9999-12-31T23:59:59-01:00``)
    is a validation error, not an overflow."""
    try:
        return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    except OverflowError:
        raise PydanticCustomError(
            "datetime_out_of_range", "Input is out of range: in UTC it falls outside the years 1 to 9999"
        ) from None


# An ISO-8601 date-time in JSON or a query string, as an aware UTC datetime (UTC when it names no zone).
Instant = Annotated[datetime, BeforeValidator(_iso_text), Field(strict=False), AfterValidator(_in_utc)]


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$")


def _rfc3339_text(value: object) -> object:
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise PydanticCustomError(
            "datetime_type", "Input should be an RFC 3339 date-time with a UTC offset (2026-11-22T10:00:00Z)"
        )
    return value


# An RFC 3339 date-time with its UTC offset (``Z`` or ``+01:00``), as an aware UTC datetime.
ZonedInstant = Annotated[
    datetime,
    BeforeValidator(_rfc3339_text),
    Field(strict=False, json_schema_extra={"format": "date-time"}),
    AfterValidator(_in_utc),
]
