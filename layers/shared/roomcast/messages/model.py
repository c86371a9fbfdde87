"""Messages and their per-destination delivery state (the seeds' "published_messages")."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from roomcast.catalog import SubscriptionType
from roomcast.platform import JsonValue, now_iso


class DeliveryStatus(StrEnum):
    SCHEDULED = "scheduled"  # waiting for the message's deliverAt (roomcast.deliver_at.rules)
    WAITING = "waiting"  # ordered: waiting for the earlier messages of its key (roomcast.ordering.model)
    PENDING = "pending"  # on its way, no attempt has failed yet
    RETRYING = "retrying"  # an attempt failed; another one is scheduled
    DELIVERED = "delivered"
    DEAD = "dead"
    EXPIRED = "expired"
    CLEARED = "cleared"  # ended by "Clear All" (DELETE .../deliveries): never sent afterwards
    CANCELLED = "cancelled"  # a scheduled message cancelled before its time: never sent
    ABORTED = "aborted"  # PUSH: the receiver asked for no more attempts (webhook-delivery: abort)
    FILTERED = "filtered"  # PUSH: its transformation cancelled it (cancel: true): never sent


# What a dead delivery's error says when it was handed to its subscription's failover (the failover
# then owns the message: not a dead letter).
HANDED_TO_FAILOVER = "handed to failover"

# A delivery on its way: not sent yet, or sent and not ended (what Clear All ends).
OPEN_STATUSES = frozenset({DeliveryStatus.PENDING, DeliveryStatus.RETRYING, DeliveryStatus.WAITING})

type Note = str | None  # an error or a time a delivery record may carry

TERMINAL_STATUSES = frozenset(
    {
        DeliveryStatus.DELIVERED,
        DeliveryStatus.DEAD,
        DeliveryStatus.EXPIRED,
        DeliveryStatus.CLEARED,
        DeliveryStatus.CANCELLED,
        DeliveryStatus.ABORTED,
        DeliveryStatus.FILTERED,
    }
)


@dataclass(frozen=True)
class Publication:
    """One message to publish, as asked (``destinations``: those named, when the publisher names them)."""

    event_type: str
    event_version: str
    payload: JsonValue
    correlation_id: str | None = None
    destinations: Sequence[str] | None = None
    idempotency_key: str | None = None
    # When to deliver it, as asked: an epoch-ms time or a wait (roomcast.deliver_at.rules).
    deliver_at_ms: int | None = None
    deliver_after_ms: int | None = None
    # Its key: an ordered subscription gets the messages of one key one at a time, in publish order.
    ordering_key: str | None = None
    # The publish request's W3C trace context, carried to the webhooks and PULL messages.
    traceparent: str | None = None
    # A test event (``POST …/test-event``): sent to its named destinations whatever their event
    # types and filter policy, and whatever event types the room accepts.
    test_event: bool = False


@dataclass(frozen=True)
class FilteredOut:
    """A subscription the message was not routed to because its filter policy did not match."""

    subscription_id: str
    reason: str  # the first condition that failed: ``payload.amount: 50 is not >= 100``


@dataclass(frozen=True)
class Message:
    id: str
    tenant_id: str
    room_id: str
    event_type: str
    event_version: str
    correlation_id: str
    payload: JsonValue
    published_at: str
    published_at_ms: int
    expires_at_ms: int | None
    destinations: tuple[str, ...]
    # The publish request that stored it: its first sends are done once that request recorded them
    # (roomcast.publishing.publisher; None for messages stored before requests were recorded).
    request_id: str | None = None
    # The room's subscriptions of its type whose filter policy it did not match (no delivery).
    filtered_out: tuple[FilteredOut, ...] = ()
    # How its payload breaks its event type's schema, published under ``validation: warn``.
    schema_errors: tuple[str, ...] = ()
    # Scheduled (roomcast.deliver_at.rules): when it is released to its destinations; the release
    # that did it (its task's id), or when it was cancelled before.
    deliver_at_ms: int | None = None
    released_by: str | None = None
    cancelled_at: str | None = None
    # Its ordering key, and the destinations that get it in its key's turn (the ordered ones).
    ordering_key: str | None = None
    ordered_to: tuple[str, ...] = ()
    ordering_number: int | None = None  # its place in its key's line (roomcast.ordering.numbers)
    traceparent: str | None = None  # the publish's W3C trace context (roomcast.platform.tracing)

    @property
    def scheduled(self) -> bool:
        """Waiting for its deliverAt: neither released nor cancelled yet."""
        return self.deliver_at_ms is not None and self.released_by is None and self.cancelled_at is None

    @property
    def key_slot(self) -> KeySlot | None:
        """Its place in its key's line (for its ordered destinations)."""
        if self.ordering_key is None or self.ordering_number is None:
            return None
        return KeySlot(self.room_id, self.ordering_key, self.ordering_number)

    @property
    def sent_from_ms(self) -> int:
        """When its first envelopes are due: its deliverAt, else its publishing."""
        return self.deliver_at_ms if self.deliver_at_ms is not None else self.published_at_ms


