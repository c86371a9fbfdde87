"""Alert rules and their events in the table.

| entity        | PK                         | SK                            |
| ------------- | -------------------------- | ----------------------------- |
| alert rule    | ``TENANT#<t>``             | ``ALERTRULE#<ruleId>``        |
| rule pointer  | ``ALERTRULES``             | ``<tenantId>#<ruleId>``       |
| alert event   | ``TENANT#<t>#ALERTS``      | ``<at>#<ruleId>``             |

A rule lives in its tenant's partition, where every change of it is written. The evaluator finds
the tenants with rules from their pointers, in the one partition no tenant owns (ADR 0047): a
pointer is written when its rule is made and deleted with it, in the same transaction, and
nothing else writes there. A rule changes state with a write conditional on the state it was
read in, so two evaluations at once notify once. Events expire after 35 days.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.alerts.model import AlertEvent, AlertMetric, AlertRule, AlertState, Condition, Notify
from roomcast.platform import (
    DAY_MS,
    Conflict,
    NotFound,
    TableAccess,
    is_condition_failure,
    items,
    key,
    ms_from_iso,
)

POINTERS_PARTITION: Final = "ALERTRULES"
RULE_PREFIX: Final = "ALERTRULE#"
EVENTS_KEPT_MS: Final = 35 * DAY_MS


def events_partition(tenant_id: str) -> str:
    return f"{items.tenant_key(tenant_id)}#ALERTS"


def rule_to_item(rule: AlertRule) -> items.Item:
    condition, notify = rule.condition, rule.notify
    return {
        "PK": items.tenant_key(rule.tenant_id),
        "SK": f"{RULE_PREFIX}{rule.id}",
        "entity": "alertRule",
        "id": rule.id,
        "tenantId": rule.tenant_id,
        "name": rule.name,
        "roomId": rule.room_id,
        "subscriptionId": rule.subscription_id,
        "condition": {
            "metric": condition.metric.value,
            "below": condition.below,
            "above": condition.above,
            "in": list(condition.states) or None,
            "windowMinutes": condition.window_minutes,
            "minDeliveries": condition.min_deliveries,
        },
        "notify": {"webhookUrl": notify.webhook_url, "email": notify.email, "slackUrl": notify.slack_url},
        "signingSecret": rule.signing_secret,
        "createdAt": rule.created_at,
        "updatedAt": rule.updated_at,
        "state": rule.state.value,
        "value": rule.value,
        "changedAt": rule.changed_at,
        "snoozedUntil": rule.snoozed_until,
        "notified": rule.notified,
        "notifyAttempts": rule.notify_attempts,
    }


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def rule_from_item(item: items.Item) -> AlertRule:
    condition, notify = item["condition"], item["notify"]
    value = item.get("value")
    return AlertRule(
        id=item["id"],
        tenant_id=item["tenantId"],
        name=item["name"],
        room_id=item.get("roomId"),
        subscription_id=item.get("subscriptionId"),
        condition=Condition(
            metric=AlertMetric(condition["metric"]),
            below=_number(condition.get("below")),
            above=_number(condition.get("above")),
            states=tuple(condition.get("in") or ()),
            window_minutes=int(condition.get("windowMinutes", 5)),
            min_deliveries=int(condition.get("minDeliveries", 1)),
        ),
        notify=Notify(notify.get("webhookUrl"), notify.get("email"), notify.get("slackUrl")),
        signing_secret=item["signingSecret"],
        created_at=item["createdAt"],
        updated_at=item["updatedAt"],
        state=AlertState(item.get("state", "ok")),
        value=value if isinstance(value, str) or value is None else float(value),
        changed_at=item.get("changedAt"),
        snoozed_until=item.get("snoozedUntil"),
        notified=bool(item.get("notified", True)),
        notify_attempts=int(item.get("notifyAttempts", 0)),
    )


def _pointer(rule: AlertRule) -> items.Item:
    return {"PK": POINTERS_PARTITION, "SK": f"{rule.tenant_id}#{rule.id}", "tenantId": rule.tenant_id}


def _rule_key(tenant_id: str, rule_id: str) -> dict[str, Any]:
    return key(items.tenant_key(tenant_id), f"{RULE_PREFIX}{rule_id}")


class AlertTable(TableAccess):
    def add_rule(self, rule: AlertRule, max_rules: int) -> None:
        """Store a new rule with its pointer (409 ``limit_exceeded`` when the tenant has
        ``max_rules``)."""
        if sum(1 for _ in self.rules_of(rule.tenant_id)) >= max_rules:
            raise Conflict(f"a tenant has at most {max_rules} alert rules", code="limit_exceeded")
        new = "attribute_not_exists(PK)"
        self._transact_or_conflict(
            [
                {
                    "Put": {
                        "TableName": self._table_name,
                        "Item": items.to_attributes(rule_to_item(rule)),
                        "ConditionExpression": new,
                    }
                },
                {"Put": {"TableName": self._table_name, "Item": items.to_attributes(_pointer(rule))}},
            ],
            f"storing alert rule {rule.id}",
        )

    def get_rule(self, tenant_id: str, rule_id: str) -> AlertRule:
        answer = self._client.get_item(
            TableName=self._table_name, Key=_rule_key(tenant_id, rule_id), ConsistentRead=True
        )
        if "Item" not in answer:
            raise NotFound(f"alert rule {rule_id} not found")
        return rule_from_item(items.from_attributes(answer["Item"]))

    def rules_of(self, tenant_id: str) -> Iterator[AlertRule]:
        yield from (rule_from_item(i) for i in self._query_all(items.tenant_key(tenant_id), RULE_PREFIX))

    def all_rules(self) -> Iterator[AlertRule]:
        """Every rule of every tenant with one: the tenants from the pointers, a query each."""
        tenants = sorted({str(p["tenantId"]) for p in self._query_all(POINTERS_PARTITION)})
        for tenant_id in tenants:
            yield from self.rules_of(tenant_id)

    def replace_rule(self, rule: AlertRule, read_at: str) -> None:
        """Write a changed rule unless it changed since it was read (409 then)."""
        if not self._put_if(rule_to_item(rule), "updatedAt", read_at):
            raise Conflict(f"alert rule {rule.id} changed meanwhile; read it again and retry")

    def delete_rule(self, tenant_id: str, rule_id: str) -> None:
        self._transact_or_conflict(
            [
                {"Delete": {"TableName": self._table_name, "Key": _rule_key(tenant_id, rule_id)}},
                {
                    "Delete": {
                        "TableName": self._table_name,
                        "Key": key(POINTERS_PARTITION, f"{tenant_id}#{rule_id}"),
                    }
                },
            ],
            f"deleting alert rule {rule_id}",
        )

    def move(
        self, rule: AlertRule, state: AlertState, value: float | str | None, at: str
    ) -> AlertRule | None:
        """The rule moved to ``state`` (its notification owed), or None when another evaluation
        moved it first (its state is no longer the one read)."""
        moved = replace(rule, state=state, value=value, changed_at=at, notified=False, notify_attempts=0)
        return moved if self._put_if(rule_to_item(moved), "state", rule.state.value) else None

    def notified(self, rule: AlertRule, *, sent: bool) -> AlertRule:
        """A notification attempt's outcome, kept on the rule (unless it changed meanwhile)."""
        after = replace(rule, notified=sent, notify_attempts=rule.notify_attempts + 1)
        self._put_if(rule_to_item(after), "changedAt", rule.changed_at)
        return after

    def record_event(self, event: AlertEvent) -> None:
        self._put_new(
            {
                "PK": events_partition(event.tenant_id),
                "SK": f"{event.at}#{event.rule_id}",
                "entity": "alertEvent",
                "ruleId": event.rule_id,
                "name": event.name,
                "state": event.state.value,
                "value": event.value,
                "at": event.at,
                "ttl": (ms_from_iso(event.at) + EVENTS_KEPT_MS) // 1000,
            }
        )

    def events(self, tenant_id: str, limit: int) -> list[AlertEvent]:
        """The tenant's latest alert events, newest first."""
        answer = self._client.query(
            TableName=self._table_name,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": events_partition(tenant_id)}},
            ScanIndexForward=False,
            Limit=limit,
        )
        found = [items.from_attributes(raw) for raw in answer.get("Items", [])]
        return [
            AlertEvent(
                i["ruleId"],
                tenant_id,
                i["name"],
                AlertState(i["state"]),
                _event_value(i.get("value")),
                i["at"],
            )
            for i in found
        ]

    def _put_if(self, item: items.Item, attribute: str, expected: Any) -> bool:
        """Put ``item`` over the stored one while its ``attribute`` is still ``expected``."""
        request: dict[str, Any] = {
            "TableName": self._table_name,
            "Item": items.to_attributes(item),
            "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(#a)",
            "ExpressionAttributeNames": {"#a": attribute},
        }
        if expected is not None:
            request["ConditionExpression"] = "attribute_exists(PK) AND #a = :expected"
            request["ExpressionAttributeValues"] = {":expected": items.to_attributes({"v": expected})["v"]}
        try:
            self._client.put_item(**request)
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True


def _event_value(value: Any) -> float | str | None:
    return value if isinstance(value, str) or value is None else float(value)
