"""Message use cases: a message's status per destination."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roomcast.dal.ports import MessageRecords
from roomcast.domain import ids
from roomcast.domain.messages import TrackedMessage
from roomcast.errors import NotFound

_MESSAGE_ID = re.compile(ids.MESSAGE_ID_PATTERN)


@dataclass
class MessagesService:
    messages: MessageRecords

    def status(self, tenant_id: str, room_id: str, message_id: str) -> TrackedMessage:
        """The message with each destination's current record; a message of another room (or
        tenant) is not found."""
        missing = NotFound(f"message {message_id[:80]} not found in room {room_id[:80]}")
        if not _MESSAGE_ID.match(message_id):
            raise missing
        try:
            tracked = self.messages.get_message(tenant_id, message_id)
        except NotFound:
            raise missing from None
        if tracked.message.room_id != room_id:
            raise missing
        return tracked
