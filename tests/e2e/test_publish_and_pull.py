"""Publishing and PULL delivery over HTTP on the local stack (real time, short delays)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest

from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error


def publish(client: ApiClient, room_id: str, **fields: Any) -> dict[str, Any]:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 42}, **fields}
    response = client.post(f"/rooms/{room_id}/messages", body)
    assert response.status_code == 202, response.text
    result: dict[str, Any] = response.json()
    return result


def pull(client: ApiClient, room_id: str, subscription_id: str, **fields: Any) -> list[dict[str, Any]]:
    response = client.post(f"/rooms/{room_id}/subscriptions/{subscription_id}/pull", fields)
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


def pull_until(
    client: ApiClient, room_id: str, subscription_id: str, timeout_seconds: float
) -> tuple[list[dict[str, Any]], float]:
    """Long-poll until something arrives; returns it and the monotonic time it arrived."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        messages = pull(client, room_id, subscription_id, waitSeconds=1)
        if messages:
            return messages, time.monotonic()
    raise AssertionError(f"nothing pulled within {timeout_seconds} s")


def status(client: ApiClient, room_id: str, message_id: str) -> dict[str, Any]:
    response = client.get(f"/rooms/{room_id}/messages/{message_id}")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def delivery_of(message_status: dict[str, Any], subscription_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        d for d in message_status["deliveries"] if d["subscriptionId"] == subscription_id
    )
    return found


def test_publish_then_pull_then_ack(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])

    # When
    published = publish(tenant_a, room["id"], correlationId="order-42")
    messages = pull(tenant_a, room["id"], subscription["id"], maxMessages=10)
    ack = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions/{subscription['id']}/ack", {"receipts": [messages[0]["receipt"]]}
    )

    # Then
    assert published["destinations"] == [subscription["id"]]
    assert published["correlationId"] == "order-42"
    assert len(messages) == 1
    message = messages[0]
    assert message["messageId"] == published["messageId"]
    assert message["payload"] == {"orderId": 42}
    assert (message["eventType"], message["eventVersion"], message["attempt"]) == ("order.created", "1", 0)
    assert message["correlationId"] == "order-42"
    assert ack.status_code == 200
    assert ack.json() == {"acked": [published["messageId"]], "failed": []}
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert delivery["status"] == "delivered"
    assert delivery["attempts"] == 1
    assert pull(tenant_a, room["id"], subscription["id"]) == []


def test_publish_answers_before_delivery_with_a_pending_status(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])

    # When
    published = publish(tenant_a, room["id"])
    current = status(tenant_a, room["id"], published["messageId"])

    # Then
    assert current["correlationId"] == published["correlationId"]
    assert current["payload"] == {"orderId": 42}
    assert delivery_of(current, subscription["id"])["status"] == "pending"


def test_nacked_message_returns_no_earlier_than_the_backoff_delay_with_the_next_attempt(
    tenant_a: ApiClient,
) -> None:
    # Given: the first redelivery waits 2 s
    room = tenant_a.create_room(deliveryDelayMs=2000, deliveryDelayMultiplier=2.0, deliveryAttempts=3)
    subscription = tenant_a.create_subscription(room["id"])
    published = publish(tenant_a, room["id"])
    first = pull(tenant_a, room["id"], subscription["id"])[0]

    # When
    nacked_at, nacked_at_wall = time.monotonic(), time.time()
    nack = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions/{subscription['id']}/nack", {"receipts": [first["receipt"]]}
    )
    answered_at_wall = time.time()
    again, arrived_at = pull_until(tenant_a, room["id"], subscription["id"], timeout_seconds=30)

    # Then: due 2 s after the nack (the nack answers when; the function read its clock while the
    # request was on its way), and not handed out earlier. How much later it is pulled is the
    # local stack's latency, which a busy machine stretches: not checked.
    assert nack.status_code == 200, nack.text
    [nacked] = nack.json()["nacked"]
    assert nacked["outcome"] == "retry"
    due = datetime.fromisoformat(nacked["nextAttemptAt"]).timestamp()
    assert nacked_at_wall + 2.0 - 0.001 <= due <= answered_at_wall + 2.0 + 0.001, (
        due - nacked_at_wall,
        answered_at_wall - nacked_at_wall,
    )
    assert arrived_at - nacked_at >= 2.0
    assert again[0]["messageId"] == published["messageId"]
    assert again[0]["attempt"] == 1
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert delivery["status"] == "retrying"
    assert delivery["attempts"] == 1  # the first failed; the second is out, not finished
    assert delivery["lastError"] == "nacked by the consumer"
    assert delivery["lastError"]


