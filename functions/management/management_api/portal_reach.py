"""What a portal session reaches among subscriptions: its consumer's, to its event types
(roomcast.access.PortalReach), and what it may set on one. The gate asks ``subscription_in_reach``
before any route about one subscription runs; the subscription routes ask the rest."""

from __future__ import annotations

from typing import Final

from management_api import dependencies
from management_api.subscriptions.models import PullSubscriptionCreate, PushSubscriptionCreate
from roomcast.catalog import Subscription
from roomcast.platform import InvalidRequest, NotFound, RoomcastError
from roomcast.portal import PortalReach

# What a portal session may set on a subscription: where it goes, what it receives, paused or not.
PORTAL_CREATE_FIELDS: Final = frozenset({"type", "pushUrl", "eventTypes", "filterPolicy", "consumerId"})
PORTAL_PATCH_FIELDS: Final = frozenset({"pushUrl", "eventTypes", "filterPolicy", "status"})
PORTAL_STATUSES: Final = frozenset({"active", "paused"})


def in_reach(subscription: Subscription, reach: PortalReach) -> bool:
    return subscription.consumer_id == reach.consumer_id and reach.covers_event_types(
        tuple(event_type.name for event_type in subscription.event_types)
    )


def subscription_in_reach(tenant_id: str, reach: PortalReach, room_id: str, subscription_id: str) -> bool:
    try:
        subscription = dependencies.catalog().get_subscription(tenant_id, room_id, subscription_id)
    except NotFound:
        return False
    return in_reach(subscription, reach)


def require_subscription(
    tenant_id: str, reach: PortalReach | None, room_id: str, subscription_id: str
) -> None:
    """404 unless a portal session's reach holds the subscription (nothing to check for a key)."""
    if reach is not None and not subscription_in_reach(tenant_id, reach, room_id, subscription_id):
        raise NotFound(f"subscription {subscription_id[:80]} not found in room {room_id[:80]}")


def check_fields(given: set[str], allowed: frozenset[str]) -> None:
    """403 naming the first field a portal session may not set."""
    refused = sorted(given - allowed)
    if refused:
        raise RoomcastError(
            f"body.{refused[0]}: not settable from the portal (it may set {', '.join(sorted(allowed))})",
            details=[
                {"field": f"body.{name}", "problem": "not settable from the portal", "type": "portal_field"}
                for name in refused
            ],
            code="portal_field",
            http_status=403,
        )


def check_event_types(names: list[str], reach: PortalReach, present: bool) -> None:
    """A subscription a portal session makes or changes must receive only its event types."""
    if reach.event_types is None or (not present):
        return
    outside = sorted(set(names) - set(reach.event_types))
    if not names or outside:
        problem = (
            f"outside this session's event types: {', '.join(outside)}"
            if outside
            else "must name event types (this session reaches only some)"
        )
        raise InvalidRequest(
            f"body.eventTypes: {problem}",
            details=[{"field": "body.eventTypes", "problem": problem, "type": "portal_event_types"}],
        )


def check_create(body: PushSubscriptionCreate | PullSubscriptionCreate, reach: PortalReach) -> None:
    """A portal session creates PUSH subscriptions of its consumer, to its event types."""
    given = set(body.model_fields_set)
    check_fields(given, PORTAL_CREATE_FIELDS)
    if body.type != "PUSH":
        raise InvalidRequest(
            "body.type: the portal creates PUSH subscriptions only",
            details=[{"field": "body.type", "problem": "PUSH only", "type": "portal_push_only"}],
        )
    if body.consumerId is not None and body.consumerId != reach.consumer_id:
        raise InvalidRequest(
            f"body.consumerId: this session is for consumer {reach.consumer_id}",
            details=[{"field": "body.consumerId", "problem": "another consumer", "type": "portal_consumer"}],
        )
    check_event_types([e.name for e in body.eventTypes], reach, present=True)
