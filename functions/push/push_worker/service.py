"""One webhook delivery: expiry, hops, the signed POST, and what each outcome leads to.

Per envelope (DESIGN.md, "Exponential backoff retry"):
- expired → recorded ``expired``, dropped;
- not yet due → re-sent with ``DelaySeconds = min(900, remaining)``: a hop, not an attempt;
- otherwise POST the webhook: 2xx delivered; network error, timeout, 3xx, 408, 425, 429, 5xx
  retried after the backoff delay (or expired when that falls past the expiry, or dead/failover
  after the last attempt); any other 4xx dead at once (410 also disables the subscription).
Every send happens before the SQS message is acknowledged (the function returning), so a crash
anywhere repeats work — a duplicate webhook at worst — and never loses the message.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from roomcast.dal.messages import MessageStore
from roomcast.dal.repository import Repository
from roomcast.dal.sender import EnvelopeSender, delay_seconds
from roomcast.delivery.endings import Endings, delivery_record
from roomcast.delivery.log import DeliveryLog, LogRecord, log_record_fields
from roomcast.domain.clock import iso_timestamp, utc_now
from roomcast.domain.envelope import Envelope
from roomcast.domain.messages import Delivery, DeliveryStatus
from roomcast.domain.models import Room, Subscription, SubscriptionStatus, SubscriptionType
from roomcast.domain.policy import Outcome, after_failure, effective_policy, is_expired
from roomcast.domain.push_urls import PushUrlPolicy, PushUrlRejected, PushUrlUnresolvable
from roomcast.errors import NotFound
from roomcast.observability import logger
from roomcast.webhooks.http import HttpResult, classify, is_gone, post_webhook
from roomcast.webhooks.signing import webhook_headers

# An envelope received up to this long before its due time is delivered (SQS delays are whole seconds).
DUE_TOLERANCE_MS = 1_000
SUBSCRIPTION_CACHE_MS = 5_000

PostWebhook = Callable[..., HttpResult]


def now_ms() -> int:
    return int(time.time() * 1000)


def _iso(epoch_ms: int) -> str:
    return iso_timestamp(datetime.fromtimestamp(epoch_ms / 1000, UTC))


def webhook_body(envelope: Envelope) -> bytes:
    return json.dumps(
        {
            "messageId": envelope.message_id,
            "roomId": envelope.room_id,
            "subscriptionId": envelope.subscription_id,
            "eventType": envelope.event_type,
            "eventVersion": envelope.event_version,
            "correlationId": envelope.correlation_id,
            "publishedAt": envelope.published_at,
            "attempt": envelope.attempt,
            "payload": envelope.payload,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")


@dataclass
class PushService:
    repository: Repository
    messages: MessageStore
    endings: Endings
    sender: EnvelopeSender
    log: DeliveryLog
    push_url_policy: PushUrlPolicy
    post: PostWebhook = post_webhook
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random
    _cache: dict[tuple[str, str, str], tuple[int, object]] = field(default_factory=dict)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock)
    # 'delivered' records of the current batch, written together before the batch is acknowledged.
    _delivered: list[Delivery] = field(default_factory=list)

    def prefetch(self, envelopes: list[Envelope]) -> None:
        """Read the rooms and subscriptions of a batch in one call, fresh for every batch: a PATCH
        or a secret rotation applies from the next batch on."""
        now = self.clock()
        wanted = list(dict.fromkeys((e.tenant_id, e.room_id, e.subscription_id) for e in envelopes))
        if not wanted:
            return
        rooms, subscriptions = self.repository.rooms_and_subscriptions(wanted)
        with self._cache_lock:
            for tenant_id, room_id, subscription_id in wanted:
                self._cache[("room", tenant_id, room_id)] = (now, rooms.get((tenant_id, room_id)))
                self._cache[("subscription", tenant_id, subscription_id)] = (
                    now,
                    subscriptions.get((tenant_id, room_id, subscription_id)),
                )

    def flush_delivered(self) -> None:
        """Write the batch's 'delivered' records (one call per 25)."""
        with self._cache_lock:
            delivered, self._delivered = self._delivered, []
        if delivered:
            self.messages.record_delivered(delivered)

    def deliver(self, envelope: Envelope) -> str:
        """Handle one envelope; returns what happened (delivered, retry, hop, dead, ...)."""
        now = self.clock()
        if is_expired(now, envelope.expires_at_ms):
            self._record(envelope, DeliveryStatus.EXPIRED, envelope.attempt, "expired before delivery")
            self._log("expired", envelope)
            return "expired"
        if envelope.due_at_ms > now + DUE_TOLERANCE_MS:
            hop = envelope.hop(envelope.attempt)
            self.sender.send([self.endings.push_outgoing(hop, delay_seconds(hop.due_at_ms, now))])
            self._log("hop", envelope, next_delay_ms=envelope.due_at_ms - now)
            return "hop"
        found = self._target(envelope)
        if found is None:
            logger.warning(
                "subscription or room is gone; message dropped", extra={"messageId": envelope.message_id}
            )
            return "dropped"
        room, subscription = found
        if subscription.status is SubscriptionStatus.DISABLED:
            return self.endings.dead_or_failover(
                envelope, subscription, "subscription is disabled", envelope.attempt, now
            )
        return self._attempt(envelope, room, subscription, now)

    def _attempt(self, envelope: Envelope, room: Room, subscription: Subscription, now: int) -> str:
        policy = effective_policy(room, subscription)
        body = webhook_body(envelope)
        secrets = [s.secret for s in subscription.signing_secrets if s.active(now)]
        headers = webhook_headers(envelope.message_id, now // 1000, body, secrets, envelope.correlation_id)
        try:
            result = self.post(
                subscription.push_url or "",
                body,
                headers,
                subscription.timeout_ms or 10_000,
                self.push_url_policy,
            )
        except PushUrlUnresolvable as unresolved:
            # DNS may be down for a moment: a network error like any other, retried with backoff.
            result = HttpResult(
                status=None, retry_after_ms=None, error=str(unresolved), latency_ms=0, response_excerpt=""
            )
        except PushUrlRejected as refused:
            result = HttpResult(
                status=None,
                retry_after_ms=None,
                error=f"push URL refused: {refused}",
                latency_ms=0,
                response_excerpt="",
            )
            self._log("attempt", envelope, error=result.error)
            return self.endings.dead_or_failover(
                envelope, subscription, result.error or "", envelope.attempt + 1, self.clock()
            )
        error = result.error or (f"HTTP {result.status}" if result.status and result.status >= 300 else None)
        self._log("attempt", envelope, http_status=result.status, latency_ms=result.latency_ms, error=error)
        outcome = classify(result.status)
        finished_at = self.clock()
        if outcome == "delivered":
            with self._cache_lock:
                self._delivered.append(
                    self._delivery(envelope, DeliveryStatus.DELIVERED, envelope.attempt + 1, None, None)
                )
            self._log("delivered", envelope, http_status=result.status, latency_ms=result.latency_ms)
            return "delivered"
        if outcome == "permanent":
            if is_gone(result.status):
                self._disable(subscription)
            return self.endings.dead_or_failover(
                envelope, subscription, f"{error} (permanent)", envelope.attempt + 1, finished_at
            )
        step = after_failure(
            policy,
            envelope.attempt,
            finished_at,
            envelope.expires_at_ms,
            retry_after_ms=result.retry_after_ms,
            random_fraction=self.random_fraction(),
        )
        if step.outcome is Outcome.DEAD:
            return self.endings.dead_or_failover(
                envelope, subscription, f"{error}; attempts exhausted", envelope.attempt + 1, finished_at
            )
        if step.outcome is Outcome.EXPIRED:
            self._record(
                envelope, DeliveryStatus.EXPIRED, envelope.attempt + 1, f"{error}; next attempt past expiry"
            )
            self._log("expired", envelope, error=error)
            return "expired"
        due = step.due_at_ms or finished_at
        retry = envelope.next_attempt(step.next_attempt, step.delay_ms, due)
        self.sender.send([self.endings.push_outgoing(retry, delay_seconds(due, finished_at))])
        self._record(envelope, DeliveryStatus.RETRYING, envelope.attempt + 1, error, _iso(due))
        self._log(
            "retry_scheduled", envelope, http_status=result.status, error=error, next_delay_ms=step.delay_ms
        )
        return "retry"

    def _log(self, event: str, envelope: Envelope, **extra: Any) -> None:
        """A delivery-log record of this envelope's current attempt."""
        self.log.add(
            LogRecord(
                event=event,
                subscription_type="PUSH",
                attempt=envelope.attempt,
                **log_record_fields(envelope),
                **extra,
            )
        )

    def _target(self, envelope: Envelope) -> tuple[Room, Subscription] | None:
        """The room and subscription, read at most every few seconds per container (a batch's
        deliveries to one room read the room once)."""
        room = self._cached(("room", envelope.tenant_id, envelope.room_id), self._read_room, envelope)
        subscription = self._cached(
            ("subscription", envelope.tenant_id, envelope.subscription_id), self._read_subscription, envelope
        )
        if not isinstance(room, Room) or not isinstance(subscription, Subscription):
            return None
        return room, subscription

    def _cached(
        self, key: tuple[str, str, str], read: Callable[[Envelope], object], envelope: Envelope
    ) -> object:
        now = self.clock()
        with self._cache_lock:
            cached = self._cache.get(key)
        if cached is not None and now - cached[0] < SUBSCRIPTION_CACHE_MS:
            return cached[1]
        value = read(envelope)
        with self._cache_lock:
            self._cache[key] = (now, value)
        return value

    def _read_room(self, envelope: Envelope) -> Room | None:
        try:
            return self.repository.get_room(envelope.tenant_id, envelope.room_id)
        except NotFound:
            return None

    def _read_subscription(self, envelope: Envelope) -> Subscription | None:
        try:
            return self.repository.get_subscription(
                envelope.tenant_id, envelope.room_id, envelope.subscription_id
            )
        except NotFound:
            return None

    def _disable(self, subscription: Subscription) -> None:
        """410 Gone: nothing more is routed to this subscription until someone re-enables it."""
        updated = replace(
            subscription, status=SubscriptionStatus.DISABLED, updated_at=iso_timestamp(utc_now())
        )
        try:
            self.repository.replace_subscription(updated, expected_updated_at=subscription.updated_at)
        except Exception:  # changed meanwhile: the next 410 disables it
            logger.warning(
                "could not disable subscription after 410", extra={"subscriptionId": subscription.id}
            )
        with self._cache_lock:
            self._cache.pop(("subscription", subscription.tenant_id, subscription.id), None)

    def _record(
        self,
        envelope: Envelope,
        status: DeliveryStatus,
        attempts: int,
        error: str | None,
        next_at: str | None = None,
    ) -> None:
        self.messages.update_delivery(self._delivery(envelope, status, attempts, error, next_at))

    @staticmethod
    def _delivery(
        envelope: Envelope, status: DeliveryStatus, attempts: int, error: str | None, next_at: str | None
    ) -> Delivery:
        return delivery_record(
            envelope, envelope.subscription_id, SubscriptionType.PUSH, status, attempts, error, next_at
        )
