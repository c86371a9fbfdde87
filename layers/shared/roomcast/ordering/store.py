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

Every change of a head is one conditional UpdateItem (roomcast.ordering.model says which): a
release only of the message the head still holds, a claim only of a free, flowing key, an unpause
only of a paused one. A refused condition means another step moved the key first: the caller reads
it again and plans anew.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from roomcast.messages import Message, message_ttl, ttl
from roomcast.ordering.model import KeyHead, KeyPlan, KeyRef, KeyState
from roomcast.platform import TableAccess, items, key

HEAD_SORT_KEY: Final = "HEAD"
WAITING_PREFIX: Final = "SEQ#"
# A key's line as read for one step: the head, and enough of the waiting messages for the plan
# (the one that ended, the one in flight, the next).
LOOKAHEAD: Final = 3
# A head left with nothing in flight and nothing waiting expires (DynamoDB TTL) after this long:
# keys are as many as the entities they order, and an idle key costs nothing to create again.
IDLE_HEAD_SECONDS: Final = 7 * 24 * 3600


def paused_partition(tenant_id: str, subscription_id: str) -> str:
    return f"TENANT#{tenant_id}#SUB#{subscription_id}#PAUSED"


def waiting_sort_key(number: int, message_id: str) -> str:
    return f"{WAITING_PREFIX}{number:015d}#{message_id}"


def key_partition(ref: KeyRef) -> str:
    return f"TENANT#{ref.tenant_id}#SUB#{ref.subscription_id}#OKEY#{ref.ordering_key}"


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


def head_from_item(item: items.Item) -> KeyHead:
    return KeyHead(
        KeyRef(item["tenantId"], item["roomId"], item["subscriptionId"], item["orderingKey"]),
        in_flight=item.get("inFlight"),
        claimed_by=item.get("claimedBy"),
        state=KeyState(item.get("state", KeyState.FLOWING.value)),
        dead_message_id=item.get("deadMessageId"),
        paused_reason=item.get("pausedReason"),
        paused_at_ms=int(item["pausedAtMs"]) if "pausedAtMs" in item else None,
    )


class OrderingKeys(TableAccess):
    def read(self, ref: KeyRef, lookahead: int = LOOKAHEAD) -> KeyLine:
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

    def change_head(self, ref: KeyRef, steps: KeyPlan, trigger: str, now_ms: int) -> bool:
        """Write what ``steps`` does to the head (release, pause, unpause, claim) in one
        conditional update; False when its condition failed (the key moved meanwhile)."""
        update = _head_update(ref, steps, trigger, now_ms)
        return update is None or self._update_if(key(key_partition(ref), HEAD_SORT_KEY), **update) is not None

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


class _Update:
    """One UpdateItem of a head: what it sets and removes, on which conditions."""

    def __init__(self) -> None:
        self.sets: list[str] = []
        self.removes: list[str] = []
        self.conditions: list[str] = []
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}

    def set(self, attribute: str, value: Any) -> None:
        self.names[f"#{attribute}"] = attribute
        self.values[f":{attribute}"] = items.to_attributes({"v": value})["v"]
        self.sets.append(f"#{attribute} = :{attribute}")

    def remove(self, *attributes: str) -> None:
        for attribute in attributes:
            self.names[f"#{attribute}"] = attribute
            self.removes.append(f"#{attribute}")

    def require(self, condition: str, attribute: str, **values: Any) -> None:
        """``condition`` on ``attribute`` (named ``#<attribute>`` in it)."""
        self.conditions.append(condition)
        self.names[f"#{attribute}"] = attribute
        for name, value in values.items():
            self.values[f":{name}"] = items.to_attributes({"v": value})["v"]

    def request(self) -> dict[str, Any]:
        expression = "SET " + ", ".join(self.sets)
        if self.removes:
            expression += " REMOVE " + ", ".join(self.removes)
        request: dict[str, Any] = {
            "UpdateExpression": expression,
            "ExpressionAttributeNames": self.names,
            "ExpressionAttributeValues": self.values,
        }
        if self.conditions:
            request["ConditionExpression"] = " AND ".join(f"({c})" for c in self.conditions)
        return request


def _head_update(ref: KeyRef, steps: KeyPlan, trigger: str, now_ms: int) -> dict[str, Any] | None:
    claim = steps.claim or steps.replay
    if steps.release is None and steps.pause is None and not steps.unpause and claim is None:
        return None
    update = _Update()
    for attribute, value in (
        ("tenantId", ref.tenant_id),
        ("roomId", ref.room_id),
        ("subscriptionId", ref.subscription_id),
        ("orderingKey", ref.ordering_key),
    ):
        update.set(attribute, value)
    if steps.release is not None:
        update.require("#inFlight = :held", "inFlight", held=steps.release)
    if steps.unpause:
        update.require("#state = :paused", "state", paused=KeyState.PAUSED.value)
        update.set("state", KeyState.FLOWING.value)
        update.remove("deadMessageId", "pausedReason", "pausedAtMs", "GSI2PK", "GSI2SK")
    if steps.pause is not None:
        update.set("state", KeyState.PAUSED.value)
        update.set("deadMessageId", steps.pause)
        update.set("pausedReason", (steps.reason or "dead")[:300])
        update.set("pausedAtMs", now_ms)
        update.set("GSI2PK", paused_partition(ref.tenant_id, ref.subscription_id))
        update.set("GSI2SK", f"{now_ms:015d}#{ref.ordering_key}")
    if claim is not None:
        if steps.release is None:
            update.require("attribute_not_exists(#inFlight)", "inFlight")
        if not steps.unpause:
            update.require(
                "attribute_not_exists(#state) OR #state = :flowing", "state", flowing=KeyState.FLOWING.value
            )
        update.set("inFlight", claim)
        update.set("claimedBy", trigger)
        update.remove("ttl")
    else:
        update.remove("inFlight", "claimedBy")
        if steps.pause is None:
            update.set("ttl", now_ms // 1000 + IDLE_HEAD_SECONDS)
    return update.request()
