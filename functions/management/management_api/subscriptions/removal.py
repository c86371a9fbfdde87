"""Removing a subscription: its record first, then its queues (shared by room deletion)."""

from __future__ import annotations

from roomcast.dal.ports import Catalog, PullQueueAdmin
from roomcast.domain.models import Subscription


def remove_subscription(catalog: Catalog, queues: PullQueueAdmin, subscription: Subscription) -> None:
    # Record first: once it is gone nothing routes to the queues, which then go too.
    catalog.delete_subscription(subscription.tenant_id, subscription.room_id, subscription.id)
    queues.delete_queues([url for url in (subscription.queue_url, subscription.dead_letter_queue_url) if url])
