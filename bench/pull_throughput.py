"""PULL throughput for bench/messaging.py: pull 10 + ack 10 through the pull handler, next to bare
SQS ReceiveMessage(10) + DeleteMessageBatch(10) on an identical queue of the same emulator; with
what the acks' record writes and the calls made one after another account for."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.harness import AwsCallCounter, call, describe_waits, reset, room_with, timed, waits_in_sequence
from tests.support import api_event

PULL_MESSAGES = 200
PULL_TARGET = 0.6  # pull+ack at least this share of bare SQS's receive+delete rate


def _rate(drain: Callable[[], int]) -> tuple[int, float]:
    """How many messages ``drain`` took (it returns the count), and how many per second."""
    taken = 0

    def measured() -> None:
        nonlocal taken
        taken = drain()

    seconds = timed(measured)
    return taken, taken / seconds


def measure_pull_throughput(
    model: Any, endpoint: str, manage: Any, publish: Any, pull: Any, sqs: Any, counter: AwsCallCounter
) -> bool:
    """Prints pull+ack next to bare SQS, and how long the acks' record writes kept the emulator;
    returns whether the 0.6x target was met."""
    reset(model, endpoint)
    reference_queue = sqs.create_queue(QueueName="bench-reference")["QueueUrl"]
    room_id = room_with(manage, "PULL", 1)
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
