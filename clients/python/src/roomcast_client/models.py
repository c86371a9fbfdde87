"""The API's responses as pydantic models.

Attributes are snake_case (``room.delivery_delay_ms``) with the API's camelCase names as aliases:
models read the API's JSON, accept either name when built by hand, and
``model_dump(mode="json", by_alias=True)`` gives the API's JSON back. Fields the SDK does not know
yet are kept (``extra="allow"``), so a newer API never breaks an older SDK. Timestamps stay the
API's ISO 8601 strings (``2026-11-22T08:23:17.758Z``) so that they round-trip unchanged.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class ApiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class Page(ApiModel, Generic[T]):
    """One page of a list: its items and the cursor of the next page (None on the last)."""

    items: list[T]
    next_cursor: str | None = None


class EventType(ApiModel):
    name: str
    versions: list[str] = Field(default_factory=list)


class Room(ApiModel):
    id: str
    name: str
    message_expiration_ms: int | None = None
    delivery_delay_ms: int
    delivery_delay_multiplier: float
    delivery_attempts: int
    event_types: list[EventType] = Field(default_factory=list)
    operations_room_id: str | None = None
    undeclared_event_types: Literal["allow", "reject"] = "allow"  # event types not in the catalog
    created_at: str
    updated_at: str


class Subscription(ApiModel):
    id: str
    room_id: str
    type: Literal["PUSH", "PULL"]
    status: Literal["active", "paused", "disabled"]
    event_types: list[EventType] = Field(default_factory=list)
    filter_policy: dict[str, Any] | None = None  # an SNS filter policy on the payload (docs/filters.md)
    push_url: str | None = None
    timeout_ms: int | None = None
    ack_wait_ms: int | None = None
    max_concurrency: int | None = None
    rate_limit_per_second: float | None = None
    disable_after_failing_ms: int | None = None
    delivery_delay_ms: int | None = None
    delivery_delay_multiplier: float | None = None
    delivery_attempts: int | None = None
    failover_subscription_id: str | None = None
    max_delay_ms: int | None = None
    jitter: float | None = None
    retry_schedule_ms: list[int] | None = None
    disabled_reason: str | None = None
    disabled_at: str | None = None
    recovery_probes: bool | None = None  # PUSH: an automatic disable probes the endpoint until it answers
    probing_since: str | None = None  # PUSH: disabled automatically and probed since then
    failing_since: str | None = None  # PUSH: when its current run of failed attempts began
    slow_since: str | None = None  # PUSH: since when its endpoint answers slowly (the slow lane)
    ordered: bool = False  # a key's messages one at a time, in publish order (``ordering_keys``)
    on_dead_key: Literal["pause", "skip"] = "pause"
    created_at: str
    updated_at: str


class SubscriptionCreated(Subscription):
    """A new subscription; a PUSH one carries its webhook signing secret (shown only here)."""

    signing_secret: str | None = None


class RotatedSecret(ApiModel):
    signing_secret: str
    previous_secrets_valid_until: str | None = None


class EffectivePolicy(ApiModel):
    delivery_delay_ms: int
    delivery_delay_multiplier: float
    delivery_attempts: int
    max_delay_ms: int | None = None
    jitter: float
    retry_schedule_ms: list[int] | None = None
    message_expiration_ms: int | None = None


class ScheduledAttempt(ApiModel):
    attempt: int
    delay_ms: int
    since_publish_ms: int
    cut_by_expiry: bool


class SchedulePreview(ApiModel):
    subscription_id: str
    policy: EffectivePolicy
    attempts: list[ScheduledAttempt]
    note: str


class FilteredOut(ApiModel):
    """A subscription a message did not reach because its filter policy did not match, and why."""

    subscription_id: str
    reason: str


class PublishResult(ApiModel):
    message_id: str
    correlation_id: str
    destinations: list[str]
    filtered_out: list[FilteredOut] = Field(default_factory=list)
    schema_errors: list[str] = Field(default_factory=list)  # published under its type's `warn`
    published_at: str
    deliver_at: str | None = None  # scheduled: delivered then (None: at once)
    ordering_key: str | None = None  # its key: ordered subscriptions get a key's messages in turn


class ErrorBody(ApiModel):
    code: str
    message: str
    details: list[dict[str, Any]] = Field(default_factory=list)


class BatchAccepted(PublishResult):
    """A batch message that was published (``status`` 202)."""

    status: int


class BatchRefused(ApiModel):
    """A batch message that was refused, with the error a single publish of it would have had."""

    status: int
    error: ErrorBody


class PublishBatchResult(ApiModel):
    """One result per message, in request order; ``failed_count`` of them refused."""

    results: list[BatchAccepted | BatchRefused]
    failed_count: int


class Delivery(ApiModel):
    """A message's delivery to one subscription."""

    subscription_id: str
    subscription_type: Literal["PUSH", "PULL"]
    status: str
    attempts: int
    last_error: str | None = None
    next_attempt_at: str | None = None
    updated_at: str


