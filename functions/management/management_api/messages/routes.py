"""/rooms/{roomId}/messages/{messageId}: a message's delivery status."""

from __future__ import annotations

from management_api.common import MessageIdPath, RoomId
from management_api.dependencies import Messages
from management_api.messages.models import MessageStatus
from roomcast.api.openapi import responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant

router = new_router()


@router.get(
    "/rooms/<roomId>/messages/<messageId>",
    operation_id="getMessage",
    summary="Read a message and its delivery status",
    description="The message as published and, per destination, its status (`pending`, `retrying`, "
    "`delivered`, `dead`, `expired`), attempts made, last error and next attempt. Kept 30 days past "
    "the message's expiry (a year and 30 days for a message that never expires).",
    responses=responses(200, "The message with its deliveries", 404),
    tags=["messages"],
)
def get_message(
    roomId: RoomId, messageId: MessageIdPath, tenant: Tenant, messages: Messages
) -> MessageStatus:
    return MessageStatus.of(messages.status(tenant, roomId, messageId))
