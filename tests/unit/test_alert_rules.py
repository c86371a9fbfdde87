"""An alert rule's measure and its moves (roomcast.alerts.rules: pure)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from roomcast.alerts.model import AlertMetric, AlertRule, AlertState, Condition, Notify, Reading
from roomcast.alerts.rules import next_state, reading, subscription_state
from roomcast.metrics.backlog import Backlog
from roomcast.metrics.model import Count, Percentiles, Resolution, Sample
from roomcast.metrics.series import Series

NOW_MS = 1_795_435_200_000
NOW = "2026-11-22T08:00:00.000Z"


def _window(attempts: int, failed: int, p95: float | None = None) -> Series:
    totals = {count: 0 for count in Count} | {Count.ATTEMPTS: attempts, Count.FAILED_ATTEMPTS: failed}
    latency = None if p95 is None else Percentiles(p95 / 2, p95, p95 * 2)
    return Series(
        Resolution.MINUTE, (), totals, {Sample.ATTEMPT_LATENCY_MS: latency, Sample.DELIVERY_DELAY_MS: None}
    )


RATE = Condition(AlertMetric.SUCCESS_RATE, below=0.9, window_minutes=5, min_deliveries=10)
RULE = AlertRule(
    "alr_1", "ten", "r", None, None, RATE, Notify(webhook_url="https://x.example"), "whsec_x", NOW, NOW
)


@pytest.mark.parametrize(
    ("attempts", "failed", "expected"),
    [
        (20, 5, Reading(0.75, True)),
        (20, 1, Reading(0.95, False)),
        (9, 9, Reading(None, False)),
        (0, 0, Reading(None, False)),
    ],
)
def test_a_success_rate_breaks_below_its_threshold_with_enough_attempts(
    attempts: int, failed: int, expected: Reading
) -> None:
    assert reading(RATE, _window(attempts, failed), None, None, NOW_MS) == expected


def test_the_oldest_backlog_and_the_p95_break_above_theirs_and_a_state_in_its_list() -> None:
    oldest = Condition(AlertMetric.OLDEST_BACKLOG_AGE_MS, above=60_000)
    assert reading(oldest, None, Backlog(3, NOW_MS - 90_000), None, NOW_MS) == Reading(90_000, True)
    assert reading(oldest, None, Backlog(0, None), None, NOW_MS) == Reading(0, False)
    p95 = Condition(AlertMetric.P95_ATTEMPT_LATENCY_MS, above=500)
    assert reading(p95, _window(10, 0, 800.0), None, None, NOW_MS) == Reading(800.0, True)
    assert reading(p95, _window(0, 0), None, None, NOW_MS) == Reading(None, False)
    state = Condition(AlertMetric.SUBSCRIPTION_STATE, states=("failing", "disabled"))
    assert reading(state, None, None, subscription_state("active", NOW_MS), NOW_MS) == Reading(
        "failing", True
    )
    assert reading(state, None, None, subscription_state("active", None), NOW_MS) == Reading("active", False)
    assert reading(state, None, None, None, NOW_MS) == Reading(None, None)  # gone: the state stays


def test_a_rule_fires_once_resolves_once_and_holds_while_snoozed_or_unknown() -> None:
    firing = replace(RULE, state=AlertState.FIRING)
    assert next_state(RULE, Reading(0.5, True), NOW) is AlertState.FIRING
    assert next_state(firing, Reading(0.5, True), NOW) is None  # no repeat
    assert next_state(firing, Reading(0.95, False), NOW) is AlertState.OK
    assert next_state(RULE, Reading(0.95, False), NOW) is None
    assert next_state(RULE, Reading(None, None), NOW) is None
    snoozed = replace(RULE, snoozed_until="2026-11-22T09:00:00.000Z")
    assert next_state(snoozed, Reading(0.5, True), NOW) is None
    assert next_state(snoozed, Reading(0.5, True), "2026-11-22T09:00:00.001Z") is AlertState.FIRING
