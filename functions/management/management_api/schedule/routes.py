"""/rooms/{roomId}/subscriptions/{subscriptionId}/schedule."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import Schedules
from management_api.schedule.models import NOTE, EffectivePolicy, ScheduledAttemptView, SchedulePreview
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Routes, Tenant

routes = Routes("subscriptions")


@routes.get(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/schedule",
    "getSchedule",
    "The schedule",
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def get_schedule(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Schedules
) -> SchedulePreview:
    """Preview a subscription's retry schedule

    Every attempt its effective policy makes (its overrides, else the room's values): the wait
    before it, when it falls after the publish if every earlier attempt failed at once, and whether
    the room's expiry cuts it off.
    """
    found = service.preview(tenant, roomId, subscriptionId)
    return SchedulePreview(
        subscriptionId=subscriptionId,
        policy=EffectivePolicy.of(found.policy, messageExpirationMs=found.message_expiration_ms),
        attempts=[ScheduledAttemptView.of(row) for row in found.attempts],
        note=NOTE,
    )
