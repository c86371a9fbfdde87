"""Batch publish over real HTTP against the local stack: mixed valid and invalid messages, a
retried batch, fan-out to PUSH (a webhook server on loopback) and PULL."""

from __future__ import annotations

from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import pull, pull_until
from tests.e2e.webhook_server import WebhookServers

webhook_servers = webhook_server.webhook_servers

FIRST_DELIVERY_TIMEOUT_SECONDS = 20.0


def _message(order: int, **fields: Any) -> dict[str, Any]:
    return {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": order}, **fields}


def publish_batch(client: ApiClient, room_id: str, messages: list[Any]) -> dict[str, Any]:
    response = client.post(f"/rooms/{room_id}/messages/batch", {"messages": messages})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_batch_fans_out_to_push_and_pull_and_answers_each_message(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a room taking order.created, with a PUSH subscription to a webhook server and a PULL one
    server = webhook_servers()
    room = tenant_a.create_room(eventTypes=[{"name": "order.created"}])
    push = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url("/hook"), timeoutMs=2000)
    pulled = tenant_a.create_subscription(room["id"])
    messages = [
        _message(1),
        _message(2, eventType="order.refunded"),  # the room does not take it
        {"eventType": "order.created", "eventVersion": "one", "payload": {}},  # not a version
        _message(4, correlationId="order-4"),
        _message(5, payload="x" * (128 * 1024 + 1)),  # too large
    ]

    # When
    answer = publish_batch(tenant_a, room["id"], messages)

    # Then: each message answered in order, with the codes a single publish would have answered
    results = answer["results"]
    assert [r["status"] for r in results] == [202, 422, 422, 202, 413]
    assert [r.get("error", {}).get("code") for r in results] == [
        None,
        "unroutable",
        "validation_error",
        None,
        "payload_too_large",
    ]
    assert answer["failedCount"] == 3
    published = {results[0]["messageId"]: 1, results[3]["messageId"]: 4}
    assert results[3]["correlationId"] == "order-4"
    assert all(sorted(results[i]["destinations"]) == sorted([push["id"], pulled["id"]]) for i in (0, 3))
    # ... the two good ones reach the webhook, signed, and the PULL queue; nothing else does
    posts = server.wait_for_requests(2, FIRST_DELIVERY_TIMEOUT_SECONDS)
    webhook = Webhook(push["signingSecret"])
    assert sorted(webhook.verify(p.body, dict(p.headers))["payload"]["orderId"] for p in posts) == [1, 4]
    assert sorted(p.headers["webhook-id"] for p in posts) == sorted(published)
    got: list[dict[str, Any]] = []
    while len(got) < 2:
        got += pull_until(tenant_a, room["id"], pulled["id"], FIRST_DELIVERY_TIMEOUT_SECONDS)[0]
    assert {m["messageId"]: m["payload"]["orderId"] for m in got} == published
    assert len(server.requests) == 2


def test_a_retried_batch_answers_the_same_message_ids_and_delivers_each_message_once(
    tenant_a: ApiClient,
) -> None:
    # Given: a keyed batch published once, and its messages pulled and acknowledged
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    batch = [_message(n, idempotencyKey=f"order-{n}") for n in range(3)]
    first = publish_batch(tenant_a, room["id"], batch)
    received: list[dict[str, Any]] = []
    while len(received) < 3:
        received += pull_until(tenant_a, room["id"], subscription["id"], FIRST_DELIVERY_TIMEOUT_SECONDS)[0]
    ack = {"receipts": [m["receipt"] for m in received]}
    assert (
        tenant_a.post(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/ack", ack).status_code == 200
    )

    # When: the publisher retries the batch (it never saw the answer)
    retried = publish_batch(tenant_a, room["id"], batch)

    # Then: the same ids; nothing stored or delivered a second time
    assert retried == first
    assert pull(tenant_a, room["id"], subscription["id"], waitSeconds=2) == []
    listed = tenant_a.get(f"/rooms/{room['id']}/messages").json()["messages"]
    assert sorted(m["messageId"] for m in listed) == sorted(r["messageId"] for r in first["results"])


@pytest.mark.security
def test_a_batch_to_a_room_of_another_tenant_is_not_found_and_publishes_nothing(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])

    # When
    response = tenant_b.post(f"/rooms/{room['id']}/messages/batch", {"messages": [_message(1)]})

    # Then
    assert_error(response, 404, "not found")
    assert pull(tenant_a, room["id"], subscription["id"]) == []


@pytest.mark.security
@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ("not json", 400, ["not valid JSON"]),
        ('{"messages": [{"eventType": "e", "eventVersion": "1", "payload": "\\ud800"}]}', 422, ["surrogate"]),
        ({"messages": "all of them"}, 422, ["body.messages"]),
        ({"messages": []}, 422, ["body.messages", "at least 1"]),
        ({"messages": [_message(n) for n in range(101)]}, 422, ["body.messages", "at most 100"]),
        ({"messages": [_message(1)], "extra": 1}, 422, ["body.extra"]),
        ({"messages": [_message(n, payload="x" * 100_000) for n in range(11)]}, 413, ["1048576"]),
    ],
    ids=["not-json", "lone-surrogate", "not-a-list", "empty", "over-100", "unknown-field", "over-1-MiB"],
)
def test_a_request_that_is_not_a_batch_is_refused_as_a_whole_and_changes_nothing(
    tenant_a: ApiClient, body: Any, status: int, words: list[str]
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])

    # When
    path = f"/rooms/{room['id']}/messages/batch"
    if isinstance(body, str):
        response = tenant_a.post(path, data=body, headers={"Content-Type": "application/json"})
    else:
        response = tenant_a.post(path, body)

    # Then
    assert_error(response, status, *words)
    assert pull(tenant_a, room["id"], subscription["id"]) == []
    assert tenant_a.get(f"/rooms/{room['id']}/messages").json()["messages"] == []
