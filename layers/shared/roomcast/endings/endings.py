"""How a delivery ends when it cannot succeed: handed to the failover subscription, or dead.

A delivery step shared by the push function (webhooks) and the pull function (nacks, ack-wait
timeouts), in three steps its caller runs in this order, writing the records itself between the
second and the third (so each function writes its delivery status in one place):

1. ``plan``: where it goes — the failover subscription (attempt 0, its own policy) when there is
   one still there, else a dead letter — and the records that say so;
2. ``hand_over``: the new home first (the failover's envelope, or the dead letter and, for a PULL
   subscription, a copy in its SQS dead-letter queue);
3. ``report``: the delivery-log line and the operational event, once it has happened.

A crash between them repeats the hand-over (a duplicate) and never loses the message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roomcast.catalog import Subscription, SubscriptionRecords
from roomcast.dead_letters import DeadLetter, DeadLetterRecords
from roomcast.log import DeliveryOutcome, LogEvent, LogRecord, LogSink
from roomcast.messages import (
    HANDED_TO_FAILOVER,
    Attempt,
    Delivery,
    DeliveryStatus,
    Envelope,
    Outgoing,
    QueueAddresses,
    Sender,
)
from roomcast.operations import OperationalEvents, events as operational
from roomcast.ordering import KeyLines, KeyRef
from roomcast.platform import NotFound, limits, logger, now_iso

# A failover chain cannot loop and is at most this long (checked, race-free, when subscriptions
# change); delivery bounds the hand-offs anyway.
MAX_FAILOVER_HOPS = limits.MAX_FAILOVER_CHAIN_LENGTH


@dataclass(frozen=True)
class Ending:
    """A destination's ending as planned: its outcome, what is sent, kept and recorded."""

    outcome: DeliveryOutcome  # DEAD or FAILOVER
    envelope: Envelope  # as it ended
    subscription: Subscription
    reason: str
    attempts: int
    outgoing: tuple[Outgoing, ...]
    dead_letter: DeadLetter | None
    records: tuple[Delivery, ...]  # the ended destination's, and the failover's first record
    failover_id: str | None = None
    # An ordered failover's key line takes a keyed message in its turn (not ``outgoing``): its
    # place there, written before the records (docs/decisions/0041-ordering-keys.md).
    place: KeyRef | None = None


@dataclass
class Endings:
    """Failover or dead letter, for the functions that deliver (push, pull)."""

    subscriptions: SubscriptionRecords
    dead_letters: DeadLetterRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    events: OperationalEvents | None = None  # reports endings to the room's operations room
    key_lines: KeyLines | None = None  # an ordered failover's key lines

    def expired(self, envelope: Envelope, reason: str) -> None:
        """Report a delivery that ended expired (its record and log are the caller's)."""
        if self.events is not None:
            self.events.delivery(operational.DELIVERY_EXPIRED, envelope, reason)

    def plan(
        self,
        envelope: Envelope,
        subscription: Subscription,
        reason: str,
        attempts: int,
        now_ms: int,
        *,
        dead_letter_queue_url: str | None = None,
        history: tuple[Attempt, ...] = (),
    ) -> Ending:
        """Where this destination goes now (``dead_letter_queue_url``: a PULL subscription's own
        dead-letter queue, which gets a copy of a dead message)."""
        failover = self._failover_target(envelope, subscription)
        if failover is not None:
            handed = replace(
                envelope,
                subscription_id=failover.id,
                attempt=0,
                due_at_ms=now_ms,
                next_delay_ms=0,
                hops=0,
                origin_subscription_id=envelope.origin_subscription_id or envelope.subscription_id,
                failovers=envelope.failovers + 1,
            )
            ended = envelope.record(
                subscription.type,
                DeliveryStatus.DEAD,
                attempts,
                f"{reason}; {HANDED_TO_FAILOVER} {failover.id}",
                history=history,
            )
            slot = envelope.key_slot if failover.ordered and self.key_lines is not None else None
            key = slot.key if slot is not None else None
            handed = replace(handed, ordering_key=key)
            if key is not None:  # in its key's turn there: its place, its record waiting
                first = handed.record(failover.type, DeliveryStatus.WAITING, 0)
                place = KeyRef(envelope.tenant_id, envelope.room_id, failover.id, key)
                return Ending(
                    DeliveryOutcome.FAILOVER, envelope, subscription, reason, attempts, (), None,
                    (ended, first), failover.id, place,
                )  # fmt: skip
            first = handed.record(failover.type, DeliveryStatus.PENDING, 0)
            outgoing = (self.addresses.outgoing_for(failover, handed),)
            return Ending(
                DeliveryOutcome.FAILOVER, envelope, subscription, reason, attempts, outgoing, None,
                (ended, first), failover.id,
            )  # fmt: skip
        copies = () if dead_letter_queue_url is None else (Outgoing(dead_letter_queue_url, envelope),)
        letter = DeadLetter(envelope, reason, now_iso(), attempts)
        dead = envelope.record(subscription.type, DeliveryStatus.DEAD, attempts, reason, history=history)
        return Ending(DeliveryOutcome.DEAD, envelope, subscription, reason, attempts, copies, letter, (dead,))

    def hand_over(self, ending: Ending) -> None:
        """The message's new home, before any record says it has one."""
        slot = ending.envelope.key_slot
        if ending.place is not None and self.key_lines is not None and slot is not None:
            self.key_lines.add_place(ending.place, ending.envelope.message_id, slot.number)
        if ending.outgoing:
            self.sender.send(list(ending.outgoing))
        if ending.dead_letter is not None:
            self.dead_letters.put(ending.dead_letter)

    def report(self, ending: Ending) -> None:
        """The delivery-log line and the operational event of an ending that happened."""
        envelope = ending.envelope
        if ending.failover_id is not None:
            error = f"{ending.reason}; to {ending.failover_id}"
            event = LogEvent.FAILOVER
        else:
            error, event = ending.reason, LogEvent.DEAD
        kind = ending.subscription.type
        self.log.add(LogRecord.about(envelope, event, kind, attempt=envelope.attempt, error=error))
        if self.events is None:
            return
        if ending.failover_id is not None:
            self.events.delivery(
                operational.DELIVERY_FAILOVER,
                envelope,
                ending.reason,
                failoverSubscriptionId=ending.failover_id,
            )
        else:
            self.events.delivery(operational.DELIVERY_DEAD, envelope, ending.reason, attempts=ending.attempts)

    def _failover_target(self, envelope: Envelope, subscription: Subscription) -> Subscription | None:
        if not subscription.failover_subscription_id:
            return None
        if envelope.failovers >= MAX_FAILOVER_HOPS:
            logger.warning(
                "failover chain too long; dead-lettering", extra={"messageId": envelope.message_id}
            )
            return None
        try:
            return self.subscriptions.get_subscription(
                envelope.tenant_id, envelope.room_id, subscription.failover_subscription_id
            )
        except NotFound:
            logger.warning(
                "failover subscription is gone; dead-lettering", extra={"messageId": envelope.message_id}
            )
            return None
