"""Message status responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, JsonValue

from roomcast.api import (
    FILTERED_OUT_DESCRIPTION,
    SCHEMA_ERRORS_DESCRIPTION,
    FilteredOutView,
    ResponseModel,
    examples,
)
from roomcast.messages import Delivery, DeliveryStatus, Message, TrackedMessage
from roomcast.platform import iso_from_ms

# The statuses are the domain's (roomcast.messages.DeliveryStatus), written there once: the API's
# document, and from it the SDK, the CLI and the console, take them from here.
if TYPE_CHECKING:
    DeliveryStatusName = str
else:
    DeliveryStatusName = Literal[tuple(status.value for status in DeliveryStatus)]
DELIVER_AT_DESCRIPTION = (
    "Scheduled (published with deliverAt or deliverAfterMs): when it is delivered to its destinations; "
    "its expiry counts from then. Null: delivered at once."
)


class DeliveryView(ResponseModel):
    subscriptionId: str
    subscriptionType: Literal["PUSH", "PULL"]
    status: DeliveryStatusName = Field(
        description="`scheduled` until a scheduled message's time, then `pending`; `cancelled` (final) "
        "when it was cancelled before; `aborted` (final) when the receiver answered "
        "`webhook-delivery: abort`; `filtered` (final) when its subscription's transformation cancelled it."
    )
    attempts: int = Field(description="Attempts made so far (a first-try success counts 1).")
    lastError: str | None
    nextAttemptAt: str | None
    updatedAt: str


_MESSAGE_EXAMPLE = {
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


_SCHEDULED_DELIVERY = {
    "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
    "subscriptionType": "PUSH",
    "status": "scheduled",
    "attempts": 0,
    "lastError": None,
    "nextAttemptAt": "2026-11-23T09:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
}
_SCHEDULED_EXAMPLE = {
    **_MESSAGE_EXAMPLE,
    "deliverAt": "2026-11-23T09:00:00.000Z",
    "expiresAt": "2026-11-23T10:00:00.000Z",
    "deliveries": [_SCHEDULED_DELIVERY],
}
_CANCELLED_EXAMPLE = {
    **_SCHEDULED_EXAMPLE,
    "cancelledAt": "2026-11-22T10:05:00.000Z",
    "deliveries": [{**_SCHEDULED_DELIVERY, "status": "cancelled", "updatedAt": "2026-11-22T10:05:00.000Z"}],
}


class MessageStatus(ResponseModel):
    model_config = examples(_MESSAGE_EXAMPLE, _SCHEDULED_EXAMPLE, _CANCELLED_EXAMPLE)

    messageId: str
    roomId: str
    eventType: str
    eventVersion: str
    correlationId: str
    payload: JsonValue
    publishedAt: str
    expiresAt: str | None
    destinations: list[str]
    filteredOut: list[FilteredOutView] = Field(default=[], description=FILTERED_OUT_DESCRIPTION)
    schemaErrors: list[str] = Field(default=[], description=SCHEMA_ERRORS_DESCRIPTION)
    deliverAt: str | None = Field(default=None, description=DELIVER_AT_DESCRIPTION)
    cancelledAt: str | None = Field(
        default=None,
        description="When the scheduled message was cancelled (its deliveries ended `cancelled`).",
    )
    deliveries: list[DeliveryView]


_NEXT = (
    "Pass as `cursor` for the next page; null at the end. A page may hold fewer items than "
    "`limit` (or none) when filters skip many: follow `nextCursor` until it is null."
)


class MessageList(BaseModel):
    model_config = examples(
        {"messages": [_MESSAGE_EXAMPLE], "nextCursor": None},
        {"messages": [_SCHEDULED_EXAMPLE], "nextCursor": None},
    )

    messages: list[MessageStatus]
    nextCursor: str | None = Field(default=None, description=_NEXT)


class AttemptView(ResponseModel):
    """One entry of a delivery's history: a webhook request or a send into an AWS destination
    (PUSH; a send's error begins with AWS's error code), or a hand-out, ack, nack or ack-wait
    expiry (PULL)."""

    subscriptionId: str
    attempt: int = Field(description="0 for the first delivery.")
    event: Literal["post", "send", "pull", "ack", "nack", "ack_wait_expired"]
    startedAt: str
    durationMs: int | None = None
    httpStatus: int | None = None
    error: str | None = None
    responseBody: str | None = Field(default=None, description="PUSH: the first KiB of the answer, as text.")


class AttemptList(BaseModel):
    model_config = examples(
        {
            "attempts": [
                {
                    "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
                    "attempt": 0,
                    "event": "post",
                    "startedAt": "2026-11-22T10:00:00.020Z",
                    "durationMs": 113,
                    "httpStatus": 503,
                    "error": "HTTP 503",
                    "responseBody": '{"error":"database down"}',
                }
            ]
        }
    )

    attempts: list[AttemptView]


class DeliveryItem(DeliveryView):
    """A subscription's delivery of one message."""

    messageId: str
    eventType: str
    eventVersion: str
    correlationId: str
    publishedAt: str


class DeliveryList(BaseModel):
    model_config = examples(
        {
            "deliveries": [
                {
                    "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                    "eventType": "order.created",
                    "eventVersion": "1",
                    "correlationId": "order-1001",
                    "publishedAt": "2026-11-22T10:00:00.000Z",
                    "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
                    "subscriptionType": "PUSH",
                    "status": "delivered",
                    "attempts": 1,
                    "lastError": None,
                    "nextAttemptAt": None,
                    "updatedAt": "2026-11-22T10:00:00.130Z",
                }
            ],
            "nextCursor": None,
        }
    )

    deliveries: list[DeliveryItem]
    nextCursor: str | None = Field(default=None, description=_NEXT)


def delivery_item(message: Message, delivery: Delivery) -> DeliveryItem:
    return DeliveryItem.of(message, delivery, messageId=message.id)


def message_status(tracked: TrackedMessage) -> MessageStatus:
    """A message with its deliveries as the API shows it."""
    message = tracked.message
    return MessageStatus.of(
        message,
        messageId=message.id,
        expiresAt=iso_from_ms(message.expires_at_ms) if message.expires_at_ms is not None else None,
        deliverAt=iso_from_ms(message.deliver_at_ms) if message.deliver_at_ms is not None else None,
        deliveries=[DeliveryView.of(d) for d in tracked.deliveries],
    )
