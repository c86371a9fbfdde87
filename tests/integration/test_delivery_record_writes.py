"""An ack's records against the emulator (roomcast.messages.deliveries, ADR 0026 amendments 2
and 5): the first attempts' records are put in one BatchExecuteStatement where the destination has
none yet, and otherwise updated as before — conditionally, so that an ack never undoes an ended
record (and learns how it ended), with its history appended."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from roomcast.messages.model import AttemptEvent, Delivery, DeliveryStatus
from roomcast.messages.store import MessageTable
from roomcast.pull.receipts import Receipt
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler

TENANT = "ten_records"
SUBSCRIPTION = "sub_" + "a" * 32
PULLED_AT_MS, ACKED_AT_MS = 1_795_435_200_000, 1_795_435_201_500


def _acked(number: int, attempt: int = 0) -> Delivery:
    """The record an ack of the message's ``attempt`` writes."""
    receipt = Receipt(
        SUBSCRIPTION, f"msg_{number:032x}", attempt, f"h{number}", None, pulled_at_ms=PULLED_AT_MS
    )
    return receipt.record(TENANT, DeliveryStatus.DELIVERED, answered=(AttemptEvent.ACK, ACKED_AT_MS))


@pytest.fixture
def store(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> MessageTable:
    function_handler("PullFunction")  # the pull function's environment: the emulator, its region
    return MessageTable(stack_model.tables["Table"]["TableName"])


def test_a_first_attempts_record_is_put_when_the_destination_has_none(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # When: an ack of two first attempts whose destinations have no record of their own
    aws_calls.clear()
    assert store.update_deliveries([_acked(1), _acked(2)]) == {}  # none had ended

    # Then: one call puts both, no update; each record whole, with the hand-out and the ack in its
    # history
    assert (aws_calls["BatchExecuteStatement"], aws_calls["PutItem"], aws_calls["UpdateItem"]) == (1, 0, 0)
    record = store.get_delivery(TENANT, f"msg_{1:032x}", SUBSCRIPTION)
    assert record is not None
    assert (record.status, record.attempts, record.last_error) == (DeliveryStatus.DELIVERED, 1, None)
    assert [(h.attempt, h.event, h.duration_ms) for h in record.history] == [
        (0, AttemptEvent.PULL, None),
        (0, AttemptEvent.ACK, 1_500),
    ]


def test_an_ack_of_a_first_attempt_does_not_undo_a_record_that_ended(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: the destination's record says cleared (a Clear All came first)
    cleared = Delivery(
        f"msg_{1:032x}", TENANT, SUBSCRIPTION, _acked(1).subscription_type, DeliveryStatus.CLEARED, 1
    )
    store.update_delivery(cleared)

    # When: the ack of its first attempt comes late
    aws_calls.clear()
    ended = store.update_deliveries([_acked(1)])

    # Then: the insert found a record and the update's condition kept it: still cleared, and the
    # refusal says so (read with it: no extra call)
    assert (aws_calls["BatchExecuteStatement"], aws_calls["UpdateItem"], aws_calls["GetItem"]) == (1, 1, 0)
    assert ended == {f"msg_{1:032x}": DeliveryStatus.CLEARED}
    record = store.get_delivery(TENANT, f"msg_{1:032x}", SUBSCRIPTION)
    assert record is not None
    assert record.status is DeliveryStatus.CLEARED


def test_a_record_that_exists_is_updated_and_a_later_attempts_record_is_never_put(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # Given: message 1's record is pending again, with the error of an earlier life (a replay
    # writes it so, attempts back at 0)
    replayed = Delivery(
        f"msg_{1:032x}",
        TENANT,
        SUBSCRIPTION,
        _acked(1).subscription_type,
        DeliveryStatus.PENDING,
        0,
        "HTTP 410",
    )
    store.update_delivery(replayed, force=True)

    # When: its first attempt is acked, and message 2's second attempt
    aws_calls.clear()
    store.update_deliveries([_acked(1)])
    first_calls = (aws_calls["BatchExecuteStatement"], aws_calls["UpdateItem"])
    aws_calls.clear()
    store.update_deliveries([_acked(2, attempt=1)])

    # Then: the insert found message 1's record, so it was updated (delivered, the old error gone);
    # a later attempt's record is updated without a put
    assert first_calls == (1, 1)
    assert (aws_calls["BatchExecuteStatement"], aws_calls["PutItem"], aws_calls["UpdateItem"]) == (0, 0, 1)
    record = store.get_delivery(TENANT, f"msg_{1:032x}", SUBSCRIPTION)
    assert record is not None
    assert (record.status, record.attempts, record.last_error) == (DeliveryStatus.DELIVERED, 1, None)
    assert [h.event for h in record.history] == [AttemptEvent.PULL, AttemptEvent.ACK]


def test_a_second_receipt_of_one_record_in_an_ack_follows_the_first(
    store: MessageTable, aws_calls: Counter[str]
) -> None:
    # When: one ack holds two receipts of message 1's first attempt (SQS handed it out twice) and
    # message 2's (a batch may not write one item twice)
    aws_calls.clear()
    ended = store.update_deliveries([_acked(1), _acked(1), _acked(2)])

    # Then: one batch puts the two records; the second receipt's put finds its record delivered,
    # which an ack of a delivered record reports (acknowledging treats it as acked)
    assert (aws_calls["BatchExecuteStatement"], aws_calls["PutItem"], aws_calls["UpdateItem"]) == (1, 1, 1)
    assert ended == {f"msg_{1:032x}": DeliveryStatus.DELIVERED}
    for number in (1, 2):
        record = store.get_delivery(TENANT, f"msg_{number:032x}", SUBSCRIPTION)
        assert record is not None
        assert (record.status, record.attempts) == (DeliveryStatus.DELIVERED, 1)
        assert [h.event for h in record.history] == [AttemptEvent.PULL, AttemptEvent.ACK]


def test_a_statement_dynamodb_did_not_run_is_written_on_its_own(
    store: MessageTable, aws_calls: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: DynamoDB throttles the batch's statement of message 2 (an error of that statement
    # alone: the call answers 200)
    inserted = store.records._insert_each  # (the store's delivery records write the statements)

    def throttling_the_second(new_items: list[dict[str, object]]) -> list[str | None]:
        outcomes = inserted(new_items[:1])
        return [*outcomes, "ThrottlingError"]

    monkeypatch.setattr(store.records, "_insert_each", throttling_the_second)

    # When: the ack of two first attempts
    aws_calls.clear()
    ended = store.update_deliveries([_acked(1), _acked(2)])

    # Then: message 2's record is put on its own (a single write, retried as any)
    assert ended == {}
    assert (aws_calls["BatchExecuteStatement"], aws_calls["PutItem"], aws_calls["UpdateItem"]) == (1, 1, 0)
    for number in (1, 2):
        record = store.get_delivery(TENANT, f"msg_{number:032x}", SUBSCRIPTION)
        assert record is not None
        assert record.status is DeliveryStatus.DELIVERED
