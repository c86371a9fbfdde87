"""Storage item shapes (single-table design) and their explicit mapping to domain models.

Keys (docs/decisions/0002-single-table.md):

| entity       | PK                              | SK                  |
| ------------ | ------------------------------- | ------------------- |
| API key      | ``APIKEY#<sha256 of key>``      | ``APIKEY``          |
| key entry    | ``TENANT#<tenant>``             | ``KEY#<keyId>``     |
| room         | ``TENANT#<tenant>``             | ``ROOM#<roomId>``   |
| subscription | ``TENANT#<tenant>#ROOM#<room>`` | ``SUB#<subId>``     |

(each capability maps its own entities: rooms and subscriptions in roomcast.catalog.items)

The tenant is part of every key, so a tenant can only ever address its own items.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

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
