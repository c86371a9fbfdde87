"""What the catalog's modules share (rooms: roomcast.catalog.rooms; subscriptions:
roomcast.catalog.subscriptions and roomcast.catalog.marks): keys, id formats, the room's own
attributes, and the write that tells readers a room's subscriptions changed."""

from __future__ import annotations

import re
from typing import Any, Final

from roomcast.catalog import items as catalog_items
from roomcast.platform import Conflict, Key, ids, items, key

ROOM_ID = re.compile(ids.ROOM_ID_PATTERN)
SUBSCRIPTION_ID = re.compile(ids.SUBSCRIPTION_ID_PATTERN)
ROOM_PREFIX = "ROOM#"
SUBSCRIPTION_PREFIX = "SUB#"
# Room attributes that are no field of the room (a room's PUT keeps them).
SUBSCRIPTION_COUNT: Final = "subscriptionCount"
DELETION_STARTED_AT: Final = "deletionStartedAt"
DELETION_JOB: Final = "deletionJobId"
SUBSCRIPTIONS_VERSION: Final = "subscriptionsVersion"
ROOM_KEY_ATTRIBUTES: Final = ("PK", "SK")
VERSION_ONE_MORE: Final = f"{SUBSCRIPTIONS_VERSION} = if_not_exists({SUBSCRIPTIONS_VERSION}, :zero) + :one"
COUNT_ONE_MORE: Final = (
    f"SET {SUBSCRIPTION_COUNT} = if_not_exists({SUBSCRIPTION_COUNT}, :zero) + :one, {VERSION_ONE_MORE}"
)
# A transaction that a racing one cancelled is tried again this often before giving up.
TRANSACTION_ATTEMPTS: Final = 3


def room_key(tenant_id: str, room_id: str) -> Key:
    return key(items.tenant_key(tenant_id), catalog_items.room_sort_key(room_id))


def subscription_key(tenant_id: str, room_id: str, subscription_id: str) -> Key:
    return key(
        catalog_items.room_partition_key(tenant_id, room_id),
        catalog_items.subscription_sort_key(subscription_id),
    )


def version_bump(table_name: str, tenant_id: str, room_id: str) -> dict[str, Any]:
    """The transaction item that tells publishes (and the push function) the room's
    subscriptions changed."""
    return {
        "Update": {
            "TableName": table_name,
            "Key": room_key(tenant_id, room_id),
            "UpdateExpression": f"SET {VERSION_ONE_MORE}",
            "ConditionExpression": "attribute_exists(PK)",
            "ExpressionAttributeValues": {":one": {"N": "1"}, ":zero": {"N": "0"}},
        }
    }


def chain_changed(subscription_id: str) -> Conflict:
    return Conflict(
        f"the failover chain of subscription {subscription_id} changed meanwhile; read it again and retry"
    )
