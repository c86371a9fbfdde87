"""Retry now: retrying PUSH deliveries become due at once, however long their backoff still had
to run (the attempt count goes on).

Each delivery is claimed (a conditional write: of concurrent retry-nows exactly one gets it), then
gets a new envelope due now (its next attempt), then its record's ``nextAttemptAt`` moves to now,
so the envelope still waiting in SQS is recognised as superseded by the push function and
dropped. Sent before recorded: a crash in between leaves the old schedule in force (the claim
lapses), never a lost delivery. Counted once, by the call that moved it: concurrent calls' counts
add up to the envelopes sent.

The request names the messages (management_api.deliveries); without names, a job walks every open
delivery of the subscription a page at a time (roomcast.jobs.steps).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from roomcast.catalog import Subscription, SubscriptionType
from roomcast.log import LogEvent, LogRecord, LogSink
from roomcast.messages import (
    Delivery,
    DeliveryStatus,
    Message,
    MessageRecords,
    QueueAddresses,
    Sender,
    first_envelope,
)
from roomcast.platform import Conflict, iso_from_ms, now_iso, now_ms


def require_push(subscription: Subscription) -> None:
    """Retry now is for PUSH deliveries (409 otherwise)."""
    if subscription.type is not SubscriptionType.PUSH:
        raise Conflict("retry now applies to PUSH subscriptions; a PULL consumer pulls when it is ready")


@dataclass
class RetryNow:
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    clock: Callable[[], int] = now_ms

    def retry(self, subscription: Subscription, found: Iterable[tuple[Message, Delivery]]) -> list[str]:
        """Make the retrying deliveries among ``found`` due now; the ids of the messages whose
        delivery this call moved (not one another call holds, one already due or moved on)."""
        now = self.clock()
        retried = []
        for message, record in found:
            if record.status is not DeliveryStatus.RETRYING:
                continue
            claim = secrets.token_hex(8)
            if not self.messages.claim_retry(record, claim, now):
                continue  # another retry-now has it, it is due already, or it moved on meanwhile
            envelope = replace(
                first_envelope(message, subscription.id).next_attempt(record.attempts, 0, now),
                queued_at_ms=now,
            )
            self.sender.send([self.addresses.outgoing_for(subscription, envelope)])
            moved = replace(record, next_attempt_at=iso_from_ms(now), updated_at=now_iso(), history=())
            if self.messages.move_claimed_retry(moved, claim):
                retried.append(message.id)
                self.log.add(
                    LogRecord.about(envelope, LogEvent.RETRY_NOW, subscription.type, attempt=envelope.attempt)
                )
        return retried
