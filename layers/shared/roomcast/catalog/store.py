"""Rooms and subscriptions in DynamoDB, as the services see them (the ``Catalog`` port): every
call names the tenant, which is part of every key, so nothing can cross tenants. Rooms are
roomcast.catalog.rooms, subscriptions roomcast.catalog.subscriptions and roomcast.catalog.marks;
this adds what needs both: the view a publish routes by."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roomcast.catalog import items as catalog_items
from roomcast.catalog.keys import SUBSCRIPTIONS_VERSION
from roomcast.catalog.marks import SubscriptionMarks
from roomcast.catalog.model import Room, Subscription
from roomcast.catalog.rooms import RoomTable
from roomcast.catalog.routing_cache import SubscriptionCache
from roomcast.catalog.subscriptions import SubscriptionTable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class CatalogTable(RoomTable, SubscriptionTable, SubscriptionMarks):
    """Rooms and subscriptions of every tenant (API keys: ``roomcast.keys.store``)."""

    def __init__(self, table_name: str, client: DynamoDBClient | None = None) -> None:
        super().__init__(table_name, client)
        self.routing_cache = SubscriptionCache()

    def routing_view(self, tenant_id: str, room_id: str) -> tuple[Room, list[Subscription]]:
        """A room and its subscriptions as a publish routes by them: one strongly consistent
        GetItem of the room, and a Query of its subscriptions only when this container has not read
        them at the room's current ``subscriptionsVersion`` within the cache's time to live. A
        subscription change acknowledged before this call is always seen."""
        item = self._room_item(tenant_id, room_id)
        stored_version = item.get(SUBSCRIPTIONS_VERSION)
        version = None if stored_version is None else int(stored_version)
        subscriptions = self.routing_cache.get(tenant_id, room_id, version)
        if subscriptions is None:
            # Strongly consistent: what is cached under ``version`` must hold every change up to it.
            subscriptions = self.all_subscriptions(tenant_id, room_id)
            self.routing_cache.put(tenant_id, room_id, version, subscriptions)
        return catalog_items.room_from_item(item), subscriptions
