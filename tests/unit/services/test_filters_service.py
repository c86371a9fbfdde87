"""The filter dry run with in-memory fakes: every subscription's verdict, a candidate policy, and
that it reads only (and only the caller's rooms)."""

from __future__ import annotations

import json

import pytest

from management_api.filters.models import FilterTestRequest
from management_api.filters.service import FiltersService
from roomcast.platform.errors import InvalidRequest, NotFound
from tests.unit.services.management import TENANT, Management

BIG_ORDERS = {"amount": [{"numeric": [">=", 100]}]}


def _dry_run(**fields: object) -> FilterTestRequest:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"amount": 50}, **fields}
    return FilterTestRequest.model_validate_json(json.dumps(body))


def test_each_subscription_is_answered_matched_or_why_not_and_nothing_is_published() -> None:
    # Given
    management = Management()
    room = management.room()
    big = management.subscription(room, filterPolicy=BIG_ORDERS)
    every = management.subscription(room)
    invoices = management.subscription(room, eventTypes=[{"name": "invoice.paid"}])

    # When
    answer = FiltersService(management.catalog).test(TENANT, room.id, _dry_run())

    # Then
    assert answer.accepted is True
    verdicts = {s.subscriptionId: (s.matched, s.reason) for s in answer.subscriptions}
    assert verdicts == {
        big.id: (False, "payload.amount: 50 is not >= 100"),
        every.id: (True, None),
        invoices.id: (False, "its eventTypes do not accept 'order.created' version '1'"),
    }
    assert [s.subscriptionId for s in answer.subscriptions] == sorted(verdicts)
    assert answer.candidate is None
    assert management.messages.messages == {}


def test_a_candidate_policy_is_tried_on_the_payload_too() -> None:
    # Given
    management = Management()
    room = management.room()

    # When
    missed = FiltersService(management.catalog).test(TENANT, room.id, _dry_run(filterPolicy=BIG_ORDERS))
    matched = FiltersService(management.catalog).test(
        TENANT, room.id, _dry_run(filterPolicy={"amount": [{"numeric": ["<", 100]}]})
    )

    # Then
    assert missed.subscriptions == []
    assert (missed.candidate and missed.candidate.matched, missed.candidate and missed.candidate.reason) == (
        False,
        "payload.amount: 50 is not >= 100",
    )
    assert matched.candidate is not None
    assert matched.candidate.matched is True


def test_an_invalid_candidate_is_refused_before_anything_is_read() -> None:
    # When: not even a room
    with pytest.raises(InvalidRequest) as refused:
        FiltersService(Management().catalog).test(TENANT, "room_missing", _dry_run(filterPolicy={"a": 1}))

    # Then
    assert refused.value.code == "invalid_filter_policy"
    assert refused.value.details[0]["field"] == "body.filterPolicy.a"


def test_another_tenants_room_is_not_found() -> None:
    # Given
    management = Management()
    room = management.room(tenant_id="tenant_other")

    # When / Then
    with pytest.raises(NotFound):
        FiltersService(management.catalog).test(TENANT, room.id, _dry_run())


def test_a_dry_run_takes_at_most_a_publishs_payload_and_reads_nothing_past_it() -> None:
    # Given: a payload one byte over a publish's limit (as stored: compact JSON)
    from roomcast.platform import limits
    from roomcast.platform.payloads import PayloadTooLarge

    management = Management()
    room = management.room()
    payload = {"note": "x" * (limits.MAX_PAYLOAD_BYTES - len('{"note":""}') + 1)}

    # Then: 413, as a publish would answer, before the room is read
    with pytest.raises(PayloadTooLarge) as refused:
        FiltersService(management.catalog).test(TENANT, room.id, _dry_run(payload=payload))
    assert refused.value.http_status == 413
    smaller = {"note": "x" * (limits.MAX_PAYLOAD_BYTES - len('{"note":""}'))}
    assert FiltersService(management.catalog).test(TENANT, room.id, _dry_run(payload=smaller)).accepted
