"""The local stack's stream reads (roomcast_dev.moto_stream_reads): GetRecords answers the records
as moto's own serializer did — every attribute type of both images, the keys, the sequence
numbers and the creation time, read back by botocore — and the next iterator goes on from there."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from roomcast_dev.moto_stream_reads import stream_reads_as_their_json
from tests.integration.conftest import bare_client

EVERY_TYPE = {
    "PK": {"S": "p"},
    "SK": {"S": "s"},
    "text": {"S": 'déjà vu "quoted" \n'},
    "number": {"N": "-12.5"},
    "binary": {"B": b"\x00\xffbytes"},
    "flag": {"BOOL": True},
    "nothing": {"NULL": True},
    "map": {"M": {"inner": {"L": [{"N": "1"}, {"S": "two"}, {"M": {}}]}}},
    "texts": {"SS": ["a", "b"]},
    "numbers": {"NS": ["1", "2.5"]},
    "binaries": {"BS": [b"x", b"y"]},
}


def test_stream_records_read_back_as_they_were_written(moto_endpoint: str) -> None:
    stream_reads_as_their_json()
    dynamodb, streams = bare_client(moto_endpoint, "dynamodb"), bare_client(moto_endpoint, "dynamodbstreams")
    name = f"streams-{uuid.uuid4().hex[:8]}"
    created = dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    try:
        arn = created["TableDescription"]["LatestStreamArn"]
        # Given: an item of every attribute type inserted, changed and removed
        before = datetime.now(UTC) - timedelta(seconds=5)
        dynamodb.put_item(TableName=name, Item=EVERY_TYPE)
        dynamodb.put_item(TableName=name, Item={**EVERY_TYPE, "number": {"N": "7"}})
        dynamodb.delete_item(TableName=name, Key={"PK": {"S": "p"}, "SK": {"S": "s"}})
        (shard,) = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]

        # When: the stream is read two records at a time
        first = streams.get_records(ShardIterator=iterator, Limit=2)
        rest = streams.get_records(ShardIterator=first["NextShardIterator"], Limit=10)

        # Then: each record reads back as written, in order, and the iterator goes on
        records = [*first["Records"], *rest["Records"]]
        assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
        numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
        assert numbers == sorted(numbers)
        assert len(set(numbers)) == 3
        inserted, modified, removed = (r["dynamodb"] for r in records)
        assert inserted["NewImage"] == EVERY_TYPE
        assert "OldImage" not in inserted
        assert modified["OldImage"] == EVERY_TYPE
        assert modified["NewImage"] == {**EVERY_TYPE, "number": {"N": "7"}}
        assert removed["OldImage"]["number"] == {"N": "7"}
        assert "NewImage" not in removed
        for record in (inserted, modified, removed):
            assert record["Keys"] == {"PK": {"S": "p"}, "SK": {"S": "s"}}
            assert record["StreamViewType"] == "NEW_AND_OLD_IMAGES"
            assert isinstance(record["SizeBytes"], int)
            assert record["SizeBytes"] > 0
            created_at = record["ApproximateCreationDateTime"]
            assert isinstance(created_at, datetime)
            assert before <= created_at.astimezone(UTC) <= datetime.now(UTC) + timedelta(seconds=5)
        assert streams.get_records(ShardIterator=rest["NextShardIterator"])["Records"] == []
    finally:
        dynamodb.delete_table(TableName=name)
