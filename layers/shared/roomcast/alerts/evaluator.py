"""Every alert rule, evaluated once a minute (the alerts function): its metric read, its state
moved when its condition breaks or holds again, one notification per move (sent again at the
next evaluations while it fails, MAX_NOTIFY_ATTEMPTS times), and the move recorded as an event."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from roomcast.alerts.model import MAX_NOTIFY_ATTEMPTS, AlertEvent, AlertMetric, AlertRule, AlertState, Reading
from roomcast.alerts.notify import Notifier
from roomcast.alerts.rules import next_state, reading, subscription_state
from roomcast.alerts.store import AlertTable
from roomcast.catalog import Catalog
from roomcast.metrics import Backlog, Resolution, Scope, Series, series_of
from roomcast.platform import MINUTE_MS, NotFound, iso_from_ms, items, logger


class MetricsReader(Protocol):
    def buckets(self, scope: Scope, resolution: Resolution, from_ms: int, to_ms: int) -> list[items.Item]: ...

    def backlog(self, scope: Scope) -> Backlog: ...


@dataclass
class Evaluation:
    """What one evaluation did: rules read, moved, notifications sent and failed."""

    rules: int = 0
    fired: list[str] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    notified: int = 0
    failed: int = 0


def scope_of(rule: AlertRule) -> Scope:
    if rule.subscription_id is not None:
        return Scope.subscription(rule.tenant_id, rule.subscription_id)
    if rule.room_id is not None:
        return Scope.room(rule.tenant_id, rule.room_id)
    return Scope.tenant(rule.tenant_id)


@dataclass
class AlertEvaluator:
    alerts: AlertTable
    metrics: MetricsReader
    catalog: Catalog
    notifier: Notifier
    now_ms: Callable[[], int]

    def run(self) -> Evaluation:
        done = Evaluation()
        for rule in self.alerts.all_rules():
            done.rules += 1
            try:
                self._evaluate(rule, done)
            except Exception:  # one rule's failure (a deleted room, a throttle) must not stop the others
                logger.exception(
                    "an alert rule's evaluation failed", extra={"rule": rule.id, "tenant": rule.tenant_id}
                )
        return done

    def _evaluate(self, rule: AlertRule, done: Evaluation) -> None:
        now = self.now_ms()
        at = iso_from_ms(now)
        measured = self._read(rule, now)
        moved_to = next_state(rule, measured, at)
        if moved_to is not None:
            moved = self.alerts.move(rule, moved_to, measured.value, at)
            if moved is None:
                return  # another evaluation moved it: that one notifies
            (done.fired if moved_to is AlertState.FIRING else done.resolved).append(rule.id)
            self.alerts.record_event(
                AlertEvent(rule.id, rule.tenant_id, rule.name, moved_to, measured.value, at)
            )
            rule = moved
        if not rule.notified and rule.notify_attempts < MAX_NOTIFY_ATTEMPTS and not _snoozed(rule, at):
            self._notify(rule, done)

    def _notify(self, rule: AlertRule, done: Evaluation) -> None:
        event = AlertEvent(rule.id, rule.tenant_id, rule.name, rule.state, rule.value, rule.changed_at or "")
        problem = self.notifier.send(rule, event)
        self.alerts.notified(rule, sent=problem is None)
        if problem is None:
            done.notified += 1
        else:
            done.failed += 1
            logger.warning("an alert's notification failed", extra={"rule": rule.id, "problem": problem})

    def _read(self, rule: AlertRule, now: int) -> Reading:
        condition, scope = rule.condition, scope_of(rule)
        if condition.metric is AlertMetric.SUBSCRIPTION_STATE:
            return reading(condition, None, None, self._subscription_state(rule), now)
        if condition.metric is AlertMetric.OLDEST_BACKLOG_AGE_MS:
            return reading(condition, None, self.metrics.backlog(scope), None, now)
        window = self._window(scope, condition.window_minutes, now)
        return reading(condition, window, None, None, now)

    def _window(self, scope: Scope, minutes: int, now: int) -> Series:
        from_ms = now - minutes * MINUTE_MS
        found = self.metrics.buckets(scope, Resolution.MINUTE, from_ms, now)
        return series_of(Resolution.MINUTE, from_ms, now, found, None, now)

    def _subscription_state(self, rule: AlertRule) -> str | None:
        if rule.room_id is None or rule.subscription_id is None:
            return None
        try:
            subscription = self.catalog.get_subscription(rule.tenant_id, rule.room_id, rule.subscription_id)
        except NotFound:
            return None
        return subscription_state(subscription.status.value, subscription.failing_since_ms)


def _snoozed(rule: AlertRule, at: str) -> bool:
    return rule.snoozed_until is not None and rule.snoozed_until > at
