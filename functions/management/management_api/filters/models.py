"""The filter dry run's request and response (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from roomcast.api import ApiModel, EventTypeName, EventVersion, examples
from roomcast.filters import FilterPolicyBody
from roomcast.platform import limits

_ORDER = {"eventType": "order.created", "eventVersion": "1", "payload": {"amount": 50, "currency": "EUR"}}


class FilterTestRequest(ApiModel):
    model_config = examples(_ORDER, {**_ORDER, "filterPolicy": {"amount": [{"numeric": [">=", 100]}]}})

    eventType: EventTypeName
    eventVersion: EventVersion
    payload: JsonValue = Field(description=f"Any JSON, at most {limits.MAX_PAYLOAD_BYTES} bytes serialized.")
    filterPolicy: FilterPolicyBody | None = Field(
        default=None, description="A candidate policy to try on the payload too (nothing is saved)."
    )


class SubscriptionMatch(BaseModel):
    subscriptionId: str
    type: Literal["PUSH", "PULL"]
    status: Literal["active", "paused", "disabled"]
    matched: bool = Field(description="Whether publishing this message now would route it here.")
    reason: str | None = Field(
        default=None,
        description="Why not: the room refuses the message, the subscription is disabled, its event "
        "types do not accept it, or its filter's first failed condition "
        "(`payload.amount: 50 is not >= 100`). Null when it matched.",
    )


class CandidateMatch(BaseModel):
    matched: bool
    reason: str | None = Field(default=None, description="The first failed condition; null when it matched.")


class FilterTestResponse(BaseModel):
    model_config = examples(
        {
            "accepted": True,
            "reason": None,
            "subscriptions": [
                {
                    "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
                    "type": "PUSH",
                    "status": "active",
                    "matched": False,
                    "reason": "payload.amount: 50 is not >= 100",
                }
            ],
            "candidate": {"matched": False, "reason": "payload.amount: 50 is not >= 100"},
        }
    )

    accepted: bool = Field(description="Whether the room accepts the message's event type and version.")
    reason: str | None = Field(default=None, description="Why the room would refuse it; null otherwise.")
    subscriptions: list[SubscriptionMatch] = Field(description="Every subscription of the room, in id order.")
    candidate: CandidateMatch | None = Field(
        default=None, description="The candidate `filterPolicy`'s verdict; null when none was given."
    )
