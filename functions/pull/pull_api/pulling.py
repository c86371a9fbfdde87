"""Pull: hand out due messages with receipts; plan the hop, expiry or ending of the others.

Attempts: a message's attempt is ``envelope.attempt + ApproximateReceiveCount - 1``; every
receive after the first (a nack's delay, or an ack wait that ran out) is one more attempt
(docs/decisions/0009-pull-attempts.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from pull_api.work import Plan, PullSubscription, PullWork
from roomcast.catalog import SubscriptionType, is_expired
from roomcast.log import LogEvent
from roomcast.messages import (
    Attempt,
    AttemptEvent,
    DeliveryStatus,
    Envelope,
    EnvelopeError,
    Outgoing,
    delay_seconds,
)
from roomcast.platform import iso_from_ms, logger
from roomcast.pull import Receipt, Received, visibility_seconds

# A message received this close to its due time is handed out (SQS delays are whole seconds).
DUE_TOLERANCE_MS = 1_000
ACK_WAIT_EXPIRED = "not acknowledged within ackWaitMs"
CLEARED = "cleared by Clear All"


@dataclass(frozen=True)
class Handout:
    """A message handed to a consumer, with the receipt it acks or nacks it by."""

    receipt: str
    envelope: Envelope
    attempt: int


def hand_out(
    work: PullWork, destination: PullSubscription, max_messages: int, wait_seconds: int
) -> list[Handout]:
    """Up to ``max_messages`` due messages of ``destination`` (read already by the caller), waiting up
    to ``wait_seconds`` for the first one."""
    visibility = visibility_seconds(destination.subscription.ack_wait_ms or 0)
    deadline = time.monotonic() + wait_seconds
    handed: list[Handout] = []
    while True:
        wait = max(0, round(deadline - time.monotonic()))
        received = work.queues.receive(destination.queue_url, max_messages - len(handed), wait, visibility)
        plan = Plan(destination)
        for message in received:
            handout = _classify(work, message, destination, plan)
            if handout is not None:
                handed.append(handout)
        work.apply(plan)
        if handed or not received or time.monotonic() >= deadline:
            return handed


def _classify(
    work: PullWork, received: Received, destination: PullSubscription, plan: Plan
) -> Handout | None:
    """Hand the message out (returned), or plan its hop, dead letter or expiry (None)."""
    now = work.clock()
    try:
        envelope = Envelope.from_json(received.body)
    except EnvelopeError:
        logger.error(
            "not a roomcast envelope; moved to the dead-letter queue", extra={"queue": destination.queue_url}
        )
        plan.outgoing.append(Outgoing(destination.dead_letter_queue_url, received.body))
        plan.delete.append(received.handle)
        return None
    attempt = envelope.attempt + received.receive_count - 1
    if is_expired(now, envelope.expires_at_ms):
        plan.delete.append(received.handle)
        plan.records.append(
            envelope.record(SubscriptionType.PULL, DeliveryStatus.EXPIRED, attempt, "expired before delivery")
        )
        work.log_envelope(LogEvent.EXPIRED, envelope, attempt=attempt)
        work.endings.expired(envelope, "expired before delivery")
        return None
    if envelope.cleared_by(destination.subscription.cleared_before_ms):
        plan.delete.append(received.handle)
        plan.records.append(envelope.record(SubscriptionType.PULL, DeliveryStatus.CLEARED, attempt, CLEARED))
        work.log_envelope(LogEvent.CLEARED, envelope, attempt=attempt)
        return None
    if envelope.due_at_ms > now + DUE_TOLERANCE_MS:
        # Not due yet (a wait longer than SQS can hold): send it on with the remaining delay.
        hop = envelope.hop(attempt)
        plan.outgoing.append(Outgoing(destination.queue_url, hop, delay_seconds(hop.due_at_ms, now)))
        plan.delete.append(received.handle)
        work.log_envelope(LogEvent.HOP, envelope, attempt=attempt, next_delay_ms=envelope.due_at_ms - now)
        return None
    if attempt > destination.policy.delivery_attempts:
        last = replace(envelope, attempt=attempt - 1)
        plan.endings.append((last, f"{ACK_WAIT_EXPIRED}; attempts exhausted", attempt))
        plan.delete.append(received.handle)
        return None
    if received.receive_count > 1:
        # The previous hand-out was neither acked nor nacked in time: that attempt failed.
        timed_out = Attempt(
            attempt - 1, AttemptEvent.ACK_WAIT_EXPIRED, iso_from_ms(now), error=ACK_WAIT_EXPIRED
        )
        plan.ack_timeouts.append(
            envelope.record(
                SubscriptionType.PULL,
                DeliveryStatus.RETRYING,
                attempt,
                ACK_WAIT_EXPIRED,
                history=(timed_out,),
            )
        )
    receipt = Receipt(
        destination.subscription.id,
        envelope.message_id,
        attempt,
        received.handle,
        envelope.expires_at_ms,
        envelope.correlation_id,
        envelope.room_id,
        envelope.published_at,
        now,
        envelope.ordering_key,
        envelope.ordering_number,
        envelope.sent_from_ms or None,
    )
    work.log_envelope(LogEvent.ATTEMPT, envelope, attempt=attempt)
    return Handout(work.signer.encode(receipt, envelope.tenant_id), envelope, attempt)
