"""``client.filters``: the dry run of a message against a room's subscriptions (docs/filters.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from roomcast_client._core import Call, read_model, wire_fields
from roomcast_client._executors import E, Resource, operation
from roomcast_client.models import ApiModel
from roomcast_client.resources.common import room_path


class SubscriptionMatch(ApiModel):
    subscription_id: str
    type: Literal["PUSH", "PULL"]
    status: str
    matched: bool
    reason: str | None = None  # why not: the room, its status, its event types, or its filter


class CandidateMatch(ApiModel):
    matched: bool
    reason: str | None = None


class FilterTest(ApiModel):
    """Whether the room accepts the message, and each subscription's verdict (in id order)."""

    accepted: bool
    reason: str | None = None
    subscriptions: list[SubscriptionMatch] = Field(default_factory=list)
    candidate: CandidateMatch | None = None


class Filters(Resource[E]):
    @operation
    def test(
        self,
        room_id: str,
        event_type: str,
        payload: Any,
        *,
        event_version: str = "1",
        filter_policy: dict[str, Any] | None = None,
    ) -> Call[FilterTest]:
        """Which subscriptions of the room would get this message now, and why not; with
        ``filter_policy``, that candidate's verdict too. Nothing is published."""
        body = wire_fields({"event_type": event_type, "event_version": event_version, "payload": payload})
        if filter_policy is not None:
            body["filterPolicy"] = filter_policy
        return Call("POST", f"{room_path(room_id)}/filters/test", read_model(FilterTest), json=body)
