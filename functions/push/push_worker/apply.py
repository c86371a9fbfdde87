"""Where a push delivery's plan (push_worker.plans) is carried out, and its status written: the
only module of the push function that writes a delivery's record.

Each plan sends first (a hop, a hold, a retry, a failover) and records second, so a crash in
between repeats the work — a duplicate webhook at worst — and never loses the message. A batch's
``delivered`` records, and the ``retrying`` records of first attempts (their retries already
sent), are written together by ``finish_batch`` before the batch is acknowledged
(docs/decisions/0013-push-batch-bookkeeping.md, docs/decisions/0023-write-units.md): destinations'
first attempts ever together (roomcast.messages.first_tries), any other delivered one (its record has a
history) appended to its record one by one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from push_worker.health import EndpointHealth
from push_worker.long_waits import LongWaits
from push_worker.plans import (
    DESTINATION_GONE,
    RECEIVER_DISABLED,
    Abort,
    Clear,
    Deliver,
    End,
    Expire,
    Filter,
    History,
    Hold,
    Hop,
    Plan,
    RetryAt,
    Skip,
    TakeOver,
    ToSlowLane,
)
from roomcast.catalog import Lane, SubscriptionType
from roomcast.endings import Endings
from roomcast.log import DeliveryOutcome, Detail, LogEvent, LogRecord, LogSink
from roomcast.messages import (
    Attempt,
    Delivery,
    DeliveryStatus,
    Envelope,
    MessageRecords,
    QueueAddresses,
    Sender,
    delay_seconds,
)
from roomcast.platform import iso_from_ms, now_ms

PUSH = SubscriptionType.PUSH


@dataclass
class PushApply:
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    endings: Endings
    health: EndpointHealth
    log: LogSink
    clock: Callable[[], int] = now_ms
    # Retry waits past the crossover on a schedule (LongRetriesOnScheduler); None: SQS delays only.
    long_waits: LongWaits | None = None
    # The records finish_batch writes: 'delivered' ones, each with whether it is its destination's
    # first attempt ever, and first attempts' 'retrying' ones.
    _batched: list[tuple[Delivery, bool]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, envelope: Envelope, plan: Plan, lane: Lane = Lane.FAST) -> DeliveryOutcome:
        """Carry out ``plan``; what is re-sent (a retry, a hop, a hold) stays in ``lane``."""
        match plan:
            case Deliver():
                return self._deliver(envelope, plan)
            case Abort():
                self._log_attempt(envelope, plan.attempt)
                self._record(
                    envelope, DeliveryStatus.ABORTED, plan.attempts, plan.reason, history=plan.history
                )
                self._log(LogEvent.ABORTED, envelope, http_status=plan.attempt.http_status, error=plan.reason)
                return DeliveryOutcome.ABORTED
            case Filter():
                self._record(envelope, DeliveryStatus.FILTERED, envelope.attempt, plan.reason)
                self._log(LogEvent.FILTERED, envelope, error=plan.reason)
                return DeliveryOutcome.FILTERED
            case RetryAt():
                return self._retry(envelope, plan, lane)
            case End():
                return self._end(envelope, plan)
            case Expire():
                return self._expire(envelope, plan)
            case Hop():
                return self._hop(envelope, plan, lane)
            case Hold():
                return self._hold(envelope, plan, lane)
            case ToSlowLane():
                self.sender.send([self.addresses.push(envelope, 0, Lane.SLOW)])
                self._log(LogEvent.SLOW_LANE, envelope)
                return DeliveryOutcome.SLOW_LANE
            case TakeOver():
                now = self.clock()
                later = delay_seconds(now + plan.delay_ms, now)
                taken = envelope.taken_over(plan.request_started_ms)
                self.sender.send([self.addresses.push(taken, later, Lane.SLOW)])
                self._log(LogEvent.SLOW_LANE, envelope, next_delay_ms=plan.delay_ms)
                return DeliveryOutcome.SLOW_LANE
            case Clear():
                self._record(envelope, DeliveryStatus.CLEARED, envelope.attempt, plan.reason)
                self._log(
                    LogEvent.CLEARED, envelope, error=plan.reason if plan.reason == DESTINATION_GONE else None
                )
                return DeliveryOutcome.CLEARED
            case Skip():
                return DeliveryOutcome.SUPERSEDED
            case _:
                raise TypeError(f"not a plan to apply: {plan!r}")

    def finish_batch(self) -> None:
        """Write the batch's 'delivered' records and its first attempts' 'retrying' ones."""
        with self._lock:
            batched, self._batched = self._batched, []
        first_tries = [record for record, first in batched if first]
        if first_tries:
            self.messages.record_first_tries(first_tries)
        for later in (record for record, first in batched if not first):
            self.messages.update_delivery(later)

    def _deliver(self, envelope: Envelope, plan: Deliver) -> DeliveryOutcome:
        self._log_attempt(envelope, plan.attempt)
        record = envelope.record(PUSH, DeliveryStatus.DELIVERED, envelope.attempt + 1, history=plan.history)
        with self._lock:
            self._batched.append((record, envelope.first_attempt_ever))
        made = plan.attempt
        self._log(LogEvent.DELIVERED, envelope, http_status=made.http_status, latency_ms=made.duration_ms)
        if plan.disable is not None:  # delivered, and the receiver asks for nothing more
            self.health.disable(plan.disable, RECEIVER_DISABLED)
        return DeliveryOutcome.DELIVERED

    def _retry(self, envelope: Envelope, plan: RetryAt, lane: Lane) -> DeliveryOutcome:
        self._log_attempt(envelope, plan.attempt)
        retry = envelope.next_attempt(plan.next_attempt, plan.delay_ms, plan.due_at_ms)
        self._send_later(retry, plan.due_at_ms, lane)
        error, due, made = plan.attempt.error, iso_from_ms(plan.due_at_ms), envelope.attempt + 1
        record = envelope.record(PUSH, DeliveryStatus.RETRYING, made, error, due, plan.history)
        if envelope.first_attempt_ever:  # with the batch's other first tries (its retry is sent already)
            with self._lock:
                self._batched.append((record, True))
        else:
            self.messages.update_delivery(record)
        self._log(
            LogEvent.RETRY_SCHEDULED,
            envelope,
            http_status=plan.attempt.http_status,
            error=error,
            next_delay_ms=plan.delay_ms,
        )
        return DeliveryOutcome.RETRY

    def _end(self, envelope: Envelope, plan: End) -> DeliveryOutcome:
        if plan.attempt is not None:
            self._log_attempt(envelope, plan.attempt)
        if plan.disable_reason is not None:
            self.health.disable(plan.subscription, plan.disable_reason)
        ending = self.endings.plan(
            envelope, plan.subscription, plan.reason, plan.attempts, self.clock(), history=plan.history
        )
        self.endings.hand_over(ending)
        for record in ending.records:
            self.messages.update_delivery(record)
        self.endings.report(ending)
        return ending.outcome

    def _expire(self, envelope: Envelope, plan: Expire) -> DeliveryOutcome:
        if plan.attempt is not None:
            self._log_attempt(envelope, plan.attempt)
        self._record(envelope, DeliveryStatus.EXPIRED, plan.attempts, plan.reason, history=plan.history)
        self._log(LogEvent.EXPIRED, envelope, error=plan.attempt.error if plan.attempt else None)
        self.endings.expired(envelope, plan.reason)
        return DeliveryOutcome.EXPIRED

    def _hop(self, envelope: Envelope, plan: Hop, lane: Lane) -> DeliveryOutcome:
        now = self.clock()
        self._send_later(envelope.hop(envelope.attempt), plan.due_at_ms, lane)
        self._log(LogEvent.HOP, envelope, next_delay_ms=plan.due_at_ms - now)
        return DeliveryOutcome.HOP

    def _send_later(self, envelope: Envelope, due_at_ms: int, lane: Lane) -> None:
        """Back on its lane's queue for ``due_at_ms``: an SQS delay (at most 15 minutes: hops wait
        the rest), or a schedule for a long wait when the stack carries them so."""
        now = self.clock()
        if self.long_waits is not None and self.long_waits.carry(envelope, due_at_ms, lane, now):
            return
        self.sender.send([self.addresses.push(envelope, delay_seconds(due_at_ms, now), lane)])

    def _hold(self, envelope: Envelope, plan: Hold, lane: Lane) -> DeliveryOutcome:
        """Re-send the same attempt to wait: never dead for it; a wait that would pass the expiry
        ends at the expiry."""
        now, wait_ms = self.clock(), plan.wait_ms
        if envelope.expires_at_ms is not None:
            wait_ms = max(0, min(wait_ms, envelope.expires_at_ms - now))
        self.sender.send([self.addresses.push(envelope.held(), delay_seconds(now + wait_ms, now), lane)])
        self._log(LogEvent.HELD, envelope, error=plan.reason, next_delay_ms=wait_ms)
        return DeliveryOutcome.HELD

    def _record(
        self,
        envelope: Envelope,
        status: DeliveryStatus,
        attempts: int,
        error: str | None,
        next_at: str | None = None,
        history: History = (),
    ) -> None:
        self.messages.update_delivery(envelope.record(PUSH, status, attempts, error, next_at, history))

    def _log_attempt(self, envelope: Envelope, made: Attempt) -> None:
        self._log(
            LogEvent.ATTEMPT,
            envelope,
            http_status=made.http_status,
            latency_ms=made.duration_ms,
            error=made.error,
        )

    def _log(self, event: LogEvent, envelope: Envelope, **details: Detail) -> None:
        """A delivery-log record of this envelope's current attempt."""
        self.log.add(LogRecord.about(envelope, event, PUSH, attempt=envelope.attempt, **details))
