"""`roomcast alerts …`: the rules firing and the recent alerts, the rules, a rule (with its
signing secret once), from the API's AlertsResponse, AlertRuleList and AlertRuleView."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, details, new_table, shown_once
from roomcast_cli.render.metrics import show_ms, show_rate
from roomcast_cli.render.text import Json, show_time

# The recent alerts a person is shown (the API answers up to 50; --json prints them all).
RECENT_SHOWN = 10
# How each metric's threshold and value read, and its name in a sentence.
_METRIC_NAMES = {
    "successRate": "success rate",
    "p95AttemptLatencyMs": "p95 latency",
    "oldestBacklogAgeMs": "oldest backlog",
    "subscriptionState": "state",
}


def metric_value(metric: str | None, value: Any) -> str:
    """A measured value in its metric's unit: ``75.0%``, ``1.2 s``, ``failing``; ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if metric == "successRate":
        return show_rate(value)
    if metric in ("p95AttemptLatencyMs", "oldestBacklogAgeMs"):
        return show_ms(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def condition_text(condition: Json) -> str:
    """``success rate < 90.0% over 5 min (at least 10 attempts)``, ``state in failing, disabled``."""
    metric = condition.get("metric")
    name = _METRIC_NAMES.get(str(metric), str(metric))
    if metric == "subscriptionState":
        return f"{name} in {', '.join(condition.get('in') or [])}"
    if condition.get("below") is not None:
        text = f"{name} < {metric_value(metric, condition['below'])}"
    else:
        text = f"{name} > {metric_value(metric, condition.get('above'))}"
    if condition.get("windowMinutes") and metric != "oldestBacklogAgeMs":
        text += f" over {condition['windowMinutes']} min"
    if metric == "successRate" and (condition.get("minDeliveries") or 1) > 1:
        text += f" (at least {condition['minDeliveries']} attempts)"
    return text


def scope_text(scope: Json) -> str:
    """``tenant``, ``room_…`` or ``room_…/sub_…``."""
    room, subscription = scope.get("roomId"), scope.get("subscriptionId")
    if room is None:
        return "tenant"
    return f"{room}/{subscription}" if subscription else str(room)


def notify_text(notify: Json) -> str:
    for key, label in (("webhookUrl", "webhook"), ("email", "e-mail"), ("slackUrl", "Slack")):
        if notify.get(key):
            return f"{label} {notify[key]}"
    return "-"


def _snooze(rule: Json) -> str:
    until = rule.get("snoozedUntil")
    return f"until {show_time(until)}" if until else ""


def _firing_cells(rule: Json) -> tuple[str, ...]:
    condition = rule.get("condition") or {}
    return (
        rule["id"],
        rule["name"],
        condition_text(condition),
        metric_value(condition.get("metric"), rule.get("value")),
        show_time(rule.get("changedAt")),
        _snooze(rule),
    )


def alerts_view(alerts: Json) -> list[RenderableType]:
    """``roomcast alerts``: the rules firing now, then the latest fired and resolved (newest first)."""
    firing, recent = alerts["firing"], alerts["recent"]
    shown: list[RenderableType] = []
    if firing:
        table = new_table("ID", "FIRING", "CONDITION", "VALUE", "SINCE (UTC)", "SNOOZED")
        for rule in firing:
            add_row(table, *_firing_cells(rule))
        shown.append(table)
    else:
        shown.append(Text("no alert firing"))
    if not recent:
        shown.append(Text("no alert in the last 35 days"))
        return shown
    metrics = {rule["id"]: (rule.get("condition") or {}).get("metric") for rule in firing}
    table = new_table("AT (UTC)", "ALERT", "NAME", "VALUE", "RULE")
    for event in recent[:RECENT_SHOWN]:
        value = metric_value(metrics.get(event["ruleId"]), event.get("value"))
        add_row(table, show_time(event["at"]), event["state"], event["name"], value, event["ruleId"])
    shown.append(table)
    if len(recent) > RECENT_SHOWN:
        shown.append(Text(f"and {len(recent) - RECENT_SHOWN} earlier (--json lists them)", style="dim"))
    return shown


def _rule_cells(rule: Json) -> tuple[str, ...]:
    return (
        rule["id"],
        rule["name"],
        scope_text(rule.get("scope") or {}),
        condition_text(rule.get("condition") or {}),
        notify_text(rule.get("notify") or {}),
        rule["state"],
        _snooze(rule),
    )


def alert_rules_table(listed: Json) -> list[RenderableType]:
    rules = listed["alertRules"]
    if not rules:
        return [Text("no alert rules")]
    table = new_table("ID", "NAME", "SCOPE", "CONDITION", "NOTIFY", "STATE", "SNOOZED")
    for rule in rules:
        add_row(table, *_rule_cells(rule))
    return [table]


def alert_rule_details(rule: Json) -> list[RenderableType]:
    """A rule; a new rule's signing secret is called out, since it is shown only once."""
    shown: list[RenderableType] = [details(rule, hide=("signingSecret",))]
    secret = rule.get("signingSecret")
    if secret:
        shown.append(shown_once("signing secret", secret))
    return shown


def snoozed_rule(rule: Json) -> Text:
    until = rule.get("snoozedUntil")
    if until:
        return Text(f"{rule['id']} ({rule['name']}) is snoozed until {show_time(until)} UTC")
    return Text(f"{rule['id']} ({rule['name']}) is not snoozed")
