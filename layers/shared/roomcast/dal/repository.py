"""Rooms and subscriptions in DynamoDB (keys and item shapes: ``roomcast.dal.items``).

Every call names the tenant, which is part of every key: nothing can cross tenants.

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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from roomcast.dal import items
from roomcast.dal.pages import Page, Position
from roomcast.dal.routing_cache import SubscriptionCache
from roomcast.dal.table import Key, TableAccess, is_condition_failure, key
from roomcast.domain import ids
from roomcast.domain.models import Room, Subscription
from roomcast.errors import Conflict, LimitExceeded, NotFound

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_ROOM_ID = re.compile(ids.ROOM_ID_PATTERN)
_SUBSCRIPTION_ID = re.compile(ids.SUBSCRIPTION_ID_PATTERN)
_ROOM_PREFIX = "ROOM#"
_SUBSCRIPTION_PREFIX = "SUB#"
# Room attributes that are no field of the room (a room's PUT keeps them).
SUBSCRIPTION_COUNT: Final = "subscriptionCount"
DELETION_STARTED_AT: Final = "deletionStartedAt"
SUBSCRIPTIONS_VERSION: Final = "subscriptionsVersion"
_ROOM_KEY_ATTRIBUTES: Final = ("PK", "SK")
_VERSION_ONE_MORE: Final = f"{SUBSCRIPTIONS_VERSION} = if_not_exists({SUBSCRIPTIONS_VERSION}, :zero) + :one"
_COUNT_ONE_MORE: Final = (
    f"SET {SUBSCRIPTION_COUNT} = if_not_exists({SUBSCRIPTION_COUNT}, :zero) + :one, {_VERSION_ONE_MORE}"
)
# A transaction that a racing one cancelled is tried again this often before giving up.
_ATTEMPTS: Final = 3


@dataclass(frozen=True)
class FailoverLink:
    """A subscription of a failover chain as a check read it: a write relying on the check goes
    through only while this subscription exists and names the same failover (None: none)."""

    subscription_id: str
    failover_subscription_id: str | None


def _room_key(tenant_id: str, room_id: str) -> Key:
    return key(items.tenant_key(tenant_id), items.room_sort_key(room_id))


def _subscription_key(tenant_id: str, room_id: str, subscription_id: str) -> Key:
    return key(items.room_partition_key(tenant_id, room_id), items.subscription_sort_key(subscription_id))


class CatalogStore(TableAccess):
    """Rooms and subscriptions of every tenant (API keys: ``roomcast.dal.api_keys``)."""

    def __init__(self, table_name: str, client: DynamoDBClient | None = None) -> None:
        super().__init__(table_name, client)
        self.routing_cache = SubscriptionCache()

    # -- rooms ----------------------------------------------------------------------------------

    def create_room(self, room: Room) -> None:
        self._client.put_item(
            TableName=self._table_name,
            Item=items.to_attributes(items.room_to_item(room) | {SUBSCRIPTION_COUNT: 0}),
            ConditionExpression="attribute_not_exists(PK)",
        )

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        return items.room_from_item(self._room_item(tenant_id, room_id))

    def _room_item(self, tenant_id: str, room_id: str) -> items.Item:
        """The room's item, read strongly consistently (NotFound without one)."""
        if not _ROOM_ID.match(room_id):
            raise NotFound(f"room {room_id[:80]} not found")
        response = self._client.get_item(
            TableName=self._table_name, Key=_room_key(tenant_id, room_id), ConsistentRead=True
        )
        if "Item" not in response:
            raise NotFound(f"room {room_id} not found")
        return items.from_attributes(response["Item"])

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

    def list_rooms(self, tenant_id: str, limit: int, start: Position | None) -> Page[Room]:
        """A page of the tenant's rooms by id; a position is the last room id of a page."""
        page = self._query_page(items.tenant_key(tenant_id), limit, start, _ROOM_PREFIX, _ROOM_ID)
        return Page([items.room_from_item(item) for item in page.items], page.next_position)

    def replace_room(self, room: Room) -> None:
        """Overwrite an existing room's fields (its subscription count and deletion mark stay);
        NotFound if it was deleted meanwhile."""
        fields = {k: v for k, v in items.room_to_item(room).items() if k not in _ROOM_KEY_ATTRIBUTES}
        names = {f"#f{i}": name for i, name in enumerate(fields)}
        values = {f":f{i}": value for i, value in enumerate(fields.values()) if value is not None}
        expression = "SET " + ", ".join(f"#f{i} = :f{i}" for i in range(len(fields)) if f":f{i}" in values)
        if cleared := [f"#f{i}" for i in range(len(fields)) if f":f{i}" not in values]:
            expression += " REMOVE " + ", ".join(cleared)
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_room_key(room.tenant_id, room.id),
                UpdateExpression=expression,
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=items.to_attributes(values),
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {room.id} not found") from error
            raise

    def start_room_deletion(self, tenant_id: str, room_id: str, started_at: str) -> None:
        """Mark the room as being deleted: from now on no subscription can be added to it (so the
        subscriptions listed afterwards are all it has). NotFound if it is gone."""
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_room_key(tenant_id, room_id),
                UpdateExpression="SET #started = if_not_exists(#started, :now)",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#started": DELETION_STARTED_AT},
                ExpressionAttributeValues={":now": {"S": started_at}},
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {room_id} not found") from error
            raise

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self._client.delete_item(TableName=self._table_name, Key=_room_key(tenant_id, room_id))

    # -- subscriptions --------------------------------------------------------------------------

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
        room_key = _room_key(subscription.tenant_id, subscription.room_id)
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
                    "Key": room_key,
                    "UpdateExpression": _COUNT_ONE_MORE,
                    "ConditionExpression": room_condition,
                    "ExpressionAttributeValues": values,
                }
            },
            {
                "Put": {
                    "TableName": self._table_name,
                    "Item": items.to_attributes(items.subscription_to_item(subscription)),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            *self._unchanged(subscription.tenant_id, subscription.room_id, failover_chain),
        ]
        for _ in range(_ATTEMPTS):
            failed = self._transact(transaction)
            if failed is None:
                return
            if failed > 1:
                raise _chain_changed(subscription.id)
            if failed == 1:
                raise Conflict(f"subscription {subscription.id} exists already")
            # The room's condition failed: say why, or try again if it no longer does.
            self._explain_room_refusal(subscription.tenant_id, subscription.room_id, max_per_room)
        raise Conflict(f"room {subscription.room_id} kept changing meanwhile; try again")

    def _explain_room_refusal(self, tenant_id: str, room_id: str, max_per_room: int | None) -> None:
        """Raise why a room refused a subscription; return when it would take one now (it changed
        meanwhile, or its count was missing and has just been made)."""
        response = self._client.get_item(
            TableName=self._table_name, Key=_room_key(tenant_id, room_id), ConsistentRead=True
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
        counted = self._count(items.room_partition_key(tenant_id, room_id), _SUBSCRIPTION_PREFIX)
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_room_key(tenant_id, room_id),
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
                "Key": _subscription_key(tenant_id, room_id, link.subscription_id),
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
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[Subscription]:
        """A page of the room's subscriptions by id; a position is the last subscription id of a page."""
        partition = items.room_partition_key(tenant_id, room_id)
        page = self._query_page(partition, limit, start, _SUBSCRIPTION_PREFIX, _SUBSCRIPTION_ID)
        return Page([items.subscription_from_item(item) for item in page.items], page.next_position)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        """Every subscription of a room: one Query per MB of subscriptions (a few hundred each)."""
        partition = items.room_partition_key(tenant_id, room_id)
        return [
            items.subscription_from_item(item) for item in self._query_all(partition, _SUBSCRIPTION_PREFIX)
        ]

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        """The room's count of its subscriptions (one small read); rooms made before rooms
        counted them are counted (one query)."""
        response = self._client.get_item(
            TableName=self._table_name,
            Key=_room_key(tenant_id, room_id),
            ProjectionExpression=SUBSCRIPTION_COUNT,
            ConsistentRead=True,
        )
        stored = response.get("Item", {}).get(SUBSCRIPTION_COUNT)
        if stored is not None:
            return int(stored["N"])
        return self._count(items.room_partition_key(tenant_id, room_id), _SUBSCRIPTION_PREFIX)

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
            "Item": items.to_attributes(items.subscription_to_item(subscription)),
            "ConditionExpression": "updatedAt = :seen",
            "ExpressionAttributeValues": {":seen": {"S": expected_updated_at}},
        }
        chain = self._unchanged(subscription.tenant_id, subscription.room_id, failover_chain)
        bump = [self._version_bump(subscription.tenant_id, subscription.room_id)]
        for _ in range(_ATTEMPTS):
            failed = self._transact([{"Put": put}, *chain, *bump])
            if failed is None:
                return
            if failed == 0:
                raise Conflict(
                    f"subscription {subscription.id} was changed or deleted meanwhile; read it again"
                )
            if 0 < failed <= len(chain):
                raise _chain_changed(subscription.id)
            if failed > len(chain):
                bump = []  # the room is gone: no publish reads its subscriptions any more
            # else a racing transaction (DynamoDB did not say which item): try again
        raise Conflict(f"subscription {subscription.id} kept changing meanwhile; try again")

    def _version_bump(self, tenant_id: str, room_id: str) -> dict[str, Any]:
        """The transaction item that tells publishes the room's subscriptions changed."""
        return {
            "Update": {
                "TableName": self._table_name,
                "Key": _room_key(tenant_id, room_id),
                "UpdateExpression": f"SET {_VERSION_ONE_MORE}",
                "ConditionExpression": "attribute_exists(PK)",
                "ExpressionAttributeValues": {":one": {"N": "1"}, ":zero": {"N": "0"}},
            }
        }

    def _tell_readers(self, subscription: Subscription) -> None:
        """Bump the room's subscriptions version after a change outside a transaction (the push
        function reads subscriptions through it too); a room gone meanwhile needs none."""
        bump = self._version_bump(subscription.tenant_id, subscription.room_id)["Update"]
        try:
            self._client.update_item(**bump)
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def mark_failing(self, subscription: Subscription, now_ms: int) -> int:
        """Start the subscription's failing streak unless one is running; returns its start.
        Touches neither ``updatedAt`` nor anything else (a PATCH meanwhile still applies). Rare
        (docs/decisions/0023-write-units.md): the room's version is bumped after it, in a write of
        its own rather than a transaction of twice the write units."""
        since = self._mark_failing(subscription, now_ms)
        self._tell_readers(subscription)
        return since

    def _mark_failing(self, subscription: Subscription, now_ms: int) -> int:
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
        """A success ends the failing streak (and the room's version tells readers)."""
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
            return
        self._tell_readers(subscription)

    def raise_cleared_watermark(
        self, subscription: Subscription, cleared_before_ms: int, updated_at: str
    ) -> None:
        """Clear All: every envelope queued up to ``cleared_before_ms`` ends cleared. Only ever
        raised, so that racing Clear Alls all succeed (the latest mark holds); ``updatedAt`` moves
        on, so that a PATCH of a copy read before it is refused instead of writing the mark back.
        NotFound if the subscription is gone. The room's version tells readers (the push function)."""
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=_subscription_key(subscription.tenant_id, subscription.room_id, subscription.id),
                UpdateExpression="SET clearedBeforeMs = :mark, updatedAt = :updated",
                ConditionExpression="attribute_exists(SK)"
                " AND (attribute_not_exists(clearedBeforeMs) OR clearedBeforeMs < :mark)",
                ExpressionAttributeValues={
                    ":mark": {"N": str(cleared_before_ms)},
                    ":updated": {"S": updated_at},
                },
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            if not error.response.get("Item"):
                raise NotFound(
                    f"subscription {subscription.id} not found in room {subscription.room_id}"
                ) from error
            return  # a later mark is there already: it covers this one
        self._tell_readers(subscription)

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        """Delete a subscription and uncount it in one transaction (nothing if it is gone; a room
        without a count, or gone, only loses the subscription)."""
        subscription_key = _subscription_key(tenant_id, room_id, subscription_id)
        transaction = [
            {
                "Delete": {
                    "TableName": self._table_name,
                    "Key": subscription_key,
                    "ConditionExpression": "attribute_exists(PK)",
                }
            },
            {
                "Update": {
                    "TableName": self._table_name,
                    "Key": _room_key(tenant_id, room_id),
                    "UpdateExpression": f"SET {SUBSCRIPTION_COUNT} = {SUBSCRIPTION_COUNT} - :one, "
                    + _VERSION_ONE_MORE,
                    "ConditionExpression": f"{SUBSCRIPTION_COUNT} > :zero",
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":zero": {"N": "0"}},
                }
            },
        ]
        for _ in range(_ATTEMPTS):
            failed = self._transact(transaction)
            if failed is None or failed == 0:
                return
            if failed == 1:
                break
        # A room with no count (or gone), or one that kept changing: the subscription goes anyway;
        # a count left one too high only refuses a subscription early.
        self._client.delete_item(TableName=self._table_name, Key=subscription_key)
        self._transact([self._version_bump(tenant_id, room_id)])  # a room gone has nothing to bump


def _chain_changed(subscription_id: str) -> Conflict:
    return Conflict(
        f"the failover chain of subscription {subscription_id} changed meanwhile; read it again and retry"
    )
