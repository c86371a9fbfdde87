"""Publish request and response (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, JsonValue

from roomcast.api.models import ApiModel, EventTypeName, EventVersion, SubscriptionId
from roomcast.domain import limits

CORRELATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$"


class PublishRequest(ApiModel):
    eventType: EventTypeName
    eventVersion: EventVersion
    payload: JsonValue = Field(description=f"Any JSON, at most {limits.MAX_PAYLOAD_BYTES} bytes serialized.")
    correlationId: (
        Annotated[str, Field(min_length=1, max_length=128, pattern=CORRELATION_ID_PATTERN)] | None
    ) = None
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


class PublishResponse(BaseModel):
    messageId: str
    correlationId: str
    destinations: list[str]
    publishedAt: str
