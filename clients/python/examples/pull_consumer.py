"""Consume a PULL subscription: each message goes to a handler; returning acks it, raising nacks
it (it comes back after the subscription's backoff), and slow work has its ack wait extended.

    ROOMCAST_URL=... ROOMCAST_API_KEY=... python pull_consumer.py ROOM_ID SUBSCRIPTION_ID

Runs until Ctrl-C (or, from ``main(..., until_idle=True)``, until a pull finds nothing).
"""

from __future__ import annotations

import logging
import sys

from roomcast_client import Client, ConsumerStats, PullConsumer, PulledMessage


def handle(message: PulledMessage) -> None:
    """Your work. Make it idempotent: a message can be delivered more than once."""
    if not isinstance(message.payload, dict) or "orderId" not in message.payload:
        raise ValueError(f"not an order: {message.payload!r}")  # nacked, retried later
    print(f"order {message.payload['orderId']} ({message.message_id}, attempt {message.attempt})")


def main(
    room_id: str, subscription_id: str, client: Client | None = None, until_idle: bool = False
) -> ConsumerStats:
    logging.basicConfig(level=logging.INFO)
    with client or Client() as roomcast:
        consumer = PullConsumer(
            roomcast, room_id, subscription_id, handle, wait_seconds=2 if until_idle else 20
        )
        try:
            stats = consumer.run(until_idle=until_idle)
        except KeyboardInterrupt:
            stats = consumer.stats
    print(f"acked {stats.acked}, nacked {stats.nacked}, extended {stats.extensions} time(s)")
    return stats


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
