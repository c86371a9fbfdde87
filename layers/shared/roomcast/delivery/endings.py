"""How a delivery ends when it cannot succeed: handed to the failover subscription, or dead.

A delivery step shared by the push function (webhooks), the pull function (nacks, ack-wait
timeouts) and dead-letter replays. Order: the new home first (failover queue, dead-letter store),
the records second, so a crash in between repeats the hand-over (a duplicate) and never loses
the message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roomcast.dal.dead_letters import DeadLetter
from roomcast.dal.ports import DeadLetterRecords, MessageRecords, Sender, SubscriptionStore
from roomcast.dal.sender import Destinations, Outgoing
from roomcast.dal.stores import Stores
from roomcast.delivery import operational
from roomcast.delivery.log import LogRecord, LogSink
from roomcast.delivery.operational import OperationalEvents
from roomcast.delivery.publishing import Publisher
from roomcast.domain import limits
from roomcast.domain.clock import now_iso
from roomcast.domain.envelope import Envelope
from roomcast.domain.messages import AttemptRecord, DeliveryStatus
from roomcast.domain.models import Subscription
from roomcast.domain.outcomes import DeliveryOutcome
from roomcast.errors import NotFound
from roomcast.observability import logger

# A failover chain cannot loop and is at most this long (checked, race-free, when subscriptions
# change); delivery bounds the hand-offs anyway.
MAX_FAILOVER_HOPS = limits.MAX_FAILOVER_CHAIN_LENGTH


@dataclass
class Endings:
    """Failover or dead letter, for the functions that deliver (push, pull) or replay."""

    subscriptions: SubscriptionStore
    messages: MessageRecords
    dead_letters: DeadLetterRecords
    sender: Sender
    destinations: Destinations
    log: LogSink
    events: OperationalEvents | None = None  # reports endings to the room's operations room

    @classmethod
    def of(cls, stores: Stores) -> Endings:
        st = stores
        events = OperationalEvents(st.catalog, Publisher.of(st))
        return cls(st.catalog, st.messages, st.dead_letters, st.sender, st.destinations, st.log, events)

    def expired(self, envelope: Envelope, reason: str) -> None:
        """Report a delivery that ended expired (its record and log are the caller's)."""
        if self.events is not None:
            self.events.delivery(operational.DELIVERY_EXPIRED, envelope, reason)

    def dead_or_failover(
        self,
        envelope: Envelope,
        subscription: Subscription,
        reason: str,
        attempts: int,
        now_ms: int,
        *,
        dead_letter_copy: Outgoing | None = None,
        history: tuple[AttemptRecord, ...] = (),
    ) -> DeliveryOutcome:
        """End this destination: hand the message to the failover subscription if there is one
        (it starts at attempt 0 with its own policy), else store a dead letter."""
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
            self.sender.send([self.destinations.outgoing_for(failover, handed)])
            self.messages.update_delivery(
                envelope.record(
                    subscription.type,
                    DeliveryStatus.DEAD,
                    attempts,
                    f"{reason}; handed to failover {failover.id}",
                    history=history,
                )
            )
            self.messages.update_delivery(handed.record(failover.type, DeliveryStatus.PENDING, 0))
            self._log(DeliveryOutcome.FAILOVER, envelope, subscription, f"{reason}; to {failover.id}")
            if self.events is not None:
                self.events.delivery(
                    operational.DELIVERY_FAILOVER, envelope, reason, failoverSubscriptionId=failover.id
                )
            return DeliveryOutcome.FAILOVER
        if dead_letter_copy is not None:  # a PULL subscription's own dead-letter queue
            self.sender.send([dead_letter_copy])
        self.dead_letters.put(DeadLetter(envelope, reason, now_iso(), attempts))
        self.messages.update_delivery(
            envelope.record(subscription.type, DeliveryStatus.DEAD, attempts, reason, history=history)
        )
        self._log(DeliveryOutcome.DEAD, envelope, subscription, reason)
        if self.events is not None:
            self.events.delivery(operational.DELIVERY_DEAD, envelope, reason, attempts=attempts)
        return DeliveryOutcome.DEAD

    def _log(
        self, outcome: DeliveryOutcome, envelope: Envelope, subscription: Subscription, error: str
    ) -> None:
        kind = subscription.type.value
        self.log.add(LogRecord.about(envelope, outcome.value, kind, attempt=envelope.attempt, error=error))

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
