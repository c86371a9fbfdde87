"""The largest message roomcast accepts fits one DynamoDB item (400 KB), whatever its fan-out.

The payload limit is measured on the stored text (``payload_text``), so the budget below is what
the table will really be asked to hold: the largest payload, the longest names, and the most
destinations a room can have, each with its first record inside the message item.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any, Final

from hypothesis import given, settings, strategies as st

from roomcast.catalog.model import SubscriptionType
from roomcast.filters.policy import MAX_REASON_BYTES
from roomcast.messages.items import stored_message_item
from roomcast.messages.model import Delivery, DeliveryStatus, FilteredOut, Message
from roomcast.platform import ids, limits
from roomcast.platform.payloads import JsonValue, payload_size_bytes, payload_text

DYNAMODB_MAX_ITEM_BYTES: Final = 400 * 1024
AT = "2026-11-23T10:00:00.000Z"


def attribute_size(value: Any) -> int:
    """An upper bound of DynamoDB's size of a value (strings in UTF-8; numbers 21 bytes at most;
    3 bytes of overhead per map or list and 1 per element)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (int, float, Decimal)):
        return 21
    if isinstance(value, dict):
        return 3 + sum(1 + len(k.encode("utf-8")) + attribute_size(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 3 + sum(1 + attribute_size(v) for v in value)
    raise TypeError(type(value))


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode("utf-8")) + attribute_size(value) for name, value in item.items())


def largest_message(payload: JsonValue) -> tuple[Message, list[Delivery]]:
    destinations = [ids.new_subscription_id() for _ in range(limits.MAX_SUBSCRIPTIONS_PER_ROOM)]
    message = Message(
        id=ids.new_message_id(),
        tenant_id="t" * 63,
        room_id=ids.new_room_id(),
        event_type="e" * limits.MAX_NAME_LENGTH,
        event_version="1" * 32,
        correlation_id="c" * 128,
        payload=payload,
        published_at=AT,
        published_at_ms=1_795_435_200_000,
        expires_at_ms=1_795_435_200_000 + limits.MAX_MESSAGE_EXPIRATION_MS,
        destinations=tuple(destinations),
    )
    records = [
        Delivery(
            message.id, message.tenant_id, s, SubscriptionType.PUSH, DeliveryStatus.PENDING, 0, None, AT, AT
        )
        for s in destinations
    ]
    return message, records


def stored_item(payload: JsonValue) -> dict[str, Any]:
    return stored_message_item(*largest_message(payload))


def test_the_largest_emoji_payload_to_the_most_destinations_fits_one_item() -> None:
    # Given: the case, as many emoji as the limit lets through, escaped as stored (12 bytes each)
    emoji = "\U0001f600" * (limits.MAX_PAYLOAD_BYTES // 12 - 1)
    assert payload_size_bytes(emoji) <= limits.MAX_PAYLOAD_BYTES

    # When
    item = stored_item(emoji)

    # Then
    assert item_size(item) < DYNAMODB_MAX_ITEM_BYTES


def test_a_payload_one_byte_over_the_limit_is_measured_over_it() -> None:
    text = "x" * (limits.MAX_PAYLOAD_BYTES - 2)  # two quotes
    assert payload_size_bytes(text) == limits.MAX_PAYLOAD_BYTES
    assert payload_size_bytes(text + "é") == limits.MAX_PAYLOAD_BYTES + 6  # "\u00e9"


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_any_payload_within_the_limit_fits_with_the_most_destinations(sample: str) -> None:
    # Given: a payload of repeated text as large as the limit allows, whatever its characters
    repeat = max(1, (limits.MAX_PAYLOAD_BYTES - 2) // len(payload_text(sample)))
    payload = sample * repeat
    while payload_size_bytes(payload) > limits.MAX_PAYLOAD_BYTES:
        payload = payload[: len(payload) * 9 // 10]

    # Then: the stored item stays under DynamoDB's limit
    assert item_size(stored_item(payload)) < DYNAMODB_MAX_ITEM_BYTES


def test_the_largest_payload_filtered_out_of_every_subscription_fits_one_item() -> None:
    # Given: no destination, and each of the room's subscriptions named with the longest reason
    message, _ = largest_message("x" * (limits.MAX_PAYLOAD_BYTES - 2))
    reason = ("\U0001f600" * MAX_REASON_BYTES).encode()[:MAX_REASON_BYTES].decode(errors="ignore")
    filtered = tuple(FilteredOut(s, reason) for s in message.destinations)
    message = replace(message, destinations=(), filtered_out=filtered)

    # When
    item = stored_message_item(message, [])

    # Then
    assert len(item["filteredOut"]) == limits.MAX_SUBSCRIPTIONS_PER_ROOM
    assert item_size(item) < DYNAMODB_MAX_ITEM_BYTES
