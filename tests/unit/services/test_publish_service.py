"""PublishService with in-memory fakes: size limit, routing, stored before sent, one log record each."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest

from publish_api.models import PublishRequest
from publish_api.service import PublishService
from roomcast.catalog.model import Room, Subscription
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import DeliveryStatus, Message, Publication
from roomcast.messages.ports import Outgoing, Unsent
from roomcast.messages.sender import QueueAddresses
from roomcast.outbox.tasks import PublishCheck, task_from_json
from roomcast.platform import after_answer, ids, limits
from roomcast.platform.errors import InvalidRequest, RoomcastError
from roomcast.platform.payloads import PayloadTooLarge
from roomcast.publishing.keyed_messages import PUBLISH_IN_PROGRESS_MS
from roomcast.publishing.publisher import Publisher
from tests.fakes import FakeLog, FakeMessages, FakeSender
from tests.support import FakeLambdaContext
from tests.unit.services.management import PUSH_QUEUE_URL, SETTLE_SECONDS, TENANT, Management

NOW_MS = 1_795_435_200_000


class StoreCheckingSender:
    """Fails the test if anything is sent before its message is stored."""

    def __init__(self, messages: FakeMessages) -> None:
        self.messages = messages
        self.sent: list[Envelope] = []
        self.missing_queues: set[str] = set()  # queues try_send finds gone

    def send(self, outgoing: Sequence[Outgoing]) -> None:
        for item in outgoing:
            assert isinstance(item.envelope, Envelope)
            key = (item.envelope.tenant_id, item.envelope.message_id)
            assert key in self.messages.messages, "sent before stored"
            self.sent.append(item.envelope)

    def try_send(self, outgoing: Sequence[Outgoing]) -> list[Unsent]:
        missing = [o for o in outgoing if o.queue_url in self.missing_queues]
        self.send([o for o in outgoing if o.queue_url not in self.missing_queues])
        return [Unsent(o, "QueueDoesNotExist", queue_missing=True) for o in missing]


def _service(management: Management) -> tuple[PublishService, StoreCheckingSender, FakeLog]:
    sender, log = StoreCheckingSender(management.messages), FakeLog()
    publisher = Publisher(
        catalog=management.catalog,
        messages=management.messages,
        sender=sender,
        addresses=QueueAddresses(PUSH_QUEUE_URL),
        log=log,
        outbox=management.outbox,
        clock=lambda: NOW_MS,
        marks=management.messages,
        numbers=management.messages,
    )
    return PublishService(publisher), sender, log


def _request(**fields: object) -> PublishRequest:
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 1}, **fields}
    return PublishRequest.model_validate_json(json.dumps(body))


def test_a_message_is_stored_with_a_pending_record_per_destination_then_sent_to_each() -> None:
    # Given
    management = Management()
    room = management.room(messageExpirationMs=60_000)
    push = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    pull = management.subscription(room)
    service, sender, log = _service(management)

    # When
    message = service.publish(TENANT, room.id, _request(correlationId="order-1"))

    # Then
    assert message.destinations == tuple(sorted([push.id, pull.id]))
    assert message.expires_at_ms == NOW_MS + 60_000
    assert message.correlation_id == "order-1"
    tracked = management.messages.get_message(TENANT, message.id)
    assert {(d.subscription_id, d.status, d.attempts) for d in tracked.deliveries} == {
        (push.id, DeliveryStatus.PENDING, 0),
        (pull.id, DeliveryStatus.PENDING, 0),
    }
    assert sorted((e.subscription_id, e.attempt, e.due_at_ms) for e in sender.sent) == sorted(
        [(push.id, 0, NOW_MS), (pull.id, 0, NOW_MS)]
    )
    assert [(r.event, r.subscription_id) for r in log.records] == [
        ("published", s) for s in message.destinations
    ]


def test_a_message_routed_nowhere_is_stored_and_logged_once() -> None:
    # Given
    management = Management()
    room = management.room()
    management.subscription(room, eventTypes=[{"name": "order.paid"}])
    service, sender, log = _service(management)

    # When
    message = service.publish(TENANT, room.id, _request())

    # Then
    assert message.destinations == ()
    assert (TENANT, message.id) in management.messages.messages
    assert sender.sent == []
    assert [(r.event, r.subscription_id) for r in log.records] == [("published", None)]


def test_a_payload_over_the_limit_is_refused_before_anything_is_read_or_stored() -> None:
    # Given: not even a room
    management = Management()
    service, _sender, _ = _service(management)

    # When
    with pytest.raises(PayloadTooLarge) as refused:
        service.publish(TENANT, "room_missing", _request(payload="x" * limits.MAX_PAYLOAD_BYTES))

    # Then
    assert refused.value.http_status == 413
    assert management.messages.messages == {}


def test_a_named_destination_that_is_not_an_active_subscription_of_the_room_is_refused() -> None:
    # Given
    management = Management()
    room, other = management.room(), management.room(name="other")
    foreign: Subscription = management.subscription(other)
    service, sender, _ = _service(management)

    # When
    with pytest.raises(InvalidRequest) as refused:
        service.publish(TENANT, room.id, _request(destinations=[foreign.id]))

    # Then
    assert refused.value.code == "unroutable"
    assert "not a subscription of room" in refused.value.message
    assert management.messages.messages == {}
    assert sender.sent == []


def test_a_destination_whose_queue_is_gone_is_left_to_the_outbox_and_the_publish_accepted() -> None:
    # Given: two PULL subscriptions, one of whose queues was deleted since routing
    management = Management()
    room = management.room()
    kept = management.subscription(room)
    gone = management.subscription(room)
    service, sender, _ = _service(management)
    assert gone.queue_url
    sender.missing_queues.add(gone.queue_url)

    # When
    message = service.publish(TENANT, room.id, _request())

    # Then: published to the one, the other marked unsent for the outbox
    assert set(message.destinations) == {kept.id, gone.id}
    assert [e.subscription_id for e in sender.sent] == [kept.id]
    assert management.messages.unsent == {(TENANT, message.id): [gone.id]}


def test_when_everything_is_sent_nothing_is_left_to_the_outbox() -> None:
    management = Management()
    room = management.room()
    management.subscription(room)
    service, _, _ = _service(management)

    service.publish(TENANT, room.id, _request())

    assert management.messages.unsent == {}


def test_the_payload_limit_counts_escaped_characters_as_stored() -> None:
    # Given: 1 byte under the limit in UTF-8, but each "é" is stored as the 6 characters \u00e9
    management = Management()
    room = management.room()
    service, _, _ = _service(management)
    payload = "é" * ((limits.MAX_PAYLOAD_BYTES - 2) // 2)

    # When / Then
    with pytest.raises(PayloadTooLarge, match="as stored"):
        service.publish(TENANT, room.id, _request(payload=payload))


def test_a_keyed_publish_stored_by_an_earlier_try_is_resumed_not_stored_again() -> None:
    # Given: a first try under the key stored its message (and died before answering)
    management = Management()
    room = management.room()
    management.subscription(room)
    service, sender, _ = _service(management)
    first = service.publish(TENANT, room.id, _request(), "order-42")
    sender.sent.clear()
    management.messages.done_marks.clear()  # the try died before recording its sends done

    # When: the publisher retries with the same key and body, once the first try cannot be running
    service.publisher.clock = lambda: NOW_MS + PUBLISH_IN_PROGRESS_MS
    again = service.publish(TENANT, room.id, _request(), "order-42")

    # Then: the same message, sent again (at least once), not a second message
    assert again == first
    assert first.id == ids.message_id_for(TENANT, room.id, "order-42")
    assert [e.message_id for e in sender.sent] == [first.id]
    assert len(management.messages.messages) == 1


def test_a_key_reused_for_another_message_publishes_it_under_a_new_id() -> None:
    # Given: the key's message, and later another body under the same key
    management = Management()
    room = management.room()
    service, _, _ = _service(management)
    first = service.publish(TENANT, room.id, _request(), "order-42")

    # When: past the key's window
    service.publisher.clock = lambda: NOW_MS + limits.IDEMPOTENCY_WINDOW_MS
    other = service.publish(TENANT, room.id, _request(payload={"orderId": 2}), "order-42")

    # Then
    assert other.id != first.id
    assert len(management.messages.messages) == 2


# -- batch publish --------------------------------------------------------------------------------


def _batch_message(**fields: object) -> dict[str, object]:
    return {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 1}, **fields}


def test_a_batch_answers_each_message_in_order_and_publishes_only_the_good_ones() -> None:
    # Given: a room taking order.created, with one subscription
    management = Management()
    room = management.room(eventTypes=[{"name": "order.created"}])
    pull = management.subscription(room)
    service, sender, log = _service(management)
    batch = [
        _batch_message(),
        _batch_message(payload="x" * limits.MAX_PAYLOAD_BYTES),
        _batch_message(eventType="order.paid"),
        _batch_message(idempotencyKey="bad key"),
        _batch_message(correlationId="order-5"),
    ]

    # When
    answers = service.publish_many(TENANT, room.id, batch)

    # Then
    assert [getattr(a, "code", "published") for a in answers] == [
        "published",
        "payload_too_large",
        "unroutable",
        "validation_error",
        "published",
    ]
    refused_key = answers[3]
    assert isinstance(refused_key, RoomcastError)
    assert refused_key.details[0]["field"] == "body.messages.3.idempotencyKey"
    published = [a for a in answers if isinstance(a, Message)]
    assert [m.destinations for m in published] == [(pull.id,), (pull.id,)]
    assert published[1].correlation_id == "order-5"
    assert sorted(e.message_id for e in sender.sent) == sorted(m.id for m in published)
    assert len(log.records) == 2


def test_a_keyed_message_of_a_batch_is_the_keyed_single_publish_message() -> None:
    # Given: a message published alone under a key
    management = Management()
    room = management.room()
    management.subscription(room)
    service, sender, _ = _service(management)
    alone = service.publish(TENANT, room.id, _request(), idempotency_key="order-1")

    # When: the same message comes again in a batch under the same key
    (again,) = service.publish_many(TENANT, room.id, [_batch_message(idempotencyKey="order-1")])

    # Then: the same message, not sent again
    assert again == alone
    assert len(sender.sent) == 1


def _clocked_room() -> tuple[Management, Room, PublishService, list[int]]:
    """A room with a subscription, and a service whose clock the test sets."""
    management = Management()
    room = management.room()
    management.subscription(room)
    clock = [NOW_MS]
    service, _sender, _ = _service(management)
    service.publisher.clock = lambda: clock[0]
    return management, room, service, clock


def test_a_keyed_message_stored_by_a_try_that_died_is_in_progress_then_finished() -> None:
    # Given: a keyed message stored, its sends never recorded done (the first try died)
    management, room, service, clock = _clocked_room()
    first = service.publisher.publish_batch(
        TENANT, room.id, [Publication("order.created", "1", {}, idempotency_key="k")]
    )
    management.messages.done_marks.clear()

    # When: retried within the in-progress window, then after it
    clock[0] = NOW_MS + PUBLISH_IN_PROGRESS_MS - 1
    (soon,) = service.publisher.publish_batch(
        TENANT, room.id, [Publication("order.created", "1", {}, idempotency_key="k")]
    )
    clock[0] = NOW_MS + PUBLISH_IN_PROGRESS_MS
    (later,) = service.publisher.publish_batch(
        TENANT, room.id, [Publication("order.created", "1", {}, idempotency_key="k")]
    )

    # Then
    assert isinstance(soon, RoomcastError)
    assert soon.http_status == 409
    assert isinstance(later, Message)
    assert later == first[0]
    assert (TENANT, later.id) in management.messages.done_marks


def test_a_key_past_its_window_names_a_new_message() -> None:
    # Given
    _management, room, service, clock = _clocked_room()
    (first,) = service.publisher.publish_batch(
        TENANT, room.id, [Publication("order.created", "1", {}, idempotency_key="k")]
    )

    # When
    clock[0] = NOW_MS + limits.IDEMPOTENCY_WINDOW_MS
    (again,) = service.publisher.publish_batch(
        TENANT, room.id, [Publication("order.created", "1", {"n": 2}, idempotency_key="k")]
    )

    # Then
    assert isinstance(first, Message)
    assert isinstance(again, Message)
    assert again.id != first.id


class CheckFirstSender(FakeSender):
    """The outbox queue's sender: fails the test if a check is sent after its message is stored."""

    def __init__(self, messages: FakeMessages, refuse: bool = False) -> None:
        super().__init__()
        self.messages = messages
        self.refuse = refuse

    def send(self, outgoing: Sequence[Outgoing]) -> None:
        if self.refuse:
            raise RuntimeError("SQS is down")
        for item in outgoing:
            check = task_from_json(str(item.envelope))
            assert isinstance(check, PublishCheck)
            assert not any((check.tenant_id, m) in self.messages.messages for m in check.message_ids), (
                "check sent after its message was stored"
            )
        super().send(outgoing)


