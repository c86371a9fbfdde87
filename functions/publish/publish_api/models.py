"""Publish request and response (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, JsonValue, WithJsonSchema

from roomcast.api import (
    FILTERED_OUT_DESCRIPTION,
    INTEGRAL,
    SCHEMA_ERRORS_DESCRIPTION,
    ApiModel,
    ErrorBody,
    EventTypeName,
    EventVersion,
    FilteredOutView,
    ResponseModel,
    SubscriptionId,
    ZonedInstant,
    examples,
)
from roomcast.deliver_at import MAX_DELIVER_AHEAD_MS
from roomcast.messages import Message
from roomcast.ordering import ORDERING_KEY_PATTERN
from roomcast.platform import iso_from_ms, limits

CORRELATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$"


# deliverAt and deliverAfterMs are two ways to say one thing: at most one of them is not null
# (documented here; checked by publish_api.service, not by a model validator: one on this model
# let powertools take NaN in the payload, tests/unit/test_publish_finite_payloads.py).
# An ordered message goes in its key's turn, not at a time: orderingKey takes neither (yet).
_ONE_TIME = {
    "allOf": [
        {"not": {"required": [first, second], "properties": {first: {"type": a}, second: {"type": b}}}}
        for (first, a), (second, b) in (
            (("deliverAt", "string"), ("deliverAfterMs", "number")),
            (("orderingKey", "string"), ("deliverAt", "string")),
            (("orderingKey", "string"), ("deliverAfterMs", "number")),
        )
    ]
}


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
        {
            "eventType": "invoice.reminder",
            "eventVersion": "1",
            "payload": {"invoiceId": 77},
            "deliverAt": "2026-12-01T09:00:00Z",
        },
        {
            "eventType": "cart.abandoned",
            "eventVersion": "1",
            "payload": {"cartId": 5},
            "deliverAfterMs": 3600000,
        },
        schema=_ONE_TIME,
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
    orderingKey: Annotated[str, Field(pattern=ORDERING_KEY_PATTERN)] | None = Field(
        default=None,
        description="Its key (up to 128 letters, digits and _.:@+=-): a subscription created with "
        "ordered true gets the messages of one key one at a time, in publish order. Not with deliverAt "
        "or deliverAfterMs.",
        examples=["order-1001"],
    )
    deliverAt: ZonedInstant | None = Field(
        default=None,
        description="Deliver at this time (RFC 3339 with a UTC offset), from now up to 365 days ahead, "
        "to the second; its expiry counts from then. Not with deliverAfterMs.",
    )
    deliverAfterMs: Annotated[int, Field(ge=0, le=MAX_DELIVER_AHEAD_MS), INTEGRAL] | None = Field(
        default=None,
        description="Deliver this many milliseconds from now (up to 365 days); its expiry counts from then. "
        "Not with deliverAt.",
    )


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
    filteredOut: list[FilteredOutView] = Field(default=[], description=FILTERED_OUT_DESCRIPTION)
    schemaErrors: list[str] = Field(default=[], description=SCHEMA_ERRORS_DESCRIPTION)
    publishedAt: str
    deliverAt: str | None = Field(
        default=None,
        description="Scheduled: when it is delivered (null: at once). Cancel it with cancelMessage.",
    )
    orderingKey: str | None = Field(default=None, description="Its ordering key, as given.")

    @classmethod
    def of_message(cls, message: Message) -> PublishResponse:
        deliver_at = iso_from_ms(message.deliver_at_ms) if message.deliver_at_ms is not None else None
        return cls.of(message, messageId=message.id, deliverAt=deliver_at)


# -- batch publish ----------------------------------------------------------------------------------

# The Idempotency-Key header and the batch's idempotencyKey field take the same keys.
IDEMPOTENCY_KEY_REGEX = r"^[A-Za-z0-9._:-]{1,128}$"
_ORDER = {"eventType": "order.created", "eventVersion": "1"}


class PublishBatchMessage(PublishRequest):
    """One message of a batch: a single publish's body, plus its own idempotency key."""

    idempotencyKey: Annotated[str, Field(pattern=IDEMPOTENCY_KEY_REGEX)] | None = Field(
        default=None,
        description="As a single publish's Idempotency-Key header: the same key (tenant, room, key) "
        "names the same message for 24 hours, in a batch or not.",
    )


# Each message is validated on its own and answered in the results, so the request's schema takes
# any object as a message: a wrong one is not a malformed request (PublishBatchMessage says what a
# right one is).
BatchMessage = Annotated[
    dict[str, JsonValue],
    WithJsonSchema(
        {
            "type": "object",
            "description": "A message: the body of publishMessage (eventType, eventVersion, payload, "
            "correlationId, destinations) plus an optional idempotencyKey (1-128 letters, digits, "
            "'.', '_', ':' or '-'). Validated on its own: a wrong message is answered with its error "
            "in the results, the others are published.",
        }
    ),
]


class PublishBatchRequest(ApiModel):
    model_config = examples(
        {
            "messages": [
                {**_ORDER, "payload": {"orderId": 1001}, "idempotencyKey": "order-1001"},
                {**_ORDER, "payload": {"orderId": 1002}, "idempotencyKey": "order-1002"},
            ]
        }
    )

    messages: list[BatchMessage] = Field(
        min_length=1,
        max_length=limits.MAX_PUBLISH_BATCH_MESSAGES,
        description=f"1-{limits.MAX_PUBLISH_BATCH_MESSAGES} messages, published in this order.",
    )


class PublishBatchAccepted(PublishResponse):
    status: int = Field(description="202: published, as a single publish would have answered.")


class PublishBatchRefused(ResponseModel):
    status: int = Field(description="The HTTP status a single publish of this message would have answered.")
    error: ErrorBody


class PublishBatchResponse(ResponseModel):
    model_config = examples(
        {
            "results": [
                {
                    "status": 202,
                    "messageId": "msg_576e648137579110cd6d80e1bdbec8d3",
                    "correlationId": "order-1001",
                    "destinations": ["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"],
                    "publishedAt": "2026-11-22T10:00:00.000Z",
                },
                {
                    "status": 422,
                    "error": {
                        "code": "unroutable",
                        "message": "room room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21 does not accept event type "
                        "'order.deleted' (it accepts order.created)",
                        "details": [
                            {
                                "field": "body.messages.1.eventType",
                                "problem": "room room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21 does not accept event "
                                "type 'order.deleted' (it accepts order.created)",
                                "type": "unroutable",
                            }
                        ],
                    },
                },
            ],
            "failedCount": 1,
        }
    )

    results: list[PublishBatchAccepted | PublishBatchRefused] = Field(
        description="One per message, in request order: the published message, or why it was refused."
    )
    failedCount: int = Field(description="How many results are errors.")

    @classmethod
    def of_results(cls, results: list[dict[str, Any]]) -> PublishBatchResponse:
        return cls.model_validate({"results": results, "failedCount": sum("error" in r for r in results)})
