"""A deployed stack's first check (``make smoke``): rooms, subscriptions, publish, PULL
pull/ack/nack, a PUSH delivery, dead letters and replay; every room it makes is deleted."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from roomcast_client.webhooks import verify_webhook
from roomcast_dev.webhook_receiver import WebhookReceiver
from tests.smoke.conftest import Api, wait_for


def publish(api: Api, room_id: str, n: int) -> str:
    body = {"eventType": "smoke.checked", "eventVersion": "1", "payload": {"n": n}}
    message_id: str = api.call("POST", f"/rooms/{room_id}/messages", body, expected=202)["messageId"]
    return message_id


def pulled(api: Api, path: str, count: int = 1) -> list[dict[str, Any]]:
    """``count`` messages pulled from a PULL subscription (long polls until they come)."""

    def some() -> list[dict[str, Any]] | None:
        found: list[dict[str, Any]] = api.call(
            "POST", f"{path}/pull", {"maxMessages": count, "waitSeconds": 5}
        )["messages"]
        return found or None

    return wait_for(some, f"{count} message(s) to pull")


def status_of(api: Api, room_id: str, message_id: str, subscription_id: str) -> str:
    message = api.call("GET", f"/rooms/{room_id}/messages/{message_id}")
    status: str = next(d["status"] for d in message["deliveries"] if d["subscriptionId"] == subscription_id)
    return status


@pytest.fixture
def local_receiver() -> Iterator[WebhookReceiver | None]:
    """A receiver on 127.0.0.1 unless the user gave one (ROOMCAST_RECEIVER_URL)."""
    if os.environ.get("ROOMCAST_RECEIVER_URL"):
        yield None
        return
    with WebhookReceiver() as receiver:
        yield receiver


def test_rooms_and_subscriptions_are_made_read_and_listed(api: Api, room: dict[str, Any]) -> None:
    assert api.call("GET", f"/rooms/{room['id']}") == room
    subscription = api.call("POST", f"/rooms/{room['id']}/subscriptions", {"type": "PULL"}, expected=201)
    listed = api.call("GET", f"/rooms/{room['id']}/subscriptions")["subscriptions"]
    assert [s["id"] for s in listed] == [subscription["id"]]
    changed = api.call("PATCH", f"/rooms/{room['id']}", {"deliveryAttempts": 2})
    assert changed["deliveryAttempts"] == 2


def test_pull_ack_and_nack(api: Api, room: dict[str, Any]) -> None:
    # Given
    subscription = api.call("POST", f"/rooms/{room['id']}/subscriptions", {"type": "PULL"}, expected=201)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    first, second = publish(api, room["id"], 1), publish(api, room["id"], 2)

    # When: both are pulled; one is acked, the other nacked and pulled again
    messages: dict[str, dict[str, Any]] = {}

    def both() -> dict[str, dict[str, Any]] | None:
        body = {"maxMessages": 2, "waitSeconds": 5}
        messages.update({m["messageId"]: m for m in api.call("POST", f"{path}/pull", body)["messages"]})
        return messages if len(messages) == 2 else None

    wait_for(both, "both messages to pull")  # bounded: a message that never comes fails the test
    acked = api.call("POST", f"{path}/ack", {"receipts": [messages[first]["receipt"]]})
    nacked = api.call("POST", f"{path}/nack", {"receipts": [messages[second]["receipt"]]})
    again = pulled(api, path)[0]

    # Then
    assert acked["acked"] == [first]
    assert nacked["nacked"][0]["outcome"] == "retry"
    assert (again["messageId"], again["attempt"]) == (second, 1)
    api.call("POST", f"{path}/ack", {"receipts": [again["receipt"]]})
    assert status_of(api, room["id"], first, subscription["id"]) == "delivered"
    assert status_of(api, room["id"], second, subscription["id"]) == "delivered"


def test_a_push_delivery_arrives_signed(
    api: Api, room: dict[str, Any], local_receiver: WebhookReceiver | None
) -> None:
    # Given
    url = local_receiver.url("/smoke") if local_receiver else os.environ["ROOMCAST_RECEIVER_URL"]
    subscription = api.call(
        "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": url}, expected=201
    )

    # When
    message_id = publish(api, room["id"], 3)

    # Then: delivered, as the API tells; the local receiver also checks the signature
    wait_for(
        lambda: status_of(api, room["id"], message_id, subscription["id"]) == "delivered" or None,
        "the PUSH delivery",
    )
    if local_receiver is not None:
        (request,) = local_receiver.wait_for_requests(1, timeout_seconds=5)
        verified = verify_webhook(subscription["signingSecret"], request.headers, request.body)
        assert verified.message_id == message_id


def test_a_dead_letter_is_listed_and_replayed(api: Api, room: dict[str, Any]) -> None:
    # Given: a PULL subscription with no redelivery, and a message nacked once: dead
    body = {"type": "PULL", "deliveryAttempts": 0}
    subscription = api.call("POST", f"/rooms/{room['id']}/subscriptions", body, expected=201)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    message_id = publish(api, room["id"], 4)
    nacked = api.call("POST", f"{path}/nack", {"receipts": [pulled(api, path)[0]["receipt"]]})
    assert nacked["nacked"][0]["outcome"] == "dead"

    # When
    letters = api.call("GET", f"{path}/dead-letters")["deadLetters"]
    replayed = api.call("POST", f"{path}/dead-letters/replay", {"messageIds": [message_id]})

    # Then: listed, replayed, and pulled again
    assert [letter["messageId"] for letter in letters] == [message_id]
    assert replayed["replayed"] == [message_id]
    again = pulled(api, path)[0]
    assert again["messageId"] == message_id
    api.call("POST", f"{path}/ack", {"receipts": [again["receipt"]]})
    assert api.call("GET", f"{path}/dead-letters")["deadLetters"] == []
