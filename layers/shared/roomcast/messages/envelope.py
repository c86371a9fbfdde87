"""The delivery envelope: what travels on SQS for one message to one destination.

It carries everything a delivery needs (payload included), so neither the push function
nor a pull needs a database read on the common path.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace

from roomcast.catalog import SubscriptionType
from roomcast.messages.model import Attempt, Delivery, DeliveryStatus, KeySlot, Message
from roomcast.platform import JsonValue

ENVELOPE_VERSION = 1


class EnvelopeError(ValueError):
    """An SQS body that is not a roomcast envelope."""


@dataclass(frozen=True)
class Envelope:
    message_id: str
    tenant_id: str
    room_id: str
    subscription_id: str
    event_type: str
    event_version: str
    correlation_id: str
    published_at: str  # ISO-8601
    published_at_ms: int
    expires_at_ms: int | None
    attempt: int  # attempts made before this delivery (0 = first delivery)
    due_at_ms: int  # not to be delivered before this time
    next_delay_ms: int  # the delay that led to this attempt (0 on the first delivery)
    payload: JsonValue
    hops: int = 0  # SQS re-sends waiting for the due time (not attempts)
    origin_subscription_id: str | None = None  # set when a failover handed the message over
    failovers: int = 0  # how many failovers handed it on so far
    holds: int = 0  # times held back (paused or flow control) since its last attempt (not attempts)
    queued_at_ms: int = 0  # when a replay or a retry-now queued it again (0: when it was published)
    # When the fast lane stopped waiting for this attempt's request and the slow lane took it over
    # (0: never; roomcast.catalog.lanes): the slow lane first checks whether that request's answer
    # was recorded meanwhile.
    takeover_of_ms: int = 0
    # Its key, when it goes to an ordered subscription in its key's turn (roomcast.ordering.model).
    ordering_key: str | None = None
    ordering_number: int | None = None  # its place in its key's line
    # When its message was first due: a scheduled message's deliverAt (0: at its publishing, and
    # envelopes sent before it was carried). Its records carry it (roomcast.metrics places them).
    sent_from_ms: int = 0
    traceparent: str | None = None  # the publish's W3C trace context: a webhook's header

    @property
    def first_due_ms(self) -> int:
        """When its message was first due to its destinations: its deliverAt, else its publishing."""
        return self.sent_from_ms or self.published_at_ms

    def cleared_by(self, cleared_before_ms: int | None) -> bool:
        """Whether a "Clear All" at ``cleared_before_ms`` ended this delivery (queued before it)."""
        return (
            cleared_before_ms is not None and (self.queued_at_ms or self.published_at_ms) <= cleared_before_ms
        )

    @property
    def first_attempt_ever(self) -> bool:
        """Its destination's first attempt ever: attempt 0 as published (a hop's or a hold's return
        of it included), not a retry, a replay or a retry-now, which queue it again."""
        return self.attempt == 0 and self.queued_at_ms == 0

    def to_json(self) -> str:
        return json.dumps({"v": ENVELOPE_VERSION, **asdict(self)}, separators=(",", ":"))

    @classmethod
    def from_json(cls, body: str) -> Envelope:
        try:
            raw = json.loads(body)
            version = raw.pop("v", None) if isinstance(raw, dict) else None
            if type(version) is not int or version != ENVELOPE_VERSION:
                raise EnvelopeError("not a roomcast envelope (version)")
            envelope = cls(**raw)
        except (ValueError, TypeError, RecursionError) as error:
            raise EnvelopeError(f"not a roomcast envelope: {error}") from error
        for name in (
            "published_at_ms",
            "attempt",
            "due_at_ms",
            "next_delay_ms",
            "hops",
            "failovers",
            "holds",
            "queued_at_ms",
            "takeover_of_ms",
            "sent_from_ms",
        ):
            if type(getattr(envelope, name)) is not int:
                raise EnvelopeError(f"not a roomcast envelope: {name} is not an integer")
        if envelope.expires_at_ms is not None and type(envelope.expires_at_ms) is not int:
            raise EnvelopeError("not a roomcast envelope: expires_at_ms is not an integer")
        if envelope.traceparent is not None and type(envelope.traceparent) is not str:
            raise EnvelopeError("not a roomcast envelope: traceparent is not text")
        if envelope.ordering_key is not None and type(envelope.ordering_key) is not str:
            raise EnvelopeError("not a roomcast envelope: ordering_key is not text")
        if envelope.ordering_number is not None and type(envelope.ordering_number) is not int:
            raise EnvelopeError("not a roomcast envelope: ordering_number is not an integer")
        return envelope

    def next_attempt(self, attempt: int, delay_ms: int, due_at_ms: int) -> Envelope:
        return replace(self, attempt=attempt, next_delay_ms=delay_ms, due_at_ms=due_at_ms, hops=0, holds=0)

    def hop(self, attempt: int) -> Envelope:
        """The same attempt, re-sent to wait longer (SQS delays at most 15 minutes)."""
        return replace(self, attempt=attempt, hops=self.hops + 1)

    def taken_over(self, request_started_ms: int) -> Envelope:
        """The same attempt, for the slow lane to make if the request started then left no answer."""
        return replace(self, takeover_of_ms=request_started_ms)

    def held(self) -> Envelope:
        """The same attempt, re-sent to wait for a paused subscription or for flow control."""
        return replace(self, holds=self.holds + 1)

    def record(
        self,
        subscription_type: SubscriptionType,
        status: DeliveryStatus,
        attempts: int,
        error: str | None = None,
        next_attempt_at: str | None = None,
        history: tuple[Attempt, ...] = (),
    ) -> Delivery:
        """This destination's delivery record as of now (``history``: what to add to its attempts)."""
        ids = (self.message_id, self.tenant_id, self.subscription_id)
        return Delivery(
            *ids,
            subscription_type,
            status,
            attempts,
            error,
            next_attempt_at,
            history=history,
            ordering=self.key_slot,
            room_id=self.room_id,
            sent_from_ms=self.first_due_ms,
            handed_from=self.origin_subscription_id,
        )

    @property
    def key_slot(self) -> KeySlot | None:
        """Its place in its key's line, when it goes in its key's turn."""
        if self.ordering_key is None or self.ordering_number is None:
            return None
        return KeySlot(self.room_id, self.ordering_key, self.ordering_number)


def first_envelope(message: Message, subscription_id: str) -> Envelope:
    """The envelope of a message's first delivery to a destination: attempt 0, due at once (a
    scheduled message's: at its deliverAt)."""
    return Envelope(
        message_id=message.id,
        tenant_id=message.tenant_id,
        room_id=message.room_id,
        subscription_id=subscription_id,
        event_type=message.event_type,
        event_version=message.event_version,
        correlation_id=message.correlation_id,
        published_at=message.published_at,
        published_at_ms=message.published_at_ms,
        expires_at_ms=message.expires_at_ms,
        attempt=0,
        due_at_ms=message.sent_from_ms,
        next_delay_ms=0,
        payload=message.payload,
        ordering_key=message.ordering_key if subscription_id in message.ordered_to else None,
        ordering_number=message.ordering_number if subscription_id in message.ordered_to else None,
        sent_from_ms=message.deliver_at_ms or 0,
        traceparent=message.traceparent,
    )
