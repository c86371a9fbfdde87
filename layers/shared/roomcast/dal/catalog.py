"""Rooms and subscriptions in DynamoDB, as the services see them (the ``Catalog`` port): every
call names the tenant, which is part of every key, so nothing can cross tenants. Rooms are
roomcast.dal.rooms, subscriptions roomcast.dal.subscriptions and roomcast.dal.subscription_marks;
this adds what needs both: the view a publish routes by."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roomcast.dal import items
from roomcast.dal.catalog_keys import SUBSCRIPTIONS_VERSION
from roomcast.dal.rooms import RoomTable
from roomcast.dal.routing_cache import SubscriptionCache
from roomcast.dal.subscription_marks import SubscriptionMarks
from roomcast.dal.subscriptions import SubscriptionTable
from roomcast.domain.models import Room, Subscription

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class CatalogStore(RoomTable, SubscriptionTable, SubscriptionMarks):
    """Rooms and subscriptions of every tenant (API keys: ``roomcast.dal.api_keys``)."""

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
        return items.room_from_item(item), subscriptions
