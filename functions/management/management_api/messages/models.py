"""Message status responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from roomcast.api.models import ResponseModel, examples
from roomcast.domain.clock import iso_from_ms
from roomcast.domain.messages import TrackedMessage


class DeliveryView(ResponseModel):
    subscriptionId: str
    subscriptionType: Literal["PUSH", "PULL"]
    status: Literal["pending", "retrying", "delivered", "dead", "expired"]
    attempts: int = Field(description="Attempts made so far (a first-try success counts 1).")
    lastError: str | None
    nextAttemptAt: str | None
    updatedAt: str


class MessageStatus(ResponseModel):
    model_config = examples(
        {
            "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
            "roomId": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
            "eventType": "order.created",
            "eventVersion": "1",
            "correlationId": "order-1001",
            "payload": {"orderId": 1001},
            "publishedAt": "2026-11-22T10:00:00.000Z",
            "expiresAt": "2026-11-22T11:00:00.000Z",
            "destinations": ["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"],
            "deliveries": [
                {
                    "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
                    "subscriptionType": "PUSH",
                    "status": "retrying",
                    "attempts": 1,
                    "lastError": "HTTP 503",
                    "nextAttemptAt": "2026-11-22T10:00:01.120Z",
                    "updatedAt": "2026-11-22T10:00:00.120Z",
                }
            ],
        }
    )

    messageId: str
    roomId: str
    eventType: str
    eventVersion: str
    correlationId: str
    payload: JsonValue
    publishedAt: str
    expiresAt: str | None
    destinations: list[str]
    deliveries: list[DeliveryView]


def message_status(tracked: TrackedMessage) -> MessageStatus:
    """A message with its deliveries as the API shows it."""
    message = tracked.message
    return MessageStatus.of(
        message,
        messageId=message.id,
        expiresAt=iso_from_ms(message.expires_at_ms) if message.expires_at_ms is not None else None,
        deliveries=[DeliveryView.of(d) for d in tracked.deliveries],
    )
