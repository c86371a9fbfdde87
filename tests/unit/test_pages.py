"""Opaque pagination cursors over DynamoDB's LastEvaluatedKey."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roomcast.dal.pages import decode_cursor, encode_cursor
from roomcast.errors import InvalidRequest

PARTITION = "TENANT#t1"


def _raw_cursor(plain: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(plain).encode()).decode().rstrip("=")


def test_cursor_round_trips_to_the_exclusive_start_key() -> None:
    # Given
    last_key = {"PK": {"S": PARTITION}, "SK": {"S": "ROOM#room_1"}}

    # When
    cursor = encode_cursor(last_key)

    # Then
    assert cursor is not None
    assert decode_cursor(cursor, PARTITION) == last_key


def test_cursor_is_url_safe_and_unpadded() -> None:
    # Given
    last_key = {"PK": {"S": PARTITION}, "SK": {"S": "ROOM#??>>~~"}}

    # When
    cursor = encode_cursor(last_key)

    # Then
    assert cursor is not None
    assert not set(cursor) & set("+/=")


@pytest.mark.parametrize("last_key", [None, {}])
def test_no_last_key_means_no_cursor(last_key: dict[str, dict[str, str]] | None) -> None:
    # When / Then
    assert encode_cursor(last_key) is None


@pytest.mark.parametrize("cursor", [None, ""])
def test_no_cursor_means_start_from_the_beginning(cursor: str | None) -> None:
    # When / Then
    assert decode_cursor(cursor, PARTITION) is None


def test_cursor_of_another_partition_is_refused_with_400() -> None:
    # Given
    cursor = encode_cursor({"PK": {"S": "TENANT#other"}, "SK": {"S": "ROOM#room_1"}})

    # When
    with pytest.raises(InvalidRequest) as refused:
        decode_cursor(cursor, PARTITION)

    # Then
    assert refused.value.http_status == 400
    assert refused.value.code == "invalid_cursor"


@pytest.mark.parametrize(
    "cursor",
    [
        "not a cursor",
        "!!!!",
        "a",
        "abc=def",
        "\u00e9t\u00e9",
        _raw_cursor([PARTITION, "ROOM#1"]),
        _raw_cursor({"PK": PARTITION}),
        _raw_cursor({"PK": PARTITION, "SK": "ROOM#1", "extra": "x"}),
        _raw_cursor({"PK": PARTITION, "SK": 1}),
        _raw_cursor({"PK": 1, "SK": "ROOM#1"}),
        base64.urlsafe_b64encode(b"\xff\xfe\xfd").decode(),
    ],
)
def test_garbage_or_tampered_cursor_is_refused_with_400(cursor: str) -> None:
    # When
    with pytest.raises(InvalidRequest) as refused:
        decode_cursor(cursor, PARTITION)

    # Then
    assert refused.value.http_status == 400


@given(partition=st.text(min_size=1), sort_key=st.text())
def test_any_key_round_trips_through_a_cursor(partition: str, sort_key: str) -> None:
    # Given
    last_key = {"PK": {"S": partition}, "SK": {"S": sort_key}}

    # When
    cursor = encode_cursor(last_key)

    # Then
    assert cursor is not None
    assert decode_cursor(cursor, partition) == last_key


def _decode_or_refusal(cursor: str) -> dict[str, dict[str, str]] | InvalidRequest | None:
    try:
        return decode_cursor(cursor, PARTITION)
    except InvalidRequest as refused:
        return refused


@given(cursor=st.text(min_size=1))
def test_any_string_either_decodes_to_a_key_of_the_partition_or_is_refused(cursor: str) -> None:
    # When
    outcome = _decode_or_refusal(cursor)

    # Then
    if isinstance(outcome, InvalidRequest):
        assert outcome.http_status == 400
    else:
        assert outcome is not None
        assert outcome["PK"] == {"S": PARTITION}
