"""Subscription responses (the public contract; see /openapi.json): overrides flat, null where the
room's value applies."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, Field, JsonValue, model_validator

from management_api.fields import EventTypeModel
from management_api.ordering_keys.models import OnDeadKeyName
from management_api.subscriptions.examples import PUSH_EXAMPLE
from management_api.subscriptions.models import Overrides, Status
from management_api.subscriptions.shaping import FormatName, ModeName
from roomcast.api import ResponseModel, examples
from roomcast.catalog import Subscription, SubscriptionType
from roomcast.platform import iso_from_ms


class SubscriptionResponse(Overrides, ResponseModel):
    """A subscription; its overrides are flat here, null where the room's value applies.
    Build it with ``SubscriptionResponse.of_subscription(subscription)``."""

    model_config = examples(PUSH_EXAMPLE, lenient=True)

    id: str
    roomId: str
    type: Literal["PUSH", "PULL"]
    status: Status
    eventTypes: list[EventTypeModel]
    filterPolicy: dict[str, JsonValue] | None = Field(
        default=None,
        description="Its filter policy (docs/filters.md); null: every payload of its event types.",
    )
    consumerId: str | None = Field(default=None, description="The customer it belongs to; null: none named.")
    pushUrl: str | None = None
    destination: dict[str, str] | None = Field(
        default=None,
        description="PUSH: its AWS destination (`kind`, `arn`, `roleArn`, `externalId`); null: a URL.",
    )
    timeoutMs: int | None = None
    ackWaitMs: int | None = None
    maxConcurrency: int | None = None
    rateLimitPerSecond: float | None = None
    disableAfterFailingMs: int | None = None
    recoveryProbes: bool | None = Field(
        default=None, description="PUSH: whether an automatic disable probes it."
    )
    ordered: bool = Field(
        default=False, description="Whether it gets a key's messages one at a time, in order."
    )
    onDeadKey: OnDeadKeyName = "pause"
    format: FormatName | None = Field(default=None, description="PUSH: how its webhooks look.")
    cloudEventsMode: ModeName | None = Field(default=None, description="PUSH, format cloudevents only.")
    validationHandshake: bool | None = Field(
        default=None, description="PUSH: whether its receiver is asked first (on create, on a URL change)."
    )
    transformation: str | None = Field(
        default=None, description="PUSH: its transformation's source; null: none."
    )
    transformationVersion: int | None = Field(
        default=None,
        description="PUSH: the version of its transformation (GET …/transformation for the previous one).",
    )
    disabledReason: str | None = Field(default=None, description="Why it is disabled; null otherwise.")
    disabledAt: str | None = None
    probingSince: str | None = Field(
        default=None,
        description="PUSH: disabled automatically and probed since then (its deliveries wait); "
        "null otherwise.",
    )
    failingSince: str | None = Field(
        default=None,
        description=(
            "PUSH: when its current run of failed attempts began (every attempt since failed); null "
            "while healthy. A failure soon after a success shows only once the attempts have kept failing "
            "for 5 s, or disableAfterFailingMs when shorter (then from the first)."
        ),
    )
    slowSince: str | None = Field(
        default=None,
        description=(
            "PUSH: since when its endpoint answers slowly (a request took over 1 s): its deliveries "
            "run in the slow lane, apart from other endpoints'. Null once it answers within 0.5 s "
            "again (docs/delivery-semantics.md)."
        ),
    )
    createdAt: str
    updatedAt: str

    @classmethod
    def of_subscription(cls, subscription: Subscription, **fields: object) -> Self:
        policy = subscription.filter_policy
        rules = policy.rules if policy is not None else None
        current = subscription.transformation
        push_only: dict[str, object] = {
            "transformation": current.source if current else None,
            "transformationVersion": current.version if current else None,
        }
        if subscription.type is not SubscriptionType.PUSH:
            push_only = dict.fromkeys(("recoveryProbes", "format", "validationHandshake"), None) | push_only
        return cls.of(subscription, subscription.overrides, **fields, filterPolicy=rules, **push_only)

    @model_validator(mode="before")
    @classmethod
    def _marks_as_times(cls, data: Any) -> Any:
        """The domain keeps milliseconds (``failingSinceMs``, ``slowSinceMs``); the API shows ISO times."""
        if not isinstance(data, dict):
            return data
        marks = (
            ("failingSinceMs", "failingSince"),
            ("slowSinceMs", "slowSince"),
            ("probingSinceMs", "probingSince"),
        )
        for kept, shown in marks:
            if kept in data:
                since = data[kept]
                data = {k: v for k, v in data.items() if k != kept}
                data.setdefault(shown, iso_from_ms(since) if since is not None else None)
        return data


class SubscriptionCreated(SubscriptionResponse):
    model_config = examples({**PUSH_EXAMPLE, "signingSecret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})

    signingSecret: str | None = Field(
        default=None,
        description="PUSH only, shown once: verify webhook signatures with it (Standard Webhooks).",
    )


class SubscriptionList(BaseModel):
    model_config = examples({"subscriptions": [PUSH_EXAMPLE], "nextCursor": None})

    subscriptions: list[SubscriptionResponse]
    nextCursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null at the end."
    )
