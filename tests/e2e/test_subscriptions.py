"""Subscriptions over HTTP: PUSH and PULL, overrides, failover, and the PULL queues' lifecycle."""

from __future__ import annotations

from typing import Any

import pytest

from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error

PUBLIC_PUSH_URL = "https://93.184.216.34/hooks/roomcast"  # a public literal: no DNS needed


def _pull_queue_names(stack: LocalStack) -> set[str]:
    prefix = stack.output("PullQueuePrefix")
    urls = stack.client("sqs").list_queues(QueueNamePrefix=prefix).get("QueueUrls", [])
    return {url.rsplit("/", 1)[-1] for url in urls}


def test_push_subscription_is_created_with_a_signing_secret_shown_once(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    response = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": PUBLIC_PUSH_URL}
    )

    # Then
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["id"].startswith("sub_")
    assert created["type"] == "PUSH"
    assert created["status"] == "active"
    assert created["pushUrl"] == PUBLIC_PUSH_URL
    assert created["timeoutMs"] == 10_000
    assert created["signingSecret"].startswith("whsec_")
    read = tenant_a.get(f"/rooms/{room['id']}/subscriptions/{created['id']}").json()
    assert "signingSecret" not in read
    assert read == {k: v for k, v in created.items() if k != "signingSecret"}


def test_push_to_loopback_over_http_is_accepted_in_local_mode(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl="http://127.0.0.1:8080/hook")
    assert subscription["pushUrl"] == "http://127.0.0.1:8080/hook"


