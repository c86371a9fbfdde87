"""Rooms' and subscriptions' items (single-table design, docs/decisions/0002-single-table.md) and
their explicit mapping to the catalog's model."""

from __future__ import annotations

from roomcast.catalog.model import Room, Subscription
from roomcast.platform import Item, camel_fields, from_camel_fields, tenant_key


def subscription_sort_key(subscription_id: str) -> str:
    return f"SUB#{subscription_id}"


def room_partition_key(tenant_id: str, room_id: str) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}"


def room_sort_key(room_id: str) -> str:
    return f"ROOM#{room_id}"


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
