"""What one envelope comes to, decided by pure rules (docs/delivery-semantics.md):

- before any request: expired → ``Expire``; not due yet → ``Hop`` (re-sent to wait, not an
  attempt); subscription or room gone → ``Clear``; queued before a Clear All → ``Clear``; a retry
  whose record moved on → ``Skip``; a disabled subscription → ``End`` (dead, or the failover); a
  paused one, or one with no room under its flow control → ``Hold``; in the fast lane, an endpoint
  marked slow → ``ToSlowLane``;
- a request the fast lane stops waiting for → ``TakeOver`` (its answer, when it comes, is applied
  as one of the plans below);
- a transformation that cancels the delivery → ``Filter``; one that fails → the attempt fails with
  its reason (retried as a network error is, no request made);
- after the signed POST: 2xx → ``Deliver``; network error, timeout, 3xx, 408, 425, 429, 5xx →
  ``RetryAt`` the backoff (or ``Expire`` when that falls past the expiry, or ``End`` after the
  last attempt); any other 4xx → ``End`` at once (410 also disables the subscription). The
  receiver's ``webhook-delivery`` header decides before the status does: ``abort`` on an answer
  that is not 2xx → ``Abort`` (no more attempts, no dead letter, no failover); ``disable`` →
  the subscription disabled, and this message ``End``ed as a 410's is (a 2xx still delivers it).

No AWS, no clock: the push function reads what these need first (``Known``), asks
``before_request`` once, makes the request when that says ``Ready``, asks ``after_answer`` what the
answer comes to, and applies the result (push_worker.apply) in that one place."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.catalog import (
    FailureOutcome,
    Lane,
    Room,
    Subscription,
    SubscriptionStatus,
    after_failure,
    effective_policy,
    is_expired,
    moves_lane,
    probing,
)
from roomcast.flow import paused_wait_ms
from roomcast.messages import TERMINAL_STATUSES, Attempt, AttemptEvent, Delivery, DeliveryStatus, Envelope
from roomcast.platform import iso_from_ms
from roomcast.webhooks import AnswerClass, DeliveryControl, HttpResult, classify, is_gone

# An envelope received up to this long before its due time is delivered (SQS delays are whole seconds).
DUE_TOLERANCE_MS = 1_000
CLEARED = "cleared by Clear All"
DESTINATION_GONE = "the subscription or its room was deleted"
EXPIRED_BEFORE_DELIVERY = "expired before delivery"
DISABLED = "subscription is disabled"
PAUSED = "subscription is paused"
PROBING = "subscription is disabled; its endpoint is probed until it answers again"
GONE_410 = "the endpoint answered 410 Gone"
RECEIVER_DISABLED = "the endpoint asked to be disabled (webhook-delivery: disable)"
RECEIVER_ABORTED = "the endpoint aborted this message (webhook-delivery: abort)"

History = tuple[Attempt, ...]


@dataclass(frozen=True)
class Expire:
    attempts: int
    reason: str
    history: History = ()
    attempt: Attempt | None = None  # the request made for this envelope, when one was (its log line)


@dataclass(frozen=True)
class Hop:
    """Not due yet: the same attempt re-sent to wait (SQS holds a message at most 15 minutes)."""

    due_at_ms: int


@dataclass(frozen=True)
class Clear:
    reason: str


@dataclass(frozen=True)
class Skip:
    """A retry whose record has moved on (ended, or made due at another time by a retry-now)."""


@dataclass(frozen=True)
class Hold:
    """Re-sent to wait (paused, or no room under flow control): not an attempt."""

    wait_ms: int
    reason: str


@dataclass(frozen=True)
class ToSlowLane:
    """Its endpoint is marked slow: the same attempt re-sent to the slow lane at once (not an
    attempt; roomcast.catalog.lanes)."""


@dataclass(frozen=True)
class TakeOver:
    """The fast lane stopped waiting for this attempt's request (its endpoint is slow): the slow
    lane receives the same attempt after ``delay_ms`` and makes it only if that request's answer
    was never recorded. The request goes on meanwhile; its answer is applied when it comes."""

    request_started_ms: int
    delay_ms: int


@dataclass(frozen=True)
class Found:
    """The envelope's room and subscription, both still there."""

    room: Room
    subscription: Subscription


@dataclass(frozen=True)
class Ready(Found):
    """Ready for the signed POST: found, and its subscription's status allows it."""


@dataclass(frozen=True)
class Deliver:
    history: History
    attempt: Attempt  # the request made for this envelope (its log line)
    disable: Subscription | None = None  # the receiver asked to be disabled (webhook-delivery)


@dataclass(frozen=True)
class Abort:
    """The receiver asked for no more attempts of this message (``webhook-delivery: abort``)."""

    attempts: int
    reason: str
    history: History
    attempt: Attempt  # the request made for this envelope (its log line)


@dataclass(frozen=True)
class Filter:
    """Its transformation cancelled the delivery (``cancel: true``): it ends ``filtered``, unsent."""

    reason: str


@dataclass(frozen=True)
class RetryAt:
    next_attempt: int
    delay_ms: int
    due_at_ms: int
    history: History
    attempt: Attempt  # the request made for this envelope (its log line)


@dataclass(frozen=True)
class End:
    """Dead, or handed to the subscription's failover (decided where it is applied)."""

    subscription: Subscription
    reason: str
    attempts: int
    history: History = ()
    disable_reason: str | None = None  # the subscription is disabled too (410 Gone)
    attempt: Attempt | None = None  # the request made for this envelope, when one was (its log line)