def test_a_message_not_acked_within_ack_wait_comes_back_as_the_next_attempt(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room(deliveryAttempts=3)
    subscription = tenant_a.create_subscription(room["id"], ackWaitMs=1000)
    published = publish(tenant_a, room["id"])
    first = pull(tenant_a, room["id"], subscription["id"])

    # When: nobody acks
    again, _ = pull_until(tenant_a, room["id"], subscription["id"], timeout_seconds=10)

    # Then
    assert first[0]["attempt"] == 0
    assert again[0]["messageId"] == published["messageId"]
    assert again[0]["attempt"] == 1
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert delivery["status"] == "retrying"
    assert delivery["attempts"] == 1
    assert delivery["lastError"] == "not acknowledged within ackWaitMs"


def test_exhausted_attempts_end_dead_in_the_dead_letter_queue(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: one redelivery allowed, 1 s apart
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=1)
    subscription = tenant_a.create_subscription(room["id"])
    published = publish(tenant_a, room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    # When: both attempts are nacked
    first = pull(tenant_a, room["id"], subscription["id"])[0]
    assert (
        tenant_a.post(f"{path}/nack", {"receipts": [first["receipt"]]}).json()["nacked"][0]["outcome"]
        == "retry"
    )
    second, _ = pull_until(tenant_a, room["id"], subscription["id"], timeout_seconds=10)
    last = tenant_a.post(f"{path}/nack", {"receipts": [second[0]["receipt"]]})

    # Then
    assert second[0]["attempt"] == 1
    assert last.json()["nacked"] == [
        {"messageId": published["messageId"], "outcome": "dead", "nextAttemptAt": None}
    ]
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert delivery["status"] == "dead"
    assert delivery["attempts"] == 2
    dead_letter_queue = empty_stack.queue_url(
        f"{empty_stack.output('PullQueuePrefix')}{subscription['id']}-dlq"
    )
    dead = empty_stack.client("sqs").receive_message(QueueUrl=dead_letter_queue, WaitTimeSeconds=1)[
        "Messages"
    ]
    assert published["messageId"] in dead[0]["Body"]
    assert pull(tenant_a, room["id"], subscription["id"], waitSeconds=1) == []


def test_an_expired_message_is_never_pulled_and_shows_expired(tenant_a: ApiClient) -> None:
    # Given: messages expire after 1 s
    room = tenant_a.create_room(messageExpirationMs=1000)
    subscription = tenant_a.create_subscription(room["id"])
    published = publish(tenant_a, room["id"])

    # When: the consumer comes after the expiry
    time.sleep(1.2)
    pulled = pull(tenant_a, room["id"], subscription["id"], waitSeconds=1)

    # Then
    assert pulled == []
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert delivery["status"] == "expired"
    assert status(tenant_a, room["id"], published["messageId"])["expiresAt"]


def test_routing_by_event_type_and_version(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room(
        eventTypes=[{"name": "order.created", "versions": ["1", "2"]}, {"name": "order.paid"}]
    )
    v1_only = tenant_a.create_subscription(
        room["id"], eventTypes=[{"name": "order.created", "versions": ["1"]}]
    )
    paid_only = tenant_a.create_subscription(room["id"], eventTypes=[{"name": "order.paid"}])
    everything = tenant_a.create_subscription(room["id"])

    # When
    created_v1 = publish(tenant_a, room["id"], eventType="order.created", eventVersion="1")
    created_v2 = publish(tenant_a, room["id"], eventType="order.created", eventVersion="2")
    paid = publish(tenant_a, room["id"], eventType="order.paid", eventVersion="7")

    # Then
    assert created_v1["destinations"] == sorted([v1_only["id"], everything["id"]])
    assert created_v2["destinations"] == [everything["id"]]
    assert paid["destinations"] == sorted([paid_only["id"], everything["id"]])
    assert [m["messageId"] for m in pull(tenant_a, room["id"], v1_only["id"])] == [created_v1["messageId"]]


def test_a_message_without_destinations_is_still_recorded(tenant_a: ApiClient) -> None:
    # Given: the only subscription wants another type
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"], eventTypes=[{"name": "order.paid"}])

    # When
    published = publish(tenant_a, room["id"])

    # Then
    assert published["destinations"] == []
    recorded = status(tenant_a, room["id"], published["messageId"])
    assert recorded["destinations"] == []
    assert recorded["deliveries"] == []


def test_explicit_destinations_receive_the_message_alone(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    chosen = tenant_a.create_subscription(room["id"])
    other = tenant_a.create_subscription(room["id"])

    # When
    published = publish(tenant_a, room["id"], destinations=[chosen["id"]])

    # Then
    assert published["destinations"] == [chosen["id"]]
    assert len(pull(tenant_a, room["id"], chosen["id"])) == 1
    assert pull(tenant_a, room["id"], other["id"]) == []


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"eventType": "order.refunded"}, ["does not accept", "order.refunded"]),
        ({"eventVersion": "3"}, ["versions", "1, 2"]),
        ({"destinations": ["sub_" + "0" * 32]}, ["not a subscription of room"]),
    ],
)
def test_unroutable_messages_are_refused_and_nothing_is_sent(
    tenant_a: ApiClient, fields: dict[str, Any], words: list[str]
) -> None:
    # Given
    room = tenant_a.create_room(eventTypes=[{"name": "order.created", "versions": ["1", "2"]}])
    subscription = tenant_a.create_subscription(room["id"])
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {}, **fields}

    # When
    response = tenant_a.post(f"/rooms/{room['id']}/messages", body)

    # Then
    assert_error(response, 422, *words)
    assert pull(tenant_a, room["id"], subscription["id"], waitSeconds=1) == []


