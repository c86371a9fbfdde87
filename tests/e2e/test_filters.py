"""Payload filters over HTTP on the local stack: a filtered-out subscription gets nothing and the
message says why; the dry run; bad policies refused with nothing changed; tenants kept apart."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import publish, pull, pull_until
from tests.filter_guide import EXAMPLES

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


def test_every_operator_of_the_guide_decides_as_documented_over_http(tenant_a: ApiClient) -> None:
    # Given: the guide's payload, and each operator's example policy (docs/filters.md)
    room = tenant_a.create_room()

    for policy, payload in EXAMPLES:
        # When: the policy is tried on the payload, and on a payload missing its first key
        matched = _try(tenant_a, room["id"], policy, payload)
        first = next(iter(policy))
        without = {k: v for k, v in payload.items() if k != first}
        missed = _try(tenant_a, room["id"], policy, without)

        # Then
        assert matched == {"matched": True, "reason": None}, policy
        if first != "$or" and "exists" not in json.dumps(policy):
            assert missed["matched"] is False, policy
            assert missed["reason"].startswith(f"payload.{first}"), missed


def test_each_limit_is_refused_over_http_with_its_rule(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    cases = [
        ({f"k{n}": ["v"] for n in range(6)}, "at most 5 keys"),
        ({"a": [f"v{n}" for n in range(13)], "b": [f"v{n}" for n in range(12)]}, "156 combinations"),
        ({"a": ["x" * (257 * 1024)]}, "256 KiB"),
        ({"a": [{"numeric": [">", 5, "<", 5]}]}, "lower bound must be below"),
    ]
    for policy, rule in cases:
        response = tenant_a.post(
            f"/rooms/{room['id']}/subscriptions", {"type": "PULL", "filterPolicy": policy}
        )
        assert assert_error(response, 400, rule)["error"]["code"] == "invalid_filter_policy"
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"] == []


def _try(client: ApiClient, room_id: str, policy: dict[str, Any], payload: Any) -> dict[str, Any]:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": payload, "filterPolicy": policy}
    response = client.post(f"/rooms/{room_id}/filters/test", body)
    assert response.status_code == 200, response.text
    candidate: dict[str, Any] = response.json()["candidate"]
    return candidate
