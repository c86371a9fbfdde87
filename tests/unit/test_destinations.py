"""AWS destinations' rules (roomcast.destinations.model) and the sender's answers
(roomcast.destinations.send) against a scripted client: pure logic, no emulator."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from roomcast.destinations.model import (
    Destination,
    DestinationKind,
    destination_problems,
    partition_of_region,
)
from roomcast.destinations.roles import AssumedRoles
from roomcast.destinations.send import DestinationMessage, DestinationSender

ROLE = "arn:aws:iam::111122223333:role/roomcast-delivery"


def _sqs(arn: str = "arn:aws:sqs:eu-west-1:111122223333:orders", **changes: Any) -> Destination:
    return Destination(
        **{"kind": DestinationKind.SQS, "arn": arn, "role_arn": ROLE, "external_id": "ext-1", **changes}
    )


def test_a_good_destination_has_no_problems_and_knows_its_queue_url() -> None:
    destination = _sqs()
    assert destination_problems(destination, "aws", ordered=False) == {}
    assert destination.queue_url == "https://sqs.eu-west-1.amazonaws.com/111122223333/orders"
    assert not destination.fifo


@pytest.mark.parametrize(
    ("destination", "ordered", "field", "words"),
    [
        (_sqs("arn:aws-cn:sqs:cn-north-1:111122223333:orders"), False, "arn", "partition aws-cn"),
        (_sqs("arn:aws:sns:eu-west-1:111122223333:orders"), False, "arn", "is an sns ARN"),
        (_sqs("not an arn"), False, "arn", "is not an ARN"),
        (_sqs("arn:aws:sqs:eu-west-1:111122223333:orders"), True, "arn", "FIFO"),
        (_sqs(role_arn="arn:aws:iam::111122223333:user/me"), False, "roleArn", "is not an IAM role ARN"),
        (_sqs(external_id="x"), False, "externalId", "2 to 1224"),
        (
            Destination(
                DestinationKind.EVENTBRIDGE, "arn:aws:events:eu-west-1:111122223333:rule/r", ROLE, "ext-1"
            ),
            False,
            "arn",
            "is not an event bus",
        ),
    ],
)
def test_a_bad_destination_names_what_is_wrong(
    destination: Destination, ordered: bool, field: str, words: str
) -> None:
    problems = destination_problems(destination, "aws", ordered)
    assert list(problems) == [field]
    assert words in problems[field]


def test_an_ordered_subscription_may_deliver_to_a_fifo_queue() -> None:
    fifo = _sqs("arn:aws:sqs:eu-west-1:111122223333:orders.fifo")
    assert fifo.fifo
    assert destination_problems(fifo, "aws", ordered=True) == {}


@pytest.mark.parametrize(
    ("region", "partition"), [("eu-west-1", "aws"), ("cn-north-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov")]
)
def test_a_region_is_in_its_partition(region: str, partition: str) -> None:
    assert partition_of_region(region) == partition


class _Sts:
    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.assumed: list[dict[str, Any]] = []

    def assume_role(self, **asked: Any) -> dict[str, Any]:
        self.assumed.append(asked)
        if self.refuse:
            raise ClientError({"Error": {"Code": "AccessDenied", "Message": "not trusted"}}, "AssumeRole")
        expires = datetime.now(UTC) + timedelta(hours=1)
        return {
            "Credentials": {
                "AccessKeyId": "k",
                "SecretAccessKey": "s",
                "SessionToken": "t",
                "Expiration": expires,
            }
        }


def test_credentials_are_assumed_once_with_the_external_id_until_they_near_expiry() -> None:
    sts = _Sts()
    now = [datetime.now(UTC).timestamp()]
    roles = AssumedRoles(lambda: sts, clock=lambda: now[0])
    first = roles.client(ROLE, "ext-1", "sqs", "eu-west-1")
    assert roles.client(ROLE, "ext-1", "sqs", "eu-west-1") is first
    assert [a["ExternalId"] for a in sts.assumed] == ["ext-1"]
    now[0] += 3600 - 200  # within five minutes of the expiry
    roles.client(ROLE, "ext-1", "sqs", "eu-west-1")
    assert len(sts.assumed) == 2


def test_a_role_that_will_not_be_assumed_is_a_failed_send_with_awss_code() -> None:
    sender = DestinationSender(AssumedRoles(lambda: _Sts(refuse=True)))
    result = sender.send(_sqs(), DestinationMessage("msg_1", "order.created", "{}"))
    assert (result.sent, result.error_code) == (False, "AccessDenied")
    assert result.error is not None
    assert result.error.startswith(f"assuming {ROLE}: AccessDenied")
