"""``client.filters``: the dry run of a message against a room's subscriptions (docs/filters.md)."""

from __future__ import annotations

from typing import Any

from roomcast_client._core import Call, read_model, wire_fields
from roomcast_client._executors import E, Resource, operation
from roomcast_client.models import CandidateMatch, FilterTest, SubscriptionMatch
from roomcast_client.resources.common import room_path

# The answer's models are the API's (generated): whether the room accepts the message, and each
# subscription's verdict (in id order) and the candidate filter's.
__all__ = ["CandidateMatch", "FilterTest", "Filters", "SubscriptionMatch"]


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
