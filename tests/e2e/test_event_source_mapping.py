"""The local stack runs SQS-triggered functions as Lambda's event source mapping does."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from roomcast_dev.stack import LocalStack
from tests.support import PROJECT_ROOT

FIXTURE_TEMPLATE = PROJECT_ROOT / "tests" / "fixtures" / "sqs_stack" / "template.yaml"


@pytest.fixture(scope="module")
def sqs_stack() -> Iterator[LocalStack]:
    stack = LocalStack(template_path=FIXTURE_TEMPLATE, stack_name="esm-test")
    stack.start()
    # Both pollers' workers warm: a cold start (seconds on a busy machine) would outlast the
    # queue's 2 s visibility timeout and hand the batch out twice, which is not what is tested.
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda _: stack.invoke("RecorderFunction", {"Records": []}), range(2)))
    yield stack
    stack.stop()


def _batches(stack: LocalStack) -> list[dict[str, Any]]:
    table = stack.model.tables["Seen"]["TableName"] if stack.model else ""
    items = stack.client("dynamodb").query(
        TableName=table, KeyConditionExpression="PK = :pk", ExpressionAttributeValues={":pk": {"S": "batch"}}
    )["Items"]
    return [
        {"bodies": json.loads(i["bodies"]["S"]), "receiveCounts": json.loads(i["receiveCounts"]["S"])}
        for i in items
    ]


def _wait_for(condition: Any, timeout_seconds: float) -> None:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def _queue_url(stack: LocalStack) -> str:
    assert stack.model is not None
    return stack.queue_url(stack.model.queues["Work"]["QueueName"])


def _queue_is_empty(stack: LocalStack) -> bool:
    attributes: dict[str, str] = stack.client("sqs").get_queue_attributes(
        QueueUrl=_queue_url(stack),
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return (
        attributes["ApproximateNumberOfMessages"] == "0"
        and attributes["ApproximateNumberOfMessagesNotVisible"] == "0"
    )


def test_messages_arrive_in_batches_of_at_most_batch_size_and_are_deleted(sqs_stack: LocalStack) -> None:
    # Given
    sqs_stack.reset()
    sqs = sqs_stack.client("sqs")
    bodies = [f"message-{n}" for n in range(12)]
    for start in range(0, 12, 6):
        sqs.send_message_batch(
            QueueUrl=_queue_url(sqs_stack),
            Entries=[{"Id": str(i), "MessageBody": b} for i, b in enumerate(bodies[start : start + 6])],
        )

    # When
    _wait_for(lambda: sum(len(b["bodies"]) for b in _batches(sqs_stack)) >= 12, timeout_seconds=20)

    # Then: every message once, no batch over BatchSize (5), and nothing left on the queue
    batches = _batches(sqs_stack)
    assert sorted(body for batch in batches for body in batch["bodies"]) == sorted(bodies)
    assert max(len(batch["bodies"]) for batch in batches) <= 5
    _wait_for(lambda: _queue_is_empty(sqs_stack), timeout_seconds=5)


def test_reported_failures_come_back_after_the_visibility_timeout_and_only_they(
    sqs_stack: LocalStack,
) -> None:
    # Given
    sqs_stack.reset()
    sqs = sqs_stack.client("sqs")
    sent_at = time.monotonic()
    sqs.send_message_batch(
        QueueUrl=_queue_url(sqs_stack),
        Entries=[{"Id": "0", "MessageBody": "ok"}, {"Id": "1", "MessageBody": "fail-once"}],
    )

    # When
    _wait_for(
        lambda: sum(b["bodies"].count("fail-once") for b in _batches(sqs_stack)) >= 2, timeout_seconds=20
    )
    redelivered_after = time.monotonic() - sent_at

    # Then: the failed message came back once, with receive count 2, after the 2 s visibility timeout
    deliveries = [
        (body, count)
        for batch in _batches(sqs_stack)
        for body, count in zip(batch["bodies"], batch["receiveCounts"], strict=True)
    ]
    assert sorted(deliveries) == [("fail-once", "1"), ("fail-once", "2"), ("ok", "1")]
    assert redelivered_after >= 2.0
    _wait_for(lambda: _queue_is_empty(sqs_stack), timeout_seconds=5)


def test_a_function_error_leaves_the_whole_batch_on_the_queue(sqs_stack: LocalStack) -> None:
    # Given
    sqs_stack.reset()
    sqs = sqs_stack.client("sqs")
    sqs.send_message_batch(
        QueueUrl=_queue_url(sqs_stack),
        Entries=[{"Id": "0", "MessageBody": "crash"}, {"Id": "1", "MessageBody": "innocent"}],
    )

    # When: the first invocation raises
    _wait_for(lambda: any("crash" in b["bodies"] for b in _batches(sqs_stack)), timeout_seconds=20)
    _wait_for(
        lambda: any(c == "2" for b in _batches(sqs_stack) for c in b["receiveCounts"]), timeout_seconds=20
    )

    # Then: its messages were received again (nothing deleted on error)
    seen = [
        (body, count)
        for b in _batches(sqs_stack)
        for body, count in zip(b["bodies"], b["receiveCounts"], strict=True)
    ]
    crash_first_batch = next(
        b for b in _batches(sqs_stack) if "crash" in b["bodies"] and "1" in b["receiveCounts"]
    )
    for body in crash_first_batch["bodies"]:
        assert (body, "2") in seen
    sqs.purge_queue(QueueUrl=_queue_url(sqs_stack))
