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

Every change of a head is one conditional put of the whole head, made from the head as the step
read it (roomcast.ordering.model says what changes): it goes through only while the head is still
at the revision read (or still absent), and, as before revisions, a release only of the message
the head still holds, a claim only of a free, flowing key, an unpause only of a paused one. A
refused condition means another step moved the key first: the caller reads it again and plans
anew. (A put rather than an update: the same unit and wait on AWS, and a third of the emulator's
time for an update of a dozen clauses — issue 52.)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Final

from botocore.exceptions import ClientError

from roomcast.messages import Message, message_ttl, ttl
from roomcast.ordering.model import KeyHead, KeyPlan, KeyRef, KeyState
from roomcast.platform import TableAccess, is_condition_failure, items, key

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
        revision=item.get("revision"),
        queued=bool(item.get("queued", False)),
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

    def change_head(
        self, ref: KeyRef, steps: KeyPlan, trigger: str, now_ms: int, head: KeyHead | None
    ) -> bool:
        """Write what ``steps`` does to the head read as ``head`` (None: there was none) — release,
        pause, unpause, claim — in one conditional put; False when its condition failed (the key
        moved meanwhile)."""
        written = _head_after(ref, head, steps, trigger, now_ms)
        if written is None:
            return True
        try:
            self._client.put_item(
                TableName=self._table_name, Item=items.to_attributes(written), **_head_condition(head, steps)
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def release_alone(self, ref: KeyRef, message_id: str, now_ms: int) -> bool:
        """Release the key from ``message_id`` without reading it: only while the head holds that
        message, flows, and has no message queued behind it (False otherwise: nothing written).
        The head this leaves is the same whatever it held besides."""
        written = _head_after(ref, None, KeyPlan(release=message_id), "", now_ms)
        assert written is not None  # a release always writes
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(written),
                ConditionExpression=(
                    "attribute_exists(#revision) AND #inFlight = :held AND #state = :flowing"
                    " AND attribute_not_exists(#queued)"
                ),
                ExpressionAttributeNames={
                    "#revision": "revision",
                    "#inFlight": "inFlight",
                    "#state": "state",
                    "#queued": "queued",
                },
                ExpressionAttributeValues={
                    ":held": {"S": message_id},
                    ":flowing": {"S": KeyState.FLOWING.value},
                },
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

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


def _head_after(
    ref: KeyRef, head: KeyHead | None, steps: KeyPlan, trigger: str, now_ms: int
) -> items.Item | None:
    """The head as ``steps`` leaves it (None: they leave it as it is)."""
    claim = steps.claim or steps.replay
    moves = steps.release is not None or steps.pause is not None or steps.unpause or claim is not None
    if not moves and steps.queued is None:
        return None
    was = head or KeyHead(ref)
    state, dead, reason, paused_at = was.state, was.dead_message_id, was.paused_reason, was.paused_at_ms
    if steps.unpause:
        state, dead, reason, paused_at = KeyState.FLOWING, None, None, None
    if steps.pause is not None:
        state, dead, reason, paused_at = KeyState.PAUSED, steps.pause, (steps.reason or "dead")[:300], now_ms
    written: items.Item = {
        "PK": key_partition(ref),
        "SK": HEAD_SORT_KEY,
        "tenantId": ref.tenant_id,
        "roomId": ref.room_id,
        "subscriptionId": ref.subscription_id,
        "orderingKey": ref.ordering_key,
        "state": state.value,
        "revision": secrets.token_hex(8),
        "queued": (was.queued if steps.queued is None else steps.queued) or None,
    }
    if state is KeyState.PAUSED:
        paused_at = now_ms if paused_at is None else paused_at
        written |= {
            "deadMessageId": dead,
            "pausedReason": reason,
            "pausedAtMs": paused_at,
            "GSI2PK": paused_partition(ref.tenant_id, ref.subscription_id),
            "GSI2SK": f"{paused_at:015d}#{ref.ordering_key}",
        }
    if claim is not None:
        written |= {"inFlight": claim, "claimedBy": trigger}
    elif not moves:  # only ``queued`` changes: the message in flight stays
        written |= {"inFlight": was.in_flight, "claimedBy": was.claimed_by}
    if "inFlight" not in written and state is KeyState.FLOWING:
        written["ttl"] = now_ms // 1000 + IDLE_HEAD_SECONDS
    return {name: value for name, value in written.items() if value is not None}


def _head_condition(head: KeyHead | None, steps: KeyPlan) -> dict[str, Any]:
    """The put's condition: the head as read, and what the plan relies on."""
    if head is None:
        return {"ConditionExpression": "attribute_not_exists(PK)"}
    conditions: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = {}

    def require(condition: str, attribute: str, **named: Any) -> None:
        conditions.append(f"({condition})")
        names[f"#{attribute}"] = attribute
        values.update({f":{name}": items.to_attributes({"v": value})["v"] for name, value in named.items()})

    if head.revision is not None:
        require("#revision = :revision", "revision", revision=head.revision)
    else:  # a head written before revisions
        require("attribute_not_exists(#revision)", "revision")
    if steps.release is not None:
        require("#inFlight = :held", "inFlight", held=steps.release)
    if steps.unpause:
        require("#state = :paused", "state", paused=KeyState.PAUSED.value)
    if (steps.claim or steps.replay) is not None:
        if steps.release is None:
            require("attribute_not_exists(#inFlight)", "inFlight")
        if not steps.unpause:
            require(
                "attribute_not_exists(#state) OR #state = :flowing", "state", flowing=KeyState.FLOWING.value
            )
    request: dict[str, Any] = {
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": names,
    }
    if values:
        request["ExpressionAttributeValues"] = values
    return request