def test_a_publish_sends_its_check_before_storing_and_records_its_sends_done_after() -> None:
    # Given
    management = Management()
    management.outbox_sender = CheckFirstSender(management.messages)
    room = management.room()
    management.subscription(room)
    service, sender, _ = _service(management)

    # When
    message = service.publish(TENANT, room.id, _request())

    # Then: one check, delayed by the settle time, naming the message; the request's mark written
    ((check, delay),) = management.outbox_tasks()
    assert isinstance(check, PublishCheck)
    assert check.message_ids == (message.id,)
    assert delay == SETTLE_SECONDS
    assert message.request_id == check.request_id
    assert (TENANT, check.request_id) in management.messages.done_marks
    assert len(sender.sent) == 1


class Died(BaseException):
    """The publish function's process dies here (not an Exception: nothing catches it)."""


def test_a_publish_that_dies_between_storing_and_sending_leaves_no_mark_so_its_check_sends_it() -> None:
    # Given: a publish whose process dies at its first send
    management = Management()
    room = management.room()
    management.subscription(room)
    service, sender, _ = _service(management)

    def dying(outgoing: Sequence[Outgoing]) -> list[Unsent]:
        raise Died

    sender.try_send = dying  # type: ignore[method-assign]

    # When
    with pytest.raises(Died):
        service.publish(TENANT, room.id, _request())

    # Then: stored, nothing sent, and the check's request not marked done
    ((check, _),) = management.outbox_tasks()
    assert isinstance(check, PublishCheck)
    (stored,) = management.messages.messages.values()
    assert check.message_ids == (stored.id,)
    assert management.messages.sends_done(TENANT, [check.request_id]) == set()


