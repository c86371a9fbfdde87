"""A room's messages, newest first, from the ``ByRoom`` index, whose rows are spread over
ROOM_INDEX_SHARDS partition keys per room (``TENANT#<tenant>#ROOM#<room>#MSGS#<shard>``, the shard
from the message id): a busy room's publishes write eight keys, not one, so a room takes eight
times DynamoDB's 1,000 write units a second per key (docs/decisions/0034-room-index-shards.md). The
index holds the keys and ``eventType`` only: a message's copy is one write unit whatever its
destinations and payload.

A page queries every shard (at once) below the position and merges them. Every shard sorts by the
same key (``<publishedAt>#<messageId>``, unique), so a position stays that one value: the next
page is each shard's rows at or below it, the row at it left out. When a filter skipped so many
rows that a shard stopped before filling its part, only rows at or above where it stopped are
answered, and the page ends there (short, with a position to go on from).

The sparse ``Scheduled`` index (roomcast.deliver_at.store ``ScheduledIndex``) has the same shape,
sorted by deliverAt and read soonest first: the same merge, mirrored."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from roomcast.messages.items import (
    ROOM_INDEX,
    ROOM_INDEX_SHARDS,
    ROOM_INDEX_SORT_KEY,
    room_shard_key,
)
from roomcast.platform import Position, TableAccess, items, position_value

# Query rounds one shard may take to fill its part of a page when a filter skips rows.
_MAX_ROUNDS: Final = 5
_OLDEST: Final = "0000"
_NEWEST: Final = "9999"
_AFTER_ANY_ID: Final = "#~"


@dataclass(frozen=True)
class IndexPage:
    rows: list[items.Item]  # index rows (keys, eventType), newest first
    next_position: Position | None


@dataclass(frozen=True)
class _ShardPart:
    rows: list[items.Item]
    frontier: str | None  # the sort key it stopped at, rows below not read (None: none left)


class RoomIndex(TableAccess):
    """The ``ByRoom`` index: a room's messages newest first (by publishing time)."""

    index_name: str = ROOM_INDEX
    partition_attribute, sort_attribute = "GSI1PK", "GSI1SK"
    newest_first: bool = True

    @staticmethod
    def shard_key(tenant_id: str, room_id: str, shard: int) -> str:
        return room_shard_key(tenant_id, room_id, shard)

    def page(
        self,
        tenant_id: str,
        room_id: str,
        limit: int,
        start: Position | None,
        *,
        since: str | None = None,
        until: str | None = None,
        event_type: str | None = None,
    ) -> IndexPage:
        """Up to ``limit`` rows in the index's order, after ``start`` (a position this method
        answered), with times within [since, until] (ISO texts, inclusive) and of ``event_type``."""
        skip = position_value(start, ROOM_INDEX_SORT_KEY) if start is not None else None
        high = (until or _NEWEST) + _AFTER_ANY_ID
        low = since or _OLDEST
        if skip is not None and self.newest_first:
            high = min(high, skip)
        elif skip is not None:
            low = max(low, skip)
        shards = [self.shard_key(tenant_id, room_id, shard) for shard in range(ROOM_INDEX_SHARDS)]
        with ThreadPoolExecutor(max_workers=ROOM_INDEX_SHARDS) as pool:
            parts = list(pool.map(lambda key: self._part(key, low, high, skip, limit, event_type), shards))
        return merged(parts, limit, self.sort_attribute, self.newest_first)

    def _part(
        self, partition: str, low: str, high: str, skip: str | None, limit: int, event_type: str | None
    ) -> _ShardPart:
        pk, sk = self.partition_attribute, self.sort_attribute
        request: dict[str, Any] = {
            "TableName": self._table_name,
            "IndexName": self.index_name,
            "ScanIndexForward": not self.newest_first,
            "KeyConditionExpression": f"{pk} = :pk AND {sk} BETWEEN :low AND :high",
            "ExpressionAttributeValues": {":pk": {"S": partition}, ":low": {"S": low}, ":high": {"S": high}},
        }
        if event_type is not None:
            request["FilterExpression"] = "eventType = :eventType"
            request["ExpressionAttributeValues"][":eventType"] = {"S": event_type}
        found: list[items.Item] = []
        last: Any = None
        for _ in range(_MAX_ROUNDS):
            if last:
                request["ExclusiveStartKey"] = last
            response = self._client.query(**request, Limit=limit + 1 - len(found))
            rows = (items.from_attributes(raw) for raw in response.get("Items", []))
            found.extend(row for row in rows if row[sk] != skip)
            last = response.get("LastEvaluatedKey")
            if not last or len(found) >= limit:
                break
        return _ShardPart(found, last[sk]["S"] if last else None)


def merged(
    parts: Sequence[_ShardPart], limit: int, sort_attribute: str = "GSI1SK", descending: bool = True
) -> IndexPage:
    """The first ``limit`` rows (in the index's order) every shard has answered for, and where
    the next page starts: no shard may have unread rows before a row answered."""
    frontiers = [part.frontier for part in parts if part.frontier is not None]
    edge = (max(frontiers) if descending else min(frontiers)) if frontiers else None

    def answered_for(row: items.Item) -> bool:
        if edge is None:
            return True
        value = str(row[sort_attribute])
        return value >= edge if descending else value <= edge

    ready = sorted(
        (row for part in parts for row in part.rows if answered_for(row)),
        key=lambda row: str(row[sort_attribute]),
        reverse=descending,
    )
    page = ready[:limit]
    if len(ready) > limit:
        return IndexPage(page, (str(page[-1][sort_attribute]),))
    return IndexPage(page, (edge,) if edge is not None else None)
