"""The outbox's stream records side by side (outbox_worker.side_by_side): one lane per ordering key,
in order within it; a failure sends back its record and the later ones of its key only."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from outbox_worker.side_by_side import STEP_THREADS, lane_of, process_side_by_side


def _message(sequence: int, key: str | None, tenant: str = "t1") -> dict[str, Any]:
    image: dict[str, Any] = {"tenantId": {"S": tenant}, "SK": {"S": "MSG"}}
    if key is not None:
        image["orderingKey"] = {"S": key}
    return {"eventName": "INSERT", "dynamodb": {"SequenceNumber": str(sequence), "NewImage": image}}


def _ended(sequence: int, key: str, tenant: str = "t1") -> dict[str, Any]:
    image = {"tenantId": {"S": tenant}, "SK": {"S": "DLV#sub_1"}, "ordering": {"M": {"key": {"S": key}}}}
    return {"eventName": "MODIFY", "dynamodb": {"SequenceNumber": str(sequence), "NewImage": image}}


def _sequence(record: DynamoDBRecord) -> int:
    return int(record.raw_event["dynamodb"]["SequenceNumber"])


def test_a_message_and_a_delivery_of_one_key_share_a_lane_and_other_records_have_their_own() -> None:
    assert lane_of(_message(1, "a")) == lane_of(_ended(2, "a"))
    assert lane_of(_message(1, "a")) != lane_of(_message(2, "b"))
    assert lane_of(_message(1, "a")) != lane_of(_message(2, "a", tenant="t2"))
    assert lane_of(_message(1, None)) != lane_of(_message(2, None))


def test_keys_run_at_once_and_each_key_in_its_order() -> None:
    # Given: two records of each of STEP_THREADS keys; every first record waits until all keys'
    # first records have started (one after another, this would never finish)
    records = [_message(n, f"k{n % STEP_THREADS}") for n in range(2 * STEP_THREADS)]
    started = threading.Barrier(STEP_THREADS, timeout=10)
    seen: list[int] = []

    def handle(record: DynamoDBRecord) -> None:
        if _sequence(record) < STEP_THREADS:
            started.wait()
        seen.append(_sequence(record))

    # When
    answer = process_side_by_side(records, handle)

    # Then: everything handled, and each key's records in the shard's order
    assert answer == {"batchItemFailures": []}
    assert sorted(seen) == list(range(2 * STEP_THREADS))
    for key in range(STEP_THREADS):
        mine = [n for n in seen if n % STEP_THREADS == key]
        assert mine == sorted(mine)


def test_a_failure_sends_back_its_record_and_the_later_ones_of_its_key_only() -> None:
    records = [_message(1, "a"), _message(2, "b"), _message(3, "a"), _message(4, None), _ended(5, "a")]
    handled: list[int] = []

    def handle(record: DynamoDBRecord) -> None:
        if _sequence(record) == 3:
            raise RuntimeError("the key's step failed")
        handled.append(_sequence(record))

    answer = process_side_by_side(records, handle)

    assert answer == {"batchItemFailures": [{"itemIdentifier": "3"}, {"itemIdentifier": "5"}]}
    assert sorted(handled) == [1, 2, 4]


def test_a_batch_that_failed_whole_fails_the_invocation() -> None:
    def fail(record: DynamoDBRecord) -> None:
        raise RuntimeError("down")

    with pytest.raises(BatchProcessingError, match="all 2"):
        process_side_by_side([_message(1, "a"), _message(2, "b")], fail)
