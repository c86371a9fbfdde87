"""A pull while the subscription's queue holds SQS's most messages in flight (120,000) answers
429 ``too_many_in_flight`` naming what to do, not a 5xx (issue 24)."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from roomcast.pull.queues import QueueClient, TooManyInFlight

QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/roomcast-pull-sub"


@pytest.mark.parametrize("code", ["OverLimit", "AWS.SimpleQueueService.OverLimit"])
def test_a_receive_over_the_in_flight_limit_is_a_429_naming_what_to_do(code: str) -> None:
    # Given: SQS refuses the receive: too many messages in flight
    sqs = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(sqs) as stub:
        stub.add_client_error("receive_message", service_error_code=code, http_status_code=403)

        # When / Then
        with pytest.raises(TooManyInFlight) as refused:
            QueueClient(sqs).receive(QUEUE_URL, max_messages=10, wait_seconds=0, visibility_seconds=30)
    assert (refused.value.http_status, refused.value.code) == (429, "too_many_in_flight")
    assert "ack" in refused.value.message


def test_other_sqs_errors_are_not_taken_for_it() -> None:
    sqs = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(sqs) as stub:
        stub.add_client_error("receive_message", service_error_code="InternalError", http_status_code=500)
        with pytest.raises(ClientError, match="InternalError"):
            QueueClient(sqs).receive(QUEUE_URL, max_messages=10, wait_seconds=0, visibility_seconds=30)