def test_an_explicit_destination_that_does_not_match_is_refused(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    picky = tenant_a.create_subscription(room["id"], eventTypes=[{"name": "order.paid"}])
    response = tenant_a.post(
        f"/rooms/{room['id']}/messages",
        {"eventType": "order.created", "eventVersion": "1", "payload": {}, "destinations": [picky["id"]]},
    )
    assert_error(response, 422, "does not accept")


def test_a_retried_publish_with_the_same_idempotency_key_returns_the_first_answer(
    tenant_a: ApiClient,
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 1}}
    headers = {"Idempotency-Key": "order-42-created"}

    # When
    first = tenant_a.post(f"/rooms/{room['id']}/messages", body, headers=headers)
    second = tenant_a.post(f"/rooms/{room['id']}/messages", body, headers=headers)
    reused = tenant_a.post(f"/rooms/{room['id']}/messages", {**body, "payload": {"n": 2}}, headers=headers)

    # Then
    assert first.status_code == second.status_code == 202
    assert second.json() == first.json()
    assert_error(reused, 422, "Idempotency-Key")
    assert len(pull(tenant_a, room["id"], subscription["id"], maxMessages=10, waitSeconds=1)) == 1


def test_several_consumers_share_one_subscriptions_messages(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], ackWaitMs=30_000)
    published = {publish(tenant_a, room["id"], payload={"n": n})["messageId"] for n in range(6)}

    # When: three consumers pull at once
    with ThreadPoolExecutor(max_workers=3) as pool:
        batches = list(
            pool.map(
                lambda _: pull(tenant_a, room["id"], subscription["id"], maxMessages=2, waitSeconds=2),
                range(3),
            )
        )
    leftovers = pull(tenant_a, room["id"], subscription["id"], maxMessages=10, waitSeconds=1)

    # Then: each message went to exactly one consumer
    received = [m["messageId"] for batch in batches for m in batch] + [m["messageId"] for m in leftovers]
    assert sorted(received) == sorted(published)


