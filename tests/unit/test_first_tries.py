"""Which delivery records a message's FIRST item can hold, and that each reads back as written
(roomcast.messages.first_tries: pure, no table)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from roomcast.catalog.model import SubscriptionType
from roomcast.messages.first_tries import (
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    current_records,
    entry,
    first_tries_key,
    from_entry,
    update_request,
)
from roomcast.messages.items import delivery_to_item
from roomcast.messages.model import Attempt, AttemptEvent, Delivery, DeliveryStatus, KeySlot
from roomcast.platform.clock import iso_from_ms

MESSAGE, TENANT, SUBSCRIPTION = "msg_" + "1" * 32, "ten_a", "sub_" + "2" * 32


def _first_try(started_ms: int, duration_ms: int, http_status: int, updated_ms: int) -> Delivery:
    tried = Attempt(0, AttemptEvent.POST, iso_from_ms(started_ms), duration_ms, http_status)
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
        "retrying, no error", "second attempt", "answer body", "attempt number", "two entries", "no history",
        "no status", "error", "pull", "ordered", "offset", "id with a space",
    ],
)  # fmt: skip
def test_a_record_that_says_more_keeps_its_own_item(record: Delivery) -> None:
    assert entry(record) is None


def _failed_first_try(
    started_ms: int, duration_ms: int, http_status: int | None, error: str, due_ms: int
) -> Delivery:
    tried = Attempt(0, AttemptEvent.POST, iso_from_ms(started_ms), duration_ms, http_status, error)
    return Delivery(
        MESSAGE, TENANT, SUBSCRIPTION, SubscriptionType.PUSH, DeliveryStatus.RETRYING, 1, error,
        iso_from_ms(due_ms), updated_at=iso_from_ms(started_ms + duration_ms + 1), history=(tried,),
    )  # fmt: skip


@given(
    started_ms=st.integers(946_684_800_000, 4_102_444_800_000),
    duration_ms=st.integers(0, 30_000),
    http_status=st.one_of(st.none(), st.integers(300, 599)),
    error=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=40),
    wait_ms=st.integers(0, 15 * 60_000),
)
def test_a_failed_first_try_reads_back_equal_or_keeps_its_own_item(
    started_ms: int, duration_ms: int, http_status: int | None, error: str, wait_ms: int
) -> None:
    delivery = _failed_first_try(
        started_ms, duration_ms, http_status, error, started_ms + duration_ms + wait_ms
    )
    compact = entry(delivery)
    if compact is None:  # only when it would not read back equal, or is longer than an entry may be
        text = f"{SUBSCRIPTION} {started_ms} {duration_ms} {http_status or '-'} {duration_ms + 1}"
        text += f" {duration_ms + wait_ms} {error}"
        assert len(text.encode()) > MAX_ENTRY_BYTES or error.strip() != error or error == ""
    else:
        assert len(compact.encode()) <= MAX_ENTRY_BYTES
        assert from_entry(TENANT, MESSAGE, compact) == delivery


FAILED = _failed_first_try(1_795_435_200_000, 12, 503, "HTTP 503", 1_795_435_201_013)
TRIED_503 = FAILED.history[0]


def test_a_retrying_first_try_is_an_entry_with_its_error_and_due_time() -> None:
    compact = entry(FAILED)
    assert compact == f"{SUBSCRIPTION} 1795435200000 12 503 13 1013 HTTP 503"
    assert from_entry(TENANT, MESSAGE, "sub_x 1795435200000 7 - 8 1000 connection refused") == replace(
        FAILED,
        subscription_id="sub_x",
        last_error="connection refused",
        next_attempt_at=iso_from_ms(1_795_435_201_000),
        updated_at=iso_from_ms(1_795_435_200_008),
        history=(replace(FAILED.history[0], duration_ms=7, http_status=None, error="connection refused"),),
    )


@pytest.mark.parametrize(
    "record",
    [
        replace(FAILED, history=(replace(FAILED.history[0], response_body="Service Unavailable"),)),
        replace(FAILED, last_error="HTTP 503 " + "x" * MAX_ENTRY_BYTES),
        replace(FAILED, last_error="other than the history's"),
        replace(FAILED, next_attempt_at=None),
        replace(FAILED, ordering=KeySlot("room_a", "k", 1)),
        replace(FAILED, status=DeliveryStatus.DEAD),
    ],
    ids=["answer body", "long error", "two errors", "no due time", "ordered", "dead"],
)
def test_a_failed_first_try_that_says_more_keeps_its_own_item(record: Delivery) -> None:
    assert entry(record) is None


def _first_tries_item(*records: Delivery) -> dict[str, object]:
    texts = {entry(record) for record in records}
    assert None not in texts
    keys = first_tries_key(TENANT, MESSAGE)
    return {"PK": keys["PK"]["S"], "SK": keys["SK"]["S"], "entries": texts}


def _own(record: Delivery) -> dict[str, object]:
    return dict(delivery_to_item(record))


LATER = iso_from_ms(1_795_435_202_000)
EARLIER = iso_from_ms(1_795_435_199_000)
RETRIED = _own(replace(FAILED, attempts=2, updated_at=LATER))
CLEARED = _own(replace(FAILED, status=DeliveryStatus.CLEARED, updated_at=EARLIER))
REPLAYED = _own(replace(FAILED, status=DeliveryStatus.PENDING, attempts=0, updated_at=EARLIER))
DEAD = _own(replace(FAILED, status=DeliveryStatus.DEAD, attempts=3, updated_at=LATER))
SECOND_TRY = Attempt(1, AttemptEvent.POST, iso_from_ms(1_795_435_201_013), 8, 200)
RETRY_DELIVERED = replace(
    FAILED, status=DeliveryStatus.DELIVERED, attempts=2, last_error=None, next_attempt_at=None,
    updated_at=LATER, history=(SECOND_TRY,),
)  # fmt: skip
RETRY_READ = replace(RETRY_DELIVERED, history=(TRIED_503, SECOND_TRY))
LATER_TRY = replace(TRIED, started_at=iso_from_ms(1_795_435_203_000))
DELIVERED_LATER = replace(PLAIN, history=(LATER_TRY,), updated_at=iso_from_ms(1_795_435_203_015))


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([_first_tries_item(FAILED)], FAILED),
        # The retry's record (written after the entry) and a Clear All's (ended) win over it.
        ([_first_tries_item(FAILED), RETRIED], "own"),
        # A retry that ran and failed before its first try's batch wrote the entry: the later
        # attempt's record wins whatever the write order (read as the entry, the retry's own retry
        # would be called superseded and dropped: a soak run lost a message that way).
        ([_first_tries_item(FAILED), _own(replace(FAILED, attempts=2, updated_at=EARLIER))], "own"),
        ([_first_tries_item(FAILED), CLEARED], "own"),
        # The retry's own item was written without the first try's attempt: it is read with it.
        ([_first_tries_item(FAILED), _own(RETRY_DELIVERED)], RETRY_READ),
        # A retry-now's copy of the entry, as read: written at the entry's time, it wins.
        ([_first_tries_item(FAILED), _own(FAILED)], "own"),
        # An open record written before the entry (a replay's) does not.
        ([REPLAYED, _first_tries_item(FAILED)], FAILED),
        # A delivered entry wins over the retrying one and over an own item that ended.
        ([_first_tries_item(FAILED, DELIVERED_LATER)], DELIVERED_LATER),
        ([DEAD, _first_tries_item(PLAIN)], PLAIN),
    ],
    ids=[
        "entry alone", "retry's record", "retry before the entry's write", "cleared", "retry delivered",
        "retry-now copy", "replayed before",
        "delivered entry", "delivered over dead",
    ],
)  # fmt: skip
def test_which_record_a_destination_reads_as(rows: list[dict[str, object]], expected: object) -> None:
    found = current_records(rows)[(MESSAGE, SUBSCRIPTION)]
    assert found == (_own_read(rows) if expected == "own" else expected)


def _own_read(rows: list[dict[str, object]]) -> Delivery:
    [own] = [row for row in rows if row["SK"] != "FIRST"]
    return current_records([own])[(MESSAGE, SUBSCRIPTION)]


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


def test_ten_entries_of_the_longest_size_are_one_write_unit() -> None:
    # A tenant id of 40 characters, ten failed tries whose entries are as long as one may be
    error = "x" * (MAX_ENTRY_BYTES - len(f"sub_{0:032x} 1795435200000 12 503 13 1013 "))
    error_texts = []
    for n in range(MAX_ENTRIES):
        failed = replace(FAILED, subscription_id=f"sub_{n:032x}", last_error=None)
        failed = replace(failed, last_error=error, history=(replace(failed.history[0], error=error),))
        error_texts.append(entry(failed))
    assert all(text is not None and len(text.encode()) == MAX_ENTRY_BYTES for text in error_texts)
    item = {
        "PK": f"TENANT#{'t' * 40}#MSG#{MESSAGE}",
        "SK": "FIRST",
        "entity": "firstTries",
        "ttl": 1_797_000_000,
    }
    item["entries"] = error_texts
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
