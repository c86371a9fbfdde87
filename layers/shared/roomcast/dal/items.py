"""Storage item shapes (single-table design) and their explicit mapping to domain models.

Keys (docs/decisions/0002-single-table.md):

| entity       | PK                              | SK                  |
| ------------ | ------------------------------- | ------------------- |
| API key      | ``APIKEY#<sha256 of key>``      | ``APIKEY``          |
| room         | ``TENANT#<tenant>``             | ``ROOM#<roomId>``   |
| subscription | ``TENANT#<tenant>#ROOM#<room>`` | ``SUB#<subId>``     |

The tenant is part of every key, so a tenant can only ever address its own items.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

from roomcast.domain.models import (
    DeliveryOverrides,
    EventTypeFilter,
    Room,
    SigningSecret,
    Subscription,
    SubscriptionStatus,
    SubscriptionType,
)

Item = dict[str, Any]
AttributeMap = dict[str, Any]

if TYPE_CHECKING:
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer


@cache
def _serializer() -> TypeSerializer:
    # Imported on first use: importing boto3 costs as much as the rest of a cold start.
    from boto3.dynamodb.types import TypeSerializer

    return TypeSerializer()


@cache
def _deserializer() -> TypeDeserializer:
    from boto3.dynamodb.types import TypeDeserializer

    return TypeDeserializer()


def tenant_key(tenant_id: str) -> str:
    return f"TENANT#{tenant_id}"


def room_sort_key(room_id: str) -> str:
    return f"ROOM#{room_id}"


def room_partition_key(tenant_id: str, room_id: str) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}"


def subscription_sort_key(subscription_id: str) -> str:
    return f"SUB#{subscription_id}"


def api_key_partition_key(api_key_hash: str) -> str:
    return f"APIKEY#{api_key_hash}"


def to_attributes(item: Item) -> AttributeMap:
    """Plain item → DynamoDB attribute map (floats travel as Decimal; None attributes are dropped)."""
    return {
        name: _serializer().serialize(_to_dynamo(value)) for name, value in item.items() if value is not None
    }


def from_attributes(attributes: AttributeMap) -> Item:
    deserializer = _deserializer()
    return {name: _from_dynamo(deserializer.deserialize(value)) for name, value in attributes.items()}


def _to_dynamo(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list | tuple):
        return [_to_dynamo(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_dynamo(v) for k, v in value.items()}
    return value


def _from_dynamo(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_from_dynamo(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_dynamo(v) for k, v in value.items()}
    return value


def _event_types_item(filters: tuple[EventTypeFilter, ...]) -> list[dict[str, Any]]:
    return [{"name": f.name, "versions": list(f.versions)} for f in filters]


def _event_types_domain(raw: list[dict[str, Any]] | None) -> tuple[EventTypeFilter, ...]:
    return tuple(EventTypeFilter(name=e["name"], versions=tuple(e.get("versions", []))) for e in raw or [])


def room_to_item(room: Room) -> Item:
    return {
        "PK": tenant_key(room.tenant_id),
        "SK": room_sort_key(room.id),
        "entity": "room",
        "id": room.id,
        "tenantId": room.tenant_id,
        "name": room.name,
        "messageExpirationMs": room.message_expiration_ms,
        "deliveryDelayMs": room.delivery_delay_ms,
        "deliveryDelayMultiplier": float(room.delivery_delay_multiplier),
        "deliveryAttempts": room.delivery_attempts,
        "eventTypes": _event_types_item(room.event_types),
        "createdAt": room.created_at,
        "updatedAt": room.updated_at,
    }


def room_from_item(item: Item) -> Room:
    return Room(
        id=item["id"],
        tenant_id=item["tenantId"],
        name=item["name"],
        message_expiration_ms=item.get("messageExpirationMs"),
        delivery_delay_ms=item["deliveryDelayMs"],
        delivery_delay_multiplier=float(item["deliveryDelayMultiplier"]),
        delivery_attempts=item["deliveryAttempts"],
        event_types=_event_types_domain(item.get("eventTypes")),
        created_at=item["createdAt"],
        updated_at=item["updatedAt"],
    )


def subscription_to_item(subscription: Subscription) -> Item:
    overrides = subscription.overrides
    return {
        "PK": room_partition_key(subscription.tenant_id, subscription.room_id),
        "SK": subscription_sort_key(subscription.id),
        "entity": "subscription",
        "id": subscription.id,
        "roomId": subscription.room_id,
        "tenantId": subscription.tenant_id,
        "type": subscription.type.value,
        "status": subscription.status.value,
        "eventTypes": _event_types_item(subscription.event_types),
        "deliveryDelayMs": overrides.delivery_delay_ms,
        "deliveryDelayMultiplier": overrides.delivery_delay_multiplier,
        "deliveryAttempts": overrides.delivery_attempts,
        "maxDelayMs": overrides.max_delay_ms,
        "jitter": overrides.jitter,
        "retryScheduleMs": list(overrides.retry_schedule_ms)
        if overrides.retry_schedule_ms is not None
        else None,
        "failoverSubscriptionId": subscription.failover_subscription_id,
        "pushUrl": subscription.push_url,
        "timeoutMs": subscription.timeout_ms,
        "signingSecrets": [
            {"secret": s.secret, "expiresAtMs": s.expires_at_ms} for s in subscription.signing_secrets
        ]
        or None,
        "ackWaitMs": subscription.ack_wait_ms,
        "queueUrl": subscription.queue_url,
        "deadLetterQueueUrl": subscription.dead_letter_queue_url,
        "createdAt": subscription.created_at,
        "updatedAt": subscription.updated_at,
    }


def subscription_from_item(item: Item) -> Subscription:
    schedule = item.get("retryScheduleMs")
    multiplier = item.get("deliveryDelayMultiplier")
    jitter = item.get("jitter")
    return Subscription(
        id=item["id"],
        room_id=item["roomId"],
        tenant_id=item["tenantId"],
        type=SubscriptionType(item["type"]),
        status=SubscriptionStatus(item["status"]),
        event_types=_event_types_domain(item.get("eventTypes")),
        overrides=DeliveryOverrides(
            delivery_delay_ms=item.get("deliveryDelayMs"),
            delivery_delay_multiplier=float(multiplier) if multiplier is not None else None,
            delivery_attempts=item.get("deliveryAttempts"),
            max_delay_ms=item.get("maxDelayMs"),
            jitter=float(jitter) if jitter is not None else None,
            retry_schedule_ms=tuple(schedule) if schedule is not None else None,
        ),
        failover_subscription_id=item.get("failoverSubscriptionId"),
        push_url=item.get("pushUrl"),
        timeout_ms=item.get("timeoutMs"),
        signing_secrets=tuple(
            SigningSecret(raw["secret"], raw.get("expiresAtMs")) for raw in item.get("signingSecrets") or ()
        ),
        ack_wait_ms=item.get("ackWaitMs"),
        queue_url=item.get("queueUrl"),
        dead_letter_queue_url=item.get("deadLetterQueueUrl"),
        created_at=item["createdAt"],
        updated_at=item["updatedAt"],
    )
