"""Alert rules and alerts (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, Field, model_validator
from pydantic_core import PydanticCustomError

from management_api.fields import PushUrl
from roomcast.alerts import MAX_WINDOW_MINUTES, AlertEvent, AlertRule, AlertState
from roomcast.api import INTEGRAL, NOT_NULL, ApiModel, ZonedInstant, examples
from roomcast.platform import ids

MetricName = Literal["successRate", "oldestBacklogAgeMs", "p95AttemptLatencyMs", "subscriptionState"]
StateName = Literal["active", "failing", "paused", "disabled"]
_RULE = {
    "name": "orders endpoint failing",
    "scope": {
        "roomId": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
        "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
    },
    "condition": {"metric": "successRate", "below": 0.9, "windowMinutes": 5, "minDeliveries": 10},
    "notify": {"webhookUrl": "https://ops.example.com/roomcast-alerts"},
}


class ScopeModel(ApiModel):
    roomId: Annotated[str | None, NOT_NULL] = Field(
        default=None, pattern=ids.ROOM_ID_PATTERN, description="A room's metrics (absent: the tenant's)."
    )
    subscriptionId: Annotated[str | None, NOT_NULL] = Field(
        default=None, pattern=ids.SUBSCRIPTION_ID_PATTERN, description="One subscription's (with its roomId)."
    )

    @model_validator(mode="after")
    def _room_with_subscription(self) -> Self:
        if self.subscriptionId is not None and self.roomId is None:
            raise PydanticCustomError(
                "scope_mismatch", "scope.subscriptionId needs the scope.roomId it belongs to"
            )
        return self


# A threshold is kept to THRESHOLD_DECIMALS places: DynamoDB stores no number of magnitude below
# 1e-130 (3.5e-134 made the store fail), and no rate or millisecond needs finer.
THRESHOLD_DECIMALS = 6
Threshold = Annotated[float, AfterValidator(lambda value: round(value, THRESHOLD_DECIMALS))]


WindowMinutes = Annotated[
    int, Field(ge=1, le=MAX_WINDOW_MINUTES, description="Over the last this many minutes."), INTEGRAL
]


class RateCondition(ApiModel):
    metric: Literal["successRate"]
    below: Threshold = Field(ge=0, le=1, strict=False, description="Fires below this rate (0 to 1).")
    windowMinutes: WindowMinutes = 5
    minDeliveries: Annotated[int, Field(ge=1, le=1_000_000), INTEGRAL] = Field(
        default=1, description="Fewer attempts in the window than this never fire."
    )


class LatencyCondition(ApiModel):
    metric: Literal["p95AttemptLatencyMs"]
    above: Threshold = Field(ge=0, le=10**9, strict=False, description="Fires above this p95 (ms).")
    windowMinutes: WindowMinutes = 5


class BacklogCondition(ApiModel):
    metric: Literal["oldestBacklogAgeMs"]
    above: Threshold = Field(
        ge=0,
        le=10**12,
        strict=False,
        description="Fires when the oldest open delivery has waited longer (ms).",
    )


class StateCondition(ApiModel):
    metric: Literal["subscriptionState"]
    in_: list[StateName] = Field(
        alias="in",
        min_length=1,
        max_length=4,
        description="Fires while the subscription is in one of these states.",
    )


ConditionModel = Annotated[
    RateCondition | LatencyCondition | BacklogCondition | StateCondition, Field(discriminator="metric")
]


class WebhookNotify(ApiModel):
    webhookUrl: PushUrl = Field(description="A signed webhook (Standard Webhooks, the rule's signingSecret).")


class EmailNotify(ApiModel):
    email: str = Field(
        max_length=254,
        # An ASCII address (the forms SNS's e-mail protocol takes): a local part, @, a dotted domain.
        pattern=r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$",
        description="An e-mail address, through SNS (the address confirms its subscription first).",
    )


class SlackNotify(ApiModel):
    slackUrl: PushUrl = Field(description='A Slack-compatible incoming-webhook URL (`{"text": ...}`).')


NotifyModel = WebhookNotify | EmailNotify | SlackNotify


class AlertRuleCreate(ApiModel):
    model_config = examples(_RULE)

    name: str = Field(min_length=1, max_length=200)
    scope: ScopeModel = Field(default_factory=ScopeModel)
    condition: ConditionModel
    notify: NotifyModel


class AlertRulePatch(ApiModel):
    model_config = examples({"snoozedUntil": "2026-11-22T12:00:00Z"}, {"snoozedUntil": None})

    name: Annotated[str | None, NOT_NULL] = Field(default=None, min_length=1, max_length=200)
    condition: Annotated[ConditionModel | None, NOT_NULL] = None
    notify: Annotated[NotifyModel | None, NOT_NULL] = None
    snoozedUntil: ZonedInstant | None = Field(
        default=None, description="No notification before then (null: not snoozed)."
    )


_RULE_VIEW = {
    "id": "alr_5b0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
    **_RULE,
    "state": "firing",
    "value": 0.75,
    "changedAt": "2026-11-22T10:05:00.000Z",
    "snoozedUntil": None,
    "createdAt": "2026-11-22T09:00:00.000Z",
    "updatedAt": "2026-11-22T10:05:00.000Z",
}


class AlertRuleView(BaseModel):
    model_config = examples(_RULE_VIEW)

    id: str
    name: str
    scope: dict[str, str | None]
    condition: dict[str, object]
    notify: dict[str, str | None]
    state: Literal["ok", "firing"]
    value: float | str | None = Field(description="The value measured at its last change.")
    changedAt: str | None = Field(description="When it last fired or resolved.")
    snoozedUntil: str | None
    createdAt: str
    updatedAt: str

    @classmethod
    def of(cls, rule: AlertRule) -> AlertRuleView:
        condition = rule.condition
        threshold: dict[str, object] = {"below": condition.below} if condition.below is not None else {}
        if condition.above is not None:
            threshold = {"above": condition.above}
        if condition.states:
            threshold = {"in": list(condition.states)}
        notify = {
            "webhookUrl": rule.notify.webhook_url,
            "email": rule.notify.email,
            "slackUrl": rule.notify.slack_url,
        }
        return cls(
            id=rule.id,
            name=rule.name,
            scope={"roomId": rule.room_id, "subscriptionId": rule.subscription_id},
            condition={
                "metric": condition.metric.value,
                **threshold,
                "windowMinutes": condition.window_minutes,
                "minDeliveries": condition.min_deliveries,
            },
            notify={k: v for k, v in notify.items() if v is not None},
            state=rule.state.value,
            value=rule.value,
            changedAt=rule.changed_at,
            snoozedUntil=rule.snoozed_until,
            createdAt=rule.created_at,
            updatedAt=rule.updated_at,
        )


class AlertRuleCreated(AlertRuleView):
    signingSecret: str = Field(
        description="Shown once: verify the webhook notifications' signatures with it."
    )


class AlertRuleList(BaseModel):
    model_config = examples({"alertRules": [_RULE_VIEW]})

    alertRules: list[AlertRuleView]


class AlertEventView(BaseModel):
    ruleId: str
    name: str
    state: Literal["firing", "resolved"] = Field(description="`firing`: it fired; `resolved`: it resolved.")
    value: float | str | None
    at: str

    @classmethod
    def of(cls, event: AlertEvent) -> AlertEventView:
        state = "firing" if event.state is AlertState.FIRING else "resolved"
        return cls(ruleId=event.rule_id, name=event.name, state=state, value=event.value, at=event.at)


class AlertsResponse(BaseModel):
    model_config = examples(
        {
            "firing": [_RULE_VIEW],
            "recent": [
                {
                    "ruleId": _RULE_VIEW["id"],
                    "name": _RULE["name"],
                    "state": "firing",
                    "value": 0.75,
                    "at": "2026-11-22T10:05:00.000Z",
                }
            ],
        }
    )

    firing: list[AlertRuleView] = Field(description="The rules firing now.")
    recent: list[AlertEventView] = Field(description="The latest fired and resolved, newest first (35 days).")