class AttemptEvent(StrEnum):
    POST = "post"  # PUSH: a webhook request
    SEND = "send"  # PUSH: a send into an AWS destination (an SQS queue, an event bus, an SNS topic)
    PULL = "pull"  # PULL: handed out to a consumer
    ACK = "ack"
    NACK = "nack"
    ACK_WAIT_EXPIRED = "ack_wait_expired"  # PULL: neither acked nor nacked within ackWaitMs


@dataclass(frozen=True)
class Attempt:
    """One entry of a delivery's history (kept in the delivery's own record)."""

    attempt: int
    event: AttemptEvent
    started_at: str
    duration_ms: int | None = None
    http_status: int | None = None
    error: str | None = None
    response_body: str | None = None  # PUSH: the first KiB of the answer


@dataclass(frozen=True)
class KeySlot:
    """An ordered delivery's place: its message's room, its ordering key, its number in the key's
    line (the key's publishes numbered in the order they were accepted)."""

    room_id: str
    key: str
    number: int


@dataclass(frozen=True)
class Delivery:
    """A destination's delivery record; made now unless ``updated_at`` says otherwise."""

    message_id: str
    tenant_id: str
    subscription_id: str
    subscription_type: SubscriptionType
    status: DeliveryStatus
    attempts: int  # attempts made so far (a delivered first try counts 1)
    last_error: str | None = None
    next_attempt_at: str | None = None
    updated_at: str = field(default_factory=now_iso)
    # What this write adds to the delivery's attempt history (appended, never replaced).
    history: tuple[Attempt, ...] = ()
    # An ordered delivery's place in its key's line: kept on its record once written, so that the
    # record's end reaches the key (docs/decisions/0041-ordering-keys.md).
    ordering: KeySlot | None = None
    # Where the delivery belongs and when it was first due (its message's publishing, or a scheduled
    # message's deliverAt): the metrics place each change of the record by them (roomcast.metrics).
    # A failover's record also names the subscription that handed it over: its delivery opened
    # there. Not part of a record's identity; a write that does not know them (None) neither
    # stores nor removes them.
    room_id: str | None = field(default=None, compare=False)
    sent_from_ms: int | None = field(default=None, compare=False)
    handed_from: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class MessageFilter:
    """What a room's message list keeps: an event type, a publishing window (ISO-8601, inclusive),
    messages routed to one subscription."""

    event_type: str | None = None
    since: str | None = None
    until: str | None = None
    subscription_id: str | None = None


@dataclass(frozen=True)
class OwedFilter:
    """Which open deliveries a walk over a room's messages looks for: the deliveries of
    ``subscriptions`` (id -> type) of room ``room_id``, of messages published until
    ``published_until`` (ISO, inclusive; None for all)."""

    room_id: str
    subscriptions: Mapping[str, SubscriptionType]
    published_until: str | None = None


@dataclass(frozen=True)
class TrackedMessage:
    """A message with the current delivery record of each destination."""

    message: Message
    deliveries: tuple[Delivery, ...]


def deliveries_to(
    tracked: Sequence[TrackedMessage],
    subscription_id: str,
    statuses: Collection[DeliveryStatus] | None = None,
) -> list[tuple[Message, Delivery]]:
    """One subscription's deliveries among these messages (only ``statuses`` when given)."""
    return [
        (t.message, d)
        for t in tracked
        for d in t.deliveries
        if d.subscription_id == subscription_id and (statuses is None or d.status in statuses)
    ]


def first_record(message: Message, subscription_id: str, kind: SubscriptionType) -> Delivery:
    """A destination's first record, before any attempt: pending, or waiting for its key's turn
    when the destination is ordered (then with the key and the message's publishing)."""
    ordered = subscription_id in message.ordered_to
    return Delivery(
        message.id,
        message.tenant_id,
        subscription_id,
        kind,
        DeliveryStatus.WAITING if ordered else DeliveryStatus.PENDING,
        0,
        ordering=message.key_slot if ordered else None,
        room_id=message.room_id,
        sent_from_ms=message.sent_from_ms,
    )
