"""Payload filters over HTTP on the local stack: a filtered-out subscription gets nothing and the
message says why; the dry run; bad policies refused with nothing changed; tenants kept apart."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import publish, pull, pull_until

BIG_ORDERS = {"amount": [{"numeric": [">=", 100]}], "currency": ["EUR", {"prefix": "US"}]}


def _order(amount: int, currency: str = "EUR") -> dict[str, Any]:
    return {"amount": amount, "currency": currency}


def test_a_filtered_out_subscription_gets_nothing_and_the_message_says_why(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    big = tenant_a.create_subscription(room["id"], filterPolicy=BIG_ORDERS)
    every = tenant_a.create_subscription(room["id"])
    assert big["filterPolicy"] == BIG_ORDERS
    assert every["filterPolicy"] is None

    # When
    small = publish(tenant_a, room["id"], payload=_order(50))
    large = publish(tenant_a, room["id"], payload=_order(150, "USD"))

    # Then: the answer and the message's details name the subscription and the failed condition
    missed = [{"subscriptionId": big["id"], "reason": "payload.amount: 50 is not >= 100"}]
    assert small["destinations"] == [every["id"]]
    assert small["filteredOut"] == missed
    details = tenant_a.get(f"/rooms/{room['id']}/messages/{small['messageId']}").json()
    assert details["filteredOut"] == missed
    assert [d["subscriptionId"] for d in details["deliveries"]] == [every["id"]]
    assert sorted(large["destinations"]) == sorted([big["id"], every["id"]])
    assert large["filteredOut"] == []
    # and the filtered subscription's queue holds only the message that matched
    pulled, _ = pull_until(tenant_a, room["id"], big["id"], timeout_seconds=10)
    assert [m["messageId"] for m in pulled] == [large["messageId"]]
    assert pull(tenant_a, room["id"], big["id"], waitSeconds=0) == []


def test_the_dry_run_answers_each_subscription_and_a_candidate_and_publishes_nothing(
    tenant_a: ApiClient,
) -> None:
    # Given
    room = tenant_a.create_room()
    big = tenant_a.create_subscription(room["id"], filterPolicy=BIG_ORDERS)
    invoices = tenant_a.create_subscription(room["id"], eventTypes=[{"name": "invoice.paid"}])
    body = {
        "eventType": "order.created",
        "eventVersion": "1",
        "payload": _order(150, "GBP"),
        "filterPolicy": {"currency": [{"equals-ignore-case": "gbp"}]},
    }

    # When
    response = tenant_a.post(f"/rooms/{room['id']}/filters/test", body)

    # Then
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["accepted"] is True
    assert {s["subscriptionId"]: (s["matched"], s["reason"]) for s in answer["subscriptions"]} == {
        big["id"]: (False, 'payload.currency: "GBP" does not match "EUR" or {"prefix": "US"}'),
        invoices["id"]: (False, "its eventTypes do not accept 'order.created' version '1'"),
    }
    assert answer["candidate"] == {"matched": True, "reason": None}
    assert tenant_a.get(f"/rooms/{room['id']}/messages").json()["messages"] == []


def test_bad_policies_are_refused_naming_the_rule_and_change_nothing(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], filterPolicy=BIG_ORDERS)
    too_many_keys = {name: ["x"] for name in "abcdef"}

    # When
    created = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions", {"type": "PULL", "filterPolicy": too_many_keys}
    )
    patched = tenant_a.patch(
        f"/rooms/{room['id']}/subscriptions/{subscription['id']}",
        {"filterPolicy": {"amount": [{"numeric": [">", 10, "<", 5]}]}, "deliveryAttempts": 2},
    )
    tried = tenant_a.post(
        f"/rooms/{room['id']}/filters/test",
        {"eventType": "order.created", "eventVersion": "1", "payload": {}, "filterPolicy": {"a": "x"}},
    )

    # Then
    assert assert_error(created, 400, "at most 5 keys")["error"]["code"] == "invalid_filter_policy"
    error = assert_error(patched, 400, "lower bound")["error"]
    assert error["details"][0]["field"] == "body.filterPolicy.amount[0].numeric"
    assert_error(tried, 400, "body.filterPolicy.a", "array of conditions")
    listed = tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"]
    assert listed == [{k: v for k, v in subscription.items() if k != "signingSecret"}]


def test_a_tenant_cannot_dry_run_another_tenants_room(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"], filterPolicy=BIG_ORDERS)

    # When
    response = tenant_b.post(
        f"/rooms/{room['id']}/filters/test",
        {"eventType": "order.created", "eventVersion": "1", "payload": {}},
    )

    # Then
    assert_error(response, 404)
