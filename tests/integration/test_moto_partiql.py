"""PartiQL INSERT batches on the local stack's emulator (roomcast_dev.moto_partiql) as DynamoDB runs
them: each statement on its own, a put under the condition that its key is new, its parameters as
the item's values; moto's own stores the text ``?`` and overwrites."""

from __future__ import annotations

from typing import Any

import pytest

from roomcast_dev.moto_partiql import parameterised_insert
from tests.integration.conftest import bare_client

TABLE = "partiql-inserts"


@pytest.fixture
def dynamodb(moto_endpoint: str) -> Any:
    client = bare_client(moto_endpoint, "dynamodb")
    if TABLE in client.list_tables()["TableNames"]:
        client.delete_table(TableName=TABLE)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    return client


def _insert(item: dict[str, Any], table: str = TABLE) -> dict[str, Any]:
    names = ", ".join(f"'{name}': ?" for name in item)
    return {"Statement": f'INSERT INTO "{table}" VALUE {{{names}}}', "Parameters": list(item.values())}


def _item(sort: str, **more: Any) -> dict[str, Any]:
    return {"PK": {"S": "M#1"}, "SK": {"S": sort}, **more}


def test_each_statement_puts_its_item_unless_the_key_exists(dynamodb: Any) -> None:
    # Given: one of three keys has an item
    dynamodb.put_item(TableName=TABLE, Item=_item("b", status={"S": "dead"}))

    # When: a batch inserts all three, with values of several types
    nested = {"M": {"history": {"L": [{"M": {"n": {"N": "0"}}}]}, "flag": {"BOOL": True}}}
    responses = dynamodb.batch_execute_statement(
        Statements=[
            _insert(_item("a", status={"S": "delivered"}, record=nested)),
            _insert(_item("b", status={"S": "delivered"})),
            _insert(_item("c", status={"S": "delivered"}, gone={"NULL": True})),
        ]
    )["Responses"]

    # Then: the existing item's statement alone fails, DuplicateItem, and that item is unchanged;
    # the others are stored with their parameters' values
    assert ["Error" in response for response in responses] == [False, True, False]
    assert responses[1]["Error"]["Code"] == "DuplicateItem"
    stored = {
        item["SK"]["S"]: item
        for item in dynamodb.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "M#1"}},
        )["Items"]
    }
    assert stored["a"] == _item("a", status={"S": "delivered"}, record=nested)
    assert stored["b"]["status"] == {"S": "dead"}
    assert stored["c"] == _item("c", status={"S": "delivered"}, gone={"NULL": True})


def test_a_statement_that_cannot_run_fails_alone(dynamodb: Any) -> None:
    key_only = [{"S": "M#1"}]
    no_sort_key = {"Statement": f"INSERT INTO \"{TABLE}\" VALUE {{'PK': ?}}", "Parameters": key_only}
    too_few = {"Statement": f"INSERT INTO \"{TABLE}\" VALUE {{'PK': ?, 'SK': ?}}", "Parameters": key_only}
    responses = dynamodb.batch_execute_statement(
        Statements=[_insert(_item("x"), table="no-such-table"), no_sort_key, too_few, _insert(_item("ok"))]
    )["Responses"]

    assert [response.get("Error", {}).get("Code") for response in responses] == [
        "ResourceNotFound",
        "ValidationError",
        "ValidationError",
        None,
    ]
    assert "Item" in dynamodb.get_item(TableName=TABLE, Key={"PK": {"S": "M#1"}, "SK": {"S": "ok"}})
    assert "Item" not in dynamodb.get_item(TableName=TABLE, Key={"PK": {"S": "M#1"}, "SK": {"S": "x"}})


def test_only_the_parameterised_insert_is_recognised() -> None:
    quoted = "INSERT INTO \"t-1\" VALUE {'PK': ?, 'it''s': ?}"
    assert parameterised_insert(quoted) == ("t-1", ["PK", "it's"])
    assert parameterised_insert('insert into "a""b" value { \'PK\' : ? }') == ('a"b', ["PK"])
    for other in (
        "INSERT INTO \"t\" VALUE {'PK': 'literal'}",
        "INSERT INTO t VALUE {'PK': ?}",
        'UPDATE "t" SET a = ? WHERE PK = ?',
        'SELECT * FROM "t"',
        "INSERT INTO \"t\" VALUE {'PK': ?} extra",
    ):
        assert parameterised_insert(other) is None, other
