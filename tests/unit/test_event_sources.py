"""Lambda's SQS event source, locally: record shape and partial batch failure reports."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import pytest

from roomcast_dev.event_sources import failed_message_ids, sqs_record

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

BATCH = {"m1", "m2", "m3"}
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:roomcast-test-push"


@pytest.mark.parametrize(
    "result",
    [None, {}, {"batchItemFailures": []}, {"batchItemFailures": None}],
    ids=["null", "empty-response", "empty-list", "null-list"],
)
def test_response_reporting_no_failures_keeps_nothing(result: Any) -> None:
    # When / Then
    assert failed_message_ids(result, BATCH) == set()


def test_reported_failures_are_the_messages_kept() -> None:
    # Given
    result = {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "m3"}]}

    # When / Then
    assert failed_message_ids(result, BATCH) == {"m1", "m3"}


def test_a_failure_reported_twice_is_kept_once() -> None:
    # Given
    result = {"batchItemFailures": [{"itemIdentifier": "m2"}, {"itemIdentifier": "m2"}]}

    # When / Then
    assert failed_message_ids(result, BATCH) == {"m2"}


@pytest.mark.parametrize(
    "result",
    [
        {"batchItemFailures": [{"itemIdentifier": "not-in-batch"}]},
        {"batchItemFailures": [{"itemIdentifier": "m1"}, {"itemIdentifier": "other"}]},
        {"batchItemFailures": [{"itemIdentifier": ""}]},
        {"batchItemFailures": [{"itemIdentifier": None}]},
        {"batchItemFailures": [{"itemidentifier": "m1"}]},
        {"batchItemFailures": [{}]},
        {"batchItemFailures": ["m1"]},
        {"batchItemFailures": "m1"},
        {"batchItemFailures": {"itemIdentifier": "m1"}},
        "ok",
        ["m1"],
        42,
    ],
    ids=[
        "unknown-id",
        "one-unknown-id",
        "empty-id",
        "null-id",
        "misspelt-key",
        "empty-entry",
        "bare-string-entry",
        "string-instead-of-list",
        "object-instead-of-list",
        "string-response",
        "list-response",
        "number-response",
    ],
)
def test_malformed_failure_report_fails_the_whole_batch(result: Any) -> None:
    # When / Then
    assert failed_message_ids(result, BATCH) is None


@pytest.mark.parametrize("identifier", [["m1"], {"id": "m1"}], ids=["list-id", "object-id"])
def test_non_string_item_identifier_fails_the_whole_batch(identifier: Any) -> None:
    # Given
    result = {"batchItemFailures": [{"itemIdentifier": identifier}]}

    # When / Then
    assert failed_message_ids(result, BATCH) is None


def _message(**overrides: Any) -> MessageTypeDef:
    message: dict[str, Any] = {
        "MessageId": "m1",
        "ReceiptHandle": "receipt-1",
        "Body": '{"hello":"world"}',
        "MD5OfBody": "given-md5",
        "Attributes": {"ApproximateReceiveCount": "2", "SentTimestamp": "1700000000000"},
        "MessageAttributes": {
            "attempt": {"StringValue": "3", "DataType": "Number"},
            "kind": {"StringValue": "retry", "DataType": "String"},
        },
        **overrides,
    }
    return message  # type: ignore[return-value]


def test_sqs_record_has_the_shape_lambda_delivers() -> None:
    # When
    record = sqs_record(_message(), QUEUE_ARN, "us-east-1")

    # Then
    assert record == {
        "messageId": "m1",
        "receiptHandle": "receipt-1",
        "body": '{"hello":"world"}',
        "attributes": {"ApproximateReceiveCount": "2", "SentTimestamp": "1700000000000"},
        "messageAttributes": {
            "attempt": {
                "stringValue": "3",
                "binaryValue": None,
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": "Number",
            },
            "kind": {
                "stringValue": "retry",
                "binaryValue": None,
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": "String",
            },
        },
        "md5OfBody": "given-md5",
        "eventSource": "aws:sqs",
        "eventSourceARN": QUEUE_ARN,
        "awsRegion": "us-east-1",
    }


def test_sqs_record_computes_the_body_md5_when_sqs_gave_none() -> None:
    # Given
    message = _message(Body="payload")
    del message["MD5OfBody"]

    # When
    record = sqs_record(message, QUEUE_ARN, "us-east-1")

    # Then
    assert record["md5OfBody"] == hashlib.md5(b"payload", usedforsecurity=False).hexdigest()


def test_sqs_record_of_a_bare_message_has_empty_attributes() -> None:
    # Given
    message: Any = {"MessageId": "m9", "ReceiptHandle": "r9", "Body": "x"}

    # When
    record = sqs_record(message, QUEUE_ARN, "eu-west-1")

    # Then
    assert record["attributes"] == {}
    assert record["messageAttributes"] == {}
    assert record["awsRegion"] == "eu-west-1"
