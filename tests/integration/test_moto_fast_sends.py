"""The local stack's sends and receives (roomcast_dev.moto_fast_sends): a send no longer scans the
queue, a receive scans it once rather than nine times per message it hands out, and what clients
see of a queue is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from moto.sqs.models import Queue

from roomcast_dev.moto_fast_sends import sqs_calls_without_scanning_the_queue


@pytest.fixture
def sqs(moto_sqs: Any) -> Any:
    sqs_calls_without_scanning_the_queue()
    return moto_sqs


def test_a_send_does_not_read_the_queues_messages(sqs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    queue_url = sqs.create_queue(QueueName="fast-sends")["QueueUrl"]
    entries = [{"Id": str(number), "MessageBody": f"m{number}"} for number in range(10)]
    sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
    scans = []
    listed = Queue.messages

    def counted(queue: Queue) -> Any:
        scans.append(queue.name)
        return listed.fget(queue)  # type: ignore[attr-defined]

    monkeypatch.setattr(Queue, "messages", property(counted))
    sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
    sqs.send_message(QueueUrl=queue_url, MessageBody="one more")

    assert scans == []
    # Everywhere else the attributes are moto's own, computed from the messages.
    counts = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessages"] == "21"
    assert scans


def _counting_scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scans: list[str] = []
    listed = Queue.messages

    def counted(queue: Queue) -> Any:
        scans.append(queue.name)
        return listed.fget(queue)  # type: ignore[attr-defined]

    monkeypatch.setattr(Queue, "messages", property(counted))
    return scans


def test_a_receive_reads_the_queues_messages_once_not_per_message_handed_out(
    sqs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    queue_url = sqs.create_queue(QueueName="fast-receives")["QueueUrl"]
    entries = [{"Id": str(number), "MessageBody": f"m{number}"} for number in range(10)]
    for _ in range(3):
        sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
    scans = _counting_scans(monkeypatch)

    received = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]

    # (moto's own reads this list 31 times here: once, then once per attribute read, three a message)
    assert len(received) == 10
    assert len(scans) == 1
    counts = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert (counts["ApproximateNumberOfMessages"], counts["ApproximateNumberOfMessagesNotVisible"]) == (
        "20",
        "10",
    )


def test_a_message_past_the_queues_retention_is_still_not_handed_out(sqs: Any) -> None:
    with time_machine.travel(datetime(2026, 11, 26, 12, 0, tzinfo=UTC), tick=False) as clock:
        queue_url = sqs.create_queue(
            QueueName="fast-receives-retained", Attributes={"MessageRetentionPeriod": "60"}
        )["QueueUrl"]
        sqs.send_message(QueueUrl=queue_url, MessageBody="old")
        clock.shift(timedelta(seconds=61))

        assert sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []) == []
        sqs.send_message(QueueUrl=queue_url, MessageBody="new")
        [message] = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
        assert message["Body"] == "new"


def test_content_based_deduplication_still_applies(sqs: Any) -> None:
    queue_url = sqs.create_queue(
        QueueName="fast-sends.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")
    sqs.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")

    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "1"
    assert attributes["ContentBasedDeduplication"] == "true"


def test_a_fifo_queue_without_it_needs_a_deduplication_id(sqs: Any) -> None:
    queue_url = sqs.create_queue(QueueName="fast-sends-plain.fifo", Attributes={"FifoQueue": "true"})[
        "QueueUrl"
    ]

    with pytest.raises(sqs.exceptions.ClientError, match=r"ContentBasedDeduplication|deduplication"):
        sqs.send_message(QueueUrl=queue_url, MessageBody="no id", MessageGroupId="g")
