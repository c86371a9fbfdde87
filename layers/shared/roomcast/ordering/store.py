"""Ordering keys in the table (docs/decisions/0041-ordering-keys.md): per (subscription, key), a
head and the key's waiting messages, in one partition, so that one strongly consistent Query
reads the head and the next messages in publish order.

| item    | PK                                             | SK                                   |
| ------- | ---------------------------------------------- | ------------------------------------ |
| head    | ``TENANT#<tenant>#SUB#<subId>#OKEY#<key>``     | ``HEAD``                             |
| waiting | ``TENANT#<tenant>#SUB#<subId>#OKEY#<key>``     | ``SEQ#<number>#<messageId>``         |

``HEAD`` sorts before ``SEQ#``. Keys of different subscriptions, and different keys, are different
partitions: they never share a write budget. A paused head carries ``GSI2PK`` =
``TENANT#<tenant>#SUB#<subId>#PAUSED`` and ``GSI2SK`` = ``<pausedAtMs>#<key>`` — the sparse,
keys-only index the scheduled messages use (``Scheduled``; the prefixes never meet) — so that the
paused keys of a subscription are listed without reading the others.

Every change of a head is one conditional put of the whole head (roomcast.ordering.heads says
what it leaves and on which condition); a refused condition means another step moved the key
first: the caller reads it again and plans anew. A ``holding`` copy (one outbox invocation's)
holds the deletions of ended messages' places back, to go 25 a BatchWriteItem.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.messages import Message, message_ttl, ttl
from roomcast.ordering.heads import (
    HEAD_SORT_KEY,
    head_after,
    head_condition,
    head_from_item,
    key_partition,
    paused_partition,
    released_alone_condition,
)
from roomcast.ordering.model import KeyHead, KeyPlan, KeyRef
from roomcast.platform import TableAccess, is_condition_failure, items, key, logger

WAITING_PREFIX: Final = "SEQ#"
# A key's line as read for one step: the head, and enough of the waiting messages for the plan
# (the one that ended, the one in flight, the next).
LOOKAHEAD: Final = 3


def waiting_sort_key(number: int, message_id: str) -> str:
    return f"{WAITING_PREFIX}{number:015d}#{message_id}"


def place_item(ref: KeyRef, message_id: str, number: int, ttl_s: int) -> items.Item:
    """A message's place in a key's line; gone at ``ttl_s`` (a line left by a deleted
    subscription does not stay for ever)."""
    return {
        "PK": key_partition(ref),
        "SK": waiting_sort_key(number, message_id),
        "messageId": message_id,
        "ttl": ttl_s,
    }


def waiting_items(message: Message) -> list[items.Item]:
    """A message's place in the key line of each of its ordered destinations, stored with it."""
    key, number = message.ordering_key, message.ordering_number
    if key is None or number is None:
        return []
    return [
        place_item(
            KeyRef(message.tenant_id, message.room_id, s, key), message.id, number, message_ttl(message)
        )
        for s in message.ordered_to
    ]


@dataclass(frozen=True)
class KeyLine:
    """A key as read: its head (None: never claimed, or expired idle) and its first waiting
    messages in publish order (their ids, and their places' sort keys)."""

    head: KeyHead | None
    waiting: tuple[tuple[str, str], ...]

    @property
    def waiting_ids(self) -> list[str]:
        return [message_id for message_id, _ in self.waiting]

    def place_of(self, message_id: str) -> str | None:
        return next((sort_key for m, sort_key in self.waiting if m == message_id), None)


