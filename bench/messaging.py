"""Publish latency and AWS calls per publish for rooms of 1, 10 and 100 subscriptions, and PULL
throughput, each next to a reference measured against the same emulator in the same run.

References:
- publish: one DynamoDB PutItem plus one SQS SendMessage, the least any durable publish must do;
- PULL: bare SQS ReceiveMessage(10) + DeleteMessageBatch(10) on an identical queue.
Calls may grow no faster than subscriptions/10 plus a constant (checked for PUSH rooms; a PULL
destination has its own queue and SQS cannot batch across queues, so PULL rooms are reported too).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from bench.harness import AwsCallCounter, bench_stack, call, load_handlers, median_ms, reset, timed
from tests.support import api_event

SUBSCRIPTION_COUNTS = (1, 10, 100)
PUBLISHES_PER_ROOM = 15
PULL_MESSAGES = 200


@dataclass(frozen=True)
class PublishFigure:
    subscription_type: str
    subscriptions: int
    median_ms: float
    calls_per_publish: float
    calls_by_operation: dict[str, float]


def _room_with(manage: object, subscription_type: str, count: int) -> str:
    room = call(manage, api_event("POST", "/rooms", {"name": f"{subscription_type} x{count}"}))  # type: ignore[arg-type]
    for _ in range(count):
        body = {"type": subscription_type}
        if subscription_type == "PUSH":
            body["pushUrl"] = "https://93.184.216.34/hook"
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))  # type: ignore[arg-type]
    return str(room["id"])


def run() -> bool:
    """Prints the figures; returns whether calls per PUSH publish grow no faster than N/10."""
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, endpoint):
        manage, publish, pull = load_handlers(model, "ManagementFunction", "PublishFunction", "PullFunction")
        from roomcast.dal.aws import dynamodb_client, sqs_client

        dynamodb, sqs = dynamodb_client(), sqs_client()
        table = model.tables["Table"]["TableName"]
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
                room_id = _room_with(manage, subscription_type, count)
                event = api_event(
                    "POST",
                    f"/rooms/{room_id}/messages",
                    {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 42}},
                )
                call(publish, event)  # warm
                samples = []
                counter.reset()
                for _ in range(PUBLISHES_PER_ROOM):
                    samples.append(timed(lambda event=event: call(publish, event)))  # type: ignore[misc]
                figures.append(
                    PublishFigure(
                        subscription_type,
                        count,
                        median_ms(samples),
                        counter.total() / PUBLISHES_PER_ROOM,
                        {op: n / PUBLISHES_PER_ROOM for op, n in sorted(counter.calls.items())},
                    )
                )

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

        # -- PULL throughput ------------------------------------------------------------------------
        reset(model, endpoint)
        reference_queue = sqs.create_queue(QueueName="bench-reference")["QueueUrl"]
        room_id = _room_with(manage, "PULL", 1)
        subscription_id = call(manage, api_event("GET", f"/rooms/{room_id}/subscriptions", None))[
            "subscriptions"
        ][0]["id"]
        event = api_event(
            "POST", f"/rooms/{room_id}/messages", {"eventType": "e", "eventVersion": "1", "payload": {"n": 1}}
        )
        for _ in range(PULL_MESSAGES):
            call(publish, event)
        base_path = f"/rooms/{room_id}/subscriptions/{subscription_id}"

        def drain_through_api() -> int:
            done = 0
            while True:
                messages = call(pull, api_event("POST", f"{base_path}/pull", {"maxMessages": 10}))["messages"]
                if not messages:
                    return done
                call(
                    pull,
                    api_event("POST", f"{base_path}/ack", {"receipts": [m["receipt"] for m in messages]}),
                )
                done += len(messages)

        api_seconds = 0.0
        api_count = 0

        def measure_api() -> None:
            nonlocal api_count
            api_count = drain_through_api()

        api_seconds = timed(measure_api)

        for n in range(PULL_MESSAGES):
            sqs.send_message(QueueUrl=reference_queue, MessageBody=f'{{"n": {n}}}')

        def drain_raw() -> int:
            done = 0
            while True:
                received = sqs.receive_message(QueueUrl=reference_queue, MaxNumberOfMessages=10).get(
                    "Messages", []
                )
                if not received:
                    return done
                sqs.delete_message_batch(
                    QueueUrl=reference_queue,
                    Entries=[
                        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(received)
                    ],
                )
                done += len(received)

        raw_count = 0

        def measure_raw() -> None:
            nonlocal raw_count
            raw_count = drain_raw()

        raw_seconds = timed(measure_raw)
        api_rate = api_count / api_seconds
        raw_rate = raw_count / raw_seconds
        print(
            "\n## PULL throughput: pull 10 + ack 10, through the handlers vs bare SQS on the same emulator\n"
        )
        print(f"roomcast pull+ack: {api_count} messages, {api_rate:.0f} msg/s")
        print(f"bare SQS receive+delete: {raw_count} messages, {raw_rate:.0f} msg/s")
        print(f"ratio: roomcast at {api_rate / raw_rate:.2f}x the bare SQS rate")
    return push_ok
