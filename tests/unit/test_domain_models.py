"""Event type filters: which (type, version) pairs a room or subscription accepts."""

from __future__ import annotations

import pytest

from roomcast.catalog.model import EventTypeFilter, accepts_event

ORDERS_V1_V2 = EventTypeFilter(name="order.created", versions=("1", "2"))
ANY_INVOICE = EventTypeFilter(name="invoice.paid")


@pytest.mark.parametrize(
    ("event_filter", "event_type", "event_version", "accepted"),
    [
        (ORDERS_V1_V2, "order.created", "1", True),
        (ORDERS_V1_V2, "order.created", "2", True),
        (ORDERS_V1_V2, "order.created", "3", False),
        (ORDERS_V1_V2, "order.created", "1.0", False),
        (ORDERS_V1_V2, "order.deleted", "1", False),
        (ANY_INVOICE, "invoice.paid", "1", True),
        (ANY_INVOICE, "invoice.paid", "99.1", True),
        (ANY_INVOICE, "invoice.void", "1", False),
        (ANY_INVOICE, "Invoice.Paid", "1", False),
    ],
)
def test_filter_accepts_its_name_and_listed_versions_only(
    event_filter: EventTypeFilter, event_type: str, event_version: str, accepted: bool
) -> None:
    # When / Then
    assert event_filter.accepts(event_type, event_version) is accepted


def test_filter_without_versions_accepts_every_version() -> None:
    # Given
    event_filter = EventTypeFilter(name="ping")

    # When / Then
    assert all(event_filter.accepts("ping", version) for version in ("1", "2", "3.4.5", ""))


@pytest.mark.parametrize(("event_type", "event_version"), [("anything", "1"), ("", ""), ("x", "9.9")])
def test_empty_filter_list_accepts_every_event(event_type: str, event_version: str) -> None:
    # When / Then
    assert accepts_event((), event_type, event_version) is True


@pytest.mark.parametrize(
    ("event_type", "event_version", "accepted"),
    [
        ("order.created", "2", True),
        ("invoice.paid", "7", True),
        ("order.created", "3", False),
        ("shipment.sent", "1", False),
    ],
)
def test_filter_list_accepts_an_event_any_filter_accepts(
    event_type: str, event_version: str, accepted: bool
) -> None:
    # Given
    filters = (ORDERS_V1_V2, ANY_INVOICE)

    # When / Then
    assert accepts_event(filters, event_type, event_version) is accepted
