"""The room index's shards, merged: paging through a room's messages with any page size, time
window and event-type filter answers every matching message once, newest first, however the
messages fall over the shards and however many a filter skips (DynamoDB's Query, in memory). The
scheduled index has the same shape, read soonest first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
from hypothesis import given, settings, strategies as st

from roomcast.deliver_at.store import ScheduledIndex
from roomcast.messages.items import room_index_shard, room_shard_key, scheduled_shard_key
from roomcast.messages.room_index import RoomIndex
from roomcast.platform.pages import Position

TENANT, ROOM = "tenant-a", "room_" + "1" * 32


@dataclass
class IndexQueries:
    """DynamoDB's Query on the ByRoom index, as far as RoomIndex asks it: one partition, a sort-key
    range, newest first, an event-type filter applied after Limit, and LastEvaluatedKey."""

    rows: list[dict[str, Any]]
    calls: int = 0

    def query(self, **request: Any) -> dict[str, Any]:
        self.calls += 1
        values = request["ExpressionAttributeValues"]
        pk, _, rest = request["KeyConditionExpression"].partition(" = :pk AND ")
        sk = rest.partition(" ")[0]
        low, high = values[":low"]["S"], values[":high"]["S"]
        forward = request["ScanIndexForward"]
        partition = [
            r
            for r in sorted(self.rows, key=lambda r: r[sk]["S"], reverse=not forward)
            if r[pk]["S"] == values[":pk"]["S"] and low <= r[sk]["S"] <= high
        ]
        if "ExclusiveStartKey" in request:
            after = request["ExclusiveStartKey"][sk]["S"]
            partition = [r for r in partition if (r[sk]["S"] > after if forward else r[sk]["S"] < after)]
        evaluated = partition[: request["Limit"]]
        more = len(partition) > len(evaluated)
        wanted = values.get(":eventType")
        answered = [r for r in evaluated if wanted is None or r["eventType"] == wanted]
        last = {sk: evaluated[-1][sk]} if more and evaluated else None
        return {"Items": answered, **({"LastEvaluatedKey": last} if last else {})}


def _row(number: int, event_type: str, shard: int) -> dict[str, Any]:
    message_id = f"msg_{number:028x}{shard:04x}"  # its last hex digits put it in ``shard``
    published = f"2026-11-22T1{number // 3600}:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
    return {
        "PK": {"S": f"TENANT#{TENANT}#MSG#{message_id}"},
        "GSI1PK": {"S": room_shard_key(TENANT, ROOM, room_index_shard(message_id))},
        "GSI1SK": {"S": f"{published}#{message_id}"},
        # The same times as deliverAt times, on the scheduled index
        "GSI2PK": {"S": scheduled_shard_key(TENANT, ROOM, room_index_shard(message_id))},
        "GSI2SK": {"S": f"{published}#{message_id}"},
        "eventType": {"S": event_type},
    }


@settings(max_examples=60, deadline=None)
@given(
    # mostly "a", in runs on one shard: a filter on "b" skips whole rounds of a shard
    event_types=st.lists(
        st.tuples(st.sampled_from(["a"] * 9 + ["b"]), st.integers(0, 7), st.integers(1, 30)), max_size=40
    ),
    limit=st.integers(min_value=1, max_value=6),
    wanted=st.sampled_from([None, "a", "b"]),
    window=st.tuples(st.integers(0, 59), st.integers(0, 59)),
)
@pytest.mark.parametrize("kind", [RoomIndex, ScheduledIndex])
def test_paging_answers_every_matching_message_once_in_the_index_order(
    kind: type[RoomIndex],
    event_types: list[tuple[str, int, int]],
    limit: int,
    wanted: str | None,
    window: tuple[int, int],
) -> None:
    # Given
    runs = [(kind, shard) for kind, shard, length in event_types for _ in range(length if kind == "a" else 1)]
    rows = [_row(n, kind, shard) for n, (kind, shard) in enumerate(runs)]
    since = f"2026-11-22T10:00:{min(window):02d}.000Z" if min(window) % 3 else None
    until = f"2026-11-22T10:00:{max(window):02d}.999Z" if max(window) % 2 else None
    expected = sorted(
        (
            r["GSI1SK"]["S"]
            for r in rows
            if (wanted is None or r["eventType"]["S"] == wanted)
            and (since is None or r["GSI1SK"]["S"] >= since)
            and (until is None or r["GSI1SK"]["S"] <= until + "#~")
        ),
        reverse=kind.newest_first,
    )
    index = kind("table", client=cast(Any, IndexQueries(rows)))

    # When
    answered: list[str] = []
    position: Position | None = None
    for _ in range(1_000):
        page = index.page(TENANT, ROOM, limit, position, since=since, until=until, event_type=wanted)
        assert len(page.rows) <= limit
        answered += [str(r[kind.sort_attribute]) for r in page.rows]
        position = page.next_position
        if position is None:
            break

    # Then
    assert position is None
    assert answered == expected
