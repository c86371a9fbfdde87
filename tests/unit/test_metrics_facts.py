"""What the metrics read from the table's stream (roomcast.metrics.facts and .tally: pure, no
table): each change of a message, a FIRST item or a delivery record, before and after, counted
once, and nothing from a change that changes nothing."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from roomcast.catalog.model import SubscriptionType
from roomcast.messages.first_tries import entry
from roomcast.messages.items import delivery_to_item, stored_message_item
from roomcast.messages.model import (
    HANDED_TO_FAILOVER,
    Attempt,
    AttemptEvent,
    Delivery,
    DeliveryStatus,
    FilteredOut,
    Message,
    first_record,
)
from roomcast.metrics.facts import Change, Fact, facts_of
from roomcast.metrics.model import Count, Place, Resolution, Sample, Scope
from roomcast.metrics.tally import Tally, bucket_sort_key, open_partition, open_sort_key, scope_partition
from roomcast.platform.clock import iso_from_ms

TENANT, ROOM = "ten_a", "room_" + "a" * 32
SUB_A, SUB_B, SUB_C = ("sub_" + c * 32 for c in "abc")
PUBLISHED_MS = 1_795_435_200_000  # 2026-11-22T08:00:00Z
MESSAGE = Message(
    id="msg_" + "1" * 32,
    tenant_id=TENANT,
    room_id=ROOM,
    event_type="order.created",
    event_version="1",
    correlation_id="c",
    payload={"n": 1},
    published_at=iso_from_ms(PUBLISHED_MS),
    published_at_ms=PUBLISHED_MS,
    expires_at_ms=None,
    destinations=(SUB_A, SUB_B),
    filtered_out=(FilteredOut(SUB_C, "payload.n: 1 is not 2"),),
)
PUSH = SubscriptionType.PUSH


def _record(
    subscription_id: str, status: DeliveryStatus, attempts: int, *history: Attempt, **more: object
) -> Delivery:
    base = first_record(MESSAGE, subscription_id, PUSH)
    return replace(
        base,
        status=status,
        attempts=attempts,
        history=history,
        updated_at=iso_from_ms(PUBLISHED_MS + 5_000),
        **more,  # type: ignore[arg-type]
    )


def _post(attempt: int, at_ms: int, http_status: int | None, duration_ms: int = 40) -> Attempt:
    error = None if http_status is not None and http_status < 300 else f"HTTP {http_status}"
    return Attempt(attempt, AttemptEvent.POST, iso_from_ms(at_ms), duration_ms, http_status, error)


def _counts(found: list[Fact]) -> Counter[tuple[str, Count | None, int]]:
    return Counter((f.place.subscription_id, f.count, f.opened) for f in found)


def _message_item(message: Message = MESSAGE) -> dict[str, object]:
    """The message item as published (a scheduled message's records: scheduled, due at its time)."""
    status = DeliveryStatus.SCHEDULED if message.deliver_at_ms is not None else DeliveryStatus.PENDING
    firsts = [
        replace(
            first_record(message, s, PUSH),
            status=status,
            next_attempt_at=iso_from_ms(message.sent_from_ms),
            updated_at=message.published_at,
        )
        for s in message.destinations
    ]
    return stored_message_item(message, firsts)


def test_a_stored_message_opens_a_delivery_to_each_destination_and_counts_those_filtered_out() -> None:
    # When
    found = facts_of(Change(None, _message_item(), PUBLISHED_MS))

    # Then
    assert _counts(found) == Counter(
        {(SUB_A, None, 1): 1, (SUB_B, None, 1): 1, (SUB_C, Count.FILTERED_OUT, 0): 1}
    )
    assert {f.sent_from_ms for f in found if f.opened} == {PUBLISHED_MS}
    assert {f.place for f in found} == {Place(TENANT, ROOM, s) for s in (SUB_A, SUB_B, SUB_C)}


def test_a_scheduled_message_opens_its_deliveries_when_released_and_cancelled_ends_them() -> None:
    # Given: a message scheduled an hour ahead
    scheduled = replace(MESSAGE, deliver_at_ms=PUBLISHED_MS + 3_600_000, filtered_out=())
    stored = _message_item(scheduled)

    # When
    at_publish = facts_of(Change(None, stored, PUBLISHED_MS))
    released = facts_of(Change(stored, {**stored, "releasedBy": "task"}, PUBLISHED_MS + 3_600_000))
    cancelled = facts_of(Change(stored, {**stored, "cancelledAt": iso_from_ms(PUBLISHED_MS + 60_000)}, 0))

    # Then: open from its deliverAt, by its deliverAt
    assert at_publish == []
    assert _counts(released) == Counter({(SUB_A, None, 1): 1, (SUB_B, None, 1): 1})
    assert {f.sent_from_ms for f in released} == {PUBLISHED_MS + 3_600_000}
    assert _counts(cancelled) == Counter({(SUB_A, Count.CANCELLED, 0): 1, (SUB_B, Count.CANCELLED, 0): 1})


def test_a_failed_attempt_then_a_delivered_one_count_each_attempt_and_the_delivery_once() -> None:
    # Given: SUB_A's own record, retrying after a 503, then delivered
    failed = _post(0, PUBLISHED_MS + 100, 503)
    retrying = delivery_to_item(_record(SUB_A, DeliveryStatus.RETRYING, 1, failed))
    delivered_record = _record(
        SUB_A, DeliveryStatus.DELIVERED, 2, failed, _post(1, PUBLISHED_MS + 2_000, 200, 30)
    )
    delivered = delivery_to_item(delivered_record)

    # When
    first = facts_of(Change(None, retrying, 0))
    second = facts_of(Change(retrying, delivered, 0))
    again = facts_of(Change(delivered, delivered, 0))  # the same record written again

    # Then
    assert _counts(first) == Counter(
        {(SUB_A, Count.ATTEMPTS, 0): 1, (SUB_A, Count.FAILED_ATTEMPTS, 0): 1, (SUB_A, None, 0): 1}
    )
    assert _counts(second) == Counter(
        {
            (SUB_A, Count.ATTEMPTS, 0): 1,
            (SUB_A, Count.DELIVERED, 0): 1,
            (SUB_A, None, 0): 2,
            (SUB_A, None, -1): 1,
        }
    )
    samples = {f.sample: f.value_ms for f in second if f.sample is not None}
    assert samples == {Sample.ATTEMPT_LATENCY_MS: 30, Sample.DELIVERY_DELAY_MS: 5_000}
    assert again == []


def test_first_tries_in_one_item_count_each_delivered_destination_once() -> None:
    # Given: a message's FIRST item gaining two delivered entries, then a duplicate's of SUB_A
    def first_item(*records: Delivery) -> dict[str, object]:
        return {
            "PK": f"TENANT#{TENANT}#MSG#{MESSAGE.id}", "SK": "FIRST", "entity": "firstTries",
            "roomId": ROOM, "sentFromMs": PUBLISHED_MS, "entries": {entry(r) for r in records},
        }  # fmt: skip

    a = _record(SUB_A, DeliveryStatus.DELIVERED, 1, _post(0, PUBLISHED_MS + 100, 204))
    b = _record(SUB_B, DeliveryStatus.DELIVERED, 1, _post(0, PUBLISHED_MS + 100, 200))
    duplicate = _record(SUB_A, DeliveryStatus.DELIVERED, 1, _post(0, PUBLISHED_MS + 900, 200))
    both, all_three = first_item(a, b), first_item(a, b, duplicate)

    # When
    added = facts_of(Change(None, both, 0))
    duplicated = facts_of(Change(both, all_three, 0))

    # Then: two deliveries closed; the duplicate is an attempt, not a delivery
    assert _counts(added)[(SUB_A, Count.DELIVERED, 0)] == 1
    assert _counts(added)[(SUB_B, Count.DELIVERED, 0)] == 1
    assert sum(f.opened for f in added) == -2
    assert _counts(duplicated) == Counter({(SUB_A, Count.ATTEMPTS, 0): 1, (SUB_A, None, 0): 1})


def test_a_delivery_handed_to_a_failover_ends_here_and_opens_there() -> None:
    # Given
    dead = delivery_to_item(
        _record(SUB_A, DeliveryStatus.DEAD, 3, last_error=f"HTTP 500; {HANDED_TO_FAILOVER} {SUB_C}")
    )
    handed = delivery_to_item(_record(SUB_C, DeliveryStatus.PENDING, 0, handed_from=SUB_A))

    # When
    ended = facts_of(Change(None, dead, 0))
    opened = facts_of(Change(None, handed, 0))

    # Then
    assert _counts(ended) == Counter({(SUB_A, Count.FAILED_OVER, 0): 1, (SUB_A, None, -1): 1})
    assert _counts(opened) == Counter({(SUB_C, None, 1): 1})


def test_a_tally_counts_in_the_subscription_its_room_and_its_tenant_by_minute_and_hour() -> None:
    # Given
    tally = Tally()
    delivered = delivery_to_item(
        _record(SUB_A, DeliveryStatus.DELIVERED, 1, _post(0, PUBLISHED_MS + 100, 200))
    )

    # When
    tally.add(facts_of(Change(None, _message_item(), 0)), "7")
    tally.add(facts_of(Change(None, delivered, 0)), "12")
    carried = Tally.from_state(tally.to_state())

    # Then
    for scope in (Scope.subscription(TENANT, SUB_A), Scope.room(TENANT, ROOM), Scope.tenant(TENANT)):
        for resolution in Resolution:
            bucket = (
                scope_partition(scope),
                bucket_sort_key(resolution, resolution.start_of(PUBLISHED_MS + 5_000)),
            )
            assert carried.buckets[bucket]["delivered"] == 1
            assert carried.buckets[bucket]["attempts"] == 1
    opens = carried.opens[(open_partition(Scope.room(TENANT, ROOM)), open_sort_key(PUBLISHED_MS))]
    assert opens == Counter({"m00": 1, "open": 1})  # two opened, one closed
    assert (carried.first_sequence, carried.last_sequence) == ("7".zfill(40), "12".zfill(40))


def test_sends_into_an_aws_destination_count_as_attempts_failed_by_their_error_and_filtered_ends() -> None:
    # Given: a send that failed (no status, AWS's error), then one that got through, and another
    # destination whose transformation cancelled the message
    failed = Attempt(0, AttemptEvent.SEND, iso_from_ms(PUBLISHED_MS + 100), 8, None, "AccessDenied: no")
    sent = Attempt(1, AttemptEvent.SEND, iso_from_ms(PUBLISHED_MS + 2_000), 5)
    retrying = delivery_to_item(_record(SUB_A, DeliveryStatus.RETRYING, 1, failed))
    delivered = delivery_to_item(_record(SUB_A, DeliveryStatus.DELIVERED, 2, failed, sent))
    filtered = delivery_to_item(_record(SUB_B, DeliveryStatus.FILTERED, 0))

    # When
    first = facts_of(Change(None, retrying, 0))
    second = facts_of(Change(retrying, delivered, 0))
    ended = facts_of(Change(None, filtered, 0))

    # Then
    assert _counts(first)[(SUB_A, Count.ATTEMPTS, 0)] == 1
    assert _counts(first)[(SUB_A, Count.FAILED_ATTEMPTS, 0)] == 1
    assert _counts(second)[(SUB_A, Count.ATTEMPTS, 0)] == 1
    assert _counts(second)[(SUB_A, Count.FAILED_ATTEMPTS, 0)] == 0
    assert _counts(second)[(SUB_A, Count.DELIVERED, 0)] == 1
    assert [f.value_ms for f in second if f.sample is Sample.ATTEMPT_LATENCY_MS] == [5]
    assert _counts(ended)[(SUB_B, Count.FILTERED_OUT, 0)] == 1
