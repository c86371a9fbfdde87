"""Alerts: rules on the metrics of a scope, evaluated every minute, and the notification that
reaches a person when one fires and when it resolves (docs/alerts.md).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.alerts.evaluator import AlertEvaluator as AlertEvaluator, Evaluation as Evaluation
    from roomcast.alerts.model import (
        MAX_RULES_PER_TENANT as MAX_RULES_PER_TENANT,
        MAX_WINDOW_MINUTES as MAX_WINDOW_MINUTES,
        AlertEvent as AlertEvent,
        AlertMetric as AlertMetric,
        AlertRule as AlertRule,
        AlertState as AlertState,
        Condition as Condition,
        Notify as Notify,
    )
    from roomcast.alerts.notify import Notifier as Notifier, rule_filter_value as rule_filter_value
    from roomcast.alerts.rules import SUBSCRIPTION_STATES as SUBSCRIPTION_STATES
    from roomcast.alerts.store import AlertTable as AlertTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
