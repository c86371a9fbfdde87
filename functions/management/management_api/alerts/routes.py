"""/alert-rules and /alerts routes."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from management_api.alerts.models import (
    AlertEventView,
    AlertRuleCreate,
    AlertRuleCreated,
    AlertRuleList,
    AlertRulePatch,
    AlertRuleView,
    AlertsResponse,
)
from management_api.common import no_content
from management_api.dependencies import Alerts
from roomcast.api import Routes, Tenant

routes = Routes("alerts")
RULE = "/alert-rules/<ruleId>"
RuleId = Annotated[
    str,
    Path(
        description="The rule's id (`alr_` and 32 hex digits).",
        examples=["alr_5b0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"],
    ),
]


@routes.post(
    "/alert-rules", "createAlertRule", "The rule, with its signing secret", 400, 404, 409, status=201
)
def create_alert_rule(body: AlertRuleCreate, tenant: Tenant, service: Alerts) -> AlertRuleCreated:
    """Create an alert rule

    A condition on the metrics of the tenant, a room or a subscription (`successRate` below X over
    `windowMinutes` with at least `minDeliveries` attempts; `oldestBacklogAgeMs` or
    `p95AttemptLatencyMs` above L; a subscription's `subscriptionState` in some states), and where
    to notify: a signed webhook, an e-mail address (through SNS) or a Slack-compatible URL.
    Evaluated every minute; one notification when it fires, one when it resolves (docs/alerts.md).
    At most {MAX_ALERT_RULES} rules per tenant (409 `limit_exceeded`).
    """
    rule = service.create(tenant, body)
    return AlertRuleCreated(**AlertRuleView.of(rule).model_dump(), signingSecret=rule.signing_secret)


@routes.get("/alert-rules", "listAlertRules", "The tenant's rules", 400)
def list_alert_rules(tenant: Tenant, service: Alerts) -> AlertRuleList:
    """List alert rules

    Every rule of the tenant, with its state and the value measured at its last change.
    """
    return AlertRuleList(alertRules=[AlertRuleView.of(rule) for rule in service.rules(tenant)])


@routes.get(RULE, "getAlertRule", "The rule", 404)
def get_alert_rule(ruleId: RuleId, tenant: Tenant, service: Alerts) -> AlertRuleView:
    """Get an alert rule

    The rule, its state and its snooze.
    """
    return AlertRuleView.of(service.get(tenant, ruleId))


@routes.patch(RULE, "updateAlertRule", "The rule, changed", 400, 404, 409)
def update_alert_rule(ruleId: RuleId, body: AlertRulePatch, tenant: Tenant, service: Alerts) -> AlertRuleView:
    """Change or snooze an alert rule

    Its name, condition (the rule starts again from `ok`), notify target, or `snoozedUntil`: no
    notification before that time (null: not snoozed).
    """
    return AlertRuleView.of(service.change(tenant, ruleId, body))


@routes.delete(RULE, "deleteAlertRule", "Deleted", 404, 409, status=204)
def delete_alert_rule(ruleId: RuleId, tenant: Tenant, service: Alerts) -> Response[None]:
    """Delete an alert rule

    It is not evaluated any more; its past alerts stay listed. 409 when another change to it ran at
    the same moment (nothing was deleted): retry.
    """
    service.delete(tenant, ruleId)
    return no_content()


@routes.get("/alerts", "listAlerts", "Firing and recent alerts", 400)
def list_alerts(tenant: Tenant, service: Alerts) -> AlertsResponse:
    """List alerts

    The rules firing now, and the latest times rules fired and resolved (newest first), with the
    values that made them.
    """
    firing, recent = service.alerts_of(tenant)
    return AlertsResponse(
        firing=[AlertRuleView.of(rule) for rule in firing], recent=[AlertEventView.of(e) for e in recent]
    )
