"""Removing subscriptions: their records first, then their queues, and a sweep that ends every
delivery they still owe (shared by subscription and room deletion)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from roomcast.catalog import Catalog, Subscription
from roomcast.outbox import OutboxQueue, Sweep
from roomcast.pull import PullQueueAdmin


def remove_subscriptions(
    catalog: Catalog,
    queues: PullQueueAdmin,
    outbox: OutboxQueue,
    subscriptions: Sequence[Subscription],
    reason: str,
    then: Callable[[], None] = lambda: None,
) -> None:
    """Delete these subscriptions of one room (and ``then`` whatever goes with them, the room).

    Their open deliveries end ``cleared``: a late sweep is sent first, so that a crash after any
    deletion still ends them once every publish racing the deletion is over; the same sweep runs
    at once after the deletion for the common case (docs/decisions/0028-every-delivery-ends.md)."""
    if not subscriptions:
        then()
        return
    first = subscriptions[0]
    sweep = Sweep(first.tenant_id, first.room_id, tuple((s.id, s.type) for s in subscriptions), reason)
    outbox.after_settling(sweep)
    for subscription in subscriptions:
        # Record first: once it is gone nothing routes to the queues, which then go too.
        catalog.delete_subscription(subscription.tenant_id, subscription.room_id, subscription.id)
        queues.delete_queues(
            [url for url in (subscription.queue_url, subscription.dead_letter_queue_url) if url]
        )
    then()
    outbox.now(sweep)
