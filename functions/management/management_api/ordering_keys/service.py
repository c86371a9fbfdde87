"""A subscription's paused ordering keys, and an operator's resume (docs/ordering-keys.md)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.catalog import Catalog
from roomcast.ordering import KeyHead, KeyRef, KeyResumes, OrderingKeys, is_ordering_key
from roomcast.platform import Conflict, NotFound


@dataclass
class OrderingKeysService:
    catalog: Catalog
    keys: OrderingKeys
    resumes: KeyResumes

    def paused(self, tenant_id: str, room_id: str, subscription_id: str, limit: int) -> list[KeyHead]:
        """The subscription's paused keys, longest paused first (404: no such subscription)."""
        self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        return self.keys.paused_keys(tenant_id, subscription_id, limit)

    def resume(
        self, tenant_id: str, room_id: str, subscription_id: str, ordering_key: str, skip: bool
    ) -> KeyHead:
        """Resume a paused key: its dead message sent again first (its dead letter ended), or
        skipped. 404: no such subscription or key; 409 ``not_paused``: the key flows (of two
        resumes at once, one gets it)."""
        subscription = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        ref = KeyRef(tenant_id, room_id, subscription_id, ordering_key)
        head = self.keys.read(ref).head if is_ordering_key(ordering_key) else None
        if head is None:
            raise NotFound(f"ordering key {ordering_key} not found")
        if not head.paused:
            raise Conflict(f"ordering key {ordering_key} is not paused", code="not_paused")
        self.resumes.resume(subscription, ordering_key, skip)
        return self.keys.read(ref).head or head