def test_another_tenant_can_neither_publish_nor_pull(tenant_a: ApiClient, tenant_b: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    published = publish(tenant_a, room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    # When
    foreign_publish = tenant_b.post(
        f"/rooms/{room['id']}/messages", {"eventType": "x", "eventVersion": "1", "payload": {}}
    )
    foreign_pull = tenant_b.post(f"{path}/pull", {})
    foreign_status = tenant_b.get(f"/rooms/{room['id']}/messages/{published['messageId']}")

    # Then
    for response in (foreign_publish, foreign_pull, foreign_status):
        assert_error(response, 404)
    assert len(pull(tenant_a, room["id"], subscription["id"])) == 1


def test_an_extended_message_stays_hidden_past_its_ack_wait_and_its_receipt_still_acks(
    tenant_a: ApiClient,
) -> None:
    # Given: a message pulled from a subscription whose ack wait is 1 s
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], ackWaitMs=1000)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    published = publish(tenant_a, room["id"])
    [first] = pull(tenant_a, room["id"], subscription["id"])

    # When: the consumer extends it (by 60 s: so long that a busy machine's next pull cannot come
    # after it) and comes back after the original ack wait
    extended = tenant_a.post(f"{path}/extend", {"receipts": [first["receipt"]], "ackWaitMs": 60_000})
    time.sleep(2.0)
    during_extension = pull(tenant_a, room["id"], subscription["id"])
    ack = tenant_a.post(f"{path}/ack", {"receipts": [first["receipt"]]})

    # Then: not handed out again; acked as the first attempt
    assert extended.status_code == 200, extended.text
    assert extended.json() == {"extended": [published["messageId"]], "failed": []}
    assert during_extension == []
    assert ack.json() == {"acked": [published["messageId"]], "failed": []}
    delivery = delivery_of(status(tenant_a, room["id"], published["messageId"]), subscription["id"])
    assert (delivery["status"], delivery["attempts"]) == ("delivered", 1)


def test_extend_reports_a_stale_receipt_and_extends_the_others(tenant_a: ApiClient) -> None:
    # Given: two messages pulled; the first acked since
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], ackWaitMs=1000)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    for n in range(2):
        publish(tenant_a, room["id"], payload={"n": n})
    acked, current = pull(tenant_a, room["id"], subscription["id"], maxMessages=10)
    assert tenant_a.post(f"{path}/ack", {"receipts": [acked["receipt"]]}).json()["failed"] == []

    # When
    response = tenant_a.post(
        f"{path}/extend", {"receipts": [acked["receipt"], current["receipt"]], "ackWaitMs": 60_000}
    )

    # Then: the stale one under failed, the current one kept hidden past its 1 s ack wait
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["extended"] == [current["messageId"]]
    [failed] = body["failed"]
    assert (failed["receipt"], failed["messageId"]) == (acked["receipt"], acked["messageId"])
    assert failed["error"]
    time.sleep(2.0)
    assert pull(tenant_a, room["id"], subscription["id"]) == []


def test_an_extension_past_sqs_12_hours_is_reported_under_failed(tenant_a: ApiClient) -> None:
    # Given: a message pulled a moment ago
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], ackWaitMs=1000)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    published = publish(tenant_a, room["id"])
    [first] = pull(tenant_a, room["id"], subscription["id"])

    # When: 12 hours from now is past 12 hours from the receive, which SQS refuses
    response = tenant_a.post(f"{path}/extend", {"receipts": [first["receipt"]], "ackWaitMs": 43_200_000})

    # Then: refused for that message alone, not the request; its ack wait was not extended
    assert response.status_code == 200, response.text
    assert response.json()["extended"] == []
    assert [f["messageId"] for f in response.json()["failed"]] == [published["messageId"]]
    again, _ = pull_until(tenant_a, room["id"], subscription["id"], timeout_seconds=5)
    assert [(m["messageId"], m["attempt"]) for m in again] == [(published["messageId"], 1)]
