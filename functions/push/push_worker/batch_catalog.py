"""The rooms and subscriptions a push batch delivers to, read once per batch and kept a few
seconds per container; a PATCH or a secret rotation applies from the next batch.

A batch reads each of its rooms (one strongly consistent GetItem each, at the same time) and takes
the room's subscriptions from the function's copy while the room's ``subscriptionsVersion`` is the
one they were read at (``Catalog.routing_view``, docs/decisions/0021-publish-batches-and-reads.md):
every subscription change bumps it, so the batch sees every change acknowledged before it, for one
read unit per room instead of one per room and subscription."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from roomcast.catalog import Catalog, Room, Subscription
from roomcast.messages import Envelope
from roomcast.platform import NotFound, now_ms

SUBSCRIPTION_CACHE_MS = 5_000
_READS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="room-read")

Key = tuple[str, str, str]  # (kind, tenant, id)


@dataclass
class BatchCatalog:
    catalog: Catalog
    clock: Callable[[], int] = now_ms
    _cache: dict[Key, tuple[int, Room | Subscription | None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def prefetch(self, envelopes: Sequence[Envelope]) -> None:
        """Read the rooms and subscriptions of a batch, fresh for every batch."""
        now = self.clock()
        wanted = list(dict.fromkeys((e.tenant_id, e.room_id, e.subscription_id) for e in envelopes))
        if not wanted:
            return
        rooms = list(dict.fromkeys((tenant_id, room_id) for tenant_id, room_id, _ in wanted))
        if len(rooms) == 1:
            views = [self._view(*rooms[0])]
        else:
            views = list(_READS.map(lambda room: self._view(*room), rooms))
        by_room = dict(zip(rooms, views, strict=True))
        with self._lock:
            for tenant_id, room_id, subscription_id in wanted:
                room, subscriptions = by_room[(tenant_id, room_id)]
                self._cache[("room", tenant_id, room_id)] = (now, room)
                self._cache[("subscription", tenant_id, subscription_id)] = (
                    now,
                    subscriptions.get(subscription_id),
                )

    def _view(self, tenant_id: str, room_id: str) -> tuple[Room | None, dict[str, Subscription]]:
        try:
            room, subscriptions = self.catalog.routing_view(tenant_id, room_id)
        except NotFound:
            return None, {}
        return room, {s.id: s for s in subscriptions}

    def of(self, envelope: Envelope) -> tuple[Room, Subscription] | None:
        """The envelope's room and subscription, or None when either no longer exists."""
        room = self._cached(("room", envelope.tenant_id, envelope.room_id), self._read_room, envelope)
        subscription = self._cached(
            ("subscription", envelope.tenant_id, envelope.subscription_id), self._read_subscription, envelope
        )
        if not isinstance(room, Room) or not isinstance(subscription, Subscription):
            return None
        return room, subscription

    def remember(self, subscription: Subscription) -> None:
        """Keep a subscription as this container changed it (its failing streak), until the next batch."""
        with self._lock:
            key: Key = ("subscription", subscription.tenant_id, subscription.id)
            if key in self._cache:
                self._cache[key] = (self._cache[key][0], subscription)

    def forget(self, subscription: Subscription) -> None:
        with self._lock:
            self._cache.pop(("subscription", subscription.tenant_id, subscription.id), None)

    def _cached(
        self, key: Key, read: Callable[[Envelope], Room | Subscription | None], envelope: Envelope
    ) -> Room | Subscription | None:
        now = self.clock()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and now - cached[0] < SUBSCRIPTION_CACHE_MS:
            return cached[1]
        value = read(envelope)
        with self._lock:
            self._cache[key] = (now, value)
        return value

    def _read_room(self, envelope: Envelope) -> Room | None:
        try:
            return self.catalog.get_room(envelope.tenant_id, envelope.room_id)
        except NotFound:
            return None

    def _read_subscription(self, envelope: Envelope) -> Subscription | None:
        try:
            return self.catalog.get_subscription(
                envelope.tenant_id, envelope.room_id, envelope.subscription_id
            )
        except NotFound:
            return None
