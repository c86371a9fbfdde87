"""Messages stored together (roomcast.messages.transactions): groups a transaction takes, in order,
a message never split from its places."""

from __future__ import annotations

from typing import Any

from roomcast.messages.model import Message
from roomcast.messages.transactions import TRANSACTION_MAX_BYTES, TRANSACTION_MAX_ITEMS, transaction_groups


def _message(number: int, payload_bytes: int = 10) -> Message:
    return Message(
        id=f"msg_{number:032x}",
        tenant_id="t",
        room_id="room_1",
        event_type="e",
        event_version="1",
        correlation_id=f"c{number}",
        payload={"x": "y" * payload_bytes},
        published_at="2026-11-28T08:00:00.000Z",
        published_at_ms=0,
        expires_at_ms=None,
        destinations=("sub_1",),
    )


def _stored(number: int, places: int, payload_bytes: int = 10) -> Any:
    return (
        (_message(number, payload_bytes), ()),
        [{"PK": f"K#{number}#{p}", "SK": "SEQ#1"} for p in range(places)],
    )


def test_messages_are_grouped_up_to_a_transactions_items_in_order_and_never_split() -> None:
    stored = [_stored(n, places=2) for n in range(100)]  # 3 items each: 33 a transaction
    groups = transaction_groups(stored)
    assert [len(g) for g in groups] == [33, 33, 33, 1]
    assert [one for group in groups for one in group] == stored
    assert all(sum(1 + len(places) for _, places in g) <= TRANSACTION_MAX_ITEMS for g in groups)


def test_large_messages_are_grouped_by_size() -> None:
    payload = 256 * 1024
    groups = transaction_groups([_stored(n, places=1, payload_bytes=payload) for n in range(30)])
    per_group = TRANSACTION_MAX_BYTES // (payload + 1024 + 40)
    assert len(groups[0]) == per_group
    assert sum(len(g) for g in groups) == 30


def test_nothing_to_store_is_no_group() -> None:
    assert transaction_groups([]) == []
