"""The local stack's DynamoDB (roomcast_dev.moto_atomic): a cancelled transaction changes nothing,
and the table's stream goes on where its readers are.

moto undoes a cancelled TransactWriteItems by putting back a copy of the table taken when the
transaction began; the copy had its own stream shard, so every shard iterator handed out before
(the local stack's stream poller holds one) read a shard nothing was written to any more: the
outbox stopped hearing of new messages after the first transaction whose condition failed (an
invocation retried after a crash is one), with no error anywhere.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.dynamodb.models import DynamoDBBackend

from roomcast_dev.local_aws import LOCAL_REGION
from roomcast_dev.moto_atomic import make_dynamodb_atomic


def _settings(endpoint: str) -> dict[str, Any]:
    return {
        "endpoint_url": endpoint,
        "region_name": LOCAL_REGION,
        "aws_access_key_id": "test",
        "aws_secret_access_key": "test",
    }


@pytest.fixture
def table(moto_endpoint: str) -> Iterator[tuple[Any, Any, str]]:
    make_dynamodb_atomic()
    dynamodb = boto3.client("dynamodb", **_settings(moto_endpoint))
    streams = boto3.client("dynamodbstreams", **_settings(moto_endpoint))
    name = f"atomic-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    yield dynamodb, streams, name
    dynamodb.delete_table(TableName=name)


def _iterator(dynamodb: Any, streams: Any, name: str) -> str:
    stream_arn = dynamodb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
    found = streams.get_shard_iterator(
        StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )
    return str(found["ShardIterator"])


def _read(streams: Any, iterator: str) -> tuple[list[str], str]:
    """The keys of the records from an iterator on, and the iterator after them."""
    answer = streams.get_records(ShardIterator=iterator, Limit=1000)
    keys = [record["dynamodb"]["Keys"]["pk"]["S"] for record in answer["Records"]]
    return keys, answer["NextShardIterator"]


def _put(pk: str, table_name: str, only_if_new: bool = True) -> dict[str, Any]:
    put: dict[str, Any] = {"TableName": table_name, "Item": {"pk": {"S": pk}}}
    if only_if_new:
        put["ConditionExpression"] = "attribute_not_exists(pk)"
    return {"Put": put}


def test_a_stream_reader_goes_on_after_a_cancelled_transaction(table: tuple[Any, Any, str]) -> None:
    dynamodb, streams, name = table
    iterator = _iterator(dynamodb, streams, name)
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "before"}})
    seen, iterator = _read(streams, iterator)
    assert seen == ["before"]

    # The first write of the transaction is applied before the second one's condition fails.
    with pytest.raises(ClientError) as cancelled:
        dynamodb.transact_write_items(TransactItems=[_put("partial", name), _put("before", name)])
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "after"}})
    dynamodb.transact_write_items(TransactItems=[_put("in-a-transaction", name)])

    seen, iterator = _read(streams, iterator)
    assert seen == ["after", "in-a-transaction"]  # nothing of the cancelled one, and all since
    assert "Item" not in dynamodb.get_item(TableName=name, Key={"pk": {"S": "partial"}})
    # A reader that starts now sees the same history.
    assert _read(streams, _iterator(dynamodb, streams, name))[0] == ["before", "after", "in-a-transaction"]


def test_a_stream_read_waits_for_a_running_transaction_and_never_sees_its_cancelled_writes(
    table: tuple[Any, Any, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a transaction held between its first write and the condition that cancels it
    dynamodb, streams, name = table
    iterator = _iterator(dynamodb, streams, name)
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "before"}})
    inside, go = threading.Event(), threading.Event()
    read_item = DynamoDBBackend.get_item

    def held(backend: DynamoDBBackend, table_name: str, keys: dict[str, Any], *args: Any) -> Any:
        if keys.get("pk", {}).get("S") == "before" and table_name == name:
            inside.set()
            go.wait(10)
        return read_item(backend, table_name, keys, *args)

    monkeypatch.setattr(DynamoDBBackend, "get_item", held)
    cancelled: list[str] = []

    def transaction() -> None:
        try:
            dynamodb.transact_write_items(TransactItems=[_put("partial", name), _put("before", name)])
        except ClientError as error:
            cancelled.append(error.response["Error"]["Code"])

    writer = threading.Thread(target=transaction)
    writer.start()
    assert inside.wait(10)

    # When: a reader reads the stream meanwhile
    seen: list[list[str]] = []
    reader = threading.Thread(target=lambda: seen.append(_read(streams, iterator)[0]))
    reader.start()
    reader.join(1.0)  # it would answer within this, were it not waiting for the transaction
    waited = reader.is_alive()
    go.set()
    writer.join(10)
    reader.join(10)

    # Then: it waited for the transaction to end, and read nothing of it
    assert cancelled == ["TransactionCanceledException"]
    assert waited
    assert seen == [["before"]]


def test_a_cancelled_transaction_puts_back_what_its_first_writes_changed(table: tuple[Any, Any, str]) -> None:
    dynamodb, _streams, name = table
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "kept"}, "n": {"N": "1"}})
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "taken"}})
    update = {
        "Update": {
            "TableName": name,
            "Key": {"pk": {"S": "kept"}},
            "UpdateExpression": "SET n = :two",
            "ExpressionAttributeValues": {":two": {"N": "2"}},
        }
    }
    delete = {"Delete": {"TableName": name, "Key": {"pk": {"S": "deleted"}}}}
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "deleted"}})

    # An update, a new item and a deletion are applied before the last put's condition fails.
    with pytest.raises(dynamodb.exceptions.TransactionCanceledException):
        dynamodb.transact_write_items(TransactItems=[update, _put("new", name), delete, _put("taken", name)])

    items = dynamodb.scan(TableName=name, ConsistentRead=True)["Items"]
    assert sorted((i["pk"]["S"], i.get("n", {}).get("N")) for i in items) == [
        ("deleted", None),
        ("kept", "1"),
        ("taken", None),
    ]
