"""Auto-disable and operational events end to end: a failing endpoint is disabled after
``disableAfterFailingMs`` and a subscriber of the room's operations room hears of it (and of dead
deliveries) as ordinary signed webhooks; real receivers on loopback, real time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver, always
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import publish

TIMEOUT_SECONDS = 30.0


@pytest.fixture
def operations_receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver(always()) as server:
        yield server


@pytest.fixture
def failing_receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver(always(Reply(500, body=b'{"error":"database down"}'))) as server:
        yield server


def _events(server: WebhookReceiver, event_type: str, count: int = 1) -> list[dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        found = [r.json for r in server.requests if r.json and r.json["eventType"] == event_type]
        if len(found) >= count:
            return found
        time.sleep(0.2)
    seen = [r.json["eventType"] for r in server.requests if r.json]
    raise AssertionError(f"no {event_type} within {TIMEOUT_SECONDS} s; seen {seen}")


def _rooms(client: ApiClient, operations_receiver: WebhookReceiver, **room: Any) -> tuple[str, str]:
    operations = client.create_room(name="operations")
    client.create_subscription(operations["id"], type="PUSH", pushUrl=operations_receiver.url("/ops"))
    watched = client.create_room(operationsRoomId=operations["id"], **room)
    assert watched["operationsRoomId"] == operations["id"]
    return watched["id"], operations["id"]


def test_a_subscription_failing_for_disable_after_failing_ms_is_disabled_and_reported(
    tenant_a: ApiClient, operations_receiver: WebhookReceiver, failing_receiver: WebhookReceiver
) -> None:
    # Given: an endpoint that always fails, allowed to fail for 1 s, retried every second, without
    # recovery probes (with them its deliveries would wait: tests/integration/test_endpoint_recovery.py)
    room_id, _ = _rooms(tenant_a, operations_receiver, deliveryDelayMs=1000, deliveryDelayMultiplier=1.0)
    subscription = tenant_a.create_subscription(
        room_id, type="PUSH", pushUrl=failing_receiver.url(), disableAfterFailingMs=1000, recoveryProbes=False
    )
    assert subscription["disableAfterFailingMs"] == 1000

    # When
    message = publish(tenant_a, room_id)

    # Then: the subscription is disabled, says why, and the operations room's subscriber hears of it
    [disabled] = _events(operations_receiver, "subscription.disabled")
    assert disabled["eventVersion"] == "1"
    assert disabled["payload"]["roomId"] == room_id
    assert disabled["payload"]["subscriptionId"] == subscription["id"]
    assert "every attempt failed" in disabled["payload"]["reason"]
    stored = tenant_a.get(f"/rooms/{room_id}/subscriptions/{subscription['id']}").json()
    assert stored["status"] == "disabled"
    assert stored["disabledReason"] == disabled["payload"]["reason"]
    assert stored["disabledAt"]
    assert stored["failingSince"] is not None  # the run of failures that disabled it
    assert stored["failingSince"] < stored["disabledAt"]
    # and the message, whose next attempt finds the subscription disabled, ends dead: reported too
    [dead] = _events(operations_receiver, "delivery.dead")
    assert dead["payload"]["messageId"] == message["messageId"]
    assert dead["payload"]["subscriptionId"] == subscription["id"]

    # and re-activating clears the reason
    active = tenant_a.patch(f"/rooms/{room_id}/subscriptions/{subscription['id']}", {"status": "active"})
    assert (active.json()["status"], active.json()["disabledReason"], active.json()["failingSince"]) == (
        "active",
        None,
        None,
    )


def test_a_dead_delivery_is_reported_once_and_operational_events_are_signed_webhooks(
    tenant_a: ApiClient, operations_receiver: WebhookReceiver
) -> None:
    # Given: an endpoint refusing with 400 (permanent: dead at once)
    with WebhookReceiver(always(Reply(400))) as refusing:
        room_id, operations_id = _rooms(tenant_a, operations_receiver)
        subscription = tenant_a.create_subscription(room_id, type="PUSH", pushUrl=refusing.url())

        # When
        message = publish(tenant_a, room_id)
        [dead] = _events(operations_receiver, "delivery.dead")

    # Then
    assert dead["payload"] | {"occurredAt": None} == {
        "roomId": room_id,
        "subscriptionId": subscription["id"],
        "messageId": message["messageId"],
        "correlationId": dead["payload"]["correlationId"],
        "reason": "HTTP 400 (permanent)",
        "attempts": 1,
        "occurredAt": None,
    }
    request: RecordedRequest = next(
        r for r in operations_receiver.requests if r.json["eventType"] == "delivery.dead"
    )
    assert request.headers["webhook-signature"].startswith("v1,")
    assert dead["roomId"] == operations_id
    listed = tenant_a.get(f"/rooms/{operations_id}/messages/{dead['messageId']}")
    assert listed.status_code == 200


def test_operations_room_must_be_another_existing_room_of_the_tenant(
    tenant_a: ApiClient, tenant_b: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    theirs = tenant_b.create_room()

    # When / Then
    assert_error(tenant_a.patch(f"/rooms/{room['id']}", {"operationsRoomId": room["id"]}), 422, "own")
    assert_error(tenant_a.patch(f"/rooms/{room['id']}", {"operationsRoomId": theirs["id"]}), 404)
    assert_error(tenant_a.post("/rooms", {"name": "x", "operationsRoomId": theirs["id"]}), 404)
    assert tenant_a.get(f"/rooms/{room['id']}").json()["operationsRoomId"] is None
    assert len(tenant_a.get("/rooms").json()["rooms"]) == 1
