"""Scheduled messages in DynamoDB (roomcast.deliver_at.rules): a room's scheduled messages from the
sparse ``Scheduled`` index, soonest first, and their two ends (roomcast.deliver_at.marks). The
``ScheduledRecords`` port; composed of the stores it reads and writes through, on one table."""

from __future__ import annotations

from functools import cached_property

from roomcast.deliver_at.marks import ScheduleMarks
from roomcast.messages import (
    SCHEDULED_INDEX,
    Message,
    MessageTable,
    RoomIndex,
    TrackedMessage,
    scheduled_shard_key,
)
from roomcast.platform import Page, Position, TableAccess


class ScheduledTable(TableAccess):
    @cached_property
    def _marks(self) -> ScheduleMarks:
        return ScheduleMarks.sharing(self)

    @cached_property
    def _index(self) -> ScheduledIndex:
        return ScheduledIndex.sharing(self)

    @cached_property
    def _messages(self) -> MessageTable:
        return MessageTable.sharing(self)

    def list_scheduled(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[TrackedMessage]:
        """A room's scheduled messages (not released, not cancelled), soonest deliverAt first:
        the ``Scheduled`` index's page, then the messages and their records as a list reads them."""
        page = self._index.page(tenant_id, room_id, limit, start)
        # One released or cancelled between the index's read and the messages' is left out.
        tracked = [t for t in self._messages.tracked(page.rows) if t.message.scheduled]
        return Page(tracked, page.next_position)

    def claim_release(self, tenant_id: str, message_id: str, release_id: str) -> Message | None:
        return self._marks.claim_release(tenant_id, message_id, release_id)

    def cancel_scheduled(self, tenant_id: str, message_id: str, cancelled_at: str) -> Message:
        return self._marks.cancel_scheduled(tenant_id, message_id, cancelled_at)


class ScheduledIndex(RoomIndex):
    """The sparse ``Scheduled`` index: a room's scheduled messages, soonest deliverAt first
    (roomcast.messages.items)."""

    index_name = SCHEDULED_INDEX
    partition_attribute, sort_attribute = "GSI2PK", "GSI2SK"
    newest_first = False

    @staticmethod
    def shard_key(tenant_id: str, room_id: str, shard: int) -> str:
        return scheduled_shard_key(tenant_id, room_id, shard)
