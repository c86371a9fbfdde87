"""Field types of the management API's request models, shared by rooms and subscriptions.

Bounds come from ``roomcast.platform.limits`` (documented in docs/limits.md), so what the schema
says and what is enforced are one thing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from roomcast.api import INTEGRAL, ApiModel, EventTypeName, EventVersion
from roomcast.catalog import EventTypeFilter
from roomcast.platform import limits


def _unique(values: list[str], what: str) -> list[str]:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise ValueError(f"{what} must be unique; repeated: {', '.join(duplicates)}")
    return values


def unique_items(values: list[str] | None) -> list[str] | None:
    """A list field's values, refused when one repeats (JSON Schema's uniqueItems, enforced)."""
    return None if values is None else _unique(values, "items")


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

_NEVER = "null or 0: messages never expire."
_DELAY = "Wait before the first redelivery (ms)."
_MULTIPLIER = "Each further redelivery waits this many times longer."
_ATTEMPTS = "Redeliveries after the first delivery."
_CAP = "Cap of any single wait (ms)."
_JITTER = "Fraction of each delay drawn at random."
_SCHEDULE = "Explicit delays (ms) replacing the formula; the last entry repeats."
_TIMEOUT = f"PUSH request timeout (ms); default {limits.DEFAULT_PUSH_TIMEOUT_MS}."
_ACK_WAIT = f"PULL: a pulled message not acked within this comes back; default {limits.DEFAULT_ACK_WAIT_MS}."

MessageExpirationMs = Annotated[
    Annotated[int, Field(ge=0, le=limits.MAX_MESSAGE_EXPIRATION_MS), INTEGRAL] | None,
    Field(description=_NEVER),
]
DeliveryDelayMs = Annotated[int, Field(ge=0, le=limits.MAX_DELIVERY_DELAY_MS, description=_DELAY), INTEGRAL]
DeliveryDelayMultiplier = Annotated[
    float, Field(ge=1.0, le=limits.MAX_DELIVERY_DELAY_MULTIPLIER, description=_MULTIPLIER)
]
DeliveryAttempts = Annotated[
    int, Field(ge=0, le=limits.MAX_DELIVERY_ATTEMPTS, description=_ATTEMPTS), INTEGRAL
]
MaxDelayMs = Annotated[
    int, Field(ge=limits.MIN_MAX_DELAY_MS, le=limits.MAX_SINGLE_DELAY_MS, description=_CAP), INTEGRAL
]
# Rounded to 6 places: a value like 1e-200 would underflow DynamoDB's number range (1E-130).
Jitter = Annotated[float, Field(ge=0.0, le=1.0, description=_JITTER), AfterValidator(lambda v: round(v, 6))]
RetryScheduleMs = Annotated[
    list[Annotated[int, Field(ge=0, le=limits.MAX_SINGLE_DELAY_MS), INTEGRAL]],
    Field(min_length=1, max_length=limits.MAX_RETRY_SCHEDULE_LENGTH, description=_SCHEDULE),
]
TimeoutMs = Annotated[
    int, Field(ge=limits.MIN_PUSH_TIMEOUT_MS, le=limits.MAX_PUSH_TIMEOUT_MS, description=_TIMEOUT), INTEGRAL
]
AckWaitMs = Annotated[
    int, Field(ge=limits.MIN_ACK_WAIT_MS, le=limits.MAX_ACK_WAIT_MS, description=_ACK_WAIT), INTEGRAL
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

_MAX_CONCURRENCY = "PUSH: at most this many webhook requests in flight at once (null: unlimited)."
_RATE_LIMIT = "PUSH: at most this many webhook requests started per second, smoothed (null: unlimited)."
_DISABLE_AFTER = (
    "PUSH: when every attempt has failed for this long without one success, the subscription is "
    f"disabled; default {limits.DEFAULT_DISABLE_AFTER_FAILING_MS} (5 days)."
)


MaxConcurrency = Annotated[
    int, Field(ge=1, le=limits.MAX_CONCURRENCY, description=_MAX_CONCURRENCY), INTEGRAL
]
RateLimitPerSecond = Annotated[
    float,
    Field(ge=limits.MIN_RATE_LIMIT_PER_SECOND, le=limits.MAX_RATE_LIMIT_PER_SECOND, description=_RATE_LIMIT),
    # Rounded to 6 places like jitter (DynamoDB's number range); the minimum keeps it above 0.
    AfterValidator(lambda v: round(v, 6)),
]
DisableAfterFailingMs = Annotated[
    int,
    Field(
        ge=limits.MIN_DISABLE_AFTER_FAILING_MS,
        le=limits.MAX_DISABLE_AFTER_FAILING_MS,
        description=_DISABLE_AFTER,
    ),
    INTEGRAL,
]
