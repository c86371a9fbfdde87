"""How a delivery ends when it cannot succeed: handed to the failover subscription, or dead.

Shared by the push function (webhooks) and the pull function (nacks, ack-wait timeouts).
Order: the new home first (failover queue, dead-letter store), the records second, so a crash
in between repeats the hand-over (a duplicate) and never loses the message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roomcast.config import Settings
from roomcast.dal.dead_letters import DeadLetter, DeadLetterStore
from roomcast.dal.messages import MessageStore
from roomcast.dal.repository import Repository
from roomcast.dal.sender import EnvelopeSender, Outgoing
from roomcast.delivery.log import DeliveryLog, LogRecord, log_record_fields
from roomcast.domain.clock import iso_timestamp, utc_now
from roomcast.domain.envelope import Envelope
from roomcast.domain.messages import Delivery, DeliveryStatus
from roomcast.domain.models import Subscription, SubscriptionType
from roomcast.errors import NotFound
from roomcast.observability import logger

# A failover chain cannot loop (checked when subscriptions change); this bounds it anyway.
MAX_FAILOVER_HOPS = 10


@dataclass
class Endings:
    repository: Repository
    messages: MessageStore
    dead_letters: DeadLetterStore
    sender: EnvelopeSender
    push_queue_url: str
    log: DeliveryLog

    @classmethod
    def for_settings(cls, settings: Settings, log: DeliveryLog) -> Endings:
        """Endings with their own data access, as a function builds them at cold start."""
        return cls(
            repository=Repository(settings.table_name),
            messages=MessageStore(settings.table_name),
            dead_letters=DeadLetterStore(settings.table_name),
            sender=EnvelopeSender(),
            push_queue_url=settings.push_queue_url,
            log=log,
        )

    def dead_or_failover(
        self,
        envelope: Envelope,
        subscription: Subscription,
        reason: str,
        attempts: int,
        now_ms: int,
        *,
        dead_letter_copy: Outgoing | None = None,
    ) -> str:
        """End this destination: hand the message to the failover subscription if there is one
        (it starts at attempt 0 with its own policy), else store a dead letter. Returns the outcome."""
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
            self.sender.send([self.outgoing_for(failover, handed)])
            self._record(
                envelope,
                subscription,
                DeliveryStatus.DEAD,
                attempts,
                f"{reason}; handed to failover {failover.id}",
            )
            self._record(handed, failover, DeliveryStatus.PENDING, 0, None)
            self.log.add(
                LogRecord(
                    event="failover",
                    subscription_type=subscription.type.value,
                    attempt=envelope.attempt,
                    error=f"{reason}; to {failover.id}",
                    **log_record_fields(envelope),
                )
            )
            return "failover"
        if dead_letter_copy is not None:  # a PULL subscription's own dead-letter queue
            self.sender.send([dead_letter_copy])
        self.dead_letters.put(DeadLetter(envelope, reason, iso_timestamp(utc_now()), attempts))
        self._record(envelope, subscription, DeliveryStatus.DEAD, attempts, reason)
        self.log.add(
            LogRecord(
                event="dead",
                subscription_type=subscription.type.value,
                attempt=envelope.attempt,
                error=reason,
                **log_record_fields(envelope),
            )
        )
        return "dead"

    def outgoing_for(
        self, subscription: Subscription, envelope: Envelope, delay_seconds: int = 0
    ) -> Outgoing:
        """Where an envelope for ``subscription`` is sent: the shared push queue, or its own queue."""
        if subscription.type is SubscriptionType.PUSH:
            return self.push_outgoing(envelope, delay_seconds)
        return Outgoing(subscription.queue_url or "", envelope, delay_seconds)

    def push_outgoing(self, envelope: Envelope, delay_seconds: int = 0) -> Outgoing:
        """The shared push queue; the group id (fair queues) is the envelope's subscription."""
        return Outgoing(self.push_queue_url, envelope, delay_seconds, group_id=envelope.subscription_id)

    def _failover_target(self, envelope: Envelope, subscription: Subscription) -> Subscription | None:
        if not subscription.failover_subscription_id:
            return None
        if envelope.failovers >= MAX_FAILOVER_HOPS:
            logger.warning(
                "failover chain too long; dead-lettering", extra={"messageId": envelope.message_id}
            )
            return None
        try:
            return self.repository.get_subscription(
                envelope.tenant_id, envelope.room_id, subscription.failover_subscription_id
            )
        except NotFound:
            logger.warning(
                "failover subscription is gone; dead-lettering", extra={"messageId": envelope.message_id}
            )
            return None

    def _record(
        self,
        envelope: Envelope,
        subscription: Subscription,
        status: DeliveryStatus,
        attempts: int,
        error: str | None,
    ) -> None:
        self.messages.update_delivery(
            delivery_record(envelope, subscription.id, subscription.type, status, attempts, error)
        )


def delivery_record(
    envelope: Envelope,
    subscription_id: str,
    subscription_type: SubscriptionType,
    status: DeliveryStatus,
    attempts: int,
    error: str | None,
    next_attempt_at: str | None = None,
) -> Delivery:
    """A destination's delivery record as of now."""
    return Delivery(
        message_id=envelope.message_id,
        tenant_id=envelope.tenant_id,
        subscription_id=subscription_id,
        subscription_type=subscription_type,
        status=status,
        attempts=attempts,
        last_error=error,
        next_attempt_at=next_attempt_at,
        updated_at=iso_timestamp(utc_now()),
    )
