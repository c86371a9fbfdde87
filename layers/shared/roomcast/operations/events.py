"""Operational events: roomcast's own messages about a room's deliveries, published into the
room's ``operationsRoomId`` as ordinary messages (signed webhooks, retries, PULL, everything).

| eventType               | when                                                              |
| ----------------------- | ----------------------------------------------------------------- |
| `subscription.failing`  | every attempt failed for 80% of `disableAfterFailingMs` (once)    |
| `subscription.disabled` | every attempt failed for `disableAfterFailingMs`, a 410 Gone, or  |
|                         | the receiver's `webhook-delivery: disable`                        |
| `subscription.enabled`  | disabled automatically, it answered a recovery probe 2xx          |
| `delivery.dead`         | a delivery ended dead (attempts used up, permanent failure, ...)  |
| `delivery.expired`      | a delivery ended expired                                          |
| `delivery.failover`     | a delivery was handed to the subscription's failover              |
| `message.schema_invalid`| a message was published whose payload breaks its schema (`warn`)  |

All have ``eventVersion`` "1" and a payload with ``roomId``, ``subscriptionId``, ``messageId`` (for
deliveries), ``reason`` and ``occurredAt``; ``message.schema_invalid`` has ``messageId``,
``eventType``, ``eventVersion`` and ``errors`` (no subscription). No loops: deliveries of
operational events themselves (known by their correlation id) are never reported, so an operations
room whose own subscribers fail, or two rooms naming each other, cannot feed events back and forth.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from roomcast.catalog import RoomRecords
from roomcast.messages import Envelope, Message, Publication
from roomcast.platform import InvalidRequest, JsonValue, NotFound, iso_from_ms, logger, now_ms

EVENT_VERSION: Final = "1"
SUBSCRIPTION_DISABLED: Final = "subscription.disabled"
SUBSCRIPTION_FAILING: Final = "subscription.failing"
SUBSCRIPTION_ENABLED: Final = "subscription.enabled"
DELIVERY_DEAD: Final = "delivery.dead"
DELIVERY_EXPIRED: Final = "delivery.expired"
DELIVERY_FAILOVER: Final = "delivery.failover"
MESSAGE_SCHEMA_INVALID: Final = "message.schema_invalid"
EVENT_TYPES: Final = (
    SUBSCRIPTION_DISABLED,
    SUBSCRIPTION_FAILING,
    SUBSCRIPTION_ENABLED,
    DELIVERY_DEAD,
    DELIVERY_EXPIRED,
    DELIVERY_FAILOVER,
    MESSAGE_SCHEMA_INVALID,
)
# The correlation id of every operational event starts with this.
CORRELATION_PREFIX: Final = "roomcast-operations:"


def is_operational(envelope: Envelope) -> bool:
    return envelope.event_type in EVENT_TYPES and envelope.correlation_id.startswith(CORRELATION_PREFIX)


class MessagePublisher(Protocol):
    def publish_message(self, tenant_id: str, room_id: str, publication: Publication) -> Message: ...


@dataclass
class OperationalEvents:
    """``publisher`` makes the publisher on the first event: a function that reports endings but
    seldom has one (pull) does not load the publish path at cold start."""

    rooms: RoomRecords
    publisher: Callable[[], MessagePublisher]
    clock: Callable[[], int] = now_ms

    def delivery(self, event_type: str, envelope: Envelope, reason: str, **details: JsonValue) -> None:
        """Report how a delivery ended (never about an operational event's own delivery)."""
        if is_operational(envelope):
            return
        payload: dict[str, JsonValue] = {
            "roomId": envelope.room_id,
            "subscriptionId": envelope.subscription_id,
            "messageId": envelope.message_id,
            "correlationId": envelope.correlation_id,
            "reason": reason,
            "occurredAt": iso_from_ms(self.clock()),
            **details,
        }
        self._publish(envelope.tenant_id, envelope.room_id, event_type, payload)

    def subscription_disabled(self, tenant_id: str, room_id: str, subscription_id: str, reason: str) -> None:
        self.subscription(SUBSCRIPTION_DISABLED, tenant_id, room_id, subscription_id, reason)

    def subscription(
        self,
        event_type: str,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        reason: str,
        **details: JsonValue,
    ) -> None:
        """A subscription's health changed: disabled, failing (the warning before), enabled again."""
        payload: dict[str, JsonValue] = {
            "roomId": room_id,
            "subscriptionId": subscription_id,
            "messageId": None,
            "reason": reason,
            "occurredAt": iso_from_ms(self.clock()),
            **details,
        }
        self._publish(tenant_id, room_id, event_type, payload)

    def schema_warning(self, message: Message) -> None:
        """A message was published whose payload breaks its event type's schema (``warn``)."""
        payload: dict[str, JsonValue] = {
            "roomId": message.room_id,
            "subscriptionId": None,
            "messageId": message.id,
            "correlationId": message.correlation_id,
            "eventType": message.event_type,
            "eventVersion": message.event_version,
            "errors": list(message.schema_errors),
            "reason": "its payload breaks the schema of its event type and version",
            "occurredAt": iso_from_ms(self.clock()),
        }
        self._publish(message.tenant_id, message.room_id, MESSAGE_SCHEMA_INVALID, payload)

    def _publish(self, tenant_id: str, room_id: str, event_type: str, payload: dict[str, JsonValue]) -> None:
        """Into the room's operations room, if it names one that still exists and accepts the type.
        AWS failures propagate: the caller's work is repeated (a duplicate event, never a lost one)."""
        try:
            room = self.rooms.get_room(tenant_id, room_id)
            if not room.operations_room_id or room.operations_room_id == room_id:
                return
            event = Publication(event_type, EVENT_VERSION, payload, CORRELATION_PREFIX + uuid.uuid4().hex)
            self.publisher().publish_message(tenant_id, room.operations_room_id, event)
        except (NotFound, InvalidRequest) as skipped:  # room gone, or its eventTypes refuse the type
            logger.info(
                "operational event not published", extra={"eventType": event_type, "why": str(skipped)}
            )
