"""Publishing: route, store the message and its delivery records, then enqueue one envelope per
destination. Durable before the 202: a failure before the end answers 5xx and the publisher retries."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from roomcast.dal.messages import MessageStore
from roomcast.dal.repository import Repository
from roomcast.dal.sender import EnvelopeSender, Outgoing
from roomcast.delivery.log import DeliveryLog, LogRecord
from roomcast.domain import ids, limits
from roomcast.domain.clock import iso_timestamp, utc_now
from roomcast.domain.envelope import first_envelope
from roomcast.domain.messages import Delivery, DeliveryStatus, Message
from roomcast.domain.models import Subscription, SubscriptionType
from roomcast.domain.policy import expires_at
from roomcast.domain.routing import resolve_destinations
from roomcast.errors import RoomcastError


class PayloadTooLarge(RoomcastError):
    def __init__(self, size_bytes: int) -> None:
        super().__init__(
            f"payload is {size_bytes} bytes serialized; the limit is {limits.MAX_PAYLOAD_BYTES}",
            code="payload_too_large",
            http_status=413,
        )


@dataclass
class PublishService:
    repository: Repository
    messages: MessageStore
    sender: EnvelopeSender
    push_queue_url: str
    log: DeliveryLog

    def publish(self, tenant_id: str, room_id: str, request: dict[str, Any]) -> dict[str, Any]:
        payload_size = len(
            json.dumps(request["payload"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        )
        if payload_size > limits.MAX_PAYLOAD_BYTES:
            raise PayloadTooLarge(payload_size)
        room = self.repository.get_room(tenant_id, room_id)
        subscriptions = self.repository.all_subscriptions(tenant_id, room_id)
        destinations = resolve_destinations(
            room, subscriptions, request["eventType"], request["eventVersion"], request.get("destinations")
        )
        now = utc_now()
        published_at_ms = int(now.timestamp() * 1000)
        message = Message(
            id=ids.new_message_id(),
            tenant_id=tenant_id,
            room_id=room_id,
            event_type=request["eventType"],
            event_version=request["eventVersion"],
            correlation_id=request.get("correlationId") or str(uuid.uuid4()),
            payload=request["payload"],
            published_at=iso_timestamp(now),
            published_at_ms=published_at_ms,
            expires_at_ms=expires_at(published_at_ms, room.message_expiration_ms),
            destinations=tuple(s.id for s in destinations),
        )
        deliveries = [
            Delivery(
                message_id=message.id,
                tenant_id=tenant_id,
                subscription_id=s.id,
                subscription_type=s.type,
                status=DeliveryStatus.PENDING,
                attempts=0,
                last_error=None,
                next_attempt_at=message.published_at,
                updated_at=message.published_at,
            )
            for s in destinations
        ]
        # Stored first: a message is never on a queue without its record.
        self.messages.put_message(message, deliveries)
        self.sender.send(
            [
                Outgoing(
                    queue_url=self.push_queue_url if s.type is SubscriptionType.PUSH else (s.queue_url or ""),
                    envelope=first_envelope(message, s.id),
                    group_id=s.id if s.type is SubscriptionType.PUSH else None,
                )
                for s in destinations
            ]
        )
        targets: list[Subscription | None] = [*destinations] or [
            None
        ]  # a message with no destination is logged too
        for target in targets:
            self.log.add(
                LogRecord(
                    event="published",
                    message_id=message.id,
                    correlation_id=message.correlation_id,
                    tenant_id=tenant_id,
                    room_id=room_id,
                    subscription_id=target.id if target else None,
                    subscription_type=target.type.value if target else None,
                    published_at=message.published_at,
                    timestamp=message.published_at,
                )
            )
        return {
            "messageId": message.id,
            "correlationId": message.correlation_id,
            "destinations": list(message.destinations),
            "publishedAt": message.published_at,
        }
