"""A message's first tries in one FIRST item, against the emulator (roomcast.messages.first_tries,
ADR 0023 "Issue 29: a message's first tries in one item"): a push batch's plain first tries of one
message are one UpdateItem; every reader sees them as the records they stand for, and over any record
a late duplicate writes; what an entry cannot hold is its destination's own item, as before."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest

from roomcast.catalog.model import SubscriptionType
from roomcast.messages.first_tries import MAX_ENTRIES
from roomcast.messages.model import (
    Attempt,
    AttemptEvent,
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    OwedFilter,
    first_record,
)
from roomcast.messages.store import MessageTable
from roomcast.platform.clock import iso_from_ms
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler

TENANT = "ten_first"
ROOM = "room_" + "f" * 32
PUBLISHED_MS = 1_795_435_200_000
SUBSCRIPTIONS = tuple(f"sub_{n:032x}" for n in range(1, 13))


def _message(number: int, destinations: tuple[str, ...] = SUBSCRIPTIONS[:5]) -> Message:
    return Message(
        f"msg_{number:032x}",
        TENANT,
        ROOM,
        "order.created",
        "1",
        f"order-{number}",
        {"n": number},
        iso_from_ms(PUBLISHED_MS + number),
        PUBLISHED_MS + number,
        None,
        destinations,
    )


def _delivered(message: Message, subscription_id: str, *, body: str | None = None) -> Delivery:
    """The record a push batch writes for a first try answered 2xx."""
    started_ms = PUBLISHED_MS + 40 + int(subscription_id[-2:], 16)
    tried = Attempt(0, AttemptEvent.POST, iso_from_ms(started_ms), 12, 204, None, body)
    return Delivery(
        message.id,
        TENANT,
        subscription_id,
        SubscriptionType.PUSH,
        DeliveryStatus.DELIVERED,
        1,
        updated_at=iso_from_ms(started_ms + 15),
        history=(tried,),
    )


@pytest.fixture
def store(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> MessageTable:
    function_handler("PushFunction")  # the push function's environment: the emulator, its region
    return MessageTable(stack_model.tables["Table"]["TableName"])


def _publish(store: MessageTable, *messages: Message) -> None:
    published = [(m, [first_record(m, s, SubscriptionType.PUSH) for s in m.destinations]) for m in messages]
    assert store.put_messages(published) == {}


def test_a_messages_first_tries_are_one_write_and_read_back_as_their_records(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: two messages to five subscriptions
    first, second = _message(1), _message(2)
    _publish(store, first, second)
    written = [_delivered(m, s) for m in (first, second) for s in SUBSCRIPTIONS[:5]]

    # When: a push batch delivered all ten at their first try
    aws_calls.clear()
    store.record_first_tries(written)

    # Then: one update of a FIRST item per message, no record item
    assert (aws_calls["UpdateItem"], aws_calls["PutItem"], aws_calls["BatchWriteItem"]) == (2, 0, 0)
    # and every reader gives back exactly the records written
    expected = {(d.message_id, d.subscription_id): d for d in written}
    for message in (first, second):
        tracked = store.get_message(TENANT, message.id)
        assert {(d.message_id, d.subscription_id): d for d in tracked.deliveries} == {
            k: v for k, v in expected.items() if k[0] == message.id
        }
        for subscription_id in SUBSCRIPTIONS[:5]:
            assert (
                store.get_delivery(TENANT, message.id, subscription_id)
                == expected[(message.id, subscription_id)]
            )
    listed = store.list_room_messages(TENANT, ROOM, 10, None, MessageFilter())
    assert {(d.message_id, d.subscription_id): d for t in listed.items for d in t.deliveries} == expected
    owed = store.open_deliveries(
        TENANT, OwedFilter(ROOM, dict.fromkeys(SUBSCRIPTIONS[:5], SubscriptionType.PUSH)), None, 10
    )
    assert owed.found == []


def test_what_an_entry_cannot_hold_is_its_destinations_own_item(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: a message to five subscriptions and one to a single subscription
    many, single = _message(1), _message(2, SUBSCRIPTIONS[:1])
    _publish(store, many, single)
    with_body = _delivered(many, SUBSCRIPTIONS[0], body='{"ok":true}')  # an answer body: history to keep
    retried = Delivery(
        many.id, TENANT, SUBSCRIPTIONS[1], SubscriptionType.PUSH, DeliveryStatus.DELIVERED, 2,
        history=(Attempt(1, AttemptEvent.POST, iso_from_ms(PUBLISHED_MS + 2_000), 9, 200),),
    )  # fmt: skip
    plain = [_delivered(many, s) for s in SUBSCRIPTIONS[2:5]]
    alone = _delivered(single, SUBSCRIPTIONS[0])

    # When: one batch delivers them all
    aws_calls.clear()
    store.record_first_tries([with_body, retried, *plain, alone])

    # Then: the three plain first tries of one message are one item; the others (a body, a
    # second attempt, the only one of its message) are put as their own items in one call
    assert (aws_calls["UpdateItem"], aws_calls["PutItem"], aws_calls["BatchWriteItem"]) == (1, 0, 1)
    assert store.get_delivery(TENANT, many.id, SUBSCRIPTIONS[0]) == with_body
    assert store.get_delivery(TENANT, single.id, SUBSCRIPTIONS[0]) == alone
    record = store.get_delivery(TENANT, many.id, SUBSCRIPTIONS[1])
    assert record is not None
    assert (record.status, record.attempts) == (DeliveryStatus.DELIVERED, 2)
    assert [store.get_delivery(TENANT, many.id, s) for s in SUBSCRIPTIONS[2:5]] == plain


def test_a_late_duplicates_record_does_not_undo_a_delivered_first_try(store: MessageTable) -> None:
    # Given: a message's first tries delivered, as FIRST entries
    message = _message(1)
    _publish(store, message)
    delivered = [_delivered(message, s) for s in SUBSCRIPTIONS[:5]]
    store.record_first_tries(delivered)

    # and another message whose first try failed (no FIRST entry)
    other = _message(2, SUBSCRIPTIONS[:1])
    _publish(store, other)

    # When: a duplicate envelope's first try failed afterwards, and wrote its destination's record
    def failed(of: Message) -> Delivery:
        return Delivery(
            of.id, TENANT, SUBSCRIPTIONS[0], SubscriptionType.PUSH, DeliveryStatus.RETRYING, 1, "HTTP 500",
            iso_from_ms(PUBLISHED_MS + 61_000),
        )  # fmt: skip

    assert store.update_delivery(failed(message))  # the destination had no item of its own
    assert store.update_delivery(failed(other))

    # Then: every reader still says delivered (what retry-now and a retry read), and nothing is owed
    assert store.get_delivery(TENANT, message.id, SUBSCRIPTIONS[0]) == delivered[0]
    assert store.get_message(TENANT, message.id).deliveries[0] == delivered[0]
    owed = store.open_deliveries(
        TENANT, OwedFilter(ROOM, {SUBSCRIPTIONS[0]: SubscriptionType.PUSH}), None, 10
    )
    assert [(message_id, d.status) for message_id, d in owed.found] == [(other.id, DeliveryStatus.RETRYING)]


def test_a_full_first_tries_item_leaves_the_rest_to_their_own_items(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: a message to twelve subscriptions, ten of them delivered as FIRST entries
    message = _message(1, SUBSCRIPTIONS)
    _publish(store, message)
    written = [_delivered(message, s) for s in SUBSCRIPTIONS]
    store.record_first_tries(written[:MAX_ENTRIES])

    # When: a later batch delivers the last two
    aws_calls.clear()
    store.record_first_tries(written[MAX_ENTRIES:])

    # Then: the item refused them (it stays under 1 KB) and they were put as their own items
    assert (aws_calls["UpdateItem"], aws_calls["BatchWriteItem"]) == (1, 1)
    assert set(store.get_message(TENANT, message.id).deliveries) == set(written)


def test_a_messages_later_first_tries_are_added_to_its_item(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: a message's first two first tries written by one batch
    message = _message(1)
    _publish(store, message)
    written = [_delivered(message, s) for s in SUBSCRIPTIONS[:5]]
    store.record_first_tries(written[:2])

    # When: the next batch delivers the other three
    aws_calls.clear()
    store.record_first_tries(written[2:])

    # Then: one update added them: all five read back
    assert (aws_calls["UpdateItem"], aws_calls["BatchWriteItem"]) == (1, 0)
    assert set(store.get_message(TENANT, message.id).deliveries) == set(written)


def test_a_destination_delivered_twice_reads_as_one_record_on_every_read(store: MessageTable) -> None:
    # Given: a message's first tries of two destinations, then a duplicate batch that delivered the
    # first again (a later request) with a third
    message = _message(1)
    _publish(store, message)
    first = _delivered(message, SUBSCRIPTIONS[0])
    again = replace(first, updated_at=iso_from_ms(PUBLISHED_MS + 5_000))
    store.record_first_tries([first, _delivered(message, SUBSCRIPTIONS[1])])
    store.record_first_tries([again, _delivered(message, SUBSCRIPTIONS[2])])

    # Then: one record for the destination, the same one from every reader
    records = [
        d for d in store.get_message(TENANT, message.id).deliveries if d.subscription_id == SUBSCRIPTIONS[0]
    ]
    assert len(records) == 1
    assert records[0] in (first, again)
    assert store.get_delivery(TENANT, message.id, SUBSCRIPTIONS[0]) == records[0]


def _failed(message: Message, subscription_id: str, *, error: str = "HTTP 503") -> Delivery:
    """The record a push batch writes for a first try that failed and is retried in 1 s."""
    started_ms = PUBLISHED_MS + 40 + int(subscription_id[-2:], 16)
    tried = Attempt(0, AttemptEvent.POST, iso_from_ms(started_ms), 12, 503, error)
    return Delivery(
        message.id, TENANT, subscription_id, SubscriptionType.PUSH, DeliveryStatus.RETRYING, 1, error,
        iso_from_ms(started_ms + 1_012), updated_at=iso_from_ms(started_ms + 13), history=(tried,),
    )  # fmt: skip


def test_a_failed_first_try_shares_the_item_and_every_reader_sees_it_retrying(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: a message to five subscriptions
    message = _message(1)
    _publish(store, message)
    written = [_delivered(message, s) for s in SUBSCRIPTIONS[:4]] + [_failed(message, SUBSCRIPTIONS[4])]

    # When: a push batch delivered four at their first try, and the fifth failed
    aws_calls.clear()
    store.record_first_tries(written)

    # Then: one update for the five, no record item
    assert (aws_calls["UpdateItem"], aws_calls["PutItem"], aws_calls["BatchWriteItem"]) == (1, 0, 0)
    # and every reader gives back the records written: the failed one retrying, with its error,
    # its due time and its attempt; it is owed (a Clear All or a retry-now finds it)
    assert set(store.get_message(TENANT, message.id).deliveries) == set(written)
    assert store.get_delivery(TENANT, message.id, SUBSCRIPTIONS[4]) == written[4]
    listed = store.list_room_messages(TENANT, ROOM, 10, None, MessageFilter())
    assert set(listed.items[0].deliveries) == set(written)
    owed = store.open_deliveries(
        TENANT, OwedFilter(ROOM, dict.fromkeys(SUBSCRIPTIONS[:5], SubscriptionType.PUSH)), None, 10
    )
    assert owed.found == [(message.id, written[4])]


def test_a_retrying_entry_gives_way_to_what_happens_after_it(store: MessageTable) -> None:
    # Given: three destinations' first tries failed, as entries of their message's item
    message = _message(1)
    _publish(store, message)
    failed = [_failed(message, s) for s in SUBSCRIPTIONS[:3]]
    store.record_first_tries(failed)

    # When: the first one's retry is delivered, the second is cleared (a Clear All), and a retry-now
    # claims the third and makes it due now
    retried = Delivery(
        message.id, TENANT, SUBSCRIPTIONS[0], SubscriptionType.PUSH, DeliveryStatus.DELIVERED, 2,
        history=(Attempt(1, AttemptEvent.POST, iso_from_ms(PUBLISHED_MS + 2_000), 9, 200),),
    )  # fmt: skip
    assert store.update_delivery(retried)
    cleared = replace(failed[1], status=DeliveryStatus.CLEARED, next_attempt_at=None, history=())
    assert store.update_delivery(replace(cleared, updated_at=iso_from_ms(PUBLISHED_MS + 3_000)))
    now_ms = PUBLISHED_MS + 100
    assert store.claim_retry(failed[2], "claim-1", now_ms)
    assert not store.claim_retry(failed[2], "claim-2", now_ms)  # held by the first
    moved = replace(
        failed[2], next_attempt_at=iso_from_ms(now_ms), updated_at=iso_from_ms(now_ms), history=()
    )
    assert store.move_claimed_retry(moved, "claim-1")

    # Then: every reader reads the destinations' own items: delivered at the retry, cleared, and
    # due now with the first try's history kept
    records = {d.subscription_id: d for d in store.get_message(TENANT, message.id).deliveries}
    delivered, cleared_read = records[SUBSCRIPTIONS[0]], records[SUBSCRIPTIONS[1]]
    assert (delivered.status, delivered.attempts) == (DeliveryStatus.DELIVERED, 2)
    assert delivered.history == failed[0].history + retried.history
    assert (cleared_read.status, cleared_read.history) == (DeliveryStatus.CLEARED, failed[1].history)
    assert records[SUBSCRIPTIONS[2]].next_attempt_at == iso_from_ms(now_ms)
    assert records[SUBSCRIPTIONS[2]].history == failed[2].history
    for subscription_id in SUBSCRIPTIONS[:3]:
        assert store.get_delivery(TENANT, message.id, subscription_id) == records[subscription_id]
    owed = store.open_deliveries(
        TENANT, OwedFilter(ROOM, dict.fromkeys(SUBSCRIPTIONS[:3], SubscriptionType.PUSH)), None, 10
    )
    assert [d.subscription_id for _, d in owed.found] == [SUBSCRIPTIONS[2]]


def test_a_failed_first_try_never_undoes_an_end(store: MessageTable) -> None:
    # Given: a message whose first destination was cleared before its first try's record was written
    message = _message(1)
    _publish(store, message)
    failed = [_failed(message, s) for s in SUBSCRIPTIONS[:2]]
    cleared = replace(failed[0], status=DeliveryStatus.CLEARED, next_attempt_at=None, history=())
    assert store.update_delivery(replace(cleared, updated_at=iso_from_ms(PUBLISHED_MS)))

    # When: the batch writes the failed first tries, one of them a second time (a duplicate envelope)
    # beside its delivered try
    store.record_first_tries([*failed, _delivered(message, SUBSCRIPTIONS[1])])

    # Then: the first stays cleared, and the second is delivered, on every read
    records = {d.subscription_id: d for d in store.get_message(TENANT, message.id).deliveries}
    assert records[SUBSCRIPTIONS[0]].status is DeliveryStatus.CLEARED
    assert records[SUBSCRIPTIONS[1]] == _delivered(message, SUBSCRIPTIONS[1])
    assert store.get_delivery(TENANT, message.id, SUBSCRIPTIONS[0]) == records[SUBSCRIPTIONS[0]]


def test_a_failed_first_try_alone_in_its_batch_is_its_own_record(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: three messages, each to one subscription
    messages = [_message(n, SUBSCRIPTIONS[:1]) for n in (1, 2, 3)]
    _publish(store, *messages)
    failed = [_failed(m, SUBSCRIPTIONS[0]) for m in messages]

    # When: one batch's first tries of the three failed (each the only one of its message)
    aws_calls.clear()
    store.record_first_tries(failed)

    # Then: each is its destination's own record, written by its own conditional update
    assert (aws_calls["UpdateItem"], aws_calls["BatchWriteItem"]) == (3, 0)
    assert [store.get_delivery(TENANT, m.id, SUBSCRIPTIONS[0]) for m in messages] == failed


def _retrying(message: Message, subscription_id: str, attempts: int, at_ms: int) -> Delivery:
    """The record of a failed attempt (``attempts`` made), due again a second later."""
    tried = Attempt(attempts - 1, AttemptEvent.POST, iso_from_ms(at_ms), 12, 500, "HTTP 500")
    return Delivery(
        message.id, TENANT, subscription_id, SubscriptionType.PUSH, DeliveryStatus.RETRYING, attempts,
        "HTTP 500", iso_from_ms(at_ms + 1_000), updated_at=iso_from_ms(at_ms + 15), history=(tried,),
    )  # fmt: skip


@pytest.mark.parametrize("destinations", [1, 2], ids=["own item", "FIRST entry"])
def test_a_retry_that_ran_before_its_first_try_was_written_keeps_its_record(
    store: MessageTable, destinations: int
) -> None:
    # Given: a first try that failed, whose batch writes its record at its end, after the retry
    # (attempt 1) already ran, failed and wrote its own record (a soak run saw this: the first
    # try's record then read as the latest, and the retry's own retry was dropped as superseded)
    message = _message(7, SUBSCRIPTIONS[:destinations])
    _publish(store, message)
    first = [_retrying(message, s, 1, PUBLISHED_MS + 100) for s in SUBSCRIPTIONS[:destinations]]
    retry = _retrying(message, SUBSCRIPTIONS[0], 2, PUBLISHED_MS + 1_200)
    assert store.update_delivery(retry)

    # When: the first try's batch ends
    store.record_first_tries(first)

    # Then: the retry's record is the one read, with both attempts in its history
    record = store.get_delivery(TENANT, message.id, SUBSCRIPTIONS[0])
    assert record is not None
    assert (record.status, record.attempts, record.next_attempt_at) == (
        DeliveryStatus.RETRYING,
        2,
        retry.next_attempt_at,
    )
