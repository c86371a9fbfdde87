"""Security regression: publish requests that used to answer 500 (issue 10), over real HTTP.

Each answers a 4xx naming the problem and stores nothing, or is published and delivered.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from roomcast.catalog.store import CatalogTable
from roomcast.platform import limits
from roomcast_dev.stack import LocalStack
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error, wait_until
from tests.support import seed_copies

pytestmark = pytest.mark.security  # the security regression suite: make test-security

webhook_servers = webhook_server.webhook_servers

LONE_SURROGATE = '"\\ud800"'  # valid JSON, not text


def raw_publish(client: ApiClient, room_id: str, body: str) -> Any:
    return client.post(
        f"/rooms/{room_id}/messages", data=body.encode(), headers={"Content-Type": "application/json"}
    )


def stored_messages(client: ApiClient, room_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/rooms/{room_id}/messages")
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


@pytest.mark.parametrize(
    ("body", "where"),
    [
        pytest.param(
            '{"eventType": "order.created", "eventVersion": "1", "payload": ' + LONE_SURROGATE + "}",
            "body.payload",
            id="payload-string",
        ),
        pytest.param(
            '{"eventType": "order.created", "eventVersion": "1", "payload": {"note": ["ok", '
            + LONE_SURROGATE
            + "]}}",
            "body.payload.note.1",
            id="nested-string",
        ),
        pytest.param(
            '{"eventType": "order.created", "eventVersion": "1", "payload": {"\\udfff": 1}}',
            "body.payload (a key)",
            id="payload-key",
        ),
        pytest.param(
            '{"eventType": "order.created", "eventVersion": "1", "payload": 1, "correlationId": '
            + LONE_SURROGATE
            + "}",
            "body.correlationId",
            id="correlation-id",
        ),
    ],
)
def test_a_lone_surrogate_in_a_publish_is_refused_with_422_and_stores_nothing(
    tenant_a: ApiClient, body: str, where: str
) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    response = raw_publish(tenant_a, room["id"], body)

    # Then
    error = assert_error(response, 422, where, "surrogate")
    assert error["error"]["code"] == "invalid_text"
    assert stored_messages(tenant_a, room["id"]) == []


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        pytest.param("post", "/rooms", '{"name": ' + LONE_SURROGATE + "}", id="create-room"),
        pytest.param("patch", "/rooms/{room}", '{"name": "a\\udc00b"}', id="rename-room"),
        pytest.param(
            "post",
            "/rooms/{room}/subscriptions",
            '{"type": "PULL", "eventTypes": [{"name": ' + LONE_SURROGATE + "}]}",
            id="create-subscription",
        ),
    ],
)
def test_a_lone_surrogate_in_any_body_is_refused_with_422(
    tenant_a: ApiClient, method: str, path: str, body: str
) -> None:
    # Given
    room = tenant_a.create_room(name="before")

    # When
    response = tenant_a.request(
        method.upper(),
        path.format(room=room["id"]),
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )

    # Then: refused, nothing changed
    assert_error(response, 422, "surrogate")
    assert tenant_a.get(f"/rooms/{room['id']}").json()["name"] == "before"
    assert [r["id"] for r in tenant_a.get("/rooms").json()["rooms"]] == [room["id"]]


def test_the_largest_emoji_payload_reaches_101_destinations(
    tenant_a: ApiClient, empty_stack: LocalStack, webhook_servers: webhook_server.WebhookServers
) -> None:
    # Given: a room with 101 PUSH subscriptions, and as many emoji as the limit lets through
    # (each is stored as a 12-byte escape: the limit is measured on what is stored)
    # (the first over HTTP, the other 100 copied in through the store, to be quick)
    server = webhook_servers()
    room = tenant_a.create_room()
    first = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url("/hook"))
    repository = CatalogTable(empty_stack.output("TableName"), client=empty_stack.client("dynamodb"))
    template = repository.get_subscription("tenant-a", room["id"], first["id"])
    seed_copies(repository, template, 100)
    emoji = "\U0001f600" * ((limits.MAX_PAYLOAD_BYTES - 2) // 12)

    # When
    response = tenant_a.post(
        f"/rooms/{room['id']}/messages", {"eventType": "order.created", "eventVersion": "1", "payload": emoji}
    )

    # Then: published to all of them, and the payload arrives intact
    assert response.status_code == 202, response.text
    assert len(response.json()["destinations"]) == 101
    received = server.wait_for_request(1, timeout_seconds=60)
    assert received.json["payload"] == emoji


def test_a_payload_over_the_limit_as_stored_is_413_even_when_its_utf8_is_smaller(tenant_a: ApiClient) -> None:
    # Given: the 131,070 UTF-8 bytes of emoji (393,212 bytes as stored)
    room = tenant_a.create_room()
    emoji = "\U0001f600" * (131_070 // 4)

    # When: sent as UTF-8 (the body is well under its own 256 KiB limit)
    body = json.dumps(
        {"eventType": "order.created", "eventVersion": "1", "payload": emoji}, ensure_ascii=False
    )
    response = raw_publish(tenant_a, room["id"], body)

    # Then
    error = assert_error(response, 413, "as stored", str(limits.MAX_PAYLOAD_BYTES))
    assert error["error"]["code"] == "payload_too_large"
    assert stored_messages(tenant_a, room["id"]) == []


def test_an_empty_destinations_list_is_refused_as_the_docs_say(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    body = {"eventType": "order.created", "eventVersion": "1", "payload": 1, "destinations": []}

    response = tenant_a.post(f"/rooms/{room['id']}/messages", body)

    assert_error(response, 422, "body.destinations", "at least 1")
    assert stored_messages(tenant_a, room["id"]) == []


def test_a_publish_racing_the_deletion_of_its_only_pull_queue_is_accepted_and_ends_cleared(
    tenant_a: ApiClient, empty_stack: LocalStack
) -> None:
    # Given: a PULL subscription whose queue is gone (deleted between routing and sending, as a
    # concurrent DELETE of the subscription does)
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"])
    queue_name = f"{empty_stack.output('PullQueuePrefix')}{subscription['id']}"
    empty_stack.sqs_client().delete_queue(QueueUrl=empty_stack.queue_url(queue_name))

    # When
    response = tenant_a.post(
        f"/rooms/{room['id']}/messages", {"eventType": "order.created", "eventVersion": "1", "payload": 1}
    )

    # Then: accepted (the message is stored), and its delivery ends cleared, not pending for ever
    assert response.status_code == 202, response.text
    message_id = response.json()["messageId"]

    def cleared() -> bool:
        status = tenant_a.get(f"/rooms/{room['id']}/messages/{message_id}").json()
        return bool(status["deliveries"][0]["status"] == "cleared")

    wait_until(cleared, "the delivery to the deleted queue to end cleared", timeout_seconds=30)


def test_the_publish_body_is_json_as_sent(tenant_a: ApiClient) -> None:
    """A sanity check of ``raw_publish``: the same body without the surrogate is published."""
    room = tenant_a.create_room()
    body = json.dumps({"eventType": "order.created", "eventVersion": "1", "payload": {"note": "ok"}})
    assert raw_publish(tenant_a, room["id"], body).status_code == 202


def test_a_replay_with_an_empty_body_replays_every_dead_letter_as_documented(tenant_a: ApiClient) -> None:
    # Given: a PULL message nacked into a dead letter (no redelivery allowed)
    room = tenant_a.create_room(deliveryAttempts=0)
    subscription = tenant_a.create_subscription(room["id"])
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    tenant_a.post(
        f"/rooms/{room['id']}/messages", {"eventType": "order.created", "eventVersion": "1", "payload": 1}
    ).json()
    (message,) = tenant_a.post(f"{path}/pull", {}).json()["messages"]
    assert tenant_a.post(f"{path}/nack", {"receipts": [message["receipt"]]}).status_code == 200

    # When: replay with {} (docs/limits.md: the same as no body)
    response = tenant_a.post(f"{path}/dead-letters/replay", {})

    # Then: a job replays every dead letter
    assert tenant_a.finished_job(response)["counts"]["replayed"] == 1
    assert tenant_a.get(f"{path}/dead-letters").json()["deadLetters"] == []
