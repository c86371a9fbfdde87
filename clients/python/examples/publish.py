"""Publish messages to a room: one at a time (each with an idempotency key, so a retried publish
is never published twice) and in a batch.

    ROOMCAST_URL=... ROOMCAST_API_KEY=... python publish.py [ROOM_ID]

Without ROOM_ID it creates a room "orders" with a PULL subscription to publish to.
"""

from __future__ import annotations

import sys

from roomcast_client import Client, PublishResult


def main(room_id: str | None = None, client: Client | None = None) -> list[PublishResult]:
    with client or Client() as roomcast:
        if room_id is None:
            room_id = roomcast.rooms.create(name="orders").id
            roomcast.subscriptions.create(room_id, type="PULL")
            print(f"created room {room_id}")
        # The key makes this publish safe to repeat: a second call answers the same message.
        first = roomcast.messages.publish(
            room_id,
            {"orderId": 1001, "total": 99.5},
            event_type="order.created",
            idempotency_key="order-1001",
        )
        print(f"published {first.message_id} to {len(first.destinations)} subscription(s)")
        batch = roomcast.messages.publish_batch(
            room_id,
            [
                {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": n}}
                for n in range(1002, 1005)
            ],
        )
        accepted = [result for result in batch.results if isinstance(result, PublishResult)]
        print(f"batch: {len(accepted)} published, {batch.failed_count} refused")
        return [first, *accepted]


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
