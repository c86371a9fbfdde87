"""Ordering keys end to end over HTTP against the local stack (its stream poller feeds the outbox):
two consumers of an ordered PULL subscription never hold two messages of one key at once, and
get each key's messages in publish order; other keys and unkeyed messages are handed out at once
(docs/decisions/0041-ordering-keys.md)."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ApiClient, wait_until


def _publish(client: ApiClient, room_id: str, n: int, key: str | None) -> str:
    body: dict[str, Any] = {"eventType": "e", "eventVersion": "1", "payload": {"n": n}}
    if key is not None:
        body["orderingKey"] = key
    response = client.post(f"/rooms/{room_id}/messages", body)
    assert response.status_code == 202, response.text
    return str(response.json()["messageId"])


def test_two_pull_consumers_get_each_keys_messages_one_at_a_time_in_publish_order(
    tenant_a: ApiClient,
) -> None:
    # Given: an ordered PULL subscription, and messages of keys a and b and one without a key
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PULL", ordered=True)
    base = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    a = [_publish(tenant_a, room["id"], n, "a") for n in range(3)]
    b = [_publish(tenant_a, room["id"], n, "b") for n in range(2)]
    loose = _publish(tenant_a, room["id"], 9, None)

    def pull() -> list[dict[str, Any]]:
        response = tenant_a.post(f"{base}/pull", {"maxMessages": 10, "waitSeconds": 1})
        assert response.status_code == 200, response.text
        return list(response.json()["messages"])

    # When two consumers pull, each acking what it got, until every message was handed out
    handed: list[list[str]] = []  # each round's messages (both consumers)
    acked: list[str] = []
    while len(acked) < 6:
        got = wait_until(lambda: pull() + pull(), "the next messages", timeout_seconds=20)
        ids = [m["messageId"] for m in got]
        handed.append(ids)
        # Then: never two messages of a key at once, and never a key's message before the earlier ones
        assert sum(m in a for m in ids) <= 1, handed
        assert sum(m in b for m in ids) <= 1, handed
        for message_id in ids:
            key = a if message_id in a else b if message_id in b else None
            if key is not None:
                assert key[: key.index(message_id)] == [m for m in acked if m in key], handed
        receipts = [m["receipt"] for m in got]
        acks = tenant_a.post(f"{base}/ack", {"receipts": receipts})
        assert acks.status_code == 200, acks.text
        acked += ids

    # and each key's messages came in publish order; the unkeyed one in the first round
    assert [m for m in acked if m in a] == a
    assert [m for m in acked if m in b] == b
    assert loose in handed[0]
    assert tenant_a.get(f"{base}/ordering-keys?status=paused").json() == {"orderingKeys": []}
