"""Rooms and subscriptions in DynamoDB, as the services see them (the ``Catalog`` port): every
call names the tenant, which is part of every key, so nothing can cross tenants.

``CatalogTable`` is composed of three smaller stores on the same table, each owning its items:
rooms (roomcast.catalog.rooms), subscriptions (roomcast.catalog.subscriptions) and the marks other
writers than a PATCH set on a subscription (roomcast.catalog.marks). It forwards the port's calls
to them and adds what needs two of them: the view a publish routes by."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from roomcast.catalog import items as catalog_items
from roomcast.catalog.keys import SUBSCRIPTIONS_VERSION
from roomcast.catalog.marks import SubscriptionMarks
from roomcast.catalog.model import Room, Subscription
from roomcast.catalog.ports import FailoverLink
from roomcast.catalog.rooms import RoomTable
from roomcast.catalog.routing_cache import SubscriptionCache
from roomcast.catalog.subscriptions import SubscriptionTable
from roomcast.platform import Page, Position, TableAccess

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class CatalogTable(TableAccess):
    """Rooms and subscriptions of every tenant (API keys: ``roomcast.keys``)."""

    def __init__(self, table_name: str, client: DynamoDBClient | None = None) -> None:
        super().__init__(table_name, client)
        self.rooms = RoomTable.sharing(self)
        self.subscriptions = SubscriptionTable.sharing(self)
        self.marks = SubscriptionMarks.sharing(self)
        self.routing_cache = SubscriptionCache()

    def routing_view(self, tenant_id: str, room_id: str) -> tuple[Room, list[Subscription]]:
        """A room and its subscriptions as a publish routes by them: one strongly consistent
        GetItem of the room, and a Query of its subscriptions only when this container has not read
        them at the room's current ``subscriptionsVersion`` within the cache's time to live. A
        subscription change acknowledged before this call is always seen."""
        item = self.rooms.room_item(tenant_id, room_id)
        stored_version = item.get(SUBSCRIPTIONS_VERSION)
        version = None if stored_version is None else int(stored_version)
        subscriptions = self.routing_cache.get(tenant_id, room_id, version)
        if subscriptions is None:
            # Strongly consistent: what is cached under ``version`` must hold every change up to it.
            subscriptions = self.subscriptions.all_subscriptions(tenant_id, room_id)
            self.routing_cache.put(tenant_id, room_id, version, subscriptions)
        return catalog_items.room_from_item(item), subscriptions

    # Rooms (RoomRecords)

    def create_room(self, room: Room) -> None:
        self.rooms.create_room(room)

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        return self.rooms.get_room(tenant_id, room_id)

    def list_rooms(self, tenant_id: str, limit: int, start: Position | None) -> Page[Room]:
        return self.rooms.list_rooms(tenant_id, limit, start)

    def replace_room(self, room: Room) -> None:
        self.rooms.replace_room(room)

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self.rooms.delete_room(tenant_id, room_id)

    def start_room_deletion(self, tenant_id: str, room_id: str, started_at: str, job_id: str) -> str:
        return self.rooms.start_room_deletion(tenant_id, room_id, started_at, job_id)

    # Subscriptions (SubscriptionRecords)

    def create_subscription(self, subscription: Subscription) -> None:
        self.subscriptions.create_subscription(subscription)

    def add_subscription(
        self, subscription: Subscription, max_per_room: int | None, failover_chain: Sequence[FailoverLink]
    ) -> None:
        self.subscriptions.add_subscription(subscription, max_per_room, failover_chain)

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        return self.subscriptions.get_subscription(tenant_id, room_id, subscription_id)

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[Subscription]:
        return self.subscriptions.list_subscriptions(tenant_id, room_id, limit, start)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        return self.subscriptions.all_subscriptions(tenant_id, room_id)

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        return self.subscriptions.count_subscriptions(tenant_id, room_id)

    def replace_subscription(self, subscription: Subscription, expected_updated_at: str) -> None:
        self.subscriptions.replace_subscription(subscription, expected_updated_at)

    def replace_subscription_checked(
        self, subscription: Subscription, expected_updated_at: str, failover_chain: Sequence[FailoverLink]
    ) -> None:
        self.subscriptions.replace_subscription_checked(subscription, expected_updated_at, failover_chain)

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        self.subscriptions.delete_subscription(tenant_id, room_id, subscription_id)

    # Marks on a subscription (SubscriptionRecords)

    def raise_cleared_watermark(
        self, subscription: Subscription, cleared_before_ms: int, updated_at: str
    ) -> None:
        self.marks.raise_cleared_watermark(subscription, cleared_before_ms, updated_at)

    def mark_failing(self, subscription: Subscription, now_ms: int) -> int:
        return self.marks.mark_failing(subscription, now_ms)

    def warn_failing(self, subscription: Subscription, now_ms: int) -> bool:
        return self.marks.warn_failing(subscription, now_ms)

    def claim_probe(self, subscription: Subscription, chain_ms: int, attempt: int) -> bool:
        return self.marks.claim_probe(subscription, chain_ms, attempt)

    def clear_failing(self, subscription: Subscription) -> None:
        self.marks.clear_failing(subscription)

    def mark_slow(self, subscription: Subscription, now_ms: int) -> int:
        return self.marks.mark_slow(subscription, now_ms)

    def clear_slow(self, subscription: Subscription) -> None:
        self.marks.clear_slow(subscription)
