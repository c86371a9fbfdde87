"""Storage item shapes: domain model → item → DynamoDB attributes and back."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from management_api.subscriptions.models import PushSubscriptionCreate
from roomcast.catalog.items import room_from_item, room_to_item, subscription_from_item, subscription_to_item
from roomcast.catalog.model import (
    DeliveryOverrides,
    EventTypeFilter,
    Room,
    SigningSecret,
    Subscription,
    SubscriptionStatus,
    SubscriptionType,
)
from roomcast.filters.policy import FilterPolicy
from roomcast.messages.items import message_from_item, message_to_item
from roomcast.messages.model import FilteredOut, Message
from roomcast.platform.items import from_attributes, to_attributes

CREATED = "2025-01-02T03:04:05.678Z"
UPDATED = "2025-01-03T00:00:00.000Z"

ROOM = Room(
    id="room_1",
    tenant_id="tenant_a",
    name="orders",
    message_expiration_ms=3_600_000,
    delivery_delay_ms=250,
    delivery_delay_multiplier=1.5,
    delivery_attempts=4,
    event_types=(EventTypeFilter("order.created", ("1", "2.1")), EventTypeFilter("order.void")),
    created_at=CREATED,
    updated_at=UPDATED,
)

PUSH = Subscription(
    id="sub_1",
    room_id="room_1",
    tenant_id="tenant_a",
    type=SubscriptionType.PUSH,
    status=SubscriptionStatus.ACTIVE,
    event_types=(EventTypeFilter("order.created", ("1",)),),
    overrides=DeliveryOverrides(
        delivery_delay_ms=500,
        delivery_delay_multiplier=1.5,
        delivery_attempts=3,
        max_delay_ms=60_000,
        jitter=0.25,
        retry_schedule_ms=(1_000, 5_000, 30_000),
    ),
    failover_subscription_id="sub_2",
    created_at=CREATED,
    updated_at=UPDATED,
    push_url="https://hooks.example.com/in",
    timeout_ms=5_000,
    signing_secrets=(SigningSecret("whsec_AAAA"), SigningSecret("whsec_BBBB", 1795400000000)),
)

PULL = Subscription(
    id="sub_2",
    room_id="room_1",
    tenant_id="tenant_a",
    type=SubscriptionType.PULL,
    status=SubscriptionStatus.DISABLED,
    event_types=(),
    overrides=DeliveryOverrides(),
    failover_subscription_id=None,
    created_at=CREATED,
    updated_at=UPDATED,
    ack_wait_ms=30_000,
    queue_url="http://localhost/queue/roomcast-pull-sub_2",
    dead_letter_queue_url="http://localhost/queue/roomcast-pull-sub_2-dlq",
)


def _through_dynamodb(item: dict[str, object]) -> dict[str, object]:
    return from_attributes(to_attributes(item))


# -- plain attribute mapping ----------------------------------------------------------------------


def test_attributes_drop_none_values() -> None:
    # When
    attributes = to_attributes({"kept": "x", "dropped": None})

    # Then
    assert attributes == {"kept": {"S": "x"}}


def test_floats_travel_as_dynamodb_numbers_and_come_back_as_floats() -> None:
    # When
    attributes = to_attributes({"multiplier": 1.5, "nested": {"jitter": 0.1}, "list": [2.5]})

    # Then
    assert attributes["multiplier"] == {"N": "1.5"}
    assert from_attributes(attributes) == {"multiplier": 1.5, "nested": {"jitter": 0.1}, "list": [2.5]}


def test_ints_come_back_as_ints() -> None:
    # When
    item = _through_dynamodb({"attempts": 5, "schedule": [1_000, 2_000], "zero": 0})

    # Then
    assert item == {"attempts": 5, "schedule": [1_000, 2_000], "zero": 0}
    assert all(type(value) is int for value in [item["attempts"], item["zero"]])


def test_nothing_comes_back_as_a_decimal() -> None:
    # When
    item = _through_dynamodb({"a": 1, "b": 1.25, "c": [3, 4.5], "d": {"e": 6}})

    # Then
    assert not any(isinstance(value, Decimal) for value in _walk(item))


def _walk(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _walk(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _walk(v)]
    return [value]


@given(st.floats(min_value=1.0, max_value=10.0))
def test_any_multiplier_in_range_survives_storage_exactly(multiplier: float) -> None:
    # Given
    room = dataclasses.replace(ROOM, delivery_delay_multiplier=multiplier)

    # When
    stored = room_from_item(_through_dynamodb(room_to_item(room)))

    # Then
    assert stored.delivery_delay_multiplier == multiplier
    assert type(stored.delivery_delay_multiplier) is float


# -- rooms ----------------------------------------------------------------------------------------


def test_room_round_trips_through_storage() -> None:
    # When
    stored = room_from_item(_through_dynamodb(room_to_item(ROOM)))

    # Then
    assert stored == ROOM


def test_room_with_integral_multiplier_and_no_expiration_round_trips() -> None:
    # Given
    room = dataclasses.replace(
        ROOM, delivery_delay_multiplier=2.0, message_expiration_ms=None, event_types=()
    )

    # When
    stored = room_from_item(_through_dynamodb(room_to_item(room)))

    # Then
    assert stored == room
    assert type(stored.delivery_delay_multiplier) is float


def test_room_without_expiration_stores_no_expiration_attribute() -> None:
    # Given
    room = dataclasses.replace(ROOM, message_expiration_ms=None)

    # When
    attributes = to_attributes(room_to_item(room))

    # Then
    assert "messageExpirationMs" not in attributes


def test_room_keys_contain_the_tenant_and_the_room() -> None:
    # When
    item = room_to_item(ROOM)

    # Then
    assert item["PK"] == "TENANT#tenant_a"
    assert item["SK"] == "ROOM#room_1"
    assert item["entity"] == "room"


# -- subscriptions --------------------------------------------------------------------------------


@pytest.mark.parametrize("subscription", [PUSH, PULL], ids=["push", "pull"])
def test_subscription_round_trips_through_storage(subscription: Subscription) -> None:
    # When
    stored = subscription_from_item(_through_dynamodb(subscription_to_item(subscription)))

    # Then
    assert stored == subscription


def test_subscription_without_overrides_stores_no_override_attributes() -> None:
    # When
    attributes = to_attributes(subscription_to_item(PULL))

    # Then
    absent = {
        "deliveryDelayMs",
        "deliveryDelayMultiplier",
        "deliveryAttempts",
        "maxDelayMs",
        "jitter",
        "retryScheduleMs",
        "failoverSubscriptionId",
        "pushUrl",
        "timeoutMs",
        "signingSecrets",
    }
    assert not absent & attributes.keys()


def test_subscription_with_integral_jitter_and_multiplier_round_trips_as_floats() -> None:
    # Given
    overrides = DeliveryOverrides(delivery_delay_multiplier=3.0, jitter=0.0)
    subscription = dataclasses.replace(PUSH, overrides=overrides)

    # When
    stored = subscription_from_item(_through_dynamodb(subscription_to_item(subscription)))

    # Then
    assert stored.overrides == overrides
    assert type(stored.overrides.jitter) is float
    assert type(stored.overrides.delivery_delay_multiplier) is float


def test_subscription_keys_contain_the_tenant_the_room_and_the_subscription() -> None:
    # When
    item = subscription_to_item(PUSH)

    # Then
    assert item["PK"] == "TENANT#tenant_a#ROOM#room_1"
    assert item["SK"] == "SUB#sub_1"
    assert item["entity"] == "subscription"


def test_subscriptions_of_two_tenants_in_same_named_rooms_have_different_keys() -> None:
    # Given
    other_tenant = dataclasses.replace(PUSH, tenant_id="tenant_b")

    # When / Then
    assert subscription_to_item(PUSH)["PK"] != subscription_to_item(other_tenant)["PK"]


def test_a_tiny_jitter_the_api_accepts_can_be_stored() -> None:
    # Given
    accepted = PushSubscriptionCreate.model_validate(
        {"type": "PUSH", "pushUrl": "https://hooks.example.com/", "jitter": 1e-200}
    )
    assert accepted.jitter == 0.0  # rounded to 6 places by the API model
    subscription = dataclasses.replace(PUSH, overrides=DeliveryOverrides(jitter=accepted.jitter))

    # When
    stored = subscription_from_item(_through_dynamodb(subscription_to_item(subscription)))

    # Then
    assert stored.overrides.jitter is not None
    assert stored.overrides.jitter == pytest.approx(0.0, abs=1e-100)


def test_a_filter_policy_round_trips_with_its_numbers_nulls_and_key_order() -> None:
    # Given: key order is the order its conditions are evaluated and reported in
    policy = {
        "z": [{"numeric": [">", 0.1, "<=", 1e20]}],
        "$or": [{"a": [None, True]}, {"é": {"b": ["x", {"anything-but": {"prefix": "y"}}]}}],
        "c": [1.5, 2, {"exists": False}],
    }
    subscription = dataclasses.replace(PUSH, filter_policy=FilterPolicy.of(policy))

    # When
    stored = subscription_from_item(_through_dynamodb(subscription_to_item(subscription)))

    # Then
    assert stored == subscription
    assert stored.filter_policy is not None
    assert list(stored.filter_policy.rules) == ["z", "$or", "c"]
    assert stored.filter_policy.rules == policy


def test_a_subscription_without_a_filter_stores_none() -> None:
    assert "filterPolicy" not in to_attributes(subscription_to_item(PULL))


def test_a_message_keeps_the_subscriptions_it_was_filtered_out_of_and_stores_nothing_without() -> None:
    # Given
    message = Message(
        id="msg_576e648137579110cd6d80e1bdbec8d3",
        tenant_id="tenant_a",
        room_id="room_1",
        event_type="order.created",
        event_version="1",
        correlation_id="c",
        payload={"amount": 50},
        published_at=CREATED,
        published_at_ms=1_735_787_045_678,
        expires_at_ms=None,
        destinations=("sub_2",),
    )
    filtered = dataclasses.replace(
        message, filtered_out=(FilteredOut("sub_1", "payload.amount: 50 is not >= 100"),)
    )

    # When
    stored = message_from_item(_through_dynamodb(message_to_item(filtered)))

    # Then
    assert stored == filtered
    assert "filteredOut" not in message_to_item(message)
    assert message_from_item(_through_dynamodb(message_to_item(message))).filtered_out == ()


def test_an_ordered_destinations_first_record_waits_and_carries_its_place_in_the_keys_line() -> None:
    from roomcast.catalog.model import SubscriptionType
    from roomcast.messages.items import embedded_deliveries, stored_message_item
    from roomcast.messages.model import Delivery, DeliveryStatus, KeySlot

    message = Message(
        "msg_" + "1" * 32, "acme", "room_1", "e", "1", "c", {}, "2026-11-22T10:00:00.000Z", 1, None,
        ("sub_o", "sub_u"), ordering_key="order-7", ordered_to=("sub_o",), ordering_number=12,
    )  # fmt: skip
    firsts = [
        Delivery(
            "msg_1",
            "acme",
            s,
            SubscriptionType.PUSH,
            status,
            0,
            None,
            message.published_at,
            message.published_at,
        )
        for s, status in (("sub_o", DeliveryStatus.WAITING), ("sub_u", DeliveryStatus.PENDING))
    ]
    item = stored_message_item(message, firsts)
    assert "deliveries" not in item  # the short form: each record is the usual first one
    read = {d.subscription_id: d for d in embedded_deliveries(item)}
    assert (read["sub_o"].status, read["sub_o"].ordering) == (
        DeliveryStatus.WAITING,
        KeySlot("room_1", "order-7", 12),
    )
    assert (read["sub_u"].status, read["sub_u"].ordering) == (DeliveryStatus.PENDING, None)
    assert message_from_item(item).ordering_number == 12
