"""Publish request and response (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, JsonValue

from roomcast.api.models import ApiModel, EventTypeName, EventVersion, ResponseModel, SubscriptionId, examples
from roomcast.domain import limits

CORRELATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$"


class PublishRequest(ApiModel):
    model_config = examples(
        {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 1001, "total": 99.5}},
        {
            "eventType": "order.created",
            "eventVersion": "1",
            "payload": {"orderId": 1001},
            "correlationId": "order-1001",
            "destinations": ["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"],
        },
    )

    eventType: EventTypeName
    eventVersion: EventVersion
    payload: JsonValue = Field(description=f"Any JSON, at most {limits.MAX_PAYLOAD_BYTES} bytes serialized.")
    correlationId: (
        Annotated[str, Field(min_length=1, max_length=128, pattern=CORRELATION_ID_PATTERN)] | None
    ) = Field(default=None, description="Given, or generated; travels with every delivery and log record.")
    destinations: (
        Annotated[
            list[SubscriptionId],
            Field(
                min_length=1,
                max_length=limits.MAX_SUBSCRIPTIONS_PER_ROOM,
                description="Send only to these subscriptions of the room (each must match the event); "
                "omit it to route by event type and version.",
            ),
        ]
        | None
    ) = None


class PublishResponse(ResponseModel):
    model_config = examples(
        {
            "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
            "correlationId": "order-1001",
            "destinations": ["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"],
            "publishedAt": "2026-11-22T10:00:00.000Z",
        }
    )

    messageId: str
    correlationId: str
    destinations: list[str] = Field(description="The subscriptions it was routed to (possibly none).")
    publishedAt: str
