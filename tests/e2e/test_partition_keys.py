"""No DynamoDB partition is shared by tenants (issue 24): two tenants use every kind of request —
rooms, PUSH and PULL subscriptions, keyed and batch publishes, pulls and acks, deliveries, dead
letters, API keys — and every partition the suite has written so far belongs to one tenant. (The
session fixture checks the same over the whole suite when it ends: tests/e2e/conftest.py.)"""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ApiClient
from tests.e2e.partition_keys import PartitionRecorder, owner, partitions_of, roomcast_table, shared
from tests.e2e.test_publish_and_pull import pull
from tests.e2e.test_publish_batch import publish_batch


def _use_everything(client: ApiClient) -> None:
    room = client.create_room(deliveryDelayMs=1000, deliveryAttempts=1)
    pulled = client.create_subscription(room["id"], type="PULL")
    client.create_subscription(room["id"], type="PUSH", pushUrl="http://127.0.0.1:9/hook")
    keyed = client.post(
        f"/rooms/{room['id']}/messages",
        {"eventType": "order.created", "eventVersion": "1", "payload": {}},
        headers={"Idempotency-Key": "order-1"},
    )
    assert keyed.status_code == 202, keyed.text
    batch = [{"eventType": "order.created", "eventVersion": "1", "payload": {"n": n}} for n in range(3)]
    assert publish_batch(client, room["id"], batch)["failedCount"] == 0
    messages = pull(client, room["id"], pulled["id"], maxMessages=10)
    receipts = [m["receipt"] for m in messages]
    ack = client.post(f"/rooms/{room['id']}/subscriptions/{pulled['id']}/ack", {"receipts": receipts})
    assert ack.status_code == 200, ack.text
    assert client.get(f"/rooms/{room['id']}/messages").status_code == 200
    assert client.post("/api-keys", {"name": "second"}).status_code == 201


def test_every_partition_written_belongs_to_one_tenant(
    tenant_a: ApiClient, tenant_b: ApiClient, written_partitions: PartitionRecorder
) -> None:
    # When
    _use_everything(tenant_a)
    _use_everything(tenant_b)

    # Then
    owners = {owner(p) for p in written_partitions.partitions}
    assert {"tenant-a", "tenant-b"} <= owners
    assert shared(written_partitions.partitions) == []


def test_the_recorder_reads_the_keys_of_every_kind_of_write() -> None:
    def key(pk: str) -> dict[str, Any]:
        return {"PK": {"S": pk}, "SK": {"S": "X"}}

    batch = {
        "RequestItems": {
            "t": [{"PutRequest": {"Item": key("TENANT#a")}}, {"DeleteRequest": {"Key": key("B")}}]
        }
    }
    transaction = {
        "TransactItems": [
            {"Update": {"Key": key("TENANT#c#MSG#1")}},
            {"Put": {"Item": {**key("D"), "GSI1PK": {"S": "TENANT#d#ROOM#r#MSGS"}}}},
        ]
    }

    assert set(partitions_of(batch)) == {"TENANT#a", "B"}
    assert set(partitions_of(transaction)) == {"TENANT#c#MSG#1", "D", "TENANT#d#ROOM#r#MSGS"}
    assert shared({"TENANT#a", "APIKEY#abc", "IDEMPOTENCY#publish"}) == ["IDEMPOTENCY#publish"]
    assert roomcast_table({"TableName": "roomcast-local-Table", "Key": key("B")})
    assert roomcast_table({"RequestItems": {"roomcast-test-Table": [{"PutRequest": {"Item": key("E")}}]}})
    assert not roomcast_table({"TableName": "esm-test-Seen", "Item": key("batch")})
