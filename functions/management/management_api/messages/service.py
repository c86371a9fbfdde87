"""Message use cases: a room's messages (or its scheduled ones), a message's status per
destination and its attempt history, one subscription's deliveries, and cancelling a scheduled
message."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roomcast.catalog import Catalog
from roomcast.deliver_at import ScheduledRecords
from roomcast.messages import (
    Attempt,
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    MessageRecords,
    TrackedMessage,
    deliveries_to,
)
from roomcast.platform import NotFound, Page, Position, ids, now_iso

_MESSAGE_ID = re.compile(ids.MESSAGE_ID_PATTERN)


@dataclass(frozen=True)
class DestinationAttempt:
    subscription_id: str
    record: Attempt


@dataclass
class MessagesService:
    messages: MessageRecords
    catalog: Catalog
    scheduled_messages: ScheduledRecords

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

    def page(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        """The room's messages newest first (a page may be short when filters skip many)."""
        self.catalog.get_room(tenant_id, room_id)
        return self.messages.list_room_messages(tenant_id, room_id, limit, start, wanted)

    def scheduled(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        """The room's scheduled messages, soonest deliverAt first, of ``wanted``'s event type and
        publishing window (a page may be short when they skip many)."""
        self.catalog.get_room(tenant_id, room_id)
        page = self.scheduled_messages.list_scheduled(tenant_id, room_id, limit, start)
        return Page([t for t in page.items if _wanted(t.message, wanted)], page.next_position)

    def cancel(self, tenant_id: str, room_id: str, message_id: str) -> TrackedMessage:
        """Cancel a scheduled message before its time: its deliveries end ``cancelled``, nothing
        is sent. Found first (a message of another room is not found); Conflict once released."""
        self.status(tenant_id, room_id, message_id)
        self.scheduled_messages.cancel_scheduled(tenant_id, message_id, now_iso())
        return self.status(tenant_id, room_id, message_id)

    def attempts(
        self, tenant_id: str, room_id: str, message_id: str, subscription_id: str | None
    ) -> list[DestinationAttempt]:
        """Every attempt of the message's deliveries (or of one destination's), in order."""
        tracked = self.status(tenant_id, room_id, message_id)
        if subscription_id is not None and subscription_id not in tracked.message.destinations:
            raise NotFound(
                f"subscription {subscription_id[:80]} is not a destination of message {message_id}"
            )
        found = [
            DestinationAttempt(d.subscription_id, record)
            for d in tracked.deliveries
            if subscription_id in (None, d.subscription_id)
            for record in d.history
        ]
        return sorted(found, key=lambda a: (a.record.started_at, a.subscription_id, a.record.attempt))

    def deliveries(
        self,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        status: DeliveryStatus | None,
        limit: int,
        start: Position | None,
    ) -> Page[tuple[Message, Delivery]]:
        """One subscription's deliveries newest first, optionally of one status (a page may be
        short: follow ``next_position`` until it is None)."""
        self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        page = self.page(tenant_id, room_id, limit, start, MessageFilter(subscription_id=subscription_id))
        statuses = None if status is None else {status}
        return Page(deliveries_to(page.items, subscription_id, statuses), page.next_position)


def _wanted(message: Message, wanted: MessageFilter) -> bool:
    return (
        wanted.event_type in (None, message.event_type)
        and (wanted.since is None or message.published_at >= wanted.since)
        and (wanted.until is None or message.published_at <= wanted.until)
    )
