"""PullService with in-memory fakes: extending the ack wait of pulled messages by their receipts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pull_api.acknowledging import RefusedReceipt
from roomcast.catalog.model import SubscriptionType
from roomcast.messages.envelope import first_envelope
from roomcast.messages.model import Delivery, DeliveryStatus
from roomcast.platform.errors import Conflict, InvalidRequest, NotFound
from roomcast.pull.ports import Received
from roomcast.pull.receipts import Receipt
from tests.unit.services.management import OTHER_TENANT, TENANT
from tests.unit.services.pulls import NOW_MS, SIGNER, Pull, message_of


def test_extend_hides_current_receipts_longer_and_reports_the_ones_sqs_refuses() -> None:
    # Given: one message in flight, one acked already
    pull = Pull()
    current, stale = pull.handed_out(1, attempt=2), pull.stale(2)

    # When
    result = pull.extend([current, stale], 4_500)

    # Then: hidden 5 s from now (whole seconds, rounded up); the stale one reported, not extended
    assert result.extended == [f"msg_{1:032x}"]
    assert result.failed == [RefusedReceipt(stale, f"msg_{2:032x}", "ReceiptHandleIsInvalid")]
    assert pull.queue.hide_calls == [(pull.subscription.queue_url, [("handle-1", 5), ("handle-2", 5)])]
    assert pull.queue.in_flight == {"handle-1": 5}


def test_extend_logs_one_extended_record_per_extended_receipt_and_writes_no_delivery_record() -> None:
    # Given
    pull = Pull()
    current, stale = pull.handed_out(1, attempt=2), pull.stale(2)

    # When
    pull.extend([current, stale], 4_500)

    # Then
    [record] = pull.management.log.records
    assert (record.event, record.message_id, record.subscription_id) == (
        "extended",
        f"msg_{1:032x}",
        pull.subscription.id,
    )
    assert (record.tenant_id, record.subscription_type, record.attempt, record.next_delay_ms) == (
        TENANT,
        "PULL",
        2,
        4_500,
    )
    assert pull.management.messages.written == []
    assert pull.management.sender.sent == []
    assert pull.queue.deleted == []


def test_extend_merges_duplicate_receipts() -> None:
    # Given
    pull = Pull()
    receipt = pull.handed_out(1)

    # When
    result = pull.extend([receipt, receipt], 60_000)

    # Then
    assert result.extended == [f"msg_{1:032x}"]
    assert pull.queue.hide_calls == [(pull.subscription.queue_url, [("handle-1", 60)])]
    assert pull.management.log.events() == ["extended"]


@pytest.mark.parametrize("bad", ["garbage", "rcpt_", "other-subscription"])
def test_one_bad_receipt_refuses_the_whole_extend_before_anything_changes(bad: str) -> None:
    # Given: a good receipt first, then a malformed one or one of another subscription
    pull = Pull()
    good = pull.handed_out(1)
    other = pull.management.subscription(pull.room)
    bad_receipt = pull.handed_out(2, subscription_id=other.id) if bad == "other-subscription" else bad

    # When
    with pytest.raises(InvalidRequest) as refused:
        pull.extend([good, bad_receipt], 60_000)

    # Then: 400, nothing hidden, logged or recorded
    assert (refused.value.http_status, refused.value.code) == (400, "invalid_receipt")
    assert refused.value.details[0]["field"] == "body.receipts.1"
    assert pull.queue.hide_calls == []
    assert pull.queue.in_flight == {"handle-1": 1}
    assert pull.management.log.records == []
    assert pull.management.messages.written == []


def test_extend_on_another_tenants_subscription_is_not_found_and_changes_nothing() -> None:
    # Given
    pull = Pull()
    receipt = pull.handed_out(1)

    # When
    with pytest.raises(NotFound):
        pull.extend([receipt], 60_000, tenant_id=OTHER_TENANT)

    # Then
    assert pull.queue.hide_calls == []
    assert pull.management.log.records == []


def test_extend_on_a_push_subscription_is_a_conflict() -> None:
    # Given
    pull = Pull()
    push = pull.management.subscription(pull.room, type="PUSH", pushUrl="https://hooks.example.com/in")

    # When
    with pytest.raises(Conflict, match="only PULL"):
        pull.extend([pull.handed_out(1)], 60_000, subscription_id=push.id)

    # Then
    assert pull.queue.hide_calls == []
    assert pull.management.log.records == []


def test_receipts_of_one_sqs_handle_are_acked_once() -> None:
    # Given: two receipts (handed out at different times) that name the same SQS handle
    pull = Pull()
    first = pull.handed_out(1)
    fields = SIGNER.decode(first, TENANT, pull.room.id, pull.subscription.id)
    second = SIGNER.encode(Receipt(**{**fields.__dict__, "pulled_at_ms": 1}), TENANT)
    assert second != first

    # When
    result = pull.service.ack(TENANT, pull.room.id, pull.subscription.id, [first, second])

    # Then: one delete of the handle (SQS refuses a batch naming one twice), acked once
    assert pull.queue.deleted == ["handle-1"]
    assert result.acked == [f"msg_{1:032x}"]
    assert result.failed == []


def test_an_ack_records_the_delivery_before_it_deletes_the_message() -> None:
    # Given: a message in flight, and a record store that fails
    pull = Pull()
    receipt = pull.handed_out(1)

    def failing_update(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("DynamoDB is down")

    pull.management.messages.update_delivery = failing_update  # type: ignore[method-assign]

    # When
    with pytest.raises(RuntimeError, match="DynamoDB is down"):
        pull.service.ack(TENANT, pull.room.id, pull.subscription.id, [receipt])

    # Then: the message is still in flight: it comes back after its ack wait, nothing is lost
    assert pull.queue.deleted == []
    assert "handle-1" in pull.queue.in_flight


def test_a_pull_records_an_expired_message_before_it_deletes_it() -> None:
    # Given: an expired message waiting, and a record store that fails (the worker dies there)
    pull = Pull()
    envelope = replace(first_envelope(message_of(pull, 1), pull.subscription.id), expires_at_ms=NOW_MS - 1)
    pull.queue.waiting.append(Received("handle-1", envelope.to_json(), 1))

    def failing_update(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("DynamoDB is down")

    pull.management.messages.update_delivery = failing_update  # type: ignore[method-assign]

    # When
    with pytest.raises(RuntimeError, match="DynamoDB is down"):
        pull.service.pull(TENANT, pull.room.id, pull.subscription.id, 10, 0)

    # Then: not deleted: it comes back after its ack wait and ends expired then, never left pending
    assert pull.queue.deleted == []
    assert "handle-1" in pull.queue.in_flight


def test_an_ack_sends_its_delivered_records_to_the_log_while_it_deletes_the_messages() -> None:
    # Given: one message in flight, and one acked meanwhile by another consumer (its handle is stale)
    pull = Pull()
    current, stale = pull.handed_out(1), pull.stale(2)
    sent: list[list[str]] = []
    service = pull.service
    service.work.send_log = lambda: sent.append(pull.management.log.events())

    # When
    result = service.ack(TENANT, pull.room.id, pull.subscription.id, [current, stale])

    # Then: both records say delivered, and so does the log, sent once with the delete (the stale
    # handle's message comes back, and its next ack logs it again); SQS's refusal is reported
    assert {d.message_id: d.status.value for d in pull.management.messages.written} == {
        f"msg_{1:032x}": "delivered",
        f"msg_{2:032x}": "delivered",
    }
    assert sent == [["delivered", "delivered"]]
    assert pull.queue.deleted == ["handle-1"]
    assert result.acked == [f"msg_{1:032x}"]
    assert [f.message_id for f in result.failed] == [f"msg_{2:032x}"]


def test_an_ack_of_a_message_that_ended_meanwhile_is_refused_logs_no_delivery_and_leaves_the_queue() -> None:
    # Given: three messages in flight: message 1 was handed out twice (SQS does so at times) and
    # the other hand-out's nack of its last attempt ended it dead; message 2 was acked already
    # (this ack is a retry); message 3 is in flight as usual
    pull = Pull()
    receipts = [pull.handed_out(number) for number in (1, 2, 3)]
    store = pull.management.messages
    for number, status in ((1, DeliveryStatus.DEAD), (2, DeliveryStatus.DELIVERED)):
        ended = Delivery(f"msg_{number:032x}", TENANT, pull.subscription.id, SubscriptionType.PULL, status, 3)
        assert store.update_delivery(ended)

    # When
    result = pull.service.ack(TENANT, pull.room.id, pull.subscription.id, receipts)

    # Then: message 1 is reported, not acked: it stays dead and no delivery of it is logged; the
    # ack of an ack stands; every handle leaves the queue (the dead message's copy is owed to no one)
    assert result.acked == [f"msg_{2:032x}", f"msg_{3:032x}"]
    assert [(f.message_id, f.error) for f in result.failed] == [
        (f"msg_{1:032x}", "the message had already ended dead: not delivered")
    ]
    dead = store.current(TENANT, f"msg_{1:032x}", pull.subscription.id)
    assert dead is not None
    assert dead.status is DeliveryStatus.DEAD
    assert [r.message_id for r in pull.management.log.records] == [f"msg_{2:032x}", f"msg_{3:032x}"]
    assert pull.management.log.events() == ["delivered", "delivered"]
    assert sorted(pull.queue.deleted) == ["handle-1", "handle-2", "handle-3"]