class OrderingKeys(TableAccess):
    # Places whose deletion is held back (``forget_later``), by key partition: only in a copy made
    # for one invocation (``holding``); None: each goes at once.
    _held: dict[str, list[str]] | None = None
    _holding: threading.Lock

    def holding(self) -> OrderingKeys:
        """A copy for one invocation: ``forget_later`` holds its deletions until ``forget_held``
        (or until the key's line is read again, which deletes that key's first)."""
        copy = OrderingKeys.sharing(self)
        copy._held = {}
        copy._holding = threading.Lock()
        return copy

    def forget_later(self, ref: KeyRef, place: str) -> None:
        """``forget``, held back to go with the invocation's others (25 a BatchWriteItem)."""
        if self._held is None:
            self.forget(ref, place)
            return
        with self._holding:
            self._held.setdefault(key_partition(ref), []).append(place)

    def forget_held(self) -> None:
        """Delete the places held back. A place left behind by a failure is a message that ended
        still in its line: the step that claims it finds its record ended and moves the key on
        (roomcast.ordering.sends)."""
        if not self._held:
            return
        with self._holding:
            held, self._held = self._held, {}
        deletes = [
            {"DeleteRequest": {"Key": key(partition, place)}}
            for partition, places in held.items()
            for place in places
        ]
        try:
            self._batch_write(deletes)
        except Exception:
            logger.warning("places of ended messages were left in their lines", exc_info=True)

    def read(self, ref: KeyRef, lookahead: int = LOOKAHEAD) -> KeyLine:
        if self._held:
            with self._holding:
                places = self._held.pop(key_partition(ref), [])
            for place in places:  # this key's held deletions first: its line as it stands
                self.forget(ref, place)
        response = self._client.query(
            TableName=self._table_name,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": key_partition(ref)}},
            ConsistentRead=True,
            Limit=lookahead + 1,
        )
        found = [items.from_attributes(raw) for raw in response.get("Items", [])]
        head = next((head_from_item(i) for i in found if i["SK"] == HEAD_SORT_KEY), None)
        waiting = tuple((i["messageId"], i["SK"]) for i in found if i["SK"].startswith(WAITING_PREFIX))
        return KeyLine(head, waiting[:lookahead])

    def add_place(self, ref: KeyRef, message_id: str, number: int) -> None:
        """A message's place in a key's line, outside a publish: a message handed to an ordered
        failover (roomcast.endings.endings) takes the place its number gives it."""
        place = place_item(ref, message_id, number, ttl())  # (kept as long as a delivery record)
        self._client.put_item(TableName=self._table_name, Item=items.to_attributes(place))

    def forget(self, ref: KeyRef, place: str) -> None:
        """Take a message out of its key's line (``place``: its sort key)."""
        self._client.delete_item(TableName=self._table_name, Key=key(key_partition(ref), place))

    def change_head(
        self, ref: KeyRef, steps: KeyPlan, trigger: str, now_ms: int, head: KeyHead | None
    ) -> bool:
        """Write what ``steps`` does to the head read as ``head`` (None: there was none) — release,
        pause, unpause, claim — in one conditional put; False when its condition failed (the key
        moved meanwhile)."""
        written = head_after(ref, head, steps, trigger, now_ms)
        return written is None or self._put_head(written, head_condition(head, steps))

    def _put_head(self, written: items.Item, condition: dict[str, Any]) -> bool:
        try:
            self._client.put_item(TableName=self._table_name, Item=items.to_attributes(written), **condition)
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def release_alone(self, ref: KeyRef, message_id: str, now_ms: int) -> bool:
        """Release the key from ``message_id`` without reading it: only while the head holds that
        message, flows, and has no message queued behind it (False otherwise: nothing written).
        The head this leaves is the same whatever it held besides."""
        written = head_after(ref, None, KeyPlan(release=message_id), "", now_ms)
        assert written is not None  # a release always writes
        return self._put_head(written, released_alone_condition(message_id))

    def paused_keys(self, tenant_id: str, subscription_id: str, limit: int) -> list[KeyHead]:
        """A subscription's paused keys, longest paused first (at most ``limit``)."""
        response = self._client.query(
            TableName=self._table_name,
            IndexName="Scheduled",
            KeyConditionExpression="GSI2PK = :pk",
            ExpressionAttributeValues={":pk": {"S": paused_partition(tenant_id, subscription_id)}},
            Limit=limit,
        )
        keys = [{"PK": raw["PK"], "SK": raw["SK"]} for raw in response.get("Items", [])]
        heads = [head_from_item(i) for i in self._batch_get(keys)] if keys else []
        # The index is read eventually: a key resumed meanwhile is no longer paused.
        order = {raw["PK"]["S"]: n for n, raw in enumerate(response.get("Items", []))}
        paused = [h for h in heads if h.paused]
        return sorted(paused, key=lambda h: order.get(key_partition(h.ref), 0))
