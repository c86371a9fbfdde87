"""Numbers in an ordering key's line (docs/decisions/0041-ordering-keys.md): each keyed publish
to a room takes the next numbers of its keys — a small counter item per key — so that a key's
messages line up in the order their publishes were accepted, whatever the publishing functions'
clocks say.

| item    | PK                                         | SK        |
| ------- | ------------------------------------------ | --------- |
| counter | ``TENANT#<tenant>#ROOM#<roomId>#OKEY#<key>`` | ``NUMBERS`` |

Two ways to take them, the same numbers either way (ADR 0041, amendment "numbers in one
transaction"): a few keys take one atomic ADD each, side by side (one wait, a call a key); a batch
of many keys reads its counters in one call and moves them all in one transaction whose every
counter must still hold what was read (two waits, two calls for up to 100 keys). When another
publish moved one of those counters in between, the transaction changes nothing and the keys take
their numbers by ADD after all: a number is never handed out twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from roomcast.platform import TableAccess, key, logger

# From this many keys a publish takes its numbers in one transaction (2 calls) rather than one
# ADD per key (a call each): below it the ADDs are as few calls and one wait less.
TOGETHER_FROM_KEYS: Final = 3
# One transaction takes 100 items, and BatchGetItem 100 keys.
TOGETHER_MAX_KEYS: Final = 100
# The ADDs side by side: a batch of 100 keys waits four rounds of them rather than a hundred
# (within the SDK's connection pool).
_SIDE_BY_SIDE = ThreadPoolExecutor(max_workers=25, thread_name_prefix="ordering-numbers")


def counter_key(tenant_id: str, room_id: str, ordering_key: str) -> dict[str, Any]:
    return key(f"TENANT#{tenant_id}#ROOM#{room_id}#OKEY#{ordering_key}", "NUMBERS")


class KeyNumbers(TableAccess):
    def take_ordering_numbers(
        self, tenant_id: str, room_id: str, counts: Mapping[str, int]
    ) -> dict[str, int]:
        """Take ``counts[key]`` fresh numbers of each of a room's keys; for each key the last of
        them (the first is ``last - count + 1``). A number taken by a publish that then failed is
        a gap, never a duplicate."""
        if TOGETHER_FROM_KEYS <= len(counts) <= TOGETHER_MAX_KEYS:
            together = self._take_together(tenant_id, room_id, counts)
            if together is not None:
                return together
        keys = list(counts)
        taken = _SIDE_BY_SIDE.map(lambda k: self._take_one(tenant_id, room_id, k, counts[k]), keys)
        return dict(zip(keys, taken, strict=True))

    def _take_one(self, tenant_id: str, room_id: str, ordering_key: str, count: int) -> int:
        answer = self._client.update_item(
            TableName=self._table_name,
            Key=counter_key(tenant_id, room_id, ordering_key),
            UpdateExpression="ADD #next :count",
            ExpressionAttributeNames={"#next": "next"},
            ExpressionAttributeValues={":count": {"N": str(count)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(answer["Attributes"]["next"]["N"])

    def _take_together(
        self, tenant_id: str, room_id: str, counts: Mapping[str, int]
    ) -> dict[str, int] | None:
        """Every key's numbers in one transaction, conditional on the counters as read; None when
        a counter moved meanwhile, and nothing was taken."""
        was = self._read_counters(tenant_id, room_id, list(counts))
        last = {k: was[k] + count for k, count in counts.items()}
        moves = [_move(self._table_name, counter_key(tenant_id, room_id, k), was[k], last[k]) for k in counts]
        if self._transact(moves) is not None:
            logger.info(
                "ordering numbers moved meanwhile; taken one key at a time", extra={"keys": len(counts)}
            )
            return None
        return last

    def _read_counters(self, tenant_id: str, room_id: str, keys: Sequence[str]) -> dict[str, int]:
        """Each key's counter as it stands (0: never taken), read consistently in one call."""
        by_partition = {counter_key(tenant_id, room_id, name)["PK"]["S"]: name for name in keys}
        read = self._batch_get([counter_key(tenant_id, room_id, name) for name in keys])
        found = dict.fromkeys(keys, 0)
        found.update((by_partition[item["PK"]], int(item["next"])) for item in read)
        return found


def _move(table_name: str, item_key: dict[str, Any], was: int, last: int) -> dict[str, Any]:
    """A transaction's write of one counter from ``was`` (0: no counter yet) to ``last``: a put of
    the whole item (a counter holds nothing else), for the same units and wait on AWS as an update
    and a third of the emulator's time."""
    return {
        "Put": {
            "TableName": table_name,
            "Item": {**item_key, "next": {"N": str(last)}},
            "ConditionExpression": "#next = :was" if was else "attribute_not_exists(PK)",
            **(
                {
                    "ExpressionAttributeNames": {"#next": "next"},
                    "ExpressionAttributeValues": {":was": {"N": str(was)}},
                }
                if was
                else {}
            ),
        }
    }
