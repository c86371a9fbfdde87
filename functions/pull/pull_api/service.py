"""PULL delivery: hand out due messages, ack, nack with backoff, ack-wait timeouts, dead letters, expiry.

Attempts: a message's attempt is ``envelope.attempt + ApproximateReceiveCount - 1``; every
receive after the first (a nack's delay, or an ack wait that ran out) is one more attempt.
Waits longer than SQS allows (12 h of visibility) re-send the message with the remaining delay.
Order everywhere: send first, delete second, record third — a crash duplicates, never loses.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from roomcast.dal.messages import MessageStore
from roomcast.dal.queues import QueueClient, Received, visibility_seconds
from roomcast.dal.repository import Repository
from roomcast.dal.sender import SQS_MAX_VISIBILITY_SECONDS, EnvelopeSender, Outgoing, delay_seconds
from roomcast.delivery.endings import Endings
from roomcast.delivery.log import DeliveryLog, LogRecord, log_record_fields
from roomcast.domain.clock import iso_timestamp, utc_now
from roomcast.domain.envelope import Envelope, EnvelopeError, first_envelope
from roomcast.domain.messages import Delivery, DeliveryStatus
from roomcast.domain.models import Subscription, SubscriptionType
from roomcast.domain.policy import DeliveryPolicy, Outcome, after_failure, effective_policy, is_expired
from roomcast.domain.receipts import Receipt, decode_receipt
from roomcast.errors import Conflict
from roomcast.observability import logger

# A message received this close to its due time is handed out (SQS delays are whole seconds).
DUE_TOLERANCE_MS = 1_000
ACK_WAIT_EXPIRED = "not acknowledged within ackWaitMs"


def now_ms() -> int:
    return int(time.time() * 1000)


def _iso(epoch_ms: int) -> str:
    from datetime import UTC, datetime

    return iso_timestamp(datetime.fromtimestamp(epoch_ms / 1000, UTC))


@dataclass
class _Plan:
    """What one batch of work will do, applied in the safe order by ``PullService._apply``."""

    queue_url: str
    target: _Target
    outgoing: list[Outgoing] = field(default_factory=list)
    # Destinations that end here: (envelope as it ends, reason, attempts made) → failover or dead letter.
    endings: list[tuple[Envelope, str, int]] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    records: list[Delivery] = field(default_factory=list)
    # Written only over a record with fewer attempts: a nack's own record (reason, next attempt) stays.
    ack_timeouts: list[Delivery] = field(default_factory=list)


@dataclass(frozen=True)
class _Target:
    """A PULL subscription with its effective policy and queues."""

    subscription: Subscription
    policy: DeliveryPolicy
    queue_url: str
    dead_letter_queue_url: str


@dataclass
class PullService:
    repository: Repository
    messages: MessageStore
    queues: QueueClient
    sender: EnvelopeSender
    endings: Endings
    log: DeliveryLog
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random

    def _target(self, tenant_id: str, room_id: str, subscription_id: str) -> _Target:
        room = self.repository.get_room(tenant_id, room_id)
        subscription = self.repository.get_subscription(tenant_id, room_id, subscription_id)
        if subscription.type is not SubscriptionType.PULL or not subscription.queue_url:
            raise Conflict(
                f"subscription {subscription_id} is {subscription.type.value}; only PULL ones are pulled"
            )
        return _Target(
            subscription=subscription,
            policy=effective_policy(room, subscription),
            queue_url=subscription.queue_url,
            dead_letter_queue_url=subscription.dead_letter_queue_url or "",
        )

    # -- pull -------------------------------------------------------------------------------------

    def pull(
        self, tenant_id: str, room_id: str, subscription_id: str, max_messages: int, wait_seconds: int
    ) -> list[dict[str, Any]]:
        target = self._target(tenant_id, room_id, subscription_id)
        visibility = visibility_seconds(target.subscription.ack_wait_ms or 0)
        deadline = time.monotonic() + wait_seconds
        handed: list[dict[str, Any]] = []
        while True:
            wait = max(0, round(deadline - time.monotonic()))
            received = self.queues.receive(target.queue_url, max_messages - len(handed), wait, visibility)
            plan = _Plan(target.queue_url, target)
            for message in received:
                view = self._classify(message, target, plan)
                if view is not None:
                    handed.append(view)
            self._apply(plan)
            if handed or not received or time.monotonic() >= deadline:
                return handed

    def _classify(self, received: Received, target: _Target, plan: _Plan) -> dict[str, Any] | None:
        """Hand the message out (returned), or plan its hop, dead letter or expiry (None)."""
        now = self.clock()
        try:
            envelope = Envelope.from_json(received.body)
        except EnvelopeError:
            logger.error(
                "not a roomcast envelope; moved to the dead-letter queue", extra={"queue": plan.queue_url}
            )
            plan.outgoing.append(Outgoing(target.dead_letter_queue_url, received.body))
            plan.delete.append(received.handle)
            return None
        attempt = envelope.attempt + received.receive_count - 1
        if is_expired(now, envelope.expires_at_ms):
            plan.delete.append(received.handle)
            plan.records.append(
                _envelope_record(envelope, DeliveryStatus.EXPIRED, attempt, "expired before delivery")
            )
            self._log("expired", envelope, attempt=attempt)
            return None
        if envelope.due_at_ms > now + DUE_TOLERANCE_MS:
            # Not due yet (a wait longer than SQS can hold): send it on with the remaining delay.
            hop = envelope.hop(attempt)
            plan.outgoing.append(Outgoing(plan.queue_url, hop, delay_seconds(hop.due_at_ms, now)))
            plan.delete.append(received.handle)
            self._log("hop", envelope, attempt=attempt, next_delay_ms=envelope.due_at_ms - now)
            return None
        if attempt > target.policy.delivery_attempts:
            last = replace(envelope, attempt=attempt - 1)
            plan.endings.append((last, f"{ACK_WAIT_EXPIRED}; attempts exhausted", attempt))
            plan.delete.append(received.handle)
            return None
        if received.receive_count > 1:
            # The previous hand-out was neither acked nor nacked in time: that attempt failed.
            plan.ack_timeouts.append(
                _envelope_record(envelope, DeliveryStatus.RETRYING, attempt, ACK_WAIT_EXPIRED)
            )
        receipt = Receipt(
            target.subscription.id,
            envelope.message_id,
            attempt,
            received.handle,
            envelope.expires_at_ms,
            envelope.correlation_id,
            envelope.room_id,
            envelope.published_at,
        )
        self._log("attempt", envelope, attempt=attempt)
        return {
            "receipt": receipt.encode(),
            "messageId": envelope.message_id,
            "correlationId": envelope.correlation_id,
            "eventType": envelope.event_type,
            "eventVersion": envelope.event_version,
            "payload": envelope.payload,
            "attempt": attempt,
            "publishedAt": envelope.published_at,
        }

    def _apply(self, plan: _Plan) -> None:
        if plan.outgoing:
            self.sender.send(plan.outgoing)
        for envelope, reason, attempts in plan.endings:
            self.endings.dead_or_failover(
                envelope,
                plan.target.subscription,
                reason,
                attempts,
                self.clock(),
                dead_letter_copy=Outgoing(plan.target.dead_letter_queue_url, envelope),
            )
        if plan.delete:
            self.queues.delete(plan.queue_url, plan.delete)
        for record in plan.records:
            self.messages.update_delivery(record)
        for record in plan.ack_timeouts:
            self.messages.update_delivery(record, only_if_attempts_below=record.attempts)

    def _log(self, event: str, envelope: Envelope, **extra: Any) -> None:
        self.log.add(LogRecord(event=event, subscription_type="PULL", **log_record_fields(envelope), **extra))

    def _log_receipt(self, event: str, tenant_id: str, receipt: Receipt, **extra: Any) -> None:
        self.log.add(
            LogRecord(
                event=event,
                message_id=receipt.message_id,
                correlation_id=receipt.correlation_id,
                tenant_id=tenant_id,
                room_id=receipt.room_id,
                subscription_id=receipt.subscription_id,
                subscription_type="PULL",
                attempt=receipt.attempt,
                published_at=receipt.published_at or None,
                **extra,
            )
        )

    # -- ack / nack -------------------------------------------------------------------------------

    def _receipts(self, subscription_id: str, tokens: list[str]) -> dict[str, Receipt]:
        """Every token decoded (400 at the first bad one, before anything changes), duplicates merged."""
        return {token: decode_receipt(token, subscription_id, index) for index, token in enumerate(tokens)}

    def ack(self, tenant_id: str, room_id: str, subscription_id: str, tokens: list[str]) -> dict[str, Any]:
        target = self._target(tenant_id, room_id, subscription_id)
        receipts = self._receipts(subscription_id, tokens)
        failed = self.queues.delete(target.queue_url, [r.handle for r in receipts.values()])
        acked = [(t, r) for t, r in receipts.items() if r.handle not in failed]
        # Conditional writes: an ack that comes after the message ended dead or expired changes nothing.
        records = [
            _record(
                tenant_id, subscription_id, r.message_id, DeliveryStatus.DELIVERED, r.attempt + 1, None, None
            )
            for _, r in acked
        ]
        if records:
            with ThreadPoolExecutor(max_workers=min(len(records), 10)) as pool:
                list(pool.map(self.messages.update_delivery, records))
        for _, receipt in acked:
            self._log_receipt("delivered", tenant_id, receipt)
        return {
            "acked": [r.message_id for _, r in acked],
            "failed": [
                {"receipt": t, "messageId": r.message_id, "error": failed[r.handle]}
                for t, r in receipts.items()
                if r.handle in failed
            ],
        }

    def nack(self, tenant_id: str, room_id: str, subscription_id: str, tokens: list[str]) -> dict[str, Any]:
        target = self._target(tenant_id, room_id, subscription_id)
        receipts = self._receipts(subscription_id, tokens)
        now = self.clock()
        steps = {
            token: after_failure(
                target.policy, r.attempt, now, r.expires_at_ms, random_fraction=self.random_fraction()
            )
            for token, r in receipts.items()
        }
        # Within SQS's visibility limit a nack just hides the message for the delay; longer waits and
        # dead letters need the whole envelope, rebuilt from the stored message.
        hide = {
            t: s
            for t, s in steps.items()
            if s.outcome is Outcome.RETRY and s.delay_ms <= SQS_MAX_VISIBILITY_SECONDS * 1000
        }
        needs_envelope = [
            t
            for t, s in steps.items()
            if (s.outcome is Outcome.RETRY and t not in hide) or s.outcome is Outcome.DEAD
        ]
        stored = self.messages.get_messages(tenant_id, [receipts[t].message_id for t in needs_envelope])
        # Hiding also proves a handle is current: one SQS refuses is reported and nothing else
        # happens to it (no dead-letter copy, no record). Messages about to end dead or expired
        # are hidden for their ack wait, which changes nothing but proves the same.
        ack_wait_seconds = visibility_seconds(target.subscription.ack_wait_ms or 0)
        failed = self.queues.hide(
            target.queue_url,
            [
                (receipts[t].handle, -(-s.delay_ms // 1000) if t in hide else ack_wait_seconds)
                for t, s in steps.items()
                if t in hide or s.outcome is not Outcome.RETRY
            ],
        )
        plan = _Plan(target.queue_url, target)
        outcomes: list[dict[str, Any]] = []
        for token, step in steps.items():
            receipt = receipts[token]
            if receipt.handle in failed:
                continue
            message = stored.get(receipt.message_id)
            if token in needs_envelope and message is None:
                failed[receipt.handle] = "message record no longer exists"
                continue
            envelope = first_envelope(message, subscription_id) if message else None
            error = "nacked by the consumer"
            if step.outcome is Outcome.RETRY:
                due = step.due_at_ms or now
                if token not in hide and envelope is not None:
                    resent = envelope.next_attempt(step.next_attempt, step.delay_ms, due)
                    plan.outgoing.append(Outgoing(target.queue_url, resent, delay_seconds(due, now)))
                    plan.delete.append(receipt.handle)
                plan.records.append(
                    _receipt_record(tenant_id, receipt, DeliveryStatus.RETRYING, error, _iso(due))
                )
                self._log_receipt(
                    "retry_scheduled", tenant_id, receipt, error=error, next_delay_ms=step.delay_ms
                )
                outcomes.append(
                    {"messageId": receipt.message_id, "outcome": "retry", "nextAttemptAt": _iso(due)}
                )
            elif step.outcome is Outcome.DEAD:
                assert envelope is not None
                dead = envelope.next_attempt(receipt.attempt, 0, now)
                plan.endings.append((dead, f"{error}; attempts exhausted", receipt.attempt + 1))
                plan.delete.append(receipt.handle)
                outcomes.append({"messageId": receipt.message_id, "outcome": "dead"})
            else:
                plan.delete.append(receipt.handle)
                plan.records.append(
                    _receipt_record(
                        tenant_id, receipt, DeliveryStatus.EXPIRED, "next attempt past expiry", None
                    )
                )
                self._log_receipt("expired", tenant_id, receipt, error=error)
                outcomes.append({"messageId": receipt.message_id, "outcome": "expired"})
        self._apply(plan)
        return {
            "nacked": outcomes,
            "failed": [
                {"receipt": t, "messageId": r.message_id, "error": failed[r.handle]}
                for t, r in receipts.items()
                if r.handle in failed
            ],
        }


def _record(
    tenant_id: str,
    subscription_id: str,
    message_id: str,
    status: DeliveryStatus,
    attempts: int,
    error: str | None,
    next_attempt_at: str | None,
) -> Delivery:
    return Delivery(
        message_id=message_id,
        tenant_id=tenant_id,
        subscription_id=subscription_id,
        subscription_type=SubscriptionType.PULL,
        status=status,
        attempts=attempts,
        last_error=error,
        next_attempt_at=next_attempt_at,
        updated_at=iso_timestamp(utc_now()),
    )


def _envelope_record(envelope: Envelope, status: DeliveryStatus, attempts: int, error: str) -> Delivery:
    return _record(
        envelope.tenant_id, envelope.subscription_id, envelope.message_id, status, attempts, error, None
    )


def _receipt_record(
    tenant_id: str, receipt: Receipt, status: DeliveryStatus, error: str, next_attempt_at: str | None
) -> Delivery:
    attempts = receipt.attempt + 1
    return _record(
        tenant_id, receipt.subscription_id, receipt.message_id, status, attempts, error, next_attempt_at
    )
