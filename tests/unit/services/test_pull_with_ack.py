"""A pull that acks the messages of an earlier pull on the way (``ack`` on POST .../pull): the
receipts verified before anything changes, the ack's records before its delete, the pull's
hand-out as without it, and the ack done before the answer even when the pull fails."""

from __future__ import annotations

import pytest

from pull_api.service import Pulled
from roomcast.messages.envelope import first_envelope
from roomcast.platform.errors import InvalidRequest
from roomcast.pull.ports import Received
from tests.unit.services.management import TENANT
from tests.unit.services.pulls import Pull, message_of


def _waiting(pull: Pull, number: int) -> None:
    """A due message of the subscription waiting in its queue."""
    envelope = first_envelope(message_of(pull, number), pull.subscription.id)
    pull.queue.waiting.append(Received(f"handle-{number}", envelope.to_json(), 1))


def _pull(pull: Pull, ack: list[str]) -> Pulled:
    return pull.service.pull(TENANT, pull.room.id, pull.subscription.id, 10, 0, ack)


def test_a_pull_with_ack_acks_the_earlier_messages_and_hands_out_the_next() -> None:
    # Given: two messages handed out before (one acked meanwhile by another consumer), one waiting
    pull = Pull()
    current, stale = pull.handed_out(1), pull.stale(2)
    _waiting(pull, 3)

    # When
    pulled = _pull(pull, [current, stale])

    # Then: the next message handed out; the current receipt recorded delivered and deleted, the
    # stale one reported (its record says delivered too, as a plain ack writes it)
    assert [h.envelope.message_id for h in pulled.handed] == [f"msg_{3:032x}"]
    assert pulled.acked is not None
    assert pulled.acked.acked == [f"msg_{1:032x}"]
    assert [f.message_id for f in pulled.acked.failed] == [f"msg_{2:032x}"]
    assert pull.queue.deleted == ["handle-1"]
    assert "handle-3" in pull.queue.in_flight
    assert {d.message_id: d.status.value for d in pull.management.messages.written} == {
        f"msg_{1:032x}": "delivered",
        f"msg_{2:032x}": "delivered",
    }
    assert sorted(pull.management.log.events()) == ["attempt", "delivered", "delivered"]


def test_a_pull_without_ack_answers_no_ack_and_one_with_an_empty_ack_acks_nothing() -> None:
    # Given
    pull = Pull()
    _waiting(pull, 1)
    _waiting(pull, 2)

    # When
    plain = pull.service.pull(TENANT, pull.room.id, pull.subscription.id, 1, 0)
    empty = pull.service.pull(TENANT, pull.room.id, pull.subscription.id, 1, 0, [])

    # Then
    assert (len(plain.handed), plain.acked) == (1, None)
    assert len(empty.handed) == 1
    assert empty.acked is not None
    assert (empty.acked.acked, empty.acked.failed) == ([], [])
    assert pull.queue.deleted == []
    assert pull.management.messages.written == []


@pytest.mark.parametrize("bad", ["garbage", "other-subscription"])
def test_one_bad_receipt_refuses_the_whole_pull_before_anything_changes(bad: str) -> None:
    # Given: a good receipt, then a bad one; a message waiting
    pull = Pull()
    good = pull.handed_out(1)
    other = pull.management.subscription(pull.room)
    bad_receipt = pull.handed_out(2, subscription_id=other.id) if bad == "other-subscription" else bad
    _waiting(pull, 3)

    # When
    with pytest.raises(InvalidRequest) as refused:
        _pull(pull, [good, bad_receipt])

    # Then: 400 naming the receipt; nothing received, deleted, recorded or logged
    assert (refused.value.http_status, refused.value.code) == (400, "invalid_receipt")
    assert refused.value.details[0]["field"] == "body.ack.1"
    assert [r.handle for r in pull.queue.waiting] == ["handle-3"]
    assert pull.queue.in_flight == {"handle-1": 1}
    assert pull.queue.deleted == []
    assert pull.management.messages.written == []
    assert pull.management.log.records == []


def test_the_ack_is_done_before_the_answer_when_the_pull_fails() -> None:
    # Given: one message handed out before, and a queue whose next receive fails
    pull = Pull()
    receipt = pull.handed_out(1)

    def failing_receive(*args: object, **kwargs: object) -> list[Received]:
        raise RuntimeError("SQS is down")

    pull.queue.receive = failing_receive  # type: ignore[method-assign]

    # When
    with pytest.raises(RuntimeError, match="SQS is down"):
        _pull(pull, [receipt])

    # Then: the ack went all the way (recorded, then deleted): a retry of the request acks again,
    # which changes nothing more
    assert pull.queue.deleted == ["handle-1"]
    assert [d.status.value for d in pull.management.messages.written] == ["delivered"]


def test_the_acks_records_come_before_its_delete_when_the_pull_succeeds() -> None:
    # Given: a message handed out before, a record store that fails, one message waiting
    pull = Pull()
    receipt = pull.handed_out(1)
    _waiting(pull, 2)

    def failing_update(*args: object, **kwargs: object) -> bool:
        raise RuntimeError("DynamoDB is down")

    pull.management.messages.update_delivery = failing_update  # type: ignore[method-assign]

    # When
    with pytest.raises(RuntimeError, match="DynamoDB is down"):
        _pull(pull, [receipt])

    # Then: the acked message was not deleted (it comes back: a duplicate, never a loss); the
    # message handed out meanwhile stays in flight and comes back after its ack wait
    assert pull.queue.deleted == []
    assert {"handle-1", "handle-2"} <= set(pull.queue.in_flight)
