"""Storage item shapes (single-table design) and their explicit mapping to domain models.

Keys (docs/decisions/0002-single-table.md):

| entity       | PK                              | SK                  |
| ------------ | ------------------------------- | ------------------- |
| API key      | ``APIKEY#<sha256 of key>``      | ``APIKEY``          |
| key entry    | ``TENANT#<tenant>``             | ``KEY#<keyId>``     |
| room         | ``TENANT#<tenant>``             | ``ROOM#<roomId>``   |
| subscription | ``TENANT#<tenant>#ROOM#<room>`` | ``SUB#<subId>``     |

The tenant is part of every key, so a tenant can only ever address its own items.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

from roomcast.catalog.model import Room, Subscription
from roomcast.platform.fields import camel_fields, from_camel_fields

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


def room_to_item(room: Room) -> Item:
    return {
        "PK": tenant_key(room.tenant_id),
        "SK": room_sort_key(room.id),
        "entity": "room",
        **camel_fields(room),
    }


def room_from_item(item: Item) -> Room:
    return from_camel_fields(Room, item)


def subscription_to_item(subscription: Subscription) -> Item:
    """The subscription with its overrides flat beside its other fields (one attribute each)."""
    fields = camel_fields(subscription)
    fields |= fields.pop("overrides")
    return {
        "PK": room_partition_key(subscription.tenant_id, subscription.room_id),
        "SK": subscription_sort_key(subscription.id),
        "entity": "subscription",
        **fields,
        "signingSecrets": fields["signingSecrets"] or None,
    }


def subscription_from_item(item: Item) -> Subscription:
    return from_camel_fields(Subscription, {**item, "overrides": item})
