"""Publish latency and AWS calls per publish for rooms of 1, 10 and 100 subscriptions, batch
publishing, and PULL throughput, each next to a reference measured against the same emulator in
the same run.

References:
- publish: one DynamoDB PutItem plus one SQS SendMessage, the least any durable publish must do;
- fan-out: the same DynamoDB and SQS calls a publish to N PUSH subscriptions makes (the message
  item with N records, N/10 SendMessageBatch calls, 8 at a time), made bare with boto3: what the
  emulator alone costs for that work;
- PULL: bare SQS ReceiveMessage(10) + DeleteMessageBatch(10) on an identical queue.
Calls may grow no faster than subscriptions/10 plus a constant (checked for PUSH rooms; a PULL
destination has its own queue and SQS cannot batch across queues, so PULL rooms are reported too).
Target (issue 11): a publish to 100 PUSH subscriptions takes at most 3x the time of one to 10.

The push queue is emptied before every timed publish (not timed, not counted), as the push function
keeps it drained: moto's SendMessage reads every message already in the queue (it computes the
queue's attributes, ApproximateNumberOfMessages included, for each message sent), so its cost grows
with the queue's depth, which SQS's does not.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.harness import (
    AwsCallCounter,
    bench_stack,
    call,
    describe_waits,
    load_handlers,
    median_ms,
    reset,
    timed,
    waits_in_sequence,
)
from tests.support import api_event

SUBSCRIPTION_COUNTS = (1, 10, 100)
PUBLISHES_PER_ROOM = 15
PULL_MESSAGES = 200
PULL_TARGET = 0.6  # pull+ack at least this share of bare SQS's receive+delete rate
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


def _room_with(manage: object, subscription_type: str, count: int) -> str:
    room = call(manage, api_event("POST", "/rooms", {"name": f"{subscription_type} x{count}"}))  # type: ignore[arg-type]
    for _ in range(count):
        body = {"type": subscription_type}
        if subscription_type == "PUSH":
            body["pushUrl"] = "https://93.184.216.34/hook"
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))  # type: ignore[arg-type]
    return str(room["id"])


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


def _bare_fan_out_ms(dynamodb: Any, sqs: Any, table: str, push_queue_url: str, count: int) -> float:
    """The median time of the DynamoDB and SQS calls a publish to ``count`` PUSH subscriptions
    makes, made bare: a PutItem of a message item with ``count`` records, then count/10
    SendMessageBatch calls of envelope-sized bodies, 8 at a time, to the emptied push queue."""
    from roomcast.dal import items
    from roomcast.dal.message_items import stored_message_item
    from roomcast.domain.envelope import first_envelope
    from roomcast.domain.messages import Delivery, DeliveryStatus, Message
    from roomcast.domain.models import SubscriptionType

    subscription_ids = [f"sub_{n:032x}" for n in range(count)]

    def once() -> None:
        message = Message(
            id=f"msg_{uuid.uuid4().hex}",
            tenant_id="bench",
            room_id="room_bench",
            event_type="order.created",
            event_version="1",
            correlation_id=str(uuid.uuid4()),
            payload={"orderId": 42},
            published_at="2026-11-23T00:00:00.000Z",
            published_at_ms=1_795_392_000_000,
            expires_at_ms=None,
            destinations=tuple(subscription_ids),
        )
        at = message.published_at
        records = [
            Delivery(message.id, "bench", s, SubscriptionType.PUSH, DeliveryStatus.PENDING, 0, None, at, at)
            for s in subscription_ids
        ]
        item = items.to_attributes(stored_message_item(message, records))
        bodies = [(s, first_envelope(message, s).to_json()) for s in subscription_ids]
        batches = [bodies[i : i + 10] for i in range(0, len(bodies), 10)]
        dynamodb.put_item(TableName=table, Item=item)

        def send(batch: list[tuple[str, str]]) -> None:
            entries = [
                {"Id": str(n), "MessageBody": body, "MessageGroupId": s, "DelaySeconds": 0}
                for n, (s, body) in enumerate(batch)
            ]
            sqs.send_message_batch(QueueUrl=push_queue_url, Entries=entries)

        with ThreadPoolExecutor(max_workers=min(8, len(batches))) as pool:
            list(pool.map(send, batches))

    samples = []
    for _ in range(PUBLISHES_PER_ROOM):
        sqs.purge_queue(QueueUrl=push_queue_url)
        samples.append(timed(once))
    return median_ms(samples)


def run() -> dict[str, bool]:
    """Prints the figures; returns each target with whether it was met."""
    # moto refuses a second PurgeQueue within 60 s unless told not to (the server inherits this).
    os.environ["MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR"] = "false"
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, endpoint):
        manage, publish, pull = load_handlers(model, "ManagementFunction", "PublishFunction", "PullFunction")
        from roomcast.dal.aws import dynamodb_client, sqs_client

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
                room_id = _room_with(manage, subscription_type, count)
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
        bare = {n: _bare_fan_out_ms(dynamodb, sqs, table, push_queue_url, n) for n in (10, 100)}
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

        pull_ok = _pull_throughput(model, endpoint, manage, publish, pull, sqs, counter)
    return {
        "publish calls <= calls(1) + N/10 (PUSH rooms)": push_ok,
        f"publish to 100 PUSH subscriptions <= {FAN_OUT_TARGET:g}x publish to 10": fan_out <= FAN_OUT_TARGET,
        f"PULL pull+ack >= {PULL_TARGET}x bare SQS receive+delete": pull_ok,
    }


def _batch_figures(
    manage: Any, publish: Any, sqs: Any, push_queue_url: str, counter: AwsCallCounter
) -> list[BatchFigure]:
    """The same messages published one by one (the single route), and in batches of 10 and 100."""
    room_id = _room_with(manage, "PUSH", BATCH_ROOM_SUBSCRIPTIONS)
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


def _rate(drain: Callable[[], int]) -> tuple[int, float]:
    """How many messages ``drain`` took (it returns the count), and how many per second."""
    taken = 0

    def measured() -> None:
        nonlocal taken
        taken = drain()

    seconds = timed(measured)
    return taken, taken / seconds


def _pull_throughput(
    model: Any, endpoint: str, manage: Any, publish: Any, pull: Any, sqs: Any, counter: AwsCallCounter
) -> bool:
    """Prints pull+ack next to bare SQS, and how long the acks' record writes kept the emulator;
    returns whether the 0.6x target was met."""
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

    cycle_starts: list[int] = []  # where each pull + ack's calls start in the counter's record

    def drain_through_api() -> int:
        done = 0
        while True:
            cycle_starts.append(len(counter.intervals))
            messages = call(pull, api_event("POST", f"{base_path}/pull", {"maxMessages": 10}))["messages"]
            if not messages:
                return done
            cycle_starts.append(len(counter.intervals))
            call(pull, api_event("POST", f"{base_path}/ack", {"receipts": [m["receipt"] for m in messages]}))
            done += len(messages)

    counter.reset()
    api_count, api_rate = _rate(drain_through_api)
    api_seconds = api_count / api_rate if api_rate else 0.0
    record_writes_seconds = counter.in_flight_seconds("UpdateItem")
    writes = counter.calls["UpdateItem"]
    # The second pull + ack: the first also fetched the receipt key (once per container).
    pull_waits, ack_waits = (
        waits_in_sequence(_calls_between(counter, cycle_starts[i], cycle_starts[i + 1])) for i in (2, 3)
    )
    one_write_seconds = _one_update_item_seconds(model, counter)

    for n in range(PULL_MESSAGES):
        sqs.send_message(QueueUrl=reference_queue, MessageBody=json.dumps({"n": n}))

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
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(received)],
            )
            done += len(received)

    counter.reset()
    raw_count, raw_rate = _rate(drain_raw)
    raw_waits = counter.waits_in_sequence()
    # Every cycle but the last, empty receive.
    raw_waits_per_cycle = (len(raw_waits) - 1) / max(1, counter.calls["ReceiveMessage"] - 1)
    print("\n## PULL throughput: pull 10 + ack 10, through the handlers vs bare SQS on the same emulator\n")
    print(f"roomcast pull+ack: {api_count} messages, {api_rate:.0f} msg/s")
    print(f"bare SQS receive+delete: {raw_count} messages, {raw_rate:.0f} msg/s")
    ratio = api_rate / raw_rate
    print(f"ratio: roomcast at {ratio:.2f}x the bare SQS rate (target >= {PULL_TARGET})")
    # An ack writes each receipt's record (a conditional UpdateItem appending to its history), the
    # ten of a batch at once. DynamoDB serves them side by side; moto one after the other.
    acks = max(1, writes // 10)
    parallel_seconds = acks * one_write_seconds
    without = api_count / max(api_seconds - record_writes_seconds + parallel_seconds, 1e-9)
    print(
        f"the acks' {writes} record writes (10 at once) kept the emulator busy {record_writes_seconds:.2f} s "
        f"of {api_seconds:.2f} s; one such write alone takes {one_write_seconds * 1000:.1f} ms: with each "
        f"ack's ten served side by side as DynamoDB does, roomcast would run at {without / raw_rate:.2f}x"
    )
    # Whatever serves them, calls made one after another add up: the bound that order sets.
    api_waits = len(pull_waits) + len(ack_waits)
    print(
        f"waits one after another per 10 messages: roomcast {api_waits} (pull: {describe_waits(pull_waits)};"
        f" ack: {describe_waits(ack_waits)}), bare SQS {raw_waits_per_cycle:g} (ReceiveMessage ->"
        f" DeleteMessageBatch): were every wait as long as any other, roomcast would run at"
        f" {raw_waits_per_cycle / api_waits:.2f}x bare SQS on any backend"
    )
    return ratio >= PULL_TARGET


def _calls_between(counter: AwsCallCounter, first: int, end: int) -> list[tuple[tuple[float, float], str]]:
    return list(zip(counter.intervals[first:end], counter.operations[first:end], strict=True))


def _one_update_item_seconds(model: Any, counter: AwsCallCounter) -> float:
    """The median time of a lone conditional UpdateItem appending to a list, as an ack's is."""
    from roomcast.dal.aws import dynamodb_client

    client, table = dynamodb_client(), model.outputs["TableName"]
    samples = []
    for n in range(9):
        key = {"PK": {"S": f"BENCH#{n}"}, "SK": {"S": "DLV#bench"}}
        started = time.perf_counter()
        client.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="SET #s = :s, #h = list_append(if_not_exists(#h, :none), :h)",
            ConditionExpression="attribute_not_exists(#s) OR #s <> :dead",
            ExpressionAttributeNames={"#s": "status", "#h": "history"},
            ExpressionAttributeValues={
                ":s": {"S": "delivered"},
                ":dead": {"S": "dead"},
                ":none": {"L": []},
                ":h": {"L": [{"M": {"event": {"S": "ack"}}}]},
            },
        )
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)
