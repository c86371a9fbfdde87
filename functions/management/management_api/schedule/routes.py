"""/rooms/{roomId}/subscriptions/{subscriptionId}/schedule."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import Schedules
from management_api.schedule.models import NOTE, EffectivePolicy, ScheduledAttemptView, SchedulePreview
from roomcast.api.openapi import responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant

router = new_router()


@router.get(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/schedule",
    operation_id="getSchedule",
    summary="Preview a subscription's retry schedule",
    description="Every attempt its effective policy makes (its overrides, else the room's values): the "
    "wait before it, when it falls after the publish if every earlier attempt failed at once, and "
    "whether the room's expiry cuts it off.",
    responses=responses(200, "The schedule", 404),
    tags=["subscriptions"],
)
def get_schedule(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, schedules: Schedules
) -> SchedulePreview:
    found = schedules.preview(tenant, roomId, subscriptionId)
    return SchedulePreview(
        subscriptionId=subscriptionId,
        policy=EffectivePolicy.of(found.policy, found.message_expiration_ms),
        attempts=[ScheduledAttemptView.of(row) for row in found.attempts],
        note=NOTE,
    )
