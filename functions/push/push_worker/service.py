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
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from push_worker.flow import FlowControl, HeldBack
from push_worker.targets import Targets
from roomcast.dal.ports import Catalog, FlowGate, MessageRecords, Sender
from roomcast.dal.sender import Destinations, delay_seconds
from roomcast.dal.stores import Stores
from roomcast.delivery.endings import Endings
from roomcast.delivery.log import LogRecord, LogSink
from roomcast.domain import limits
from roomcast.domain.clock import iso_from_ms, now_iso, now_ms
from roomcast.domain.envelope import Envelope
from roomcast.domain.flow import held_back_delay_ms, paused_wait_ms
from roomcast.domain.messages import (
    TERMINAL_STATUSES,
    AttemptEvent,
    AttemptRecord,
    Delivery,
    DeliveryStatus,
)
from roomcast.domain.models import Room, Subscription, SubscriptionStatus, SubscriptionType
from roomcast.domain.outcomes import DeliveryOutcome
from roomcast.domain.policy import FailureOutcome, after_failure, effective_policy, is_expired
from roomcast.domain.push_urls import PushUrlPolicy, PushUrlRejected, PushUrlUnresolvable
from roomcast.errors import Conflict
from roomcast.observability import logger
from roomcast.webhooks.answers import AnswerClass, HttpResult, classify, is_gone
from roomcast.webhooks.http import post_webhook
from roomcast.webhooks.signing import webhook_headers

CLEARED = "cleared by Clear All"
DESTINATION_GONE = "the subscription or its room was deleted"
# A failure this soon after a success (seen by the same container) is kept unwritten; it starts a
# failing streak once failures with no success between have lasted STREAK_CONFIRM_MS (or the
# subscription's disableAfterFailingMs, when shorter).
HEALTHY_RECENTLY_MS = 60_000
STREAK_CONFIRM_MS = 5_000
_MAX_TRACKED_SUBSCRIPTIONS = 10_000


def _bounded(seen: dict[str, int]) -> dict[str, int]:
    """``seen``, emptied first when it has grown past what a container should keep."""
    if len(seen) >= _MAX_TRACKED_SUBSCRIPTIONS:
        seen.clear()
    return seen


# An envelope received up to this long before its due time is delivered (SQS delays are whole seconds).
DUE_TOLERANCE_MS = 1_000

