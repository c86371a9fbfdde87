"""PULL subscriptions' queues and their signed receipts (ADR 0009, ADR 0018).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.pull.ports import (
        PullQueue as PullQueue,
        PullQueueAdmin as PullQueueAdmin,
        Received as Received,
    )
    from roomcast.pull.queues import (
        QueueAdmin as QueueAdmin,
        QueueClient as QueueClient,
        visibility_seconds as visibility_seconds,
    )
    from roomcast.pull.receipts import Receipt as Receipt, ReceiptSigner as ReceiptSigner

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
