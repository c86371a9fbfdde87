"""The local stack's item construction (roomcast_dev.moto_fast_items): an item is measured once,
not once per attribute, and the same items are refused as by moto's own check."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from moto.dynamodb.models.dynamo_type import LimitedSizeDict

from roomcast_dev.local_aws import LOCAL_REGION
from roomcast_dev.moto_fast_items import build_items_in_one_pass


@pytest.fixture
def table(moto_endpoint: str) -> Any:
    build_items_in_one_pass()
    dynamodb = boto3.resource(
        "dynamodb",
        endpoint_url=moto_endpoint,
        region_name=LOCAL_REGION,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    created = dynamodb.create_table(
        TableName="fast-items",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    yield created
    created.delete()


def test_a_put_does_not_measure_the_item_once_per_attribute(
    table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    measured: list[str] = []
    original = LimitedSizeDict.__setitem__

    def counted(attributes: LimitedSizeDict, key: str, value: Any) -> None:
        measured.append(key)
        original(attributes, key, value)

    monkeypatch.setattr(LimitedSizeDict, "__setitem__", counted)
    item = {"PK": "a", **{f"field{n}": f"value {n}" for n in range(20)}, "nested": {"list": [1, 2, 3]}}

    table.put_item(Item=item)

    # (moto's own sets, and measures all it holds, once per attribute: 22 times here)
    assert measured == []
    assert table.get_item(Key={"PK": "a"})["Item"] == {**item, "nested": {"list": [1, 2, 3]}}


@pytest.mark.parametrize(("text_bytes", "refused"), [(404_000, False), (406_000, True)])
def test_the_item_size_limit_is_moto_s_own(table: Any, text_bytes: int, refused: bool) -> None:
    # Given: an item whose attributes together are just under or just over moto's 405,000 bytes,
    # each one well under it
    item = {"PK": "big", **{f"part{n}": "x" * (text_bytes // 4 - 5) for n in range(4)}}

    # When / Then
    if refused:
        with pytest.raises(table.meta.client.exceptions.ClientError, match="maximum allowed size"):
            table.put_item(Item=item)
        assert "Item" not in table.get_item(Key={"PK": "big"})
    else:
        table.put_item(Item=item)
        assert table.get_item(Key={"PK": "big"})["Item"]["part3"] == item["part3"]