PostWebhook = Callable[..., HttpResult]


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
    catalog: Catalog
    messages: MessageRecords
    endings: Endings
    sender: Sender
    destinations: Destinations
    log: LogSink
    push_url_policy: PushUrlPolicy
    flow_gate: FlowGate
    post: PostWebhook = post_webhook
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random
    targets: Targets = field(init=False)
    flow: FlowControl = field(init=False)
    # 'delivered' records of the current batch, written together before the batch is acknowledged:
    # a destination's first attempt ever in one batch of puts, any other (a retry, or a first
    # attempt again after a replay or a retry-now: its record has a history) appended to its
    # record's history one by one. Each with whether it is such a first attempt.
    _delivered: list[tuple[Delivery, bool]] = field(default_factory=list)
    _delivered_lock: threading.Lock = field(default_factory=threading.Lock)
    # What this container saw of each subscription's health (docs/decisions/0023-write-units.md):
    # its last success, and a failure that came soon after one, kept unwritten (subscription id ->
    # when) until another failure (the streak is written, from it) or a success (forgotten).
    _last_success: dict[str, int] = field(default_factory=dict)
    _unwritten_failure: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, stores: Stores, policy: PushUrlPolicy) -> PushService:
        st, endings = stores, Endings.of(stores)
        return cls(st.catalog, st.messages, endings, st.sender, st.destinations, st.log, policy, st.flow)

    def __post_init__(self) -> None:
        self.targets = Targets(self.catalog, self.clock)
        self.flow = FlowControl(self.flow_gate, self.clock)

    def prefetch(self, envelopes: list[Envelope]) -> None:
        self.targets.prefetch(envelopes)

    def flush_delivered(self) -> None:
        """Write the batch's 'delivered' records (one call per 25)."""
        with self._delivered_lock:
            delivered, self._delivered = self._delivered, []
        first_tries = [record for record, first in delivered if first]
        if first_tries:
            self.messages.record_delivered(first_tries)
        for later in (record for record, first in delivered if not first):
            self.messages.update_delivery(later)

    def deliver(self, envelope: Envelope) -> DeliveryOutcome:
        """Handle one envelope; returns what happened."""
        now = self.clock()
        if is_expired(now, envelope.expires_at_ms):
            self._record(envelope, DeliveryStatus.EXPIRED, envelope.attempt, "expired before delivery")
            self._log("expired", envelope)
            self.endings.expired(envelope, "expired before delivery")
            return DeliveryOutcome.EXPIRED
        if envelope.due_at_ms > now + DUE_TOLERANCE_MS:
            hop = envelope.hop(envelope.attempt)
            self.sender.send([self.destinations.push(hop, delay_seconds(hop.due_at_ms, now))])
            self._log("hop", envelope, next_delay_ms=envelope.due_at_ms - now)
            return DeliveryOutcome.HOP
        found = self.targets.of(envelope)
        if found is None:
            # Deleted since it was queued: the delivery ends (the deletion's sweep may have ended
            # it already; an ended record is never overwritten).
            self._record(envelope, DeliveryStatus.CLEARED, envelope.attempt, DESTINATION_GONE)
            self._log("cleared", envelope, error=DESTINATION_GONE)
            return DeliveryOutcome.CLEARED
        room, subscription = found
        if envelope.cleared_by(subscription.cleared_before_ms):
            self._record(envelope, DeliveryStatus.CLEARED, envelope.attempt, CLEARED)
            self._log("cleared", envelope)
            return DeliveryOutcome.CLEARED
        if envelope.attempt > 0 and self._superseded(envelope):
            return DeliveryOutcome.SUPERSEDED
        if subscription.status is SubscriptionStatus.DISABLED:
            return self.endings.dead_or_failover(
                envelope, subscription, "subscription is disabled", envelope.attempt, now
            )
        if subscription.status is SubscriptionStatus.PAUSED:
            return self._hold(envelope, paused_wait_ms(envelope.holds), "subscription is paused", now)
        admission = self.flow.admit(subscription)
        if isinstance(admission, HeldBack):
            wait_ms = held_back_delay_ms(admission.wait_ms, envelope.holds, self.random_fraction())
            return self._hold(envelope, wait_ms, f"held back by {admission.reason}", self.clock())
        try:
            return self._attempt(envelope, room, subscription, self.clock())
        finally:
            admission.release()

    def _superseded(self, envelope: Envelope) -> bool:
        """A retry whose record has moved on: finished meanwhile (a duplicate), or made due at
        another time by a retry-now. One read, for retries only (first attempts cost nothing)."""
        record = self.messages.get_delivery(envelope.tenant_id, envelope.message_id, envelope.subscription_id)
        if record is None:
            return False
        if record.status in TERMINAL_STATUSES:
            return True
        due = iso_from_ms(envelope.due_at_ms)
        return record.status is DeliveryStatus.RETRYING and record.next_attempt_at not in (None, due)

    def _hold(self, envelope: Envelope, wait_ms: int, reason: str, now: int) -> DeliveryOutcome:
        """Re-send the same attempt to wait (paused, or no room under flow control): not an
        attempt, never dead for it; a wait that would pass the expiry ends at the expiry."""
        if envelope.expires_at_ms is not None:
            wait_ms = max(0, min(wait_ms, envelope.expires_at_ms - now))
        due = now + wait_ms
        self.sender.send([self.destinations.push(envelope.held(), delay_seconds(due, now))])
        self._log("held", envelope, error=reason, next_delay_ms=wait_ms)
        return DeliveryOutcome.HELD

    def _post(self, envelope: Envelope, subscription: Subscription, now: int) -> HttpResult:
        body = webhook_body(envelope)
        secrets = [s.secret for s in subscription.signing_secrets if s.active(now)]
        headers = webhook_headers(envelope.message_id, now // 1000, body, secrets, envelope.correlation_id)
        try:
            return self.post(
                subscription.push_url or "",
                body,
                headers,
                subscription.timeout_ms or 10_000,
                self.push_url_policy,
            )
        except PushUrlUnresolvable as unresolved:
            # DNS may be down for a moment: a network error like any other, retried with backoff.
            return HttpResult(None, None, str(unresolved), 0, "")

    def _attempt(
        self, envelope: Envelope, room: Room, subscription: Subscription, now: int
    ) -> DeliveryOutcome:
        started_at = iso_from_ms(now)
        try:
            result = self._post(envelope, subscription, now)
        except PushUrlRejected as refused:
            reason = f"push URL refused: {refused}"
            self._log("attempt", envelope, error=reason)
            refused_attempt = AttemptRecord(envelope.attempt, AttemptEvent.POST, started_at, 0, error=reason)
            return self.endings.dead_or_failover(
                envelope, subscription, reason, envelope.attempt + 1, self.clock(), history=(refused_attempt,)
            )
        error = result.error or (f"HTTP {result.status}" if result.status and result.status >= 300 else None)
        tried = (
            AttemptRecord(
                envelope.attempt,
                AttemptEvent.POST,
                started_at,
                result.latency_ms,
                result.status,
                error,
                result.response_excerpt or None,
            ),
        )
        self._log("attempt", envelope, http_status=result.status, latency_ms=result.latency_ms, error=error)
        answer = classify(result.status)
        finished_at = self.clock()
        self._track_health(subscription, answer is AnswerClass.DELIVERED, finished_at)
        if answer is AnswerClass.DELIVERED:
            with self._delivered_lock:
                record = envelope.record(
                    SubscriptionType.PUSH, DeliveryStatus.DELIVERED, envelope.attempt + 1, history=tried
                )
                self._delivered.append((record, envelope.attempt == 0 and envelope.queued_at_ms == 0))
            self._log("delivered", envelope, http_status=result.status, latency_ms=result.latency_ms)
            return DeliveryOutcome.DELIVERED
        if answer is AnswerClass.PERMANENT:
            if is_gone(result.status):
                self._disable(subscription, "the endpoint answered 410 Gone")
            return self.endings.dead_or_failover(
                envelope,
                subscription,
                f"{error} (permanent)",
                envelope.attempt + 1,
                finished_at,
                history=tried,
            )
        step = after_failure(
            effective_policy(room, subscription),
            envelope.attempt,
            finished_at,
            envelope.expires_at_ms,
            retry_after_ms=result.retry_after_ms,
            random_fraction=self.random_fraction(),
        )
        if step.outcome is FailureOutcome.DEAD:
            return self.endings.dead_or_failover(
                envelope,
                subscription,
                f"{error}; attempts exhausted",
                envelope.attempt + 1,
                finished_at,
                history=tried,
            )
        if step.outcome is FailureOutcome.EXPIRED:
            self._record(
                envelope,
                DeliveryStatus.EXPIRED,
                envelope.attempt + 1,
                f"{error}; next attempt past expiry",
                history=tried,
            )
            self._log("expired", envelope, error=error)
            self.endings.expired(envelope, f"{error}; next attempt past expiry")
            return DeliveryOutcome.EXPIRED
        due = step.due_at_ms or finished_at
        retry = envelope.next_attempt(step.next_attempt, step.delay_ms, due)
        self.sender.send([self.destinations.push(retry, delay_seconds(due, finished_at))])
        self._record(envelope, DeliveryStatus.RETRYING, envelope.attempt + 1, error, iso_from_ms(due), tried)
        self._log(
            "retry_scheduled", envelope, http_status=result.status, error=error, next_delay_ms=step.delay_ms
        )
        return DeliveryOutcome.RETRY

    def _log(self, event: str, envelope: Envelope, **details: int | str | None) -> None:
        """A delivery-log record of this envelope's current attempt."""
        self.log.add(LogRecord.about(envelope, event, "PUSH", attempt=envelope.attempt, **details))

    def _track_health(self, subscription: Subscription, succeeded: bool, now: int) -> None:
        """Auto-disable: a failing streak starts at a failed attempt after a success and ends with
        the next success; a streak as long as ``disableAfterFailingMs`` disables the subscription.

        Writes only when a streak starts or ends (the subscription, read for the batch anyway, says
        whether one is running): a healthy endpoint costs nothing. A failure soon after a success
        this container saw is written only once this container's attempts have kept failing for
        STREAK_CONFIRM_MS (the streak then starts at the first failure): an endpoint that fails
        now and then, even twice in a row, costs nothing either."""
        since = subscription.failing_since_ms
        allowed_ms = subscription.disable_after_failing_ms or limits.DEFAULT_DISABLE_AFTER_FAILING_MS
        if succeeded:
            with self._delivered_lock:
                _bounded(self._last_success)[subscription.id] = now
                self._unwritten_failure.pop(subscription.id, None)
            if since is not None:
                self.catalog.clear_failing(subscription)
                self.targets.remember(replace(subscription, failing_since_ms=None))
            return
        if since is None:
            with self._delivered_lock:
                first = self._unwritten_failure.get(subscription.id)
                if first is not None and now - first >= HEALTHY_RECENTLY_MS:
                    first = None  # too long ago to be sure nothing succeeded since, elsewhere
                last_success = self._last_success.get(subscription.id)
                recent_success = last_success is not None and now - last_success < HEALTHY_RECENTLY_MS
                if first is None and recent_success:
                    _bounded(self._unwritten_failure)[subscription.id] = now
                    return
                if first is not None and now - first < min(STREAK_CONFIRM_MS, allowed_ms):
                    return  # failing in a row, not for long yet
                self._unwritten_failure.pop(subscription.id, None)
            since = self.catalog.mark_failing(subscription, now if first is None else first)
            self.targets.remember(replace(subscription, failing_since_ms=since))
        if now - since >= allowed_ms and subscription.status is not SubscriptionStatus.DISABLED:
            self._disable(
                subscription,
                f"every attempt failed for {now - since} ms (since {iso_from_ms(since)}); "
                f"disableAfterFailingMs is {allowed_ms}",
            )

    def _disable(self, subscription: Subscription, reason: str) -> None:
        """Nothing more is routed to this subscription until someone re-enables it; the room's
        operations room hears of it."""
        updated = replace(
            subscription,
            status=SubscriptionStatus.DISABLED,
            disabled_reason=reason,
            disabled_at=now_iso(),
            updated_at=now_iso(),
        )
        try:
            self.catalog.replace_subscription(updated, expected_updated_at=subscription.updated_at)
        except Conflict:  # changed meanwhile: the next failure decides again
            logger.warning("could not disable subscription", extra={"subscriptionId": subscription.id})
            self.targets.forget(subscription)
            return
        self.targets.forget(subscription)
        if self.endings.events is not None:
            self.endings.events.subscription_disabled(
                subscription.tenant_id, subscription.room_id, subscription.id, reason
            )

    def _record(
        self,
        envelope: Envelope,
        status: DeliveryStatus,
        attempts: int,
        error: str | None,
        next_at: str | None = None,
        history: tuple[AttemptRecord, ...] = (),
    ) -> None:
        self.messages.update_delivery(
            envelope.record(SubscriptionType.PUSH, status, attempts, error, next_at, history)
        )
