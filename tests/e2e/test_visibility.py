"""Visibility end to end: a room's messages and a subscription's deliveries page newest first with
filters, and a message's attempts show each webhook's status code and response body, and PULL's
hand-outs, nacks and acks; bad input is a JSON 4xx and another tenant's ids are 404."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from roomcast_dev.webhook_receiver import Reply, WebhookReceiver
from tests.e2e.conftest import ApiClient, assert_error, wait_until
from tests.e2e.test_publish_and_pull import publish, pull


@pytest.fixture
def flaky() -> Iterator[WebhookReceiver]:
    """Answers 503 with a JSON body once, then 200 with a body of its own."""

    def reply(number: int, request: Any) -> Reply:
        if number == 0:
            return Reply(503, body=b'{"error":"database down"}')
        return Reply(200, body=b"thanks")

    with WebhookReceiver(reply) as server:
        yield server


def _all_pages(client: ApiClient, path: str, key: str, **params: Any) -> tuple[list[dict[str, Any]], int]:
    found, pages, cursor = [], 0, None
    while True:
        response = client.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        body = response.json()
        found += body[key]
        pages += 1
        cursor = body["nextCursor"]
        if cursor is None:
            return found, pages


def test_room_messages_page_newest_first_and_filter_by_type_and_time(tenant_a: ApiClient) -> None:
    # Given: five messages of two types
    room = tenant_a.create_room()
    published = [
        publish(tenant_a, room["id"], eventType="order.created" if n % 2 == 0 else "order.paid")
        for n in range(5)
    ]
    path = f"/rooms/{room['id']}/messages"

    # When
    everything, pages = _all_pages(tenant_a, path, "messages", limit=2)
    created, _ = _all_pages(tenant_a, path, "messages", eventType="order.created")
    after_third, _ = _all_pages(tenant_a, path, "messages", since=published[2]["publishedAt"])
    before_second, _ = _all_pages(tenant_a, path, "messages", until=published[1]["publishedAt"])

    # Then
    assert [m["messageId"] for m in everything] == [p["messageId"] for p in reversed(published)]
    assert pages == 3
    assert {m["eventType"] for m in created} == {"order.created"}
    assert len(created) == 3
    assert [m["messageId"] for m in after_third] == [p["messageId"] for p in reversed(published[2:])]
    assert [m["messageId"] for m in before_second] == [p["messageId"] for p in reversed(published[:2])]
    assert all("deliveries" in m for m in everything)


def test_attempts_show_status_codes_and_response_bodies_and_deliveries_list_by_status(
    tenant_a: ApiClient, flaky: WebhookReceiver
) -> None:
    # Given: a webhook that fails once with a body, then succeeds
    room = tenant_a.create_room(deliveryDelayMs=500)
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=flaky.url())
    message = publish(tenant_a, room["id"])
    message_path = f"/rooms/{room['id']}/messages/{message['messageId']}"

    # When: it has been delivered
    wait_until(
        lambda: tenant_a.get(message_path).json()["deliveries"][0]["status"] == "delivered", "delivered"
    )
    attempts = tenant_a.get(f"{message_path}/attempts").json()["attempts"]

    # Then: both attempts, in order, with what the endpoint answered
    assert [(a["attempt"], a["event"], a["httpStatus"]) for a in attempts] == [
        (0, "post", 503),
        (1, "post", 200),
    ]
    assert attempts[0]["responseBody"] == '{"error":"database down"}'
    assert attempts[0]["error"] == "HTTP 503"
    assert attempts[1]["responseBody"] == "thanks"
    assert all(a["subscriptionId"] == subscription["id"] and a["durationMs"] >= 0 for a in attempts)
    deliveries = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/deliveries"
    delivered, _ = _all_pages(tenant_a, deliveries, "deliveries", status="delivered")
    dead, _ = _all_pages(tenant_a, deliveries, "deliveries", status="dead")
    assert [(d["messageId"], d["attempts"]) for d in delivered] == [(message["messageId"], 2)]
    assert dead == []


def test_pull_attempts_show_the_hand_outs_and_the_answers(tenant_a: ApiClient) -> None:
    # Given: a PULL message nacked once then acked
    room = tenant_a.create_room(deliveryDelayMs=0)
    subscription = tenant_a.create_subscription(room["id"])
    message = publish(tenant_a, room["id"])
    base = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    [first] = wait_until(lambda: pull(tenant_a, room["id"], subscription["id"]), "first hand-out")
    assert tenant_a.post(f"{base}/nack", {"receipts": [first["receipt"]]}).status_code == 200
    [second] = wait_until(lambda: pull(tenant_a, room["id"], subscription["id"]), "second hand-out")
    assert tenant_a.post(f"{base}/ack", {"receipts": [second["receipt"]]}).status_code == 200

    # When
    attempts = tenant_a.get(
        f"/rooms/{room['id']}/messages/{message['messageId']}/attempts",
        params={"subscriptionId": subscription["id"]},
    ).json()["attempts"]

    # Then
    assert [(a["attempt"], a["event"]) for a in attempts] == [
        (0, "pull"),
        (0, "nack"),
        (1, "pull"),
        (1, "ack"),
    ]


def test_visibility_routes_refuse_bad_input_and_other_tenants(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    message = publish(tenant_a, room["id"])
    messages = f"/rooms/{room['id']}/messages"
    deliveries = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/deliveries"
    attempts = f"{messages}/{message['messageId']}/attempts"

    # Then: bad parameters are a JSON 4xx naming them
    for path, params in [
        (messages, {"limit": 0}),
        (messages, {"since": "yesterday"}),
        (messages, {"eventType": "bad type!"}),
        (messages, {"cursor": "not-a-cursor"}),
        (deliveries, {"status": "lost"}),
        (deliveries, {"cursor": "eyJQSyI6IngifQ"}),
    ]:
        response = tenant_a.get(path, params=params)
        assert 400 <= response.status_code < 500, (path, params, response.text)
        assert response.json()["error"]["message"]
    assert_error(tenant_a.get(attempts, params={"subscriptionId": "sub_" + "0" * 32}), 404)
    # and another tenant's room, subscription or message is not found
    for path in (messages, deliveries, attempts):
        assert_error(tenant_b.get(path), 404)