def test_a_publish_that_dies_after_its_answer_leaves_no_mark_so_its_check_sends_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given: the publish API's publisher (its mark after the answer), in a process that dies once
    # it has answered: the work handed over is never done
    management = Management()
    room = management.room()
    management.subscription(room)
    service, sender, _ = _service(management)
    service = PublishService(replace(service.publisher, mark_after_answer=True))
    handed_over: list[Callable[[], object]] = []
    monkeypatch.setattr(after_answer, "_hand_over", lambda request_id, works: handed_over.extend(works))

    def handler(event: object, context: object) -> Message:
        return service.publish(TENANT, room.id, _request())

    publish = after_answer.answer_first(handler)

    # When
    message = publish({}, FakeLambdaContext())

    # Then: answered and sent, the request not marked done: its check sends it again (a duplicate,
    # never a loss); once the work handed over is done, it is marked
    ((check, _),) = management.outbox_tasks()
    assert isinstance(check, PublishCheck)
    assert check.message_ids == (message.id,)
    assert len(sender.sent) == 1
    assert management.messages.sends_done(TENANT, [check.request_id]) == set()
    for work in handed_over:
        work()
    assert management.messages.sends_done(TENANT, [check.request_id]) == {check.request_id}


def test_a_batch_publish_sends_one_check_naming_every_message_and_marks_the_request() -> None:
    # Given
    management = Management()
    room = management.room()
    management.subscription(room)
    service, _, _ = _service(management)

    # When
    answers = service.publisher.publish_batch(
        TENANT,
        room.id,
        [
            Publication("order.created", "1", {"n": n}, idempotency_key=f"k{n}" if n else None)
            for n in range(3)
        ],
    )

    # Then
    ((check, _),) = management.outbox_tasks()
    assert isinstance(check, PublishCheck)
    assert set(check.message_ids) == {a.id for a in answers if isinstance(a, Message)}
    assert management.messages.sends_done(TENANT, [check.request_id]) == {check.request_id}


