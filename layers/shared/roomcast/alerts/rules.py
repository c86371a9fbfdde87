"""An alert rule's measure and its state change (pure): what the metric reads now, and whether
the rule fires, resolves, or stays as it is (docs/alerts.md)."""

from __future__ import annotations

from roomcast.alerts.model import AlertMetric, AlertRule, AlertState, Condition, Reading
from roomcast.metrics import Backlog, Count, Sample, Series

# A subscription's state as a rule names it: from its status and its failing streak.
ACTIVE, FAILING, PAUSED, DISABLED = "active", "failing", "paused", "disabled"
SUBSCRIPTION_STATES = (ACTIVE, FAILING, PAUSED, DISABLED)


def subscription_state(status: str, failing_since_ms: int | None) -> str:
    if status in (PAUSED, DISABLED):
        return status
    return FAILING if failing_since_ms is not None else ACTIVE


def reading(
    condition: Condition, window: Series | None, backlog: Backlog | None, state: str | None, now_ms: int
) -> Reading:
    """What ``condition``'s metric reads: over ``window`` (the last minutes' buckets), from the
    scope's ``backlog`` now, or from the subscription's ``state``."""
    if condition.metric is AlertMetric.SUBSCRIPTION_STATE:
        return Reading(state, None if state is None else state in condition.states)
    if condition.metric is AlertMetric.OLDEST_BACKLOG_AGE_MS:
        if backlog is None:
            return Reading(None, None)
        age = (
            0
            if backlog.oldest_from_ms is None or backlog.open <= 0
            else max(0, now_ms - backlog.oldest_from_ms)
        )
        return Reading(age, _compare(condition, age))
    if window is None:
        return Reading(None, None)
    if condition.metric is AlertMetric.SUCCESS_RATE:
        attempts = window.totals[Count.ATTEMPTS]
        if attempts < max(condition.min_deliveries, 1):
            return Reading(None, False)  # too few to judge: not firing (an idle endpoint is fine)
        rate = round(max(0.0, 1 - window.totals[Count.FAILED_ATTEMPTS] / attempts), 4)
        return Reading(rate, _compare(condition, rate))
    latency = window.percentiles[Sample.ATTEMPT_LATENCY_MS]
    if latency is None:
        return Reading(None, False)
    return Reading(latency.p95, _compare(condition, latency.p95))


def _compare(condition: Condition, value: float) -> bool:
    if condition.below is not None:
        return value < condition.below
    return condition.above is not None and value > condition.above


def next_state(rule: AlertRule, measured: Reading, now_iso: str) -> AlertState | None:
    """The state the rule moves to (None: it stays): it fires when its condition breaks and it was
    ok, resolves when the condition holds again; nothing while it is snoozed or unknown."""
    if rule.snoozed_until is not None and rule.snoozed_until > now_iso:
        return None
    if measured.breached is None:
        return None
    if measured.breached and rule.state is AlertState.OK:
        return AlertState.FIRING
    if not measured.breached and rule.state is AlertState.FIRING:
        return AlertState.OK
    return None
