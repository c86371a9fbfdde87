"""What pulls, acks and nacks share: the subscription they work on, a plan of sends, endings,
deletes and records, and the order it is applied in (sends and endings first, final records
second, deletes third — a crash duplicates, never loses)."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from roomcast.catalog import (
    Catalog,
    DeliveryPolicy,
    NextStep,
    Subscription,
    SubscriptionType,
    after_failure,
    effective_policy,
)
from roomcast.endings import Endings
from roomcast.log import Detail, LogEvent, LogRecord, LogSink
from roomcast.messages import Delivery, Envelope, MessageRecords, Outgoing, Sender
from roomcast.platform import Conflict, NotFound, now_ms
from roomcast.pull import PullQueue, Receipt, ReceiptSigner

_LOG_SENDS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="log-send")


@dataclass(frozen=True)
class PullSubscription:
    """A PULL subscription with its effective policy and queues."""

    subscription: Subscription
    policy: DeliveryPolicy
    queue_url: str
    dead_letter_queue_url: str


@dataclass
class Plan:
    """What one batch of work will do, applied in the safe order by ``PullWork.apply``."""

    destination: PullSubscription
    outgoing: list[Outgoing] = field(default_factory=list)
    # QueueAddresses that end here: (envelope as it ends, reason, attempts made) → failover or dead letter.
    endings: list[tuple[Envelope, str, int]] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    records: list[Delivery] = field(default_factory=list)
    # Written only over a record with fewer attempts: a nack's own record (reason, next attempt) stays.
    ack_timeouts: list[Delivery] = field(default_factory=list)


@dataclass
class PullWork:
    catalog: Catalog
    messages: MessageRecords
    queues: PullQueue
    sender: Sender
    endings: Endings
    log: LogSink
    signer: ReceiptSigner
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random
    # Sends the log records added so far (the function's DeliveryLog.flush); None: the handler's
    # flush at the end of the invocation sends them.
    send_log: Callable[[], object] | None = None

    def destination(self, tenant_id: str, room_id: str, subscription_id: str) -> PullSubscription:
        """The subscription as it is now, read before anything changes: one strongly consistent
        GetItem of the room, whose subscriptions version says whether this container's copy of
        the room's subscriptions still holds (ADR 0021's cache, as a publish reads them)."""
        room, subscriptions = self.catalog.routing_view(tenant_id, room_id)
        subscription = next((s for s in subscriptions if s.id == subscription_id), None)
        if subscription is None:
            raise NotFound(f"subscription {subscription_id[:80]} not found in room {room_id}")
        if subscription.type is not SubscriptionType.PULL or not subscription.queue_url:
            raise Conflict(
                f"subscription {subscription_id} is {subscription.type.value}; only PULL ones are pulled"
            )
        return PullSubscription(
            subscription=subscription,
            policy=effective_policy(room, subscription),
            queue_url=subscription.queue_url,
            dead_letter_queue_url=subscription.dead_letter_queue_url or "",
        )

    def apply(self, plan: Plan) -> None:
        """Sends, endings and final records before the deletes: a crash before a delete brings
        the message back (its ending repeated: a duplicate), never leaves a record open with its
        message gone. Ack-wait timeouts last: their messages are handed out again, not deleted."""
        if plan.outgoing:
            self.sender.send(plan.outgoing)
        for envelope, reason, attempts in plan.endings:
            ending = self.endings.plan(
                envelope,
                plan.destination.subscription,
                reason,
                attempts,
                self.clock(),
                dead_letter_queue_url=plan.destination.dead_letter_queue_url,
            )
            self.endings.hand_over(ending)
            for ended in ending.records:
                self.messages.update_delivery(ended)
            self.endings.report(ending)
        for record in plan.records:
            self.messages.update_delivery(record)
        if plan.delete:
            self.queues.delete(plan.destination.queue_url, plan.delete)
        for record in plan.ack_timeouts:
            self.messages.update_delivery(record, only_if_attempts_below=record.attempts)

    def delete_while_logging(self, queue_url: str, handles: list[str]) -> dict[str, str]:
        """Delete ``handles`` from the queue while the log records added so far are sent: one wait
        for both (the records say what is already written, whatever the delete answers)."""
        if self.send_log is None:
            return self.queues.delete(queue_url, handles)
        sent = _LOG_SENDS.submit(self.send_log)
        try:
            return self.queues.delete(queue_url, handles)
        finally:
            sent.result()

    def next_step(self, policy: DeliveryPolicy, receipt: Receipt, now_ms: int) -> NextStep:
        """What follows the failure (a nack) of the receipt's attempt."""
        return after_failure(
            policy, receipt.attempt, now_ms, receipt.expires_at_ms, random_fraction=self.random_fraction()
        )

    def log_envelope(self, event: LogEvent, envelope: Envelope, **details: Detail) -> None:
        self.log.add(LogRecord.about(envelope, event, SubscriptionType.PULL, **details))

    def log_receipt(self, event: LogEvent, tenant_id: str, receipt: Receipt, **details: Detail) -> None:
        """A log record of ``event`` for the attempt this receipt was handed out for."""
        self.log.add(
            LogRecord.about(
                receipt, event, SubscriptionType.PULL, tenant_id, attempt=receipt.attempt, **details
            )
        )
