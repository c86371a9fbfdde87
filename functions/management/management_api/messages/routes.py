"""A room's messages, a message's delivery status and attempt history, a subscription's deliveries."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Query

from management_api.common import PAGE_SIZE, Cursor, Limit, MessageIdPath, RoomId, SubscriptionIdPath
from management_api.dependencies import Lists, Messages
from management_api.messages.models import (
    AttemptList,
    AttemptView,
    DeliveryList,
    DeliveryStatusName,
    MessageList,
    MessageStatus,
    delivery_item,
    message_status,
)
from management_api.portal_reach import require_subscription
from roomcast.access import PortalUse, Scope, access
from roomcast.api import EVENT_TYPE_NAME_PATTERN, Access, Instant, Routes, Tenant, list_scope
from roomcast.messages import DeliveryStatus, MessageFilter
from roomcast.platform import NotFound, iso_timestamp, limits

routes = Routes("messages")

EventTypeQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=limits.MAX_NAME_LENGTH,
        pattern=EVENT_TYPE_NAME_PATTERN,
        description="Only messages of this event type.",
    ),
]
Since = Annotated[
    Instant | None,
    Query(description="Only messages published at or after this time (ISO-8601; UTC if no zone)."),
]
Until = Annotated[
    Instant | None,
    Query(description="Only messages published at or before this time (ISO-8601; UTC if no zone)."),
]
StatusQuery = Annotated[DeliveryStatusName | None, Query(description="Only deliveries in this status.")]
ScheduledQuery = Annotated[
    Literal["scheduled"] | None,
    Query(
        description="`scheduled`: only messages waiting for their deliverAt, soonest first "
        "(neither released nor cancelled)."
    ),
]
SubscriptionQuery = Annotated[
    str | None, Query(min_length=1, max_length=64, description="Only this destination's attempts.")
]


@routes.get(
    "/rooms/<roomId>/messages",
    "listMessages",
    "A page of the room's messages",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH),
)
def list_messages(
    roomId: RoomId,
    service: Messages,
    lists: Lists,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
    eventType: EventTypeQuery = None,
    since: Since = None,
    until: Until = None,
    status: ScheduledQuery = None,
) -> MessageList:
    """List a room's messages

    The room's messages newest first, each with its deliveries' current status, optionally of one
    event type and published within `since`…`until`. Kept as long as their status is. With
    `status=scheduled`, only the messages waiting for their `deliverAt`, soonest first.
    """
    wanted = MessageFilter(
        event_type=eventType,
        since=iso_timestamp(since) if since else None,
        until=iso_timestamp(until) if until else None,
    )
    scope = list_scope(
        "messages", roomId, eventType=wanted.event_type, since=wanted.since, until=wanted.until, status=status
    )
    listed = service.scheduled if status == "scheduled" else service.page
    page = listed(lists.tenant_id, roomId, limit, lists.open(cursor, scope), wanted)
    next_cursor = lists.seal(page.next_position, scope)
    return MessageList(messages=[message_status(t) for t in page.items], nextCursor=next_cursor)


@routes.get(
    "/rooms/<roomId>/messages/<messageId>",
    "getMessage",
    "The message with its deliveries",
    404,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH),
)
def get_message(roomId: RoomId, messageId: MessageIdPath, tenant: Tenant, service: Messages) -> MessageStatus:
    """Read a message and its delivery status

    The message as published and, per destination, its status (`pending`, `retrying`,
    `delivered`, `dead`, `expired`), attempts made, last error and next attempt. Kept 30 days past
    the message's expiry (a year and 30 days for a message that never expires).
    """
    return message_status(service.status(tenant, roomId, messageId))


@routes.delete(
    "/rooms/<roomId>/messages/<messageId>",
    "cancelMessage",
    "The message, cancelled",
    404,
    409,
    access=access(Scope.MANAGE, Scope.PUBLISH),
)
def cancel_message(
    roomId: RoomId, messageId: MessageIdPath, tenant: Tenant, service: Messages
) -> MessageStatus:
    """Cancel a scheduled message

    A message published with `deliverAt` or `deliverAfterMs` is never delivered if cancelled
    before its time: its deliveries end `cancelled` and the message says when (`cancelledAt`).
    Cancelling it again answers the same. 409 `not_scheduled` for a message that was not
    scheduled, or whose time has come (its deliveries have started).
    """
    return message_status(service.cancel(tenant, roomId, messageId))


@routes.get(
    "/rooms/<roomId>/messages/<messageId>/attempts",
    "listAttempts",
    "Every attempt, in order",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH, portal=PortalUse.READ),
)
def list_attempts(
    roomId: RoomId,
    messageId: MessageIdPath,
    tenant: Tenant,
    service: Messages,
    caller: Access,
    subscriptionId: SubscriptionQuery = None,
) -> AttemptList:
    """List a message's delivery attempts

    Every attempt of every destination (or of `subscriptionId`'s), in order: for PUSH each webhook
    request with its HTTP status, duration, error and the first KiB of the response body; for
    PULL each hand-out, ack, nack and ack-wait expiry. Kept as long as the delivery's record.
    """
    if caller.reach is not None:  # a portal session sees its consumer's subscriptions' attempts only
        if subscriptionId is None:
            raise NotFound(f"message {messageId[:80]} not found: a portal session names its subscriptionId")
        require_subscription(tenant, caller.reach, roomId, subscriptionId)
    found = service.attempts(tenant, roomId, messageId, subscriptionId)
    return AttemptList(attempts=[AttemptView.of(a.record, subscriptionId=a.subscription_id) for a in found])


@routes.get(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/deliveries",
    "listDeliveries",
    "A page of the subscription's deliveries",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def list_deliveries(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    service: Messages,
    lists: Lists,
    status: StatusQuery = None,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
) -> DeliveryList:
    """List a subscription's deliveries

    The subscription's deliveries newest first (by message), optionally in one status. A page may
    be short when the status skips many: follow `nextCursor` until it is null.
    """
    wanted = DeliveryStatus(status) if status is not None else None
    scope = list_scope("deliveries", roomId, subscriptionId, status=status)
    start = lists.open(cursor, scope)
    page = service.deliveries(lists.tenant_id, roomId, subscriptionId, wanted, limit, start)
    return DeliveryList(
        deliveries=[delivery_item(message, delivery) for message, delivery in page.items],
        nextCursor=lists.seal(page.next_position, scope),
    )
