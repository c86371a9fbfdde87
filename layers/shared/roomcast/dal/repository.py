"""Rooms, subscriptions and API keys in DynamoDB: the only module of the API that speaks DynamoDB."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from roomcast.dal import items
from roomcast.dal.aws import TableAccess
from roomcast.dal.pages import Page, decode_cursor, encode_cursor
from roomcast.domain import ids
from roomcast.domain.models import Room, Subscription
from roomcast.errors import Conflict, NotFound

if TYPE_CHECKING:
    pass

_ROOM_ID = re.compile(ids.ROOM_ID_PATTERN)
_SUBSCRIPTION_ID = re.compile(ids.SUBSCRIPTION_ID_PATTERN)

# DynamoDB's limit on the items of one TransactWriteItems / BatchWriteItem call.
TRANSACTION_MAX_ITEMS = 100
BATCH_WRITE_MAX_ITEMS = 25
BATCH_GET_MAX_KEYS = 100


def _is_condition_failure(error: ClientError) -> bool:
    code = error.response.get("Error", {}).get("Code", "")
    return code in {"ConditionalCheckFailedException", "TransactionCanceledException"}


class Repository(TableAccess):
    """Data access for the management API. Every call names the tenant: nothing crosses tenants."""

    # -- API keys -------------------------------------------------------------------------------

    def put_api_key(self, api_key_hash: str, tenant_id: str, created_at: str) -> None:
        item = {
            "PK": items.api_key_partition_key(api_key_hash),
            "SK": "APIKEY",
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
            Key={"PK": {"S": items.api_key_partition_key(api_key_hash)}, "SK": {"S": "APIKEY"}},
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
            TableName=self._table_name,
            Key=self._room_key(tenant_id, room_id),
            ConsistentRead=True,
        )
        if "Item" not in response:
            raise NotFound(f"room {room_id} not found")
        return items.room_from_item(items.from_attributes(response["Item"]))

    def list_rooms(self, tenant_id: str, limit: int, cursor: str | None) -> Page[Room]:
        partition = items.tenant_key(tenant_id)
        found, next_cursor = self._query(partition, "ROOM#", limit, cursor)
        return Page([items.room_from_item(item) for item in found], next_cursor)

    def replace_room(self, room: Room) -> None:
        """Overwrite an existing room; NotFound if it was deleted meanwhile."""
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(items.room_to_item(room)),
                ConditionExpression="attribute_exists(PK)",
            )
        except ClientError as error:
            if _is_condition_failure(error):
                raise NotFound(f"room {room.id} not found") from error
            raise

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self._client.delete_item(TableName=self._table_name, Key=self._room_key(tenant_id, room_id))

    # -- subscriptions --------------------------------------------------------------------------

    def create_subscription(self, subscription: Subscription) -> None:
        """Store a subscription, only while its room still exists."""
        try:
            self._client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self._table_name,
                            "Key": self._room_key(subscription.tenant_id, subscription.room_id),
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
            if _is_condition_failure(error):
                raise NotFound(f"room {subscription.room_id} not found") from error
            raise

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        if not _SUBSCRIPTION_ID.match(subscription_id) or not _ROOM_ID.match(room_id):
            raise NotFound(f"subscription {subscription_id[:80]} not found in room {room_id[:80]}")
        response = self._client.get_item(
            TableName=self._table_name,
            Key=self._subscription_key(tenant_id, room_id, subscription_id),
            ConsistentRead=True,
        )
        if "Item" not in response:
            raise NotFound(f"subscription {subscription_id} not found in room {room_id}")
        return items.subscription_from_item(items.from_attributes(response["Item"]))

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, cursor: str | None
    ) -> Page[Subscription]:
        partition = items.room_partition_key(tenant_id, room_id)
        found, next_cursor = self._query(partition, "SUB#", limit, cursor)
        return Page([items.subscription_from_item(item) for item in found], next_cursor)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        """Every subscription of a room: one Query per MB of subscriptions (a few hundred each)."""
        kwargs: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": items.room_partition_key(tenant_id, room_id)},
                ":prefix": {"S": "SUB#"},
            },
            "ConsistentRead": True,
        }
        subscriptions: list[Subscription] = []
        while True:
            response = self._client.query(**kwargs)
            subscriptions.extend(
                items.subscription_from_item(items.from_attributes(raw)) for raw in response.get("Items", [])
            )
            if "LastEvaluatedKey" not in response:
                return subscriptions
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        total = 0
        kwargs: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": items.room_partition_key(tenant_id, room_id)},
                ":prefix": {"S": "SUB#"},
            },
            "Select": "COUNT",
        }
        while True:
            response = self._client.query(**kwargs)
            total += response.get("Count", 0)
            if "LastEvaluatedKey" not in response:
                return total
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

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
            if _is_condition_failure(error):
                raise Conflict(
                    f"subscription {subscription.id} was changed or deleted meanwhile; read it again"
                ) from error
            raise

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        self._client.delete_item(
            TableName=self._table_name, Key=self._subscription_key(tenant_id, room_id, subscription_id)
        )

    def rooms_and_subscriptions(
        self, tenant_id_room_subscription: list[tuple[str, str, str]]
    ) -> tuple[dict[tuple[str, str], Room], dict[tuple[str, str, str], Subscription]]:
        """Rooms and subscriptions by (tenant, room[, subscription]) in one BatchGetItem per 100 keys;
        missing ones are simply absent from the result."""
        keys: dict[tuple[str, str], Any] = {}
        for tenant_id, room_id, subscription_id in tenant_id_room_subscription:
            keys[(items.tenant_key(tenant_id), items.room_sort_key(room_id))] = None
            keys[
                (items.room_partition_key(tenant_id, room_id), items.subscription_sort_key(subscription_id))
            ] = None
        rooms: dict[tuple[str, str], Room] = {}
        subscriptions: dict[tuple[str, str, str], Subscription] = {}
        key_list = list(keys)
        for start in range(0, len(key_list), BATCH_GET_MAX_KEYS):
            request: dict[str, Any] = {
                self._table_name: {
                    "Keys": [
                        {"PK": {"S": pk}, "SK": {"S": sk}}
                        for pk, sk in key_list[start : start + BATCH_GET_MAX_KEYS]
                    ],
                    "ConsistentRead": True,
                }
            }
            while request:
                response = self._client.batch_get_item(RequestItems=request)
                for raw in response.get("Responses", {}).get(self._table_name, []):
                    item = items.from_attributes(raw)
                    if item.get("entity") == "room":
                        room = items.room_from_item(item)
                        rooms[(room.tenant_id, room.id)] = room
                    elif item.get("entity") == "subscription":
                        subscription = items.subscription_from_item(item)
                        subscriptions[(subscription.tenant_id, subscription.room_id, subscription.id)] = (
                            subscription
                        )
                request = dict(response.get("UnprocessedKeys", {}))
        return rooms, subscriptions

    # -- helpers --------------------------------------------------------------------------------

    def _query(
        self, partition: str, prefix: str, limit: int, cursor: str | None
    ) -> tuple[list[items.Item], str | None]:
        kwargs: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": partition}, ":prefix": {"S": prefix}},
            "Limit": limit,
            "ConsistentRead": True,
        }
        start = decode_cursor(cursor, partition)
        if start is not None:
            kwargs["ExclusiveStartKey"] = start
        response = self._client.query(**kwargs)
        found = [items.from_attributes(raw) for raw in response.get("Items", [])]
        return found, encode_cursor(response.get("LastEvaluatedKey"))

    @staticmethod
    def _room_key(tenant_id: str, room_id: str) -> dict[str, Any]:
        return {"PK": {"S": items.tenant_key(tenant_id)}, "SK": {"S": items.room_sort_key(room_id)}}

    @staticmethod
    def _subscription_key(tenant_id: str, room_id: str, subscription_id: str) -> dict[str, Any]:
        return {
            "PK": {"S": items.room_partition_key(tenant_id, room_id)},
            "SK": {"S": items.subscription_sort_key(subscription_id)},
        }
