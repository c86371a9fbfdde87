"""Room requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from management_api.fields import (
    DeliveryAttempts,
    DeliveryDelayMs,
    DeliveryDelayMultiplier,
    EventTypeModel,
    EventTypes,
    MessageExpirationMs,
    Name,
)
from roomcast.api import NOT_NULL, ApiModel, ResponseModel, RoomId, examples
from roomcast.platform import limits

_ROOM_EXAMPLE = {
    "id": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
    "name": "orders",
    "messageExpirationMs": 3600000,
    "deliveryDelayMs": 1000,
    "deliveryDelayMultiplier": 2.0,
    "deliveryAttempts": 5,
    "eventTypes": [{"name": "order.created", "versions": ["1", "2"]}],
    "operationsRoomId": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
}


_OPERATIONS = (
    "Another room of yours where roomcast publishes events about this room's deliveries "
    "(subscription.disabled, delivery.dead, delivery.expired, delivery.failover)."
)


Undeclared = Annotated[
    Literal["allow", "reject"],
    Field(
        description="What a publish gets whose event type is not in the tenant's catalog (GET /event-types): "
        "`allow` (published, unchecked) or `reject` (422 `undeclared_event_type`)."
    ),
]


class RoomCreate(ApiModel):
    model_config = examples(
        {"name": "orders"},
        {k: v for k, v in _ROOM_EXAMPLE.items() if k not in ("id", "createdAt", "updatedAt")},
    )

    name: Name
    messageExpirationMs: MessageExpirationMs = None
    deliveryDelayMs: DeliveryDelayMs = limits.DEFAULT_DELIVERY_DELAY_MS
    deliveryDelayMultiplier: DeliveryDelayMultiplier = limits.DEFAULT_DELIVERY_DELAY_MULTIPLIER
    deliveryAttempts: DeliveryAttempts = limits.DEFAULT_DELIVERY_ATTEMPTS
    eventTypes: EventTypes = []
    operationsRoomId: RoomId | None = Field(default=None, description=_OPERATIONS)
    undeclaredEventTypes: Undeclared = "allow"


class RoomPatch(ApiModel):
    """Fields to change; absent ones keep their value. Only messageExpirationMs may be null (never)."""

    model_config = examples({"deliveryAttempts": 8}, {"messageExpirationMs": None})

    name: Annotated[Name | None, NOT_NULL] = None
    messageExpirationMs: MessageExpirationMs = None
    deliveryDelayMs: Annotated[DeliveryDelayMs | None, NOT_NULL] = None
    deliveryDelayMultiplier: Annotated[DeliveryDelayMultiplier | None, NOT_NULL] = None
    deliveryAttempts: Annotated[DeliveryAttempts | None, NOT_NULL] = None
    eventTypes: Annotated[EventTypes | None, NOT_NULL] = None
    operationsRoomId: RoomId | None = Field(default=None, description=_OPERATIONS + " null: none.")
    undeclaredEventTypes: Annotated[Undeclared | None, NOT_NULL] = None


class RoomResponse(ResponseModel):
    model_config = examples(_ROOM_EXAMPLE)

    id: str
    name: str
    messageExpirationMs: int | None = Field(description="null: messages never expire.")
    deliveryDelayMs: int
    deliveryDelayMultiplier: float
    deliveryAttempts: int
    eventTypes: list[EventTypeModel]
    operationsRoomId: str | None = None
    undeclaredEventTypes: Undeclared = "allow"
    createdAt: str
    updatedAt: str


class RoomList(BaseModel):
    model_config = examples({"rooms": [_ROOM_EXAMPLE], "nextCursor": None})

    rooms: list[RoomResponse]
    nextCursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null at the end."
    )
