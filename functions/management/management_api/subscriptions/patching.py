"""A PATCH's rules for a subscription: which fields are PUSH-only, what a status change does, and
which API field sets which attribute."""

from __future__ import annotations

from dataclasses import replace

from management_api.subscriptions.models import PUSH_ONLY_FIELDS
from roomcast.catalog import Subscription, SubscriptionStatus
from roomcast.platform import PushOnly, now_iso


def refuse_push_only(given: set[str]) -> None:
    """400 when a PULL subscription is given a PUSH-only setting (before anything changes)."""
    wrong = sorted(name for name in PUSH_ONLY_FIELDS if name in given)
    if wrong:
        problem = "applies to PUSH subscriptions only"
        raise PushOnly(
            f"{', '.join(wrong)} {problem}",
            details=[{"field": f"body.{name}", "problem": problem, "type": "push_only"} for name in wrong],
        )


def with_status(subscription: Subscription, status: SubscriptionStatus) -> Subscription:
    """An operator's status change: disabling says so; leaving disabled forgets why it was, and
    starts the endpoint's health afresh (auto-disable counts failures from the next one)."""
    if status is subscription.status:
        return subscription
    if status is SubscriptionStatus.DISABLED:
        return replace(
            subscription, status=status, disabled_reason="disabled by an operator", disabled_at=now_iso()
        )
    if subscription.status is SubscriptionStatus.DISABLED:
        return subscription.reenabled(status)  # its recovery probes stop
    return replace(subscription, status=status)


# Subscription attribute (PUSH only) -> the API field that sets it.
PUSH_ATTRIBUTES = {
    "timeout_ms": "timeoutMs",
    "max_concurrency": "maxConcurrency",
    "rate_limit_per_second": "rateLimitPerSecond",
    "disable_after_failing_ms": "disableAfterFailingMs",
    "recovery_probes": "recoveryProbes",
}

# DeliveryOverrides attribute -> the API field that sets it.
OVERRIDE_ATTRIBUTES = {
    "delivery_delay_ms": "deliveryDelayMs",
    "delivery_delay_multiplier": "deliveryDelayMultiplier",
    "delivery_attempts": "deliveryAttempts",
    "max_delay_ms": "maxDelayMs",
    "jitter": "jitter",
    "retry_schedule_ms": "retryScheduleMs",
}