class DeliveryItem(Delivery):
    """A subscription's delivery of one message, with the message's envelope fields."""

    message_id: str
    event_type: str
    event_version: str
    correlation_id: str
    published_at: str


class MessageStatus(ApiModel):
    message_id: str
    room_id: str
    event_type: str
    event_version: str
    correlation_id: str
    payload: Any = None
    published_at: str
    expires_at: str | None = None
    destinations: list[str] = Field(default_factory=list)
    filtered_out: list[FilteredOut] = Field(default_factory=list)
    schema_errors: list[str] = Field(default_factory=list)
    deliver_at: str | None = None  # scheduled: delivered then; its expiry counts from then
    cancelled_at: str | None = None  # cancelled before its time: its deliveries ended `cancelled`
    deliveries: list[Delivery] = Field(default_factory=list)


# A room's message list carries each message's full status.
MessageSummary = MessageStatus


class Attempt(ApiModel):
    """One delivery attempt: a webhook POST, or a pull, ack, nack or ack-wait expiry."""

    subscription_id: str
    attempt: int
    event: str
    started_at: str
    duration_ms: int | None = None
    http_status: int | None = None
    error: str | None = None
    response_body: str | None = None


class Envelope(ApiModel):
    """What every message carries (a dead letter and a pulled message add to it)."""

    message_id: str
    correlation_id: str
    event_type: str
    event_version: str
    payload: Any = None
    published_at: str


class DeadLetter(Envelope):
    attempts: int
    reason: str
    dead_at: str


class RetryResult(ApiModel):
    retried: int
    message_ids: list[str]
    not_retrying: list[str] = Field(default_factory=list)


class ReplayResult(ApiModel):
    replayed: list[str]
    not_found: list[str] = Field(default_factory=list)
    already_replaying: list[str] = Field(default_factory=list)


class PulledMessage(Envelope):
    """A message handed out by a pull; ``receipt`` acks, nacks or extends it."""

    receipt: str
    attempt: int


class ReceiptFailure(ApiModel):
    receipt: str
    message_id: str
    error: str


class AckResult(ApiModel):
    acked: list[str]
    failed: list[ReceiptFailure] = Field(default_factory=list)


class PullAndAckResult(ApiModel):  # a pull that acked earlier messages too: its messages, the ack's answer
    messages: list[PulledMessage]
    acked: list[str] = Field(default_factory=list)
    ack_failed: list[ReceiptFailure] = Field(default_factory=list)


class NackOutcome(ApiModel):
    message_id: str
    outcome: Literal["retry", "dead", "expired"]
    next_attempt_at: str | None = None


class NackResult(ApiModel):
    nacked: list[NackOutcome]
    failed: list[ReceiptFailure] = Field(default_factory=list)


class ExtendResult(ApiModel):
    extended: list[str]
    failed: list[ReceiptFailure] = Field(default_factory=list)


class ApiKey(ApiModel):
    key_id: str
    name: str
    created_at: str
    current: bool


class CreatedApiKey(ApiModel):
    """A new API key: ``key`` is shown only in this answer."""

    key_id: str
    name: str
    created_at: str
    key: str