# What comes before an answer, then what an answer (or its absence) comes to.
Unanswered = Expire | Hop | Clear | Skip | Hold | ToSlowLane | TakeOver | Ready
Plan = Unanswered | Deliver | Abort | Filter | RetryAt | End


@dataclass(frozen=True)
class Known:
    """What the push function read for an envelope before planning it."""

    now_ms: int
    found: tuple[Room, Subscription] | None  # None: the room or the subscription is gone
    has_slow_lane: bool
    record: Delivery | None = None  # read only when ``needs_record`` says so


def needs_record(envelope: Envelope, now_ms: int, found: tuple[Room, Subscription] | None) -> bool:
    """Whether planning reads the destination's record: for a retry or a takeover only (a first
    attempt costs nothing), and only when nothing before decides (expired, not due, gone)."""
    if envelope.attempt == 0 and not envelope.takeover_of_ms:
        return False
    return on_receipt(envelope, now_ms) is None and isinstance(present(envelope, found), Found)


def before_request(envelope: Envelope, known: Known, lane: Lane) -> Plan:
    """What the envelope comes to before any request: ``Ready`` for the signed POST, or where it
    stops (``lane``: the one it was received in)."""
    early = on_receipt(envelope, known.now_ms)
    if early is not None:
        return early
    found = present(envelope, known.found)
    if isinstance(found, Clear):
        return found
    if known.record is not None and superseded(envelope, known.record):
        return Skip()
    ready = by_status(envelope, found)
    if isinstance(ready, Ready) and known.has_slow_lane and moves_lane(ready.subscription, lane):
        return ToSlowLane()
    return ready


def on_receipt(envelope: Envelope, now_ms: int) -> Expire | Hop | None:
    """Expired or not due yet, before anything is read; None: read its subscription."""
    if is_expired(now_ms, envelope.expires_at_ms):
        return Expire(envelope.attempt, EXPIRED_BEFORE_DELIVERY)
    if envelope.due_at_ms > now_ms + DUE_TOLERANCE_MS:
        return Hop(envelope.due_at_ms)
    return None


def present(envelope: Envelope, found: tuple[Room, Subscription] | None) -> Clear | Found:
    """Cleared when the room or subscription is gone (None), or a Clear All came after it was queued."""
    if found is None:
        return Clear(DESTINATION_GONE)
    room, subscription = found
    if envelope.cleared_by(subscription.cleared_before_ms):
        return Clear(CLEARED)
    return Found(room, subscription)


def superseded(envelope: Envelope, record: Delivery) -> bool:
    """A retry (or a takeover) whose record has moved on: finished meanwhile (a duplicate, or the
    answer of the request taken over), or made due at another time by a retry-now."""
    if record.status in TERMINAL_STATUSES:
        return True
    due = iso_from_ms(envelope.due_at_ms)
    return record.status is DeliveryStatus.RETRYING and record.next_attempt_at not in (None, due)


def by_status(envelope: Envelope, found: Found) -> End | Hold | Ready:
    """What the subscription's status allows: dead (or the failover) when disabled, a wait when
    paused or disabled while its endpoint is probed (roomcast.catalog.recovery), else the attempt."""
    if probing(found.subscription):
        return Hold(paused_wait_ms(envelope.holds), PROBING)
    if found.subscription.status is SubscriptionStatus.DISABLED:
        return End(found.subscription, DISABLED, envelope.attempt)
    if found.subscription.status is SubscriptionStatus.PAUSED:
        return Hold(paused_wait_ms(envelope.holds), PAUSED)
    return Ready(found.room, found.subscription)


def after_answer(
    envelope: Envelope,
    attempt: Ready,
    result: HttpResult,
    started_at_ms: int,
    finished_at_ms: int,
    random_fraction: float,
    event: AttemptEvent = AttemptEvent.POST,
) -> Deliver | Abort | RetryAt | Expire | End:
    """What the subscriber's answer (or its absence) leads to; the attempt (``event``: a webhook's
    POST, or a send into an AWS destination) goes into the history."""
    error = result.error or (f"HTTP {result.status}" if result.status and result.status >= 300 else None)
    made = Attempt(
        envelope.attempt,
        event,
        iso_from_ms(started_at_ms),
        result.latency_ms,
        result.status,
        error,
        result.response_excerpt or None,
    )
    tried = (made,)
    answer = classify(result.status)
    disabling = result.control is DeliveryControl.DISABLE
    if answer is AnswerClass.DELIVERED:
        return Deliver(tried, made, attempt.subscription if disabling else None)
    attempts = envelope.attempt + 1
    if disabling:
        return End(
            attempt.subscription, f"{error}; {RECEIVER_DISABLED}", attempts, tried, RECEIVER_DISABLED, made
        )
    if result.control is DeliveryControl.ABORT:
        return Abort(attempts, f"{error}; {RECEIVER_ABORTED}", tried, made)
    if answer is AnswerClass.PERMANENT:
        disable = GONE_410 if is_gone(result.status) else None
        return End(attempt.subscription, f"{error} (permanent)", attempts, tried, disable, made)
    step = after_failure(
        effective_policy(attempt.room, attempt.subscription),
        envelope.attempt,
        finished_at_ms,
        envelope.expires_at_ms,
        retry_after_ms=result.retry_after_ms,
        random_fraction=random_fraction,
    )
    if step.outcome is FailureOutcome.DEAD:
        return End(attempt.subscription, f"{error}; attempts exhausted", attempts, tried, attempt=made)
    if step.outcome is FailureOutcome.EXPIRED:
        return Expire(attempts, f"{error}; next attempt past expiry", tried, made)
    due = step.due_at_ms or finished_at_ms
    return RetryAt(step.next_attempt, step.delay_ms, due, tried, made)
