"""Which delivery records a message's FIRST item can hold, and that each reads back as written
(roomcast.dal.first_tries: pure, no table)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roomcast.dal.first_tries import MAX_ENTRIES, entry, from_entry, update_request
from roomcast.domain.clock import iso_from_ms
from roomcast.domain.messages import AttemptEvent, AttemptRecord, Delivery, DeliveryStatus, KeySlot
from roomcast.domain.models import SubscriptionType

MESSAGE, TENANT, SUBSCRIPTION = "msg_" + "1" * 32, "ten_a", "sub_" + "2" * 32


def _first_try(started_ms: int, duration_ms: int, http_status: int, updated_ms: int) -> Delivery:
    tried = AttemptRecord(0, AttemptEvent.POST, iso_from_ms(started_ms), duration_ms, http_status)
    return Delivery(
        MESSAGE, TENANT, SUBSCRIPTION, SubscriptionType.PUSH, DeliveryStatus.DELIVERED, 1,
        updated_at=iso_from_ms(updated_ms), history=(tried,),
    )  # fmt: skip


@given(
    started_ms=st.integers(946_684_800_000, 4_102_444_800_000),  # 2000 to 2100
    duration_ms=st.integers(0, 30_000),
    http_status=st.integers(200, 299),
    after_ms=st.integers(0, 60_000),
)
def test_a_plain_first_try_reads_back_equal(
    started_ms: int, duration_ms: int, http_status: int, after_ms: int
) -> None:
    delivery = _first_try(started_ms, duration_ms, http_status, started_ms + after_ms)
    compact = entry(delivery)
    assert compact is not None
    assert from_entry(TENANT, MESSAGE, compact) == delivery


PLAIN = _first_try(1_795_435_200_000, 12, 204, 1_795_435_200_015)
TRIED = PLAIN.history[0]


@pytest.mark.parametrize(
    "record",
    [
        replace(PLAIN, status=DeliveryStatus.RETRYING, next_attempt_at=iso_from_ms(1_795_435_201_000)),
        replace(PLAIN, attempts=2),
        replace(PLAIN, history=(replace(TRIED, response_body='{"ok":true}'),)),
        replace(PLAIN, history=(replace(TRIED, attempt=1),)),
        replace(PLAIN, history=(TRIED, TRIED)),
        replace(PLAIN, history=()),
        replace(PLAIN, history=(replace(TRIED, http_status=None),)),
        replace(PLAIN, last_error="HTTP 500"),
        replace(PLAIN, subscription_type=SubscriptionType.PULL),
        replace(PLAIN, ordering=KeySlot("room_a", "k", 1)),
        replace(PLAIN, updated_at="2026-11-22T10:00:00.015+01:00"),  # not the form roomcast writes
        replace(PLAIN, subscription_id="sub a"),
    ],
    ids=[
        "retrying", "second attempt", "answer body", "attempt number", "two entries", "no history",
        "no status", "error", "pull", "ordered", "offset", "id with a space",
    ],
)  # fmt: skip
def test_a_record_that_says_more_keeps_its_own_item(record: Delivery) -> None:
    assert entry(record) is None


def test_a_full_first_tries_item_is_one_write_unit() -> None:
    # A tenant id of 40 characters, ten requests of a minute answered with a 3-digit status
    slow = _first_try(1_795_435_200_000, 59_999, 204, 1_795_435_260_001)
    texts = [entry(replace(slow, subscription_id=f"sub_{n:032x}")) for n in range(MAX_ENTRIES)]
    values = update_request([t for t in texts if t is not None])["ExpressionAttributeValues"]
    item = {
        "PK": f"TENANT#{'t' * 40}#MSG#{MESSAGE}",
        "SK": "FIRST",
        "entity": values[":entity"]["S"],
        "ttl": int(values[":ttl"]["N"]),
        "entries": values[":added"]["SS"],
    }
    assert len(item["entries"]) == MAX_ENTRIES
    assert sum(len(name.encode()) + _billed_size(value) for name, value in item.items()) <= 1024


def _billed_size(value: object) -> int:
    """DynamoDB's size of a value: strings in UTF-8, a number 1 byte plus 1 per two significant
    digits, a set its elements (counted here with 1 byte more each)."""
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, int):
        return 1 + (len(str(abs(value)).strip("0") or "0") + 1) // 2
    assert isinstance(value, list)
    return sum(1 + _billed_size(v) for v in value)
