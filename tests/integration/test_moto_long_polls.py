"""The local stack's long polls (roomcast_dev.moto_long_polls): one receive per message, and a
poll on a queue that is deleted or reset ends at once instead of waiting out its 20 s."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.request import Request, urlopen

import pytest
from botocore.exceptions import ClientError

from roomcast_dev.moto_long_polls import end_long_polls_with_their_queue


@pytest.fixture
def sqs(moto_sqs: Any) -> Any:
    end_long_polls_with_their_queue()
    return moto_sqs


def _long_poll(sqs: Any, queue_url: str, wait_seconds: int = 20) -> tuple[str, float]:
    started = time.monotonic()
    try:
        messages = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=wait_seconds).get("Messages", [])
    except ClientError as error:
        return error.response["Error"]["Code"], time.monotonic() - started
    return ",".join(m["Body"] for m in messages), time.monotonic() - started


def test_waiting_long_polls_each_get_a_different_message(sqs: Any) -> None:
    queue_url = sqs.create_queue(QueueName="long-polls-once")["QueueUrl"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        polls = [pool.submit(_long_poll, sqs, queue_url, 3) for _ in range(4)]
        time.sleep(0.3)  # let the four polls start waiting
        sent = [f"m{number}" for number in range(6)]
        sqs.send_message_batch(
            QueueUrl=queue_url, Entries=[{"Id": str(i), "MessageBody": body} for i, body in enumerate(sent)]
        )
        bodies = [poll.result()[0] for poll in polls]

    received = [body for got in bodies for body in got.split(",") if body]
    assert len(received) == len(set(received))  # nothing handed to two receives
    assert set(received) <= set(sent)


def test_a_poll_on_a_deleted_queue_ends_at_once(sqs: Any) -> None:
    queue_url = sqs.create_queue(QueueName="long-polls-deleted")["QueueUrl"]
    with ThreadPoolExecutor(max_workers=1) as pool:
        poll = pool.submit(_long_poll, sqs, queue_url)
        time.sleep(0.3)
        sqs.delete_queue(QueueUrl=queue_url)
        code, seconds = poll.result()

    assert code == "AWS.SimpleQueueService.NonExistentQueue"
    assert seconds < 5


def test_a_poll_ends_when_the_emulator_is_reset(sqs: Any, moto_endpoint: str) -> None:
    queue_url = sqs.create_queue(QueueName="long-polls-reset")["QueueUrl"]
    with ThreadPoolExecutor(max_workers=1) as pool:
        poll = pool.submit(_long_poll, sqs, queue_url)
        time.sleep(0.3)
        with urlopen(Request(f"{moto_endpoint}/moto-api/reset", method="POST"), timeout=30):  # noqa: S310
            pass
        code, seconds = poll.result()

    assert code == "AWS.SimpleQueueService.NonExistentQueue"
    assert seconds < 5


def test_a_poll_hands_out_with_the_queue_visibility_timeout_of_when_it_answers(sqs: Any) -> None:
    # Given: a long poll waiting while the queue's visibility timeout drops from 30 s to 1 s
    queue_url = sqs.create_queue(QueueName="long-polls-visibility", Attributes={"VisibilityTimeout": "30"})[
        "QueueUrl"
    ]
    with ThreadPoolExecutor(max_workers=1) as pool:
        poll = pool.submit(_long_poll, sqs, queue_url, 5)
        time.sleep(0.3)
        sqs.set_queue_attributes(QueueUrl=queue_url, Attributes={"VisibilityTimeout": "1"})
        sqs.send_message(QueueUrl=queue_url, MessageBody="m")
        assert poll.result()[0] == "m"

    # Then: not acknowledged, the message is back after 1 s, not 30
    again, _ = _long_poll(sqs, queue_url, 3)
    assert again == "m"
