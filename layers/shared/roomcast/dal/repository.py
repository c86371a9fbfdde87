"""Rooms, subscriptions and API keys in DynamoDB (keys and item shapes: ``roomcast.dal.items``).

Every call names the tenant, which is part of every key: nothing can cross tenants.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from botocore.exceptions import ClientError

from roomcast.dal import items
from roomcast.dal.pages import Page
from roomcast.dal.table import Key, TableAccess, is_condition_failure, key
from roomcast.domain import ids
from roomcast.domain.models import Room, Subscription
from roomcast.errors import Conflict, NotFound

_ROOM_ID = re.compile(ids.ROOM_ID_PATTERN)
_SUBSCRIPTION_ID = re.compile(ids.SUBSCRIPTION_ID_PATTERN)
_API_KEY_SORT_KEY = "APIKEY"
_ROOM_PREFIX = "ROOM#"
_SUBSCRIPTION_PREFIX = "SUB#"


def _room_key(tenant_id: str, room_id: str) -> Key:
    return key(items.tenant_key(tenant_id), items.room_sort_key(room_id))


def _subscription_key(tenant_id: str, room_id: str, subscription_id: str) -> Key:
    return key(items.room_partition_key(tenant_id, room_id), items.subscription_sort_key(subscription_id))


class Repository(TableAccess):
    """Rooms, subscriptions and API keys of every tenant."""

    # -- API keys -------------------------------------------------------------------------------

    def put_api_key(self, api_key_hash: str, tenant_id: str, created_at: str) -> None:
        item = {
            "PK": items.api_key_partition_key(api_key_hash),
            "SK": _API_KEY_SORT_KEY,
            "entity": "apiKey",
            "tenantId": tenant_id,
            "createdAt": created_at,
        }
        self._client.put_item(
            TableName=self._table_name,
            Item=items.to_attributes(item),
            ConditionExpression="attribute_not_exists(PK)",
        )

    def tenant_for_api_key(self, api_key_hash: str) -> str | None:
        response = self._client.get_item(
            TableName=self._table_name,
            Key=key(items.api_key_partition_key(api_key_hash), _API_KEY_SORT_KEY),
            ProjectionExpression="tenantId",
        )
        found = response.get("Item")
        return found["tenantId"]["S"] if found else None

    # -- rooms ----------------------------------------------------------------------------------

    def create_room(self, room: Room) -> None:
        self._client.put_item(
            TableName=self._table_name,
            Item=items.to_attributes(items.room_to_item(room)),
            ConditionExpression="attribute_not_exists(PK)",
        )

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        if not _ROOM_ID.match(room_id):
            raise NotFound(f"room {room_id[:80]} not found")
        response = self._client.get_item(
            TableName=self._table_name, Key=_room_key(tenant_id, room_id), ConsistentRead=True
        )
        if "Item" not in response:
            raise NotFound(f"room {room_id} not found")
        return items.room_from_item(items.from_attributes(response["Item"]))

    def list_rooms(self, tenant_id: str, limit: int, cursor: str | None) -> Page[Room]:
        page = self._query_page(items.tenant_key(tenant_id), limit, cursor, prefix=_ROOM_PREFIX)
        return Page([items.room_from_item(item) for item in page.items], page.next_cursor)

    def replace_room(self, room: Room) -> None:
        """Overwrite an existing room; NotFound if it was deleted meanwhile."""
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(items.room_to_item(room)),
                ConditionExpression="attribute_exists(PK)",
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {room.id} not found") from error
            raise

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self._client.delete_item(TableName=self._table_name, Key=_room_key(tenant_id, room_id))

    # -- subscriptions --------------------------------------------------------------------------

    def create_subscription(self, subscription: Subscription) -> None:
        """Store a subscription, only while its room still exists."""
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self._table_name,
                            "Key": _room_key(subscription.tenant_id, subscription.room_id),
                            "ConditionExpression": "attribute_exists(PK)",
                        }
                    },
                    {
                        "Put": {
                            "TableName": self._table_name,
                            "Item": items.to_attributes(items.subscription_to_item(subscription)),
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    },
                ]
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {subscription.room_id} not found") from error
            raise

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        if not _SUBSCRIPTION_ID.match(subscription_id) or not _ROOM_ID.match(room_id):
            raise NotFound(f"subscription {subscription_id[:80]} not found in room {room_id[:80]}")
        response = self._client.get_item(
            TableName=self._table_name,
            Key=_subscription_key(tenant_id, room_id, subscription_id),
            ConsistentRead=True,
        )
        if "Item" not in response:
            raise NotFound(f"subscription {subscription_id} not found in room {room_id}")
        return items.subscription_from_item(items.from_attributes(response["Item"]))

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, cursor: str | None
    ) -> Page[Subscription]:
        partition = items.room_partition_key(tenant_id, room_id)
        page = self._query_page(partition, limit, cursor, prefix=_SUBSCRIPTION_PREFIX)
        return Page([items.subscription_from_item(item) for item in page.items], page.next_cursor)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        """Every subscription of a room: one Query per MB of subscriptions (a few hundred each)."""
        partition = items.room_partition_key(tenant_id, room_id)
        return [
            items.subscription_from_item(item) for item in self._query_all(partition, _SUBSCRIPTION_PREFIX)
        ]

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        return self._count(items.room_partition_key(tenant_id, room_id), _SUBSCRIPTION_PREFIX)

    def replace_subscription(self, subscription: Subscription, expected_updated_at: str) -> None:
        """Overwrite a subscription if nobody changed it since it was read (optimistic locking)."""
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(items.subscription_to_item(subscription)),
                ConditionExpression="updatedAt = :seen",
                ExpressionAttributeValues={":seen": {"S": expected_updated_at}},
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise Conflict(
                    f"subscription {subscription.id} was changed or deleted meanwhile; read it again"
                ) from error
            raise

    def mark_failing(self, subscription: Subscription, now_ms: int) -> int:
        """Start the subscription's failing streak unless one is running; returns its start.
        Touches neither ``updatedAt`` nor anything else (a PATCH meanwhile still applies)."""
        try:
            response = self._client.update_item(
                TableName=self._table_name,
                Key=_subscription_key(subscription.tenant_id, subscription.room_id, subscription.id),
                UpdateExpression="SET failingSinceMs = if_not_exists(failingSinceMs, :now)",
                ConditionExpression="attribute_exists(SK)",
                ExpressionAttributeValues={":now": {"N": str(now_ms)}},
                ReturnValues="ALL_NEW",  # UPDATED_NEW is empty when the streak was already running
            )
        except ClientError as error:
            if is_condition_failure(error):  # deleted meanwhile: nothing to track
                return now_ms
            raise
        return int(response["Attributes"]["failingSinceMs"]["N"])

    def clear_failing(self, subscription: Subscription) -> None:
        """A success ends the failing streak."""
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_subscription_key(subscription.tenant_id, subscription.room_id, subscription.id),
                UpdateExpression="REMOVE failingSinceMs",
                ConditionExpression="attribute_exists(SK)",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        self._client.delete_item(
            TableName=self._table_name, Key=_subscription_key(tenant_id, room_id, subscription_id)
        )

    def rooms_and_subscriptions(
        self, wanted: Sequence[tuple[str, str, str]]
    ) -> tuple[dict[tuple[str, str], Room], dict[tuple[str, str, str], Subscription]]:
        """Rooms and subscriptions by (tenant, room, subscription) in one BatchGetItem per 100 keys;
        missing ones are simply absent from the result."""
        keys: list[Key] = []
        for tenant_id, room_id, subscription_id in wanted:
            keys += [_room_key(tenant_id, room_id), _subscription_key(tenant_id, room_id, subscription_id)]
        rooms: dict[tuple[str, str], Room] = {}
        subscriptions: dict[tuple[str, str, str], Subscription] = {}
        for item in self._batch_get(keys):
            if item.get("entity") == "room":
                room = items.room_from_item(item)
                rooms[(room.tenant_id, room.id)] = room
            elif item.get("entity") == "subscription":
                subscription = items.subscription_from_item(item)
                subscriptions[(subscription.tenant_id, subscription.room_id, subscription.id)] = subscription
        return rooms, subscriptions
