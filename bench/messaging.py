"""Publish latency and AWS calls per publish for rooms of 1, 10 and 100 subscriptions, and batch
publishing, each next to a reference measured against the same emulator in the same run (PULL
throughput is pull_throughput.py's).

References:
- publish: one DynamoDB PutItem plus one SQS SendMessage, the least any durable publish must do;
- fan-out: the same DynamoDB and SQS calls a publish to N PUSH subscriptions makes (the message
  item with N records, N/10 SendMessageBatch calls, 8 at a time), made bare with boto3: what the
  emulator alone costs for that work (fan_out_reference.py).
Calls may grow no faster than subscriptions/10 plus a constant (checked for PUSH rooms; a PULL
destination has its own queue and SQS cannot batch across queues, so PULL rooms are reported too).
Target (issue 11): a publish to 100 PUSH subscriptions takes at most 3x the time of one to 10.

The push queue is emptied before every timed publish (not timed, not counted), as the push function
keeps it drained: moto's SendMessage reads every message already in the queue (it computes the
queue's attributes, ApproximateNumberOfMessages included, for each message sent), so its cost grows
with the queue's depth, which SQS's does not.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.fan_out_reference import bare_fan_out_ms
from bench.harness import AwsCallCounter, bench_stack, call, load_handlers, median_ms, reset, room_with, timed
from tests.support import api_event

SUBSCRIPTION_COUNTS = (1, 10, 100)
PUBLISHES_PER_ROOM = 15
FAN_OUT_TARGET = 3.0  # publish to 100 PUSH subscriptions <= 3x the latency of 10
BATCH_ROOM_SUBSCRIPTIONS = 5
BATCH_MESSAGES = 100
BATCH_SIZES = (1, 10, 100)


@dataclass(frozen=True)
class PublishFigure:
    subscription_type: str
    subscriptions: int
    median_ms: float
    calls_per_publish: float
    calls_by_operation: dict[str, float]


@dataclass(frozen=True)
class BatchFigure:
    batch_size: int
    ms_per_message: float
    calls_per_message: float
    calls_by_operation: dict[str, float]


class Drained:
    """Empties the push queue between timed calls, without counting the emptying."""

    def __init__(self, sqs: Any, push_queue_url: str, counter: AwsCallCounter) -> None:
        self.sqs, self.push_queue_url, self.counter = sqs, push_queue_url, counter
        self.calls: Counter[str] = Counter()

    def timed(self, action: Callable[[], Any]) -> float:
        self.sqs.purge_queue(QueueUrl=self.push_queue_url)
        self.counter.reset()
        seconds = timed(action)
        self.calls.update(self.counter.calls)
        return seconds


def _publish_event(room_id: str) -> dict[str, Any]:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 42}}
    return api_event("POST", f"/rooms/{room_id}/messages", body)


def run() -> dict[str, bool]:
    """Prints the figures; returns each target with whether it was met."""
    # moto refuses a second PurgeQueue within 60 s unless told not to (the server inherits this).
    os.environ["MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR"] = "false"
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, endpoint):
        manage, publish = load_handlers(model, "ManagementFunction", "PublishFunction")
        from roomcast.platform.aws import dynamodb_client, sqs_client

        dynamodb, sqs = dynamodb_client(), sqs_client()
        table = model.tables["Table"]["TableName"]
        push_queue_url = model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
        reference_queue = sqs.create_queue(QueueName="bench-reference")["QueueUrl"]

        def reference_publish() -> None:
            dynamodb.put_item(TableName=table, Item={"PK": {"S": f"REF#{uuid.uuid4()}"}, "SK": {"S": "x"}})
            sqs.send_message(QueueUrl=reference_queue, MessageBody='{"payload": {"orderId": 42}}')

        reference_ms = median_ms([timed(reference_publish) for _ in range(PUBLISHES_PER_ROOM * 2)])
        sqs.purge_queue(QueueUrl=reference_queue)

        figures: list[PublishFigure] = []
        for subscription_type in ("PUSH", "PULL"):
            for count in SUBSCRIPTION_COUNTS:
                # A fresh emulator per room: moto's SQS slows down as unconsumed messages pile up.
                reset(model, endpoint)
                room_id = room_with(manage, subscription_type, count)
                event = _publish_event(room_id)
                call(publish, event)  # warm
                drained = Drained(sqs, push_queue_url, counter)
                samples = [
                    drained.timed(lambda event=event: call(publish, event))  # type: ignore[misc]
                    for _ in range(PUBLISHES_PER_ROOM)
                ]
                figures.append(
                    PublishFigure(
                        subscription_type,
                        count,
                        median_ms(samples),
                        drained.calls.total() / PUBLISHES_PER_ROOM,
                        {op: n / PUBLISHES_PER_ROOM for op, n in sorted(drained.calls.items())},
                    )
                )

        reset(model, endpoint)
        bare = {
            n: bare_fan_out_ms(dynamodb, sqs, table, push_queue_url, n, PUBLISHES_PER_ROOM) for n in (10, 100)
        }
        batch_figures = _batch_figures(manage, publish, sqs, push_queue_url, counter)

        print("\n## Publish: latency and AWS API calls per publish (moto server, in-process handler)\n")
        print(f"reference (PutItem + SendMessage): {reference_ms:.1f} ms\n")
        print(f"{'type':<5} {'subs':>5} {'median ms':>10} {'x ref':>7} {'calls':>6}  calls by operation")
        base = {f.subscription_type: f.calls_per_publish for f in figures if f.subscriptions == 1}
        push_ok = True
        for f in figures:
            ops = ", ".join(f"{op} {n:g}" for op, n in f.calls_by_operation.items())
            print(
                f"{f.subscription_type:<5} {f.subscriptions:>5} {f.median_ms:>10.1f} "
                f"{f.median_ms / reference_ms:>7.1f} {f.calls_per_publish:>6.1f}  {ops}"
            )
            if f.subscription_type == "PUSH":
                push_ok = push_ok and f.calls_per_publish <= base["PUSH"] + f.subscriptions / 10
        print(
            "\nPUSH rooms: calls(N) <= calls(1) + N/10 -> "
            + ("ok" if push_ok else "OVER TARGET")
            + "\nPULL rooms: one SendMessage per PULL destination (SQS cannot batch across queues)."
        )
        push_ms = {f.subscriptions: f.median_ms for f in figures if f.subscription_type == "PUSH"}
        fan_out = push_ms[100] / push_ms[10]
        bare_fan_out = bare[100] / bare[10]
        print(
            f"\nPUSH fan-out: publish to 100 = {fan_out:.1f}x publish to 10 "
            f"(target <= {FAN_OUT_TARGET:g}x) -> " + ("met" if fan_out <= FAN_OUT_TARGET else "MISSED")
        )
        print(
            f"the same DynamoDB and SQS calls made bare: {bare[10]:.1f} ms for 10, "
            f"{bare[100]:.1f} ms for 100 "
            f"({bare_fan_out:.1f}x): the emulator's share; roomcast adds {push_ms[10] - bare[10]:.1f} ms "
            f"at 10 and {push_ms[100] - bare[100]:.1f} ms at 100"
        )
        own = (push_ms[100] - bare[100]) / max(push_ms[10] - bare[10], 0.1)
        print(
            f"roomcast's own time (publish minus the bare calls): 100 = {own:.1f}x 10 -> "
            + ("within" if own <= FAN_OUT_TARGET else "OVER")
            + f" {FAN_OUT_TARGET:g}x"
        )

        print(
            f"\n## Batch publish: {BATCH_MESSAGES} messages to a room of {BATCH_ROOM_SUBSCRIPTIONS} PUSH "
            "subscriptions\n"
        )
        print(
            f"{'per request':>11} {'ms/message':>11} {'calls/message':>14}  calls by operation (per message)"
        )
        for b in batch_figures:
            ops = ", ".join(f"{op} {n:.2g}" for op, n in b.calls_by_operation.items())
            print(f"{b.batch_size:>11} {b.ms_per_message:>11.2f} {b.calls_per_message:>14.2f}  {ops}")
    return {
        "publish calls <= calls(1) + N/10 (PUSH rooms)": push_ok,
        f"publish to 100 PUSH subscriptions <= {FAN_OUT_TARGET:g}x publish to 10": fan_out <= FAN_OUT_TARGET,
    }


def _batch_figures(
    manage: Any, publish: Any, sqs: Any, push_queue_url: str, counter: AwsCallCounter
) -> list[BatchFigure]:
    """The same messages published one by one (the single route), and in batches of 10 and 100."""
    room_id = room_with(manage, "PUSH", BATCH_ROOM_SUBSCRIPTIONS)
    call(publish, _publish_event(room_id))  # warm
    message = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 42}}
    figures = []
    for size in BATCH_SIZES:
        drained = Drained(sqs, push_queue_url, counter)
        if size == 1:
            event = _publish_event(room_id)
        else:
            event = api_event("POST", f"/rooms/{room_id}/messages/batch", {"messages": [message] * size})
        seconds = sum(
            drained.timed(lambda event=event: call(publish, event))  # type: ignore[misc]
            for _ in range(BATCH_MESSAGES // size)
        )
        figures.append(
            BatchFigure(
                size,
                seconds * 1000 / BATCH_MESSAGES,
                drained.calls.total() / BATCH_MESSAGES,
                {op: n / BATCH_MESSAGES for op, n in sorted(drained.calls.items())},
            )
        )
    return figures
