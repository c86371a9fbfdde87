"""Deliver-at's port: scheduled messages, their release and their cancel
(roomcast.deliver_at.store implements it on DynamoDB)."""

from __future__ import annotations

from typing import Protocol

from roomcast.messages import Message, TrackedMessage
from roomcast.platform import Page, Position


class ScheduledRecords(Protocol):
    def list_scheduled(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[TrackedMessage]: ...
    def claim_release(self, tenant_id: str, message_id: str, release_id: str) -> Message | None: ...
    def cancel_scheduled(self, tenant_id: str, message_id: str, cancelled_at: str) -> Message: ...
