"""/rooms/{roomId}/messages/{messageId}: a message's delivery status."""

from __future__ import annotations

from management_api.common import MessageIdPath, RoomId
from management_api.dependencies import Messages
from management_api.messages.models import MessageStatus, message_status
from roomcast.api.routing import Routes
from roomcast.api.tenancy import Tenant

routes = Routes("messages")


@routes.get("/rooms/<roomId>/messages/<messageId>", "getMessage", "The message with its deliveries", 404)
def get_message(roomId: RoomId, messageId: MessageIdPath, tenant: Tenant, service: Messages) -> MessageStatus:
    """Read a message and its delivery status

    The message as published and, per destination, its status (`pending`, `retrying`,
    `delivered`, `dead`, `expired`), attempts made, last error and next attempt. Kept 30 days past
    the message's expiry (a year and 30 days for a message that never expires).
    """
    return message_status(service.status(tenant, roomId, messageId))
