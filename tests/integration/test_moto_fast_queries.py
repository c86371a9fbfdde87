"""The local stack's DynamoDB queries (roomcast_dev.moto_fast_queries): a query on the table's key
reads its partition only, and answers as moto did (order, range conditions, limits, pages); index
queries are moto's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from roomcast_dev.local_aws import LOCAL_REGION
from roomcast_dev.moto_fast_queries import queries_read_their_partition


@pytest.fixture
def table(moto_endpoint: str) -> Iterator[tuple[Any, str]]:
    queries_read_their_partition()
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=moto_endpoint,
        region_name=LOCAL_REGION,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    name = f"queries-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "G", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "ByG",
                "KeySchema": [
                    {"AttributeName": "G", "KeyType": "HASH"},
                    {"AttributeName": "SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for partition in ("a", "b", "c"):
        for number in (3, 1, 2, 5, 4):
            item = {"PK": {"S": partition}, "SK": {"S": f"SEQ#{number}"}, "G": {"S": f"g{number % 2}"}}
            dynamodb.put_item(TableName=name, Item=item)
    yield dynamodb, name
    dynamodb.delete_table(TableName=name)


def _keys(answer: dict[str, Any]) -> list[str]:
    return [f"{i['PK']['S']}/{i['SK']['S']}" for i in answer["Items"]]


def test_a_query_reads_its_partition_in_order_with_conditions_limits_and_pages(
    table: tuple[Any, str],
) -> None:
    dynamodb, name = table
    asked: dict[str, Any] = {
        "TableName": name,
        "KeyConditionExpression": "PK = :pk AND SK > :after",
        "ExpressionAttributeValues": {":pk": {"S": "b"}, ":after": {"S": "SEQ#1"}},
        "ConsistentRead": True,
        "Limit": 2,
    }
    first = dynamodb.query(**asked)
    second = dynamodb.query(**asked, ExclusiveStartKey=first["LastEvaluatedKey"])
    backwards = dynamodb.query(**{**asked, "Limit": 10}, ScanIndexForward=False)
    missing = dynamodb.query(
        **{**asked, "ExpressionAttributeValues": {":pk": {"S": "z"}, ":after": {"S": "A"}}}
    )

    assert _keys(first) == ["b/SEQ#2", "b/SEQ#3"]
    assert _keys(second) == ["b/SEQ#4", "b/SEQ#5"]
    assert _keys(backwards) == ["b/SEQ#5", "b/SEQ#4", "b/SEQ#3", "b/SEQ#2"]
    assert missing["Items"] == []


def test_an_index_query_still_reads_across_partitions(table: tuple[Any, str]) -> None:
    dynamodb, name = table
    answer = dynamodb.query(
        TableName=name,
        IndexName="ByG",
        KeyConditionExpression="G = :g",
        ExpressionAttributeValues={":g": {"S": "g0"}},
    )
    assert sorted(_keys(answer)) == ["a/SEQ#2", "a/SEQ#4", "b/SEQ#2", "b/SEQ#4", "c/SEQ#2", "c/SEQ#4"]
