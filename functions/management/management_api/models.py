"""Request and response models of the management API (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, JsonValue

from roomcast.api.models import ApiModel, EventTypeName, EventVersion, SubscriptionId
from roomcast.domain import limits


def _unique(values: list[str], what: str) -> list[str]:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise ValueError(f"{what} must be unique; repeated: {', '.join(duplicates)}")
    return values


# Printable text only: control characters in names end up in logs and dashboards.
Name = Annotated[str, Field(min_length=1, max_length=limits.MAX_NAME_LENGTH, pattern=r"^[^\x00-\x1f\x7f]+$")]


class EventTypeModel(ApiModel):
    name: EventTypeName
    versions: Annotated[
        list[EventVersion],
        Field(max_length=limits.MAX_VERSIONS_PER_EVENT_TYPE, description="Empty or absent: every version."),
        AfterValidator(lambda v: _unique(v, "versions")),
    ] = []


def _unique_event_types(values: list[EventTypeModel]) -> list[EventTypeModel]:
    _unique([v.name for v in values], "eventTypes names")
    return values


EventTypes = Annotated[
    list[EventTypeModel],
    Field(max_length=limits.MAX_EVENT_TYPES, description="Empty or absent: every event type."),
    AfterValidator(_unique_event_types),
]

MessageExpirationMs = Annotated[
    int | None,
    Field(ge=0, le=limits.MAX_MESSAGE_EXPIRATION_MS, description="null or 0: messages never expire."),
]
DeliveryDelayMs = Annotated[int, Field(ge=0, le=limits.MAX_DELIVERY_DELAY_MS)]
DeliveryDelayMultiplier = Annotated[float, Field(ge=1.0, le=limits.MAX_DELIVERY_DELAY_MULTIPLIER)]
DeliveryAttempts = Annotated[
    int, Field(ge=0, le=limits.MAX_DELIVERY_ATTEMPTS, description="Redeliveries after the first delivery.")
]
MaxDelayMs = Annotated[int, Field(ge=limits.MIN_MAX_DELAY_MS, le=limits.MAX_SINGLE_DELAY_MS)]
# Rounded to 6 places: a value like 1e-200 would underflow DynamoDB's number range (1E-130).
Jitter = Annotated[
    float,
    Field(ge=0.0, le=1.0, description="Fraction of each delay drawn at random."),
    AfterValidator(lambda value: round(value, 6)),
]
RetryScheduleMs = Annotated[
    list[Annotated[int, Field(ge=0, le=limits.MAX_SINGLE_DELAY_MS)]],
    Field(
        min_length=1,
        max_length=limits.MAX_RETRY_SCHEDULE_LENGTH,
        description="Explicit delays replacing the formula; the last entry repeats.",
    ),
]
TimeoutMs = Annotated[int, Field(ge=limits.MIN_PUSH_TIMEOUT_MS, le=limits.MAX_PUSH_TIMEOUT_MS)]
AckWaitMs = Annotated[int, Field(ge=limits.MIN_ACK_WAIT_MS, le=limits.MAX_ACK_WAIT_MS)]
PushUrl = Annotated[str, Field(min_length=1, max_length=limits.MAX_PUSH_URL_LENGTH)]

# -- rooms --------------------------------------------------------------------------------------


class RoomCreate(ApiModel):
    name: Name
    messageExpirationMs: MessageExpirationMs = None
    deliveryDelayMs: DeliveryDelayMs = limits.DEFAULT_DELIVERY_DELAY_MS
    deliveryDelayMultiplier: DeliveryDelayMultiplier = limits.DEFAULT_DELIVERY_DELAY_MULTIPLIER
    deliveryAttempts: DeliveryAttempts = limits.DEFAULT_DELIVERY_ATTEMPTS
    eventTypes: EventTypes = []


class RoomPatch(ApiModel):
    name: Name | None = None
    messageExpirationMs: MessageExpirationMs = None
    deliveryDelayMs: DeliveryDelayMs | None = None
    deliveryDelayMultiplier: DeliveryDelayMultiplier | None = None
    deliveryAttempts: DeliveryAttempts | None = None
    eventTypes: EventTypes | None = None


class RoomResponse(BaseModel):
    id: str
    name: str
    messageExpirationMs: int | None
    deliveryDelayMs: int
    deliveryDelayMultiplier: float
    deliveryAttempts: int
    eventTypes: list[EventTypeModel]
    createdAt: str
    updatedAt: str


class RoomList(BaseModel):
    rooms: list[RoomResponse]
    nextCursor: str | None = None


# -- subscriptions ------------------------------------------------------------------------------


class _SubscriptionCommon(ApiModel):
    eventTypes: EventTypes = []
    deliveryDelayMs: DeliveryDelayMs | None = None
    deliveryDelayMultiplier: DeliveryDelayMultiplier | None = None
    deliveryAttempts: DeliveryAttempts | None = None
    maxDelayMs: MaxDelayMs | None = None
    jitter: Jitter | None = None
    retryScheduleMs: RetryScheduleMs | None = None
    failoverSubscriptionId: SubscriptionId | None = None


class PushSubscriptionCreate(_SubscriptionCommon):
    type: Literal["PUSH"]
    pushUrl: PushUrl
    timeoutMs: TimeoutMs | None = None


class PullSubscriptionCreate(_SubscriptionCommon):
    type: Literal["PULL"]
    ackWaitMs: AckWaitMs | None = None


SubscriptionCreate = Annotated[PushSubscriptionCreate | PullSubscriptionCreate, Field(discriminator="type")]


class SubscriptionPatch(ApiModel):
    """Fields to change; ``null`` clears an override (the room's value applies again)."""

    eventTypes: EventTypes | None = None
    deliveryDelayMs: DeliveryDelayMs | None = None
    deliveryDelayMultiplier: DeliveryDelayMultiplier | None = None
    deliveryAttempts: DeliveryAttempts | None = None
    maxDelayMs: MaxDelayMs | None = None
    jitter: Jitter | None = None
    retryScheduleMs: RetryScheduleMs | None = None
    failoverSubscriptionId: SubscriptionId | None = None
    pushUrl: PushUrl | None = None
    timeoutMs: TimeoutMs | None = None
    ackWaitMs: AckWaitMs | None = None
    status: Literal["active", "disabled"] | None = None


class SubscriptionResponse(BaseModel):
    id: str
    roomId: str
    type: Literal["PUSH", "PULL"]
    status: Literal["active", "disabled"]
    eventTypes: list[EventTypeModel]
    pushUrl: str | None = None
    deliveryDelayMs: int | None = None
    deliveryDelayMultiplier: float | None = None
    deliveryAttempts: int | None = None
    maxDelayMs: int | None = None
    jitter: float | None = None
    retryScheduleMs: list[int] | None = None
    failoverSubscriptionId: str | None = None
    timeoutMs: int | None = None
    ackWaitMs: int | None = None
    createdAt: str
    updatedAt: str


class SubscriptionCreated(SubscriptionResponse):
    signingSecret: str | None = Field(
        default=None,
        description="PUSH only, shown once: verify webhook signatures with it (Standard Webhooks).",
    )


class SubscriptionList(BaseModel):
    subscriptions: list[SubscriptionResponse]
    nextCursor: str | None = None


class ErrorDetail(BaseModel):
    field: str
    problem: str
    type: str


class ErrorBody(BaseModel):
    code: str
    message: str
    details: list[ErrorDetail] = []


class ErrorResponse(BaseModel):
    error: ErrorBody


class DeliveryView(BaseModel):
    subscriptionId: str
    subscriptionType: Literal["PUSH", "PULL"]
    status: Literal["pending", "retrying", "delivered", "dead", "expired"]
    attempts: int = Field(description="Attempts made so far (a first-try success counts 1).")
    lastError: str | None
    nextAttemptAt: str | None
    updatedAt: str


class MessageStatus(BaseModel):
    messageId: str
    roomId: str
    eventType: str
    eventVersion: str
    correlationId: str
    payload: JsonValue
    publishedAt: str
    expiresAt: str | None
    destinations: list[str]
    deliveries: list[DeliveryView]


class DeadLetterView(BaseModel):
    messageId: str
    correlationId: str
    eventType: str
    eventVersion: str
    payload: JsonValue
    publishedAt: str
    attempts: int
    reason: str
    deadAt: str


class DeadLetterList(BaseModel):
    deadLetters: list[DeadLetterView]
    nextCursor: str | None = None


class ReplayRequest(ApiModel):
    messageIds: (
        Annotated[
            list[Annotated[str, Field(min_length=1, max_length=64)]],
            Field(
                min_length=1, max_length=100, description="Absent: replay every dead letter (100 per call)."
            ),
        ]
        | None
    ) = None


class ReplayResponse(BaseModel):
    replayed: list[str]
    notFound: list[str] = []
    remaining: bool = Field(description="More dead letters are left; call again to replay them.")


class PurgeResponse(BaseModel):
    purged: int


class ScheduledAttemptView(BaseModel):
    attempt: int
    delayMs: int = Field(description="Wait before this attempt (0 for the first delivery).")
    sincePublishMs: int = Field(description="When it falls if every earlier attempt failed at once.")
    cutByExpiry: bool = Field(description="Falls at or after the room's expiry: never made; expired instead.")


class EffectivePolicy(BaseModel):
    deliveryDelayMs: int
    deliveryDelayMultiplier: float
    deliveryAttempts: int
    maxDelayMs: int | None
    jitter: float
    retryScheduleMs: list[int] | None
    messageExpirationMs: int | None


class SchedulePreview(BaseModel):
    subscriptionId: str
    policy: EffectivePolicy
    attempts: list[ScheduledAttemptView]
    note: str


class RotatedSecret(BaseModel):
    signingSecret: str
    previousSecretsValidUntil: str | None = Field(
        description="Until then every webhook carries a signature with the old secret too."
    )
