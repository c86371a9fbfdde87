"""``client.alerts``: alert rules (create, list, get, change, snooze, delete) and the alerts they
raised: the rules firing now and the latest fired and resolved (docs/alerts.md)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, Final, Literal, TypeAlias

from roomcast_client._core import Call, query, read_model, read_nothing, segment, to_camel, wire_fields
from roomcast_client._executors import E, Resource, operation
from roomcast_client.models import AlertRuleCreated, AlertRuleList, AlertRuleView, AlertsResponse
from roomcast_client.resources.metrics import Moment, rfc3339

__all__ = ["NOT_GIVEN", "Alerts", "NotGiven"]


class _NotGivenType(Enum):
    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


# An argument of ``update_rule`` left out: its field is not sent (None is a value: ``snoozed_until``
# None lifts the snooze).
NOT_GIVEN: Final = _NotGivenType.NOT_GIVEN
NotGiven: TypeAlias = Literal[_NotGivenType.NOT_GIVEN]

# A condition or a notify target by the API's names (docs/alerts.md), snake_case accepted:
# ``{"metric": "successRate", "below": 0.9, "window_minutes": 5}``, ``{"webhook_url": "https://…"}``.
Condition: TypeAlias = Mapping[str, Any]
Notify: TypeAlias = Mapping[str, Any]


def _rule_path(rule_id: str) -> str:
    return f"/alert-rules/{segment(rule_id)}"


def _patch_rule(rule_id: str, changes: Mapping[str, Any]) -> Call[AlertRuleView]:
    """PATCH the rule with ``changes`` (the fields given), each by the API's name and form."""
    body: dict[str, Any] = {}
    for name, value in changes.items():
        if name in ("condition", "notify"):
            value = wire_fields(value)
        elif name == "snoozed_until":
            value = rfc3339(value)
        body[to_camel(name)] = value
    return Call("PATCH", _rule_path(rule_id), read_model(AlertRuleView), json=body)


class Alerts(Resource[E]):
    @operation
    def create_rule(
        self,
        name: str,
        condition: Condition,
        notify: Notify,
        *,
        room_id: str | None = None,
        subscription_id: str | None = None,
    ) -> Call[AlertRuleCreated]:
        """A rule on the tenant's metrics, a room's (``room_id``) or a subscription's (both ids).
        Its answer carries the signing secret of its webhook notifications, shown only here."""
        body: dict[str, Any] = {
            "name": name,
            "condition": wire_fields(condition),
            "notify": wire_fields(notify),
        }
        scope = query(roomId=room_id, subscriptionId=subscription_id)
        if scope:
            body["scope"] = scope
        return Call("POST", "/alert-rules", read_model(AlertRuleCreated), json=body, retry_safe=False)

    @operation
    def list_rules(self) -> Call[AlertRuleList]:
        """Every rule of the tenant (``alert_rules``), with its state and last value."""
        return Call("GET", "/alert-rules", read_model(AlertRuleList))

    @operation
    def get_rule(self, rule_id: str) -> Call[AlertRuleView]:
        return Call("GET", _rule_path(rule_id), read_model(AlertRuleView))

    @operation
    def update_rule(
        self,
        rule_id: str,
        *,
        name: str | NotGiven = NOT_GIVEN,
        condition: Condition | NotGiven = NOT_GIVEN,
        notify: Notify | NotGiven = NOT_GIVEN,
        snoozed_until: Moment | NotGiven | None = NOT_GIVEN,
    ) -> Call[AlertRuleView]:
        """Change what is given: a new ``condition`` starts the rule again from ``ok``;
        ``snoozed_until`` (a datetime, a naive one UTC, or RFC 3339 text) holds its notifications
        until then, None lifts the snooze."""
        changes = {"name": name, "condition": condition, "notify": notify, "snoozed_until": snoozed_until}
        return _patch_rule(rule_id, {key: value for key, value in changes.items() if value is not NOT_GIVEN})

    @operation
    def snooze(self, rule_id: str, until: Moment) -> Call[AlertRuleView]:
        """No notification before ``until``; then the rule fires or resolves on what it measures."""
        return _patch_rule(rule_id, {"snoozed_until": until})

    @operation
    def unsnooze(self, rule_id: str) -> Call[AlertRuleView]:
        """Lift the rule's snooze."""
        return _patch_rule(rule_id, {"snoozed_until": None})

    @operation
    def delete_rule(self, rule_id: str) -> Call[None]:
        """The rule is not evaluated any more; its past alerts stay listed."""
        return Call("DELETE", _rule_path(rule_id), read_nothing)

    @operation
    def list(self) -> Call[AlertsResponse]:
        """The rules firing now (``firing``), and the latest fired and resolved, newest first
        (``recent``, 35 days), each with the value that made it."""
        return Call("GET", "/alerts", read_model(AlertsResponse))
