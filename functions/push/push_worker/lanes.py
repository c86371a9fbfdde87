"""Which lane a push delivery runs in, and the slow marks that move an endpoint between them
(roomcast.catalog.lanes; docs/decisions/0031-push-lanes.md).

The fast lane waits ``SLOW_ENDPOINT_MS`` at most for a request (``budget_s``); one still in flight
then marks its subscription slow. An answer within ``FAST_AGAIN_MS`` in the slow lane ends the mark.
Each is one write when the state changes, told to this container's batch catalog at once and to
the others through the room's version, like a failing streak."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from push_worker.batch_catalog import BatchCatalog
from roomcast.catalog import (
    SLOW_ENDPOINT_MS,
    Lane,
    Subscription,
    SubscriptionRecords,
    is_fast_again,
)
from roomcast.messages import QueueAddresses
from roomcast.platform import logger, now_ms


@dataclass
class Lanes:
    marks: SubscriptionRecords
    batch_catalog: BatchCatalog
    addresses: QueueAddresses
    clock: Callable[[], int] = now_ms
    slow_after_ms: int = SLOW_ENDPOINT_MS
    # Subscriptions this container marked slow and has not seen answer in time since: one write each.
    _marked: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def of_queue(self, queue_arn: str) -> Lane:
        """The lane of a record, by the queue it came from."""
        return self.addresses.lane_of_queue(queue_arn)

    def budget_s(self, lane: Lane) -> float | None:
        """How long a request in ``lane`` is waited for before the slow lane takes it over (None:
        to its end — the slow lane, or no slow lane to hand it to)."""
        if lane is Lane.SLOW or not self.has_slow_lane:
            return None
        return self.slow_after_ms / 1000

    @property
    def has_slow_lane(self) -> bool:
        """Whether there is a slow lane to move an endpoint marked slow to (push_worker.plans)."""
        return self.addresses.has_slow_lane

    def mark_slow(self, subscription: Subscription) -> None:
        """A request of this subscription outlasted the fast lane's budget."""
        with self._lock:
            if subscription.id in self._marked or subscription.slow_since_ms is not None:
                return
            self._marked.add(subscription.id)
        try:
            since = self.marks.mark_slow(subscription, self.clock())
        except Exception:  # a mark is an optimisation: the next slow request tries again
            with self._lock:
                self._marked.discard(subscription.id)
            logger.exception("could not mark a slow endpoint", extra={"subscriptionId": subscription.id})
            return
        self.batch_catalog.remember(replace(subscription, slow_since_ms=since))

    def answered(self, subscription: Subscription, latency_ms: int | None) -> None:
        """A request finished: an endpoint marked slow that answered quickly is back in the fast lane."""
        if subscription.slow_since_ms is None or not is_fast_again(latency_ms):
            return
        with self._lock:
            self._marked.discard(subscription.id)
        self.marks.clear_slow(subscription)
        self.batch_catalog.remember(replace(subscription, slow_since_ms=None))
