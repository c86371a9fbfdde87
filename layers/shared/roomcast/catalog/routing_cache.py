"""A function's copy of rooms' subscriptions, kept while the room's subscriptions version is
unchanged (docs/decisions/0021-publish-batches-and-reads.md).

Every subscription change bumps its room's ``subscriptionsVersion`` in the same transaction, so a
publish reads the room (one GetItem, which it needs anyway) and re-reads the subscriptions only
when the version moved. ``TTL_SECONDS`` bounds an entry's life whatever the version says: a
safety net for a write that did not bump it (code older than the version, a hand edit).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from roomcast.catalog.model import Subscription

TTL_SECONDS: Final = 60.0
# Rooms kept per container: at 200 subscriptions of about 1 KB each, 256 rooms stay under 60 MB.
MAX_ROOMS: Final = 256


@dataclass(frozen=True)
class _Entry:
    version: int | None
    subscriptions: tuple[Subscription, ...]
    read_at: float


class SubscriptionCache:
    """Subscriptions by (tenant, room), valid while the room's version is the one they were read
    at and for at most ``ttl_seconds``; the least recently used room goes first when full."""

    def __init__(
        self,
        ttl_seconds: float = TTL_SECONDS,
        max_rooms: int = MAX_ROOMS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_rooms = max_rooms
        self._clock = clock
        self._entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()  # the push function publishes operational events from threads

    def get(self, tenant_id: str, room_id: str, version: int | None) -> list[Subscription] | None:
        """The subscriptions read at ``version``, or None (never read, another version, too old)."""
        key = (tenant_id, room_id)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.version != version or self._clock() - entry.read_at >= self.ttl_seconds:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return list(entry.subscriptions)

    def put(
        self, tenant_id: str, room_id: str, version: int | None, subscriptions: Sequence[Subscription]
    ) -> None:
        key = (tenant_id, room_id)
        with self._lock:
            self._entries[key] = _Entry(version, tuple(subscriptions), self._clock())
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_rooms:
                self._entries.popitem(last=False)
