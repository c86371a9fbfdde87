"""Alerts: a rule watches one metric of a scope (the tenant, a room, a subscription) and tells a
person when it fires and when it resolves (docs/alerts.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from roomcast.platform import limits

MAX_RULES_PER_TENANT: Final = limits.MAX_ALERT_RULES
MAX_WINDOW_MINUTES: Final = 1440  # a day of minute buckets
# A notification that failed is tried again at each evaluation, this many times in all.
MAX_NOTIFY_ATTEMPTS: Final = 10


class AlertMetric(StrEnum):
    SUCCESS_RATE = "successRate"  # 1 - failed attempts / attempts over the window
    OLDEST_BACKLOG_AGE_MS = "oldestBacklogAgeMs"  # how long the oldest open delivery has waited
    P95_ATTEMPT_LATENCY_MS = "p95AttemptLatencyMs"  # over the window
    SUBSCRIPTION_STATE = "subscriptionState"  # active, failing, paused, disabled


class AlertState(StrEnum):
    OK = "ok"
    FIRING = "firing"


@dataclass(frozen=True)
class Condition:
    """When a rule fires: its metric ``below`` or ``above`` a threshold (over the last
    ``window_minutes``, with at least ``min_deliveries`` attempts for a rate), or a subscription's
    state ``in`` some states."""

    metric: AlertMetric
    below: float | None = None
    above: float | None = None
    states: tuple[str, ...] = ()
    window_minutes: int = 5
    min_deliveries: int = 1


@dataclass(frozen=True)
class Notify:
    """Where a rule's notifications go: one of a signed webhook, an e-mail address (through SNS),
    a Slack-compatible incoming-webhook URL."""

    webhook_url: str | None = None
    email: str | None = None
    slack_url: str | None = None


@dataclass(frozen=True)
class AlertRule:
    id: str
    tenant_id: str
    name: str
    room_id: str | None
    subscription_id: str | None
    condition: Condition
    notify: Notify
    signing_secret: str  # the webhook notifications' (Standard Webhooks)
    created_at: str
    updated_at: str
    state: AlertState = AlertState.OK
    value: float | str | None = None  # the last value measured
    changed_at: str | None = None  # when it last fired or resolved
    snoozed_until: str | None = None  # no evaluation, no notification before then
    notified: bool = True  # the last change's notification went out
    notify_attempts: int = 0


@dataclass(frozen=True)
class Reading:
    """A metric measured for a rule: its value (None: nothing to measure, as a rate without
    enough attempts), and whether it breaks the condition (None: not known, the state stays)."""

    value: float | str | None
    breached: bool | None


@dataclass(frozen=True)
class AlertEvent:
    """A rule that fired or resolved, with the value that made it."""

    rule_id: str
    tenant_id: str
    name: str
    state: AlertState
    value: float | str | None
    at: str
