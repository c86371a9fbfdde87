"""Alert rules: made, read, changed, snoozed and deleted by their tenant; and the alerts they
raised (roomcast.alerts; docs/alerts.md)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from botocore.exceptions import ClientError

from management_api.alerts.models import (
    AlertRuleCreate,
    AlertRulePatch,
    BacklogCondition,
    ConditionModel,
    EmailNotify,
    LatencyCondition,
    NotifyModel,
    RateCondition,
    WebhookNotify,
)
from roomcast.alerts import (
    MAX_RULES_PER_TENANT,
    AlertEvent,
    AlertMetric,
    AlertRule,
    AlertState,
    AlertTable,
    Condition,
    Notify,
    rule_filter_value,
)
from roomcast.catalog import Catalog
from roomcast.platform import InvalidRequest, iso_timestamp, new_signing_secret, now_iso
from roomcast.webhooks import PushUrlPolicy, Resolver, check_requested_url, system_resolver

RECENT_ALERTS = 50


def _condition(model: ConditionModel) -> Condition:
    metric = AlertMetric(model.metric)
    if isinstance(model, RateCondition):
        return Condition(
            metric, below=model.below, window_minutes=model.windowMinutes, min_deliveries=model.minDeliveries
        )
    if isinstance(model, LatencyCondition):
        return Condition(metric, above=model.above, window_minutes=model.windowMinutes)
    if isinstance(model, BacklogCondition):
        return Condition(metric, above=model.above)
    return Condition(metric, states=tuple(model.in_))


def _notify(model: NotifyModel) -> Notify:
    if isinstance(model, WebhookNotify):
        return Notify(webhook_url=model.webhookUrl)
    if isinstance(model, EmailNotify):
        return Notify(email=model.email)
    return Notify(slack_url=model.slackUrl)


@dataclass
class AlertsService:
    alerts: AlertTable
    catalog: Catalog
    push_url_policy: PushUrlPolicy
    sns: Any = None  # e-mail subscriptions (None: e-mail is not set up)
    topic_arn: str | None = None
    resolve: Resolver = system_resolver

    def create(self, tenant_id: str, request: AlertRuleCreate) -> AlertRule:
        """A new rule (404 for a scope the tenant does not have; 422 for an unsafe URL)."""
        self._check_scope(tenant_id, request.scope.roomId, request.scope.subscriptionId)
        condition, notify = _condition(request.condition), _notify(request.notify)
        self._check_condition(condition, request.scope.subscriptionId)
        self._check_notify(notify)
        now = now_iso()
        rule = AlertRule(
            id=f"alr_{secrets.token_hex(16)}",
            tenant_id=tenant_id,
            name=request.name,
            room_id=request.scope.roomId,
            subscription_id=request.scope.subscriptionId,
            condition=condition,
            notify=notify,
            signing_secret=new_signing_secret(),
            created_at=now,
            updated_at=now,
        )
        self._subscribe_email(rule)  # SNS checks the address first: a refusal stores nothing
        self.alerts.add_rule(rule, MAX_RULES_PER_TENANT)
        return rule

    def rules(self, tenant_id: str) -> list[AlertRule]:
        return list(self.alerts.rules_of(tenant_id))

    def get(self, tenant_id: str, rule_id: str) -> AlertRule:
        return self.alerts.get_rule(tenant_id, rule_id)

    def change(self, tenant_id: str, rule_id: str, changes: AlertRulePatch) -> AlertRule:
        """Its name, condition, notify or snooze changed (409 when it changed meanwhile)."""
        rule = self.alerts.get_rule(tenant_id, rule_id)
        given = changes.model_fields_set
        changed = replace(rule, updated_at=now_iso())
        if changes.name is not None:
            changed = replace(changed, name=changes.name)
        if changes.condition is not None:
            condition = _condition(changes.condition)
            self._check_condition(condition, rule.subscription_id)
            changed = replace(changed, condition=condition, state=AlertState.OK, notified=True)
        if changes.notify is not None:
            notify = _notify(changes.notify)
            self._check_notify(notify)
            changed = replace(changed, notify=notify)
        if "snoozedUntil" in given:
            until = changes.snoozedUntil
            changed = replace(changed, snoozed_until=None if until is None else iso_timestamp(until))
        if changes.notify is not None:
            self._subscribe_email(changed)
        self.alerts.replace_rule(changed, rule.updated_at)
        return changed

    def delete(self, tenant_id: str, rule_id: str) -> None:
        self.alerts.get_rule(tenant_id, rule_id)
        self.alerts.delete_rule(tenant_id, rule_id)

    def alerts_of(self, tenant_id: str) -> tuple[list[AlertRule], list[AlertEvent]]:
        firing = [r for r in self.alerts.rules_of(tenant_id) if r.state is AlertState.FIRING]
        return firing, self.alerts.events(tenant_id, RECENT_ALERTS)

    def _check_scope(self, tenant_id: str, room_id: str | None, subscription_id: str | None) -> None:
        if room_id is not None and subscription_id is not None:
            self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        elif room_id is not None:
            self.catalog.get_room(tenant_id, room_id)

    def _check_condition(self, condition: Condition, subscription_id: str | None) -> None:
        if condition.metric is AlertMetric.SUBSCRIPTION_STATE and subscription_id is None:
            problem = "subscriptionState watches one subscription: give scope.subscriptionId"
            detail = {"field": "body.scope.subscriptionId", "problem": problem, "type": "scope_mismatch"}
            raise InvalidRequest(problem, details=[detail], code="scope_mismatch")

    def _check_notify(self, notify: Notify) -> None:
        for field, url in (("webhookUrl", notify.webhook_url), ("slackUrl", notify.slack_url)):
            if url is not None:
                check_requested_url(url, self.push_url_policy, f"body.notify.{field}", self.resolve)
        if notify.email is not None and (self.sns is None or not self.topic_arn):
            problem = "e-mail notifications are not set up in this stack (AlertEmailTopic)"
            raise InvalidRequest(problem, details=[{"field": "body.notify.email", "problem": problem}])

    def _subscribe_email(self, rule: AlertRule) -> None:
        """An e-mail rule's address subscribed to the stack's topic, filtered on this rule: SNS
        sends the address a confirmation first."""
        if rule.notify.email is None or self.sns is None:
            return
        try:
            self.sns.subscribe(
                TopicArn=self.topic_arn,
                Protocol="email",
                Endpoint=rule.notify.email,
                Attributes={"FilterPolicy": f'{{"alertRule": ["{rule_filter_value(rule)}"]}}'},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") not in (
                "InvalidParameter",
                "InvalidParameterValue",
            ):
                raise
            problem = f"SNS refused the address: {error.response['Error'].get('Message', '')}"
            detail = {"field": "body.notify.email", "problem": problem, "type": "invalid_email"}
            raise InvalidRequest(problem, details=[detail], code="invalid_email") from error
