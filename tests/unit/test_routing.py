"""Routing: which subscriptions of a room receive a message, and which messages a room refuses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from roomcast.catalog.model import (
    DeliveryOverrides,
    EventTypeFilter,
    Room,
    Subscription,
    SubscriptionStatus,
    SubscriptionType,
)
from roomcast.filters.policy import FilterPolicy
from roomcast.messages.model import FilteredOut, Publication
from roomcast.platform.errors import InvalidRequest
from roomcast.platform.payloads import JsonValue
from roomcast.publishing.routing import (
    check_room_accepts,
    explain_routing,
    resolve_destinations,
    route_message,
)

ORDERS_V1_V2 = EventTypeFilter(name="order.created", versions=("1", "2"))
ORDERS_V1 = EventTypeFilter(name="order.created", versions=("1",))
ANY_ORDER_VERSION = EventTypeFilter(name="order.created")
ANY_INVOICE = EventTypeFilter(name="invoice.paid")


def _room(*event_types: EventTypeFilter) -> Room:
    return Room(
        id="room_1",
        tenant_id="tenant_1",
        name="orders",
        message_expiration_ms=None,
        delivery_delay_ms=1_000,
        delivery_delay_multiplier=2.0,
        delivery_attempts=5,
        event_types=event_types,
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
    )


def _subscription(
    subscription_id: str,
    *event_types: EventTypeFilter,
    status: SubscriptionStatus = SubscriptionStatus.ACTIVE,
) -> Subscription:
    return Subscription(
        id=subscription_id,
        room_id="room_1",
        tenant_id="tenant_1",
        type=SubscriptionType.PUSH,
        status=status,
        event_types=event_types,
        overrides=DeliveryOverrides(),
        failover_subscription_id=None,
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
        push_url="https://example.com/hook",
    )


# Deliberately out of id order: the result must come back sorted.
SUBSCRIPTIONS = (
    _subscription("sub_e_invoices", ANY_INVOICE),
    _subscription("sub_c_orders_v1", ORDERS_V1),
    _subscription("sub_a_everything"),
    _subscription("sub_d_disabled", status=SubscriptionStatus.DISABLED),
    _subscription("sub_b_any_order_version", ANY_ORDER_VERSION),
)


def _ids(subscriptions: list[Subscription]) -> list[str]:
    return [s.id for s in subscriptions]


# --- the room's own event types ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("room", "event_type", "event_version"),
    [
        pytest.param(_room(), "anything.at.all", "99", id="room-without-types-accepts-anything"),
        pytest.param(_room(), "", "", id="room-without-types-accepts-empty-names"),
        pytest.param(_room(ORDERS_V1_V2), "order.created", "1", id="listed-version"),
        pytest.param(_room(ORDERS_V1_V2, ANY_INVOICE), "order.created", "2", id="other-listed-version"),
        pytest.param(_room(ORDERS_V1_V2, ANY_INVOICE), "invoice.paid", "1", id="type-without-versions-v1"),
        pytest.param(_room(ANY_INVOICE), "invoice.paid", "42.0-beta", id="type-without-versions-any"),
    ],
)
def test_room_accepts_its_declared_types_and_versions(
    room: Room, event_type: str, event_version: str
) -> None:
    # When / Then: no exception
    check_room_accepts(room, event_type, event_version)


def test_room_with_types_refuses_an_unknown_type_naming_it_and_the_accepted_ones() -> None:
    # Given
    room = _room(ORDERS_V1_V2, ANY_INVOICE)

    # When
    with pytest.raises(InvalidRequest) as refused:
        check_room_accepts(room, "order.deleted", "1")

    # Then
    assert "'order.deleted'" in refused.value.message
    assert "invoice.paid, order.created" in refused.value.message


def test_unknown_type_is_reported_on_the_event_type_field() -> None:
    # Given
    room = _room(ORDERS_V1_V2)

    # When
    with pytest.raises(InvalidRequest) as refused:
        check_room_accepts(room, "order.deleted", "1")

    # Then
    assert refused.value.http_status == 422
    assert refused.value.code == "unroutable"
    assert [detail["field"] for detail in refused.value.details] == ["body.eventType"]


def test_room_refuses_an_unknown_version_of_a_known_type_naming_the_versions() -> None:
    # Given
    room = _room(ORDERS_V1_V2, ANY_INVOICE)

    # When
    with pytest.raises(InvalidRequest) as refused:
        check_room_accepts(room, "order.created", "3")

    # Then
    assert "'order.created'" in refused.value.message
    assert "versions 1, 2" in refused.value.message
    assert "'3'" in refused.value.message


def test_unknown_version_is_reported_on_the_event_version_field() -> None:
    # Given
    room = _room(ORDERS_V1_V2)

    # When
    with pytest.raises(InvalidRequest) as refused:
        check_room_accepts(room, "order.created", "3")

    # Then
    assert refused.value.code == "unroutable"
    assert [detail["field"] for detail in refused.value.details] == ["body.eventVersion"]


def test_resolving_a_type_the_room_refuses_refuses_even_for_catch_all_subscriptions() -> None:
    # Given
    room = _room(ORDERS_V1_V2)

    # When / Then
    with pytest.raises(InvalidRequest, match="does not accept event type"):
        resolve_destinations(room, [_subscription("sub_a_everything")], "order.deleted", "1")


# --- destinations by filter --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event_type", "event_version", "expected_ids"),
    [
        pytest.param(
            "order.created",
            "1",
            ["sub_a_everything", "sub_b_any_order_version", "sub_c_orders_v1"],
            id="order-v1",
        ),
        pytest.param("order.created", "2", ["sub_a_everything", "sub_b_any_order_version"], id="order-v2"),
        pytest.param("invoice.paid", "7", ["sub_a_everything", "sub_e_invoices"], id="invoice-any-version"),
        pytest.param("ping", "1", ["sub_a_everything"], id="unfiltered-type-reaches-catch-all-only"),
    ],
)
def test_subscriptions_receive_the_types_and_versions_their_filters_accept(
    event_type: str, event_version: str, expected_ids: list[str]
) -> None:
    # When
    destinations = resolve_destinations(_room(), SUBSCRIPTIONS, event_type, event_version)

    # Then
    assert _ids(destinations) == expected_ids


def test_subscriptions_without_filter_receive_everything() -> None:
    # Given
    subscriptions = [_subscription("sub_2"), _subscription("sub_1")]

    # When
    destinations = resolve_destinations(_room(ANY_INVOICE), subscriptions, "invoice.paid", "3")

    # Then
    assert _ids(destinations) == ["sub_1", "sub_2"]


def test_disabled_subscriptions_receive_nothing() -> None:
    # Given
    subscriptions = [_subscription("sub_1", status=SubscriptionStatus.DISABLED)]

    # When
    destinations = resolve_destinations(_room(), subscriptions, "order.created", "1")

    # Then
    assert destinations == []


def test_named_destinations_come_back_in_subscription_id_order() -> None:
    # Given
    subscriptions = [_subscription(f"sub_{n}") for n in (3, 1, 4, 5, 9, 2, 6)]

    # When
    destinations = resolve_destinations(_room(), subscriptions, "order.created", "1")

    # Then
    assert _ids(destinations) == ["sub_1", "sub_2", "sub_3", "sub_4", "sub_5", "sub_6", "sub_9"]


def test_room_without_subscriptions_has_no_destinations() -> None:
    # When / Then
    assert resolve_destinations(_room(), [], "order.created", "1") == []


# --- named destinations ---------------------------------------------------------------------------


def test_named_destinations_are_exactly_those_named_in_id_order() -> None:
    # When
    destinations = resolve_destinations(
        _room(), SUBSCRIPTIONS, "order.created", "1", destinations=["sub_c_orders_v1", "sub_a_everything"]
    )

    # Then
    assert _ids(destinations) == ["sub_a_everything", "sub_c_orders_v1"]


def test_named_duplicates_collapse_into_one_destination() -> None:
    # When
    destinations = resolve_destinations(
        _room(),
        SUBSCRIPTIONS,
        "order.created",
        "1",
        destinations=["sub_a_everything", "sub_a_everything", "sub_a_everything"],
    )

    # Then
    assert _ids(destinations) == ["sub_a_everything"]


def test_named_empty_list_means_no_destinations() -> None:
    # When
    destinations = resolve_destinations(_room(), SUBSCRIPTIONS, "order.created", "1", destinations=[])

    # Then
    assert destinations == []


@pytest.mark.parametrize(
    ("destinations", "expected_problem"),
    [
        pytest.param(
            ["sub_of_another_room"], "sub_of_another_room is not a subscription of room room_1", id="foreign"
        ),
        pytest.param(["sub_d_disabled"], "subscription sub_d_disabled is disabled", id="disabled"),
        pytest.param(
            ["sub_e_invoices"], "sub_e_invoices does not accept 'order.created'", id="type-filtered"
        ),
        pytest.param(
            ["sub_c_orders_v1"], "sub_c_orders_v1 does not accept 'order.created' version '2'", id="version"
        ),
        pytest.param(
            ["sub_a_everything", "sub_of_another_room"],
            "not a subscription of room",
            id="one-bad-refuses-all",
        ),
    ],
)
def test_named_destination_that_cannot_receive_the_message_is_refused(
    destinations: list[str], expected_problem: str
) -> None:
    # When
    with pytest.raises(InvalidRequest) as refused:
        resolve_destinations(_room(), SUBSCRIPTIONS, "order.created", "2", destinations=destinations)

    # Then
    assert expected_problem in refused.value.message


def test_refused_named_destination_is_reported_on_the_destinations_field() -> None:
    # When
    with pytest.raises(InvalidRequest) as refused:
        resolve_destinations(_room(), SUBSCRIPTIONS, "order.created", "1", destinations=["sub_unknown"])

    # Then
    assert refused.value.code == "unroutable"
    assert refused.value.details == [
        {
            "field": "body.destinations",
            "problem": "sub_unknown is not a subscription of room room_1",
            "type": "unroutable",
        }
    ]


def test_named_destinations_still_obey_the_room_event_types() -> None:
    # Given
    room = _room(ANY_INVOICE)

    # When / Then
    with pytest.raises(InvalidRequest) as refused:
        resolve_destinations(room, SUBSCRIPTIONS, "order.created", "1", destinations=["sub_a_everything"])
    assert refused.value.details[0]["field"] == "body.eventType"


def test_paused_subscriptions_keep_receiving_their_messages_to_deliver_on_resume() -> None:
    # Given
    paused = _subscription("sub_p_paused", status=SubscriptionStatus.PAUSED)

    # When
    routed = resolve_destinations(_room(), [*SUBSCRIPTIONS, paused], "order.created", "1")
    named = resolve_destinations(_room(), [paused], "order.created", "1", destinations=["sub_p_paused"])

    # Then
    assert "sub_p_paused" in _ids(routed)
    assert _ids(named) == ["sub_p_paused"]


# -- payload filters (issue 26) -------------------------------------------------------------------


def _filtered(
    subscription_id: str, policy: Mapping[str, object], *event_types: EventTypeFilter
) -> Subscription:
    return replace(_subscription(subscription_id, *event_types), filter_policy=FilterPolicy.of(policy))


BIG_ORDERS = {"amount": [{"numeric": [">=", 100]}]}


def _order(amount: JsonValue, destinations: list[str] | None = None) -> Publication:
    return Publication("order.created", "1", {"amount": amount}, destinations=destinations)


def test_a_subscription_whose_filter_misses_gets_nothing_and_is_named_with_the_failed_condition() -> None:
    # Given
    subscriptions = [_filtered("sub_big", BIG_ORDERS), _subscription("sub_all")]

    # When
    small = route_message(_room(), subscriptions, _order(50))
    big = route_message(_room(), subscriptions, _order(150))

    # Then
    assert _ids(small.destinations) == ["sub_all"]
    assert small.filtered_out == (FilteredOut("sub_big", "payload.amount: 50 is not >= 100"),)
    assert _ids(big.destinations) == ["sub_all", "sub_big"]
    assert big.filtered_out == ()


def test_a_filter_is_checked_only_for_subscriptions_of_the_event_type() -> None:
    # Given: the invoice subscription's filter would miss, but it never takes orders anyway
    subscriptions = [_filtered("sub_invoices", BIG_ORDERS, ANY_INVOICE)]

    # When
    route = route_message(_room(), subscriptions, _order(50))

    # Then
    assert route.destinations == []
    assert route.filtered_out == ()


def test_a_named_destination_is_filtered_too_not_refused() -> None:
    # When
    route = route_message(_room(), [_filtered("sub_big", BIG_ORDERS)], _order(5, destinations=["sub_big"]))

    # Then
    assert route.destinations == []
    assert [f.subscription_id for f in route.filtered_out] == ["sub_big"]


def test_the_dry_run_says_for_each_subscription_why_it_would_not_get_the_message() -> None:
    # Given
    subscriptions = [
        _filtered("sub_d_big", BIG_ORDERS),
        _subscription("sub_c_invoices", ANY_INVOICE),
        _subscription("sub_b_off", status=SubscriptionStatus.DISABLED),
        _subscription("sub_a_all"),
    ]

    # When
    refused, explained = explain_routing(_room(), subscriptions, _order(50))

    # Then
    assert refused is None
    assert [(e.subscription.id, e.matched, e.reason) for e in explained] == [
        ("sub_a_all", True, None),
        ("sub_b_off", False, "subscription is disabled"),
        ("sub_c_invoices", False, "its eventTypes do not accept 'order.created' version '1'"),
        ("sub_d_big", False, "payload.amount: 50 is not >= 100"),
    ]


def test_the_dry_run_routes_exactly_as_publishing_does() -> None:
    # Given
    subscriptions = [_filtered("sub_big", BIG_ORDERS), _subscription("sub_all"), *SUBSCRIPTIONS]

    for amount in (50, 100, "100", None):
        # When
        route = route_message(_room(), subscriptions, _order(amount))
        _, explained = explain_routing(_room(), subscriptions, _order(amount))

        # Then
        assert _ids(route.destinations) == [e.subscription.id for e in explained if e.matched]


def test_the_dry_run_says_when_the_room_would_refuse_the_message() -> None:
    # When
    refused, explained = explain_routing(_room(ANY_INVOICE), [_subscription("sub_all")], _order(150))

    # Then
    assert refused is not None
    assert "does not accept event type 'order.created'" in refused
    assert [(e.matched, e.reason) for e in explained] == [(False, refused)]