def test_when_the_check_cannot_be_sent_the_message_is_stored_for_the_outbox_and_not_sent_directly() -> None:
    # Given: SQS refuses the check
    management = Management()
    management.outbox_sender = CheckFirstSender(management.messages, refuse=True)
    room = management.room()
    subscription = management.subscription(room)
    service, sender, _ = _service(management)

    # When
    message = service.publish(TENANT, room.id, _request())

    # Then: accepted, stored with every destination marked for the outbox, nothing sent here
    assert sender.sent == []
    assert management.messages.unsent[(TENANT, message.id)] == [subscription.id]
    assert management.messages.done_marks == set()


def test_a_subscription_whose_filter_misses_gets_no_record_and_no_send_and_the_message_says_why() -> None:
    # Given
    management = Management()
    room = management.room()
    big = management.subscription(room, filterPolicy={"orderId": [{"numeric": [">=", 100]}]})
    every = management.subscription(room)
    service, sender, _ = _service(management)

    # When
    message = service.publish(TENANT, room.id, _request())

    # Then
    assert message.destinations == (every.id,)
    assert [(f.subscription_id, f.reason) for f in message.filtered_out] == [
        (big.id, "payload.orderId: 1 is not >= 100")
    ]
    stored = management.messages.get_message(TENANT, message.id)
    assert stored.message.filtered_out == message.filtered_out
    assert [d.subscription_id for d in stored.deliveries] == [every.id]
    assert [e.subscription_id for e in sender.sent] == [every.id]
