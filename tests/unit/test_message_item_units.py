"""A published message costs one write unit per copy for a typical fan-out: its destinations'
first records are stored in short form, and the room index holds only what a list filters on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from roomcast.catalog.model import SubscriptionType
from roomcast.messages.items import embedded_deliveries, stored_message_item
from roomcast.messages.model import Delivery, DeliveryStatus, Message
from roomcast.platform import ids, items
from tests.unit.test_message_item_size import item_size

AT = "2026-11-23T10:00:00.000Z"
WRITE_UNIT_BYTES = 1024
TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


def _message(destinations: int) -> tuple[Message, list[Delivery]]:
    subscriptions = [ids.new_subscription_id() for _ in range(destinations)]
    message = Message(
        id=ids.new_message_id(),
        tenant_id="acme-production",
        room_id=ids.new_room_id(),
        event_type="order.created",
        event_version="1",
        correlation_id="7d3c8a55-4b8e-4c3f-9a57-1f3b2a9c0e11",
        payload={"orderId": 42, "total": "9.90", "currency": "EUR"},
        published_at=AT,
        published_at_ms=1_795_435_200_000,
        expires_at_ms=1_795_521_600_000,
        destinations=tuple(subscriptions),
    )
    kinds = [SubscriptionType.PUSH, SubscriptionType.PULL]
    first = [
        Delivery(message.id, message.tenant_id, s, kinds[n % 2], DeliveryStatus.PENDING, 0, None, AT, AT)
        for n, s in enumerate(subscriptions)
    ]
    return message, first


def test_a_message_to_five_subscriptions_is_one_write_unit_and_reads_back_its_first_records() -> None:
    message, first = _message(5)

    item = stored_message_item(message, first)

    assert "deliveries" not in item
    assert item_size(item) <= WRITE_UNIT_BYTES
    assert embedded_deliveries(items.from_attributes(items.to_attributes(item))) == first


def test_a_first_record_that_is_not_the_usual_one_is_stored_in_full() -> None:
    message, first = _message(3)
    first[1] = replace(first[1], status=DeliveryStatus.CLEARED, next_attempt_at=None)

    item = stored_message_item(message, first)

    assert set(item["deliveries"]) == set(message.destinations)
    assert embedded_deliveries(items.from_attributes(items.to_attributes(item))) == first


def test_an_item_written_with_full_first_records_still_reads_back() -> None:
    # Given: an item as written before the short form (every first record in full)
    message, first = _message(2)
    item = stored_message_item(message, first)
    types = item.pop("destinationTypes")
    item["deliveries"] = {
        d.subscription_id: {
            "subscriptionType": kind,
            "status": "pending",
            "attempts": 0,
            "nextAttemptAt": AT,
            "updatedAt": AT,
        }
        for d, kind in zip(first, types, strict=True)
    }

    assert embedded_deliveries(items.from_attributes(items.to_attributes(item))) == first


def test_the_indexes_project_only_what_a_list_filters_on() -> None:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    template = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - SafeLoader
    by_room, scheduled = template["Resources"]["Table"]["Properties"]["GlobalSecondaryIndexes"]
    assert (by_room["IndexName"], by_room["Projection"]) == (
        "ByRoom",
        {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["eventType"]},
    )
    # The scheduled list filters on nothing: a scheduled message's copy is its keys
    assert (scheduled["IndexName"], scheduled["Projection"]) == ("Scheduled", {"ProjectionType": "KEYS_ONLY"})
