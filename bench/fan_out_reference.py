"""The fan-out reference of bench/messaging.py: the DynamoDB and SQS calls a publish to N PUSH
subscriptions makes, made bare with boto3 against the same emulator: what the emulator alone
costs for that work, so that roomcast's own share of a publish's time can be told apart."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.harness import median_ms, timed


def bare_fan_out_ms(
    dynamodb: Any, sqs: Any, table: str, push_queue_url: str, count: int, repeats: int
) -> float:
    """The median time, over ``repeats``, of the DynamoDB and SQS calls a publish to ``count`` PUSH
    subscriptions makes, made bare: a PutItem of a message item with ``count`` records, then
    count/10 SendMessageBatch calls of envelope-sized bodies, 8 at a time, to the emptied push
    queue."""
    from roomcast.catalog.model import SubscriptionType
    from roomcast.messages.envelope import first_envelope
    from roomcast.messages.items import stored_message_item
    from roomcast.messages.model import Delivery, DeliveryStatus, Message
    from roomcast.platform import items

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
    for _ in range(repeats):
        sqs.purge_queue(QueueUrl=push_queue_url)
        samples.append(timed(once))
    return median_ms(samples)
