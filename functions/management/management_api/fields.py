"""Field types of the management API's request models, shared by rooms and subscriptions.

Bounds come from ``roomcast.domain.limits`` (documented in docs/limits.md), so what the schema
says and what is enforced are one thing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from roomcast.api.models import INTEGRAL, ApiModel, EventTypeName, EventVersion
from roomcast.domain import limits
from roomcast.domain.models import EventTypeFilter


def _unique(values: list[str], what: str) -> list[str]:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise ValueError(f"{what} must be unique; repeated: {', '.join(duplicates)}")
    return values


# Printable text only: control characters in names end up in logs and dashboards.
Name = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_NAME_LENGTH,
        pattern=r"^[^\x00-\x1f\x7f]+$",
        examples=["orders"],
    ),
]


class EventTypeModel(ApiModel):
    name: EventTypeName
    versions: Annotated[
        list[EventVersion],
        Field(
            max_length=limits.MAX_VERSIONS_PER_EVENT_TYPE,
            description="Empty or absent: every version.",
            json_schema_extra={"uniqueItems": True},
        ),
        AfterValidator(lambda v: _unique(v, "versions")),
    ] = []

    @classmethod
    def of(cls, event_type: EventTypeFilter) -> EventTypeModel:
        return cls(name=event_type.name, versions=list(event_type.versions))

    def to_domain(self) -> EventTypeFilter:
        return EventTypeFilter(name=self.name, versions=tuple(self.versions))


def _unique_event_types(values: list[EventTypeModel]) -> list[EventTypeModel]:
    # JSON Schema cannot say "unique by name", so this refusal has a type of its own.
    names = [v.name for v in values]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise PydanticCustomError(
            "duplicate_event_types",
            "eventTypes names must be unique; repeated: {names}",
            {"names": ", ".join(repeated)},
        )
    return values


EventTypes = Annotated[
    list[EventTypeModel],
    Field(max_length=limits.MAX_EVENT_TYPES, description="Empty or absent: every event type."),
    AfterValidator(_unique_event_types),
]

MessageExpirationMs = Annotated[
    Annotated[int, Field(ge=0, le=limits.MAX_MESSAGE_EXPIRATION_MS), INTEGRAL] | None,
    Field(description="null or 0: messages never expire."),
]
DeliveryDelayMs = Annotated[
    int,
    Field(ge=0, le=limits.MAX_DELIVERY_DELAY_MS, description="Wait before the first redelivery (ms)."),
    INTEGRAL,
]
DeliveryDelayMultiplier = Annotated[
    float,
    Field(
        ge=1.0,
        le=limits.MAX_DELIVERY_DELAY_MULTIPLIER,
        description="Each further redelivery waits this many times longer.",
    ),
]
DeliveryAttempts = Annotated[
    int,
    Field(ge=0, le=limits.MAX_DELIVERY_ATTEMPTS, description="Redeliveries after the first delivery."),
    INTEGRAL,
]
MaxDelayMs = Annotated[
    int,
    Field(
        ge=limits.MIN_MAX_DELAY_MS, le=limits.MAX_SINGLE_DELAY_MS, description="Cap of any single wait (ms)."
    ),
    INTEGRAL,
]
# Rounded to 6 places: a value like 1e-200 would underflow DynamoDB's number range (1E-130).
Jitter = Annotated[
    float,
    Field(ge=0.0, le=1.0, description="Fraction of each delay drawn at random."),
    AfterValidator(lambda value: round(value, 6)),
]
RetryScheduleMs = Annotated[
    list[Annotated[int, Field(ge=0, le=limits.MAX_SINGLE_DELAY_MS), INTEGRAL]],
    Field(
        min_length=1,
        max_length=limits.MAX_RETRY_SCHEDULE_LENGTH,
        description="Explicit delays (ms) replacing the formula; the last entry repeats.",
    ),
]
TimeoutMs = Annotated[
    int,
    Field(
        ge=limits.MIN_PUSH_TIMEOUT_MS,
        le=limits.MAX_PUSH_TIMEOUT_MS,
        description=f"PUSH request timeout (ms); default {limits.DEFAULT_PUSH_TIMEOUT_MS}.",
    ),
    INTEGRAL,
]
AckWaitMs = Annotated[
    int,
    Field(
        ge=limits.MIN_ACK_WAIT_MS,
        le=limits.MAX_ACK_WAIT_MS,
        description="PULL: a pulled message not acked within this comes back; "
        f"default {limits.DEFAULT_ACK_WAIT_MS}.",
    ),
    INTEGRAL,
]
PushUrl = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_PUSH_URL_LENGTH,
        description="https URL resolving to public addresses only "
        "(checked at subscribe and at delivery time).",
        examples=["https://hooks.example.com/roomcast"],
    ),
]
