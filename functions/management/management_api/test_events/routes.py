"""POST /rooms/{roomId}/subscriptions/{subscriptionId}/test-event."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import TestEvents
from management_api.portal_reach import check_event_types
from management_api.test_events.models import TestEventRequest, TestEventSent
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Access, Routes, Tenant

routes = Routes("subscriptions")


@routes.post(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/test-event",
    "sendTestEvent",
    "The test message, sent",
    400,
    404,
    415,
    status=202,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def send_test_event(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    body: TestEventRequest,
    tenant: Tenant,
    caller: Access,
    service: TestEvents,
) -> TestEventSent:
    """Send a test event

    A real message to this subscription alone, whatever its event types and filter: a signed
    `roomcast.ping` webhook, or an event type of your catalog with its schema's first example (or
    the `payload` given). Its deliveries, attempts and metrics are read like any message's. With a
    portal token the event type must be one of the session's.
    """
    if caller.reach is not None and body.eventType is not None:
        check_event_types([body.eventType], caller.reach, present=True)
    message = service.send(tenant, roomId, subscriptionId, body.eventType, body.eventVersion, body.payload)
    return TestEventSent(
        messageId=message.id,
        eventType=message.event_type,
        eventVersion=message.event_version,
        payload=message.payload,
    )
