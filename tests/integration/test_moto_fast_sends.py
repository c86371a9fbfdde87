"""The local stack's sends (roomcast_dev.moto_fast_sends): a send no longer scans the queue, and
what clients see of a queue is unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from moto.sqs.models import Queue

from roomcast_dev.moto_fast_sends import send_without_scanning_the_queue


@pytest.fixture
def sqs(moto_sqs: Any) -> Any:
    send_without_scanning_the_queue()
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
