"""Plans for an attempt that got no answer from its endpoint because none was asked: its push URL
now resolves where roomcast never sends (dead at once), or its transformation cancelled the delivery
(``Filter``) or failed (the attempt fails with the reason, retried as a network error is). Pure, as
push_worker.plans is."""

from __future__ import annotations

from collections.abc import Callable

from push_worker.plans import Abort, Deliver, End, Expire, Filter, Ready, RetryAt, after_answer
from push_worker.webhook import Cancelled
from roomcast.messages import Attempt, AttemptEvent, Envelope
from roomcast.platform import iso_from_ms
from roomcast.transformations import TransformationFailed
from roomcast.webhooks import HttpResult


def refused_url(envelope: Envelope, attempt: Ready, reason: str, started_at_ms: int) -> End:
    """The push URL now resolves where roomcast never sends: dead at once, as a permanent failure."""
    refused = Attempt(envelope.attempt, AttemptEvent.POST, iso_from_ms(started_at_ms), None, error=reason)
    return End(attempt.subscription, reason, envelope.attempt + 1, (refused,), attempt=refused)


def cancelled(version: int) -> Filter:
    return Filter(f"cancelled by its transformation (version {version})")


def transformation_failed(
    envelope: Envelope, attempt: Ready, reason: str, at_ms: int, random_fraction: float
) -> RetryAt | Expire | End:
    """The transformation threw, ran out of time or memory, or returned a bad shape: the attempt
    fails with the reason, no request made (retried like a network error; never the endpoint's
    health: its endpoint was not asked)."""
    version = attempt.subscription.transformation.version if attempt.subscription.transformation else 0
    failed = HttpResult(None, None, f"transformation (version {version}) {reason}", 0, "")
    plan = after_answer(envelope, attempt, failed, at_ms, at_ms, random_fraction)
    if isinstance(plan, Deliver | Abort):  # no answer: neither can come of it
        raise AssertionError(plan)
    return plan


def shaped_or_unsent[T](
    shape: Callable[[], T | Cancelled], envelope: Envelope, attempt: Ready, at_ms: int, fraction: float
) -> T | Filter | RetryAt | Expire | End:
    """What ``shape`` makes of the envelope (a webhook's request, an AWS destination's body), or the
    plan when its transformation cancelled it or failed: one rule for both kinds of PUSH."""
    try:
        shaped = shape()
    except TransformationFailed as failed:
        return transformation_failed(envelope, attempt, str(failed), at_ms, fraction)
    return cancelled(shaped.version) if isinstance(shaped, Cancelled) else shaped
