"""Subscriptions in DynamoDB (item shapes: ``roomcast.platform.items``).

Checks that must hold when a write lands are conditions of that write, not reads before it
(docs/decisions/0020-management-races.md): the room item counts its subscriptions
(``subscriptionCount``, changed in the same transaction as each subscription's put or delete),
a room being deleted says so (``deletionStartedAt``) so that no subscription is added meanwhile,
and a failover change goes through only while the chain it was checked against is unchanged.

Every subscription write (create, replace, delete) also bumps its room's ``subscriptionsVersion``
in the same transaction, so that a publish re-reads a room's subscriptions only when they changed
(``routing_view``, docs/decisions/0021-publish-batches-and-reads.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import ClientError

from roomcast.catalog import items as catalog_items
from roomcast.catalog.keys import (
    COUNT_ONE_MORE,
    DELETION_STARTED_AT,
    ROOM_ID,
    SUBSCRIPTION_COUNT,
    SUBSCRIPTION_ID,
    SUBSCRIPTION_PREFIX,
    TRANSACTION_ATTEMPTS,
    VERSION_ONE_MORE,
    chain_changed,
    room_key,
    subscription_key,
    version_bump,
)
from roomcast.catalog.model import Subscription
from roomcast.catalog.ports import FailoverLink
from roomcast.platform import (
    Conflict,
    LimitExceeded,
    NotFound,
    Page,
    Position,
    TableAccess,
    is_condition_failure,
    items,
)


class SubscriptionTable(TableAccess):
    def create_subscription(self, subscription: Subscription) -> None:
        """Store a subscription while its room exists, counting it, with no limit (seeding, tools)."""
        self.add_subscription(subscription, None, ())

    def add_subscription(
        self,
        subscription: Subscription,
        max_per_room: int | None,
        failover_chain: Sequence[FailoverLink],
    ) -> None:
        """Store a subscription and count it on its room in one transaction, only while the room
        exists and is not being deleted (NotFound), holds fewer than ``max_per_room``
        (LimitExceeded) and every subscription of ``failover_chain`` is as it was read (Conflict)."""
        the_room = room_key(subscription.tenant_id, subscription.room_id)
        room_condition = f"attribute_exists(PK) AND attribute_not_exists({DELETION_STARTED_AT})"
        values: dict[str, Any] = {":one": {"N": "1"}, ":zero": {"N": "0"}}
        if max_per_room is None:
            room_condition += f" AND attribute_exists({SUBSCRIPTION_COUNT})"
        else:
            room_condition += f" AND {SUBSCRIPTION_COUNT} < :max"
            values[":max"] = {"N": str(max_per_room)}
        transaction = [
            {
                "Update": {
                    "TableName": self._table_name,
                    "Key": the_room,
                    "UpdateExpression": COUNT_ONE_MORE,
                    "ConditionExpression": room_condition,
                    "ExpressionAttributeValues": values,
                }
            },
            {
                "Put": {
                    "TableName": self._table_name,
                    "Item": items.to_attributes(catalog_items.subscription_to_item(subscription)),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            *self._unchanged(subscription.tenant_id, subscription.room_id, failover_chain),
        ]
        for _ in range(TRANSACTION_ATTEMPTS):
            failed = self._transact(transaction)
            if failed is None:
                return
            if failed > 1:
                raise chain_changed(subscription.id)
            if failed == 1:
                raise Conflict(f"subscription {subscription.id} exists already")
            # The room's condition failed: say why, or try again if it no longer does.
            self._explain_room_refusal(subscription.tenant_id, subscription.room_id, max_per_room)
        raise Conflict(f"room {subscription.room_id} kept changing meanwhile; try again")

    def _explain_room_refusal(self, tenant_id: str, room_id: str, max_per_room: int | None) -> None:
        """Raise why a room refused a subscription; return when it would take one now (it changed
        meanwhile, or its count was missing and has just been made)."""
        response = self._client.get_item(
            TableName=self._table_name, Key=room_key(tenant_id, room_id), ConsistentRead=True
        )
        room = items.from_attributes(response.get("Item", {}))
        if not room or DELETION_STARTED_AT in room:
            raise NotFound(f"room {room_id} not found")
        if SUBSCRIPTION_COUNT not in room:
            self._count_existing_subscriptions(tenant_id, room_id)
        elif max_per_room is not None and room[SUBSCRIPTION_COUNT] >= max_per_room:
            raise LimitExceeded(f"a room holds at most {max_per_room} subscriptions")

    def _count_existing_subscriptions(self, tenant_id: str, room_id: str) -> None:
        """Give a room made before rooms counted their subscriptions its count (once: a racing
        request that counts too finds the count made and leaves it)."""
        counted = self._count(catalog_items.room_partition_key(tenant_id, room_id), SUBSCRIPTION_PREFIX)
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=room_key(tenant_id, room_id),
                UpdateExpression=f"SET {SUBSCRIPTION_COUNT} = :counted",
                ConditionExpression=f"attribute_exists(PK) AND attribute_not_exists({SUBSCRIPTION_COUNT})",
                ExpressionAttributeValues={":counted": {"N": str(counted)}},
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def _unchanged(self, tenant_id: str, room_id: str, chain: Sequence[FailoverLink]) -> list[dict[str, Any]]:
        """One condition check per subscription of a checked failover chain."""
        checks = []
        for link in chain:
            check: dict[str, Any] = {
                "TableName": self._table_name,
                "Key": subscription_key(tenant_id, room_id, link.subscription_id),
            }
            if link.failover_subscription_id is None:
                check["ConditionExpression"] = (
                    "attribute_exists(PK) AND attribute_not_exists(failoverSubscriptionId)"
                )
            else:
                check["ConditionExpression"] = "attribute_exists(PK) AND failoverSubscriptionId = :failover"
                check["ExpressionAttributeValues"] = {":failover": {"S": link.failover_subscription_id}}
            checks.append({"ConditionCheck": check})
        return checks

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        if not SUBSCRIPTION_ID.match(subscription_id) or not ROOM_ID.match(room_id):
            raise NotFound(f"subscription {subscription_id[:80]} not found in room {room_id[:80]}")
        response = self._client.get_item(
            TableName=self._table_name,
            Key=subscription_key(tenant_id, room_id, subscription_id),
            ConsistentRead=True,
        )
        if "Item" not in response:
            raise NotFound(f"subscription {subscription_id} not found in room {room_id}")
        return catalog_items.subscription_from_item(items.from_attributes(response["Item"]))

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[Subscription]:
        """A page of the room's subscriptions by id; a position is the last subscription id of a page."""
        partition = catalog_items.room_partition_key(tenant_id, room_id)
        page = self._query_page(partition, limit, start, SUBSCRIPTION_PREFIX, SUBSCRIPTION_ID)
        return Page([catalog_items.subscription_from_item(item) for item in page.items], page.next_position)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        """Every subscription of a room: one Query per MB of subscriptions (a few hundred each)."""
        partition = catalog_items.room_partition_key(tenant_id, room_id)
        return [
            catalog_items.subscription_from_item(item)
            for item in self._query_all(partition, SUBSCRIPTION_PREFIX)
        ]

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        """The room's count of its subscriptions (one small read); rooms made before rooms
        counted them are counted (one query)."""
        response = self._client.get_item(
            TableName=self._table_name,
            Key=room_key(tenant_id, room_id),
            ProjectionExpression=SUBSCRIPTION_COUNT,
            ConsistentRead=True,
        )
        stored = response.get("Item", {}).get(SUBSCRIPTION_COUNT)
        if stored is not None:
            return int(stored["N"])
        return self._count(catalog_items.room_partition_key(tenant_id, room_id), SUBSCRIPTION_PREFIX)

    def replace_subscription(self, subscription: Subscription, expected_updated_at: str) -> None:
        """Overwrite a subscription if nobody changed it since it was read (optimistic locking),
        bumping its room's subscriptions version in the same transaction."""
        self.replace_subscription_checked(subscription, expected_updated_at, ())

    def replace_subscription_checked(
        self, subscription: Subscription, expected_updated_at: str, failover_chain: Sequence[FailoverLink]
    ) -> None:
        """``replace_subscription``, and only while every subscription of ``failover_chain`` is as
        it was read (one transaction; Conflict otherwise)."""
        put = {
            "TableName": self._table_name,
            "Item": items.to_attributes(catalog_items.subscription_to_item(subscription)),
            "ConditionExpression": "updatedAt = :seen",
            "ExpressionAttributeValues": {":seen": {"S": expected_updated_at}},
        }
        chain = self._unchanged(subscription.tenant_id, subscription.room_id, failover_chain)
        bump = [version_bump(self._table_name, subscription.tenant_id, subscription.room_id)]
        for _ in range(TRANSACTION_ATTEMPTS):
            failed = self._transact([{"Put": put}, *chain, *bump])
            if failed is None:
                return
            if failed == 0:
                raise Conflict(
                    f"subscription {subscription.id} was changed or deleted meanwhile; read it again"
                )
            if 0 < failed <= len(chain):
                raise chain_changed(subscription.id)
            if failed > len(chain):
                bump = []  # the room is gone: no publish reads its subscriptions any more
            # else a racing transaction (DynamoDB did not say which item): try again
        raise Conflict(f"subscription {subscription.id} kept changing meanwhile; try again")

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        """Delete a subscription and uncount it in one transaction (nothing if it is gone; a room
        without a count, or gone, only loses the subscription)."""
        the_subscription = subscription_key(tenant_id, room_id, subscription_id)
        transaction = [
            {
                "Delete": {
                    "TableName": self._table_name,
                    "Key": the_subscription,
                    "ConditionExpression": "attribute_exists(PK)",
                }
            },
            {
                "Update": {
                    "TableName": self._table_name,
                    "Key": room_key(tenant_id, room_id),
                    "UpdateExpression": f"SET {SUBSCRIPTION_COUNT} = {SUBSCRIPTION_COUNT} - :one, "
                    + VERSION_ONE_MORE,
                    "ConditionExpression": f"{SUBSCRIPTION_COUNT} > :zero",
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":zero": {"N": "0"}},
                }
            },
        ]
        for _ in range(TRANSACTION_ATTEMPTS):
            failed = self._transact(transaction)
            if failed is None or failed == 0:
                return
            if failed == 1:
                break
        # A room with no count (or gone), or one that kept changing: the subscription goes anyway;
        # a count left one too high only refuses a subscription early.
        self._client.delete_item(TableName=self._table_name, Key=the_subscription)
        self._transact(
            [version_bump(self._table_name, tenant_id, room_id)]
        )  # a room gone has nothing to bump