def test_pull_subscription_creates_its_queue_and_dead_letter_queue(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    subscription = tenant_a.create_subscription(room["id"], type="PULL", ackWaitMs=5000)

    # Then
    assert subscription["ackWaitMs"] == 5000
    assert "signingSecret" not in subscription or subscription["signingSecret"] is None
    prefix = empty_stack.output("PullQueuePrefix")
    assert _pull_queue_names(empty_stack) == {
        f"{prefix}{subscription['id']}",
        f"{prefix}{subscription['id']}-dlq",
    }


def test_deleting_a_pull_subscription_removes_its_queues(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    assert len(_pull_queue_names(empty_stack)) == 2

    # When
    response = tenant_a.delete(f"/rooms/{room['id']}/subscriptions/{subscription['id']}")

    # Then
    assert response.status_code == 204
    assert _pull_queue_names(empty_stack) == set()
    assert_error(tenant_a.get(f"/rooms/{room['id']}/subscriptions/{subscription['id']}"), 404)


def test_deleting_a_room_removes_its_pull_queues(tenant_a: ApiClient, empty_stack: LocalStack) -> None:
    # Given
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"])
    tenant_a.create_subscription(room["id"])

    # When
    job = tenant_a.finished_job(tenant_a.delete(f"/rooms/{room['id']}"))
    assert (job["state"], job["counts"]["subscriptionsDeleted"]) == ("succeeded", 2)

    # Then
    assert _pull_queue_names(empty_stack) == set()


def test_list_subscriptions_of_a_room(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    other_room = tenant_a.create_room(name="other")
    ids = {tenant_a.create_subscription(room["id"])["id"] for _ in range(3)}
    tenant_a.create_subscription(other_room["id"])

    # When
    first = tenant_a.get(f"/rooms/{room['id']}/subscriptions?limit=2").json()
    rest = tenant_a.get(f"/rooms/{room['id']}/subscriptions?limit=2&cursor={first['nextCursor']}").json()

    # Then
    listed = {s["id"] for s in first["subscriptions"] + rest["subscriptions"]}
    assert listed == ids
    assert rest["nextCursor"] is None


def test_overrides_are_stored_and_null_clears_them(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(
        room["id"],
        deliveryDelayMs=2000,
        deliveryDelayMultiplier=3.0,
        deliveryAttempts=7,
        maxDelayMs=60_000,
        jitter=0.2,
        retryScheduleMs=[1000, 5000, 30000],
        eventTypes=[{"name": "order.created", "versions": ["1"]}],
    )
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    assert subscription["retryScheduleMs"] == [1000, 5000, 30000]

    # When
    response = tenant_a.patch(path, {"deliveryDelayMs": None, "jitter": 0.5, "retryScheduleMs": None})

    # Then
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["deliveryDelayMs"] is None
    assert updated["jitter"] == 0.5
    assert updated["retryScheduleMs"] is None
    assert updated["deliveryAttempts"] == 7
    assert updated["eventTypes"] == [{"name": "order.created", "versions": ["1"]}]
    assert tenant_a.get(path).json() == updated


def test_patch_push_url_is_checked_like_at_creation(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=PUBLIC_PUSH_URL)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    # When
    refused = tenant_a.patch(path, {"pushUrl": "https://10.0.0.1/hook"})
    accepted = tenant_a.patch(path, {"pushUrl": "https://93.184.216.35/other", "timeoutMs": 2000})

    # Then
    assert_error(refused, 422, "pushUrl", "private")
    assert accepted.status_code == 200
    assert accepted.json()["pushUrl"] == "https://93.184.216.35/other"
    assert accepted.json()["timeoutMs"] == 2000


@pytest.mark.parametrize(
    ("subscription_type", "field", "value"),
    [("PULL", "pushUrl", PUBLIC_PUSH_URL), ("PULL", "timeoutMs", 2000), ("PUSH", "ackWaitMs", 2000)],
)
def test_patch_refuses_fields_of_the_other_type(
    tenant_a: ApiClient, subscription_type: str, field: str, value: Any
) -> None:
    # Given
    room = tenant_a.create_room()
    extra = {"pushUrl": PUBLIC_PUSH_URL} if subscription_type == "PUSH" else {}
    subscription = tenant_a.create_subscription(room["id"], type=subscription_type, **extra)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"

    # When
    response = tenant_a.patch(path, {field: value})

    # Then
    assert_error(response, 422, field)
    assert tenant_a.get(path).json()["updatedAt"] == subscription["updatedAt"]


def test_failover_must_be_a_subscription_of_the_same_room(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    other_room = tenant_a.create_room(name="other")
    foreign = tenant_a.create_subscription(other_room["id"])
    local = tenant_a.create_subscription(room["id"])

    # When
    refused = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions", {"type": "PULL", "failoverSubscriptionId": foreign["id"]}
    )
    accepted = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions", {"type": "PULL", "failoverSubscriptionId": local["id"]}
    )

    # Then
    assert_error(refused, 422, "failover", foreign["id"])
    assert accepted.status_code == 201
    assert accepted.json()["failoverSubscriptionId"] == local["id"]


def test_failover_chains_may_not_loop(tenant_a: ApiClient) -> None:
    # Given: first -> second
    room = tenant_a.create_room()
    second = tenant_a.create_subscription(room["id"])
    first = tenant_a.create_subscription(room["id"], failoverSubscriptionId=second["id"])
    second_path = f"/rooms/{room['id']}/subscriptions/{second['id']}"

    # When: second -> first would close the loop; second -> second points at itself
    looped = tenant_a.patch(second_path, {"failoverSubscriptionId": first["id"]})
    itself = tenant_a.patch(second_path, {"failoverSubscriptionId": second["id"]})

    # Then
    assert_error(looped, 422, "loop")
    assert_error(itself, 422, "own failover")
    assert tenant_a.get(second_path).json()["failoverSubscriptionId"] is None


def test_a_failover_target_cannot_be_deleted_while_referenced(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    target = tenant_a.create_subscription(room["id"])
    referrer = tenant_a.create_subscription(room["id"], failoverSubscriptionId=target["id"])
    target_path = f"/rooms/{room['id']}/subscriptions/{target['id']}"

    # When
    refused = tenant_a.delete(target_path)
    tenant_a.patch(f"/rooms/{room['id']}/subscriptions/{referrer['id']}", {"failoverSubscriptionId": None})
    accepted = tenant_a.delete(target_path)

    # Then
    assert_error(refused, 409, referrer["id"])
    assert accepted.status_code == 204


def test_a_subscription_can_be_disabled_and_enabled(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    assert tenant_a.patch(path, {"status": "disabled"}).json()["status"] == "disabled"
    assert tenant_a.patch(path, {"status": "active"}).json()["status"] == "active"
