"""OutboxService with in-memory fakes: publish checks finish a dead publish's sends, sweeps end
what deleted subscriptions still owe."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from outbox_worker.service import GONE, SWEEP_BUDGET_SECONDS, OutboxService
from roomcast.catalog.model import Room, Subscription, SubscriptionType
from roomcast.deliver_at.rules import hop_delay_seconds
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import Delivery, DeliveryStatus, Message
from roomcast.messages.sender import QueueAddresses
from roomcast.outbox.tasks import SUBSCRIPTION_DELETED, PublishCheck, Release, Sweep
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT, Management

NOW_MS = 1_795_435_200_000


def _service(management: Management, clock: list[float] | None = None) -> OutboxService:
    seconds = clock or [0.0]
    return OutboxService(
        management.catalog,
        management.messages,
        management.sender,
        QueueAddresses(PUSH_QUEUE_URL),
        management.log,
        management.outbox,
        monotonic=lambda: seconds[0],
        marks=management.messages,
        scheduled=management.messages,
    )


def _stored(
    management: Management, room: Room, *destinations: Subscription, number: int = 1, request: str = "pub_1"
) -> Message:
    """A message stored as a publish stores it (each destination pending), and nothing sent."""
    message = Message(
        id=f"msg_{number:032x}",
        tenant_id=TENANT,
        room_id=room.id,
        event_type="order.created",
        event_version="1",
        correlation_id=f"order-{number}",
        payload={"n": number},
        published_at=f"2026-11-22T10:00:{number:02d}.000Z",
        published_at_ms=NOW_MS + number * 1000,
        expires_at_ms=None,
        destinations=tuple(s.id for s in destinations),
        request_id=request,
    )
    records = [
        Delivery(message.id, TENANT, s.id, s.type, DeliveryStatus.PENDING, 0, None, message.published_at)
        for s in destinations
    ]
    management.messages.put_message(message, records)
    return message


def _sent(management: Management) -> list[tuple[str, str]]:
    return [
        (o.envelope.message_id, o.envelope.subscription_id)
        for o in management.sender.sent
        if isinstance(o.envelope, Envelope)
    ]


def _status(management: Management, message: Message, subscription: Subscription) -> tuple[object, ...]:
    record = management.messages.current(TENANT, message.id, subscription.id)
    assert record is not None
    return (record.status, record.attempts, record.last_error)


def test_a_check_of_a_request_that_recorded_its_sends_does_nothing() -> None:
    # Given
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    message = _stored(management, room, pull)
    management.messages.mark_sends_done(TENANT, ["pub_1"])

    # When
    result = _service(management).check_publish(PublishCheck(TENANT, room.id, "pub_1", (message.id,)))

    # Then
    assert (result.sent, result.cleared) == ([], [])
    assert management.sender.sent == []


def test_a_check_of_a_request_that_died_sends_what_it_stored_and_clears_what_is_gone() -> None:
    # Given: a request that stored a message for a PUSH, a PULL and a since-deleted subscription,
    # and died before sending; one more id it never stored
    management = Management()
    room = management.room()
    push = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    pull = management.subscription(room)
    gone = management.subscription(room)
    message = _stored(management, room, push, pull, gone)
    management.catalog.delete_subscription(TENANT, room.id, gone.id)
    check = PublishCheck(TENANT, room.id, "pub_1", (message.id, "msg_" + "f" * 32))

    # When
    result = _service(management).check_publish(check)

    # Then: each first envelope sent once, the gone one cleared, the request marked done
    assert sorted(_sent(management)) == sorted([(message.id, push.id), (message.id, pull.id)])
    assert sorted(result.sent) == sorted([push.id, pull.id])
    assert result.cleared == [gone.id]
    assert _status(management, message, gone) == (DeliveryStatus.CLEARED, 0, GONE)
    assert management.messages.sends_done(TENANT, ["pub_1"]) == {"pub_1"}


def test_a_check_leaves_destinations_that_moved_on_and_messages_another_request_finished() -> None:
    # Given: one message whose PUSH delivery is already retrying (its envelope arrived), and one
    # a keyed retry finished (marked by its message id)
    management = Management()
    room = management.room()
    push = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    pull = management.subscription(room)
    moving = _stored(management, room, push, pull, number=1)
    management.messages.update_delivery(
        Delivery(moving.id, TENANT, push.id, SubscriptionType.PUSH, DeliveryStatus.RETRYING, 1, "HTTP 500")
    )
    finished = _stored(management, room, push, number=2)
    management.messages.mark_sends_done(TENANT, [finished.id])

    # When
    _service(management).check_publish(PublishCheck(TENANT, room.id, "pub_1", (moving.id, finished.id)))

    # Then: only the PULL destination that never moved is sent again
    assert _sent(management) == [(moving.id, pull.id)]


def test_a_sweep_ends_every_open_delivery_of_a_deleted_subscription_and_nothing_else() -> None:
    # Given: a PULL subscription with a pending delivery, a retrying one, a delivered one, and a
    # delivery handed to it by failover (not among the message's destinations); then deleted
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    other = management.subscription(room)
    pending = _stored(management, room, pull, other, number=1)
    retrying = _stored(management, room, pull, number=2)
    delivered = _stored(management, room, pull, number=3)
    handed = _stored(management, room, other, number=4)
    write = management.messages.update_delivery
    write(Delivery(retrying.id, TENANT, pull.id, SubscriptionType.PULL, DeliveryStatus.RETRYING, 2, "nack"))
    write(Delivery(delivered.id, TENANT, pull.id, SubscriptionType.PULL, DeliveryStatus.DELIVERED, 1))
    write(Delivery(handed.id, TENANT, pull.id, SubscriptionType.PULL, DeliveryStatus.PENDING, 0))
    management.catalog.delete_subscription(TENANT, room.id, pull.id)
    sweep = Sweep(TENANT, room.id, ((pull.id, SubscriptionType.PULL),), SUBSCRIPTION_DELETED)

    # When
    ended = _service(management).sweep(sweep)

    # Then
    assert ended == 3
    assert _status(management, pending, pull) == (DeliveryStatus.CLEARED, 0, SUBSCRIPTION_DELETED)
    assert _status(management, retrying, pull) == (DeliveryStatus.CLEARED, 2, SUBSCRIPTION_DELETED)
    assert _status(management, handed, pull) == (DeliveryStatus.CLEARED, 0, SUBSCRIPTION_DELETED)
    assert _status(management, delivered, pull) == (DeliveryStatus.DELIVERED, 1, None)
    untouched = management.messages.current(TENANT, pending.id, other.id)
    assert untouched is not None
    assert untouched.status is DeliveryStatus.PENDING
    assert [r.event for r in management.log.records] == ["cleared"] * 3


def test_a_sweep_leaves_a_subscription_that_is_still_there() -> None:
    # Given: a sweep sent before a deletion that then failed
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    message = _stored(management, room, pull)
    sweep = Sweep(TENANT, room.id, ((pull.id, SubscriptionType.PULL),), SUBSCRIPTION_DELETED)

    # When
    ended = _service(management).sweep(sweep)

    # Then
    assert ended == 0
    assert _status(management, message, pull) == (DeliveryStatus.PENDING, 0, None)


def test_a_sweep_whose_time_is_up_hands_the_rest_on_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given: a deleted subscription with more messages than a page, and a clock past the budget
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    messages = [_stored(management, room, pull, number=n) for n in range(1, 4)]
    management.catalog.delete_subscription(TENANT, room.id, pull.id)
    clock = [0.0]
    service = _service(management, clock)
    sweep = Sweep(TENANT, room.id, ((pull.id, SubscriptionType.PULL),), SUBSCRIPTION_DELETED)

    def slow_page(*args: Any) -> Any:
        clock[0] += SWEEP_BUDGET_SECONDS + 1
        return open_deliveries(*args)

    open_deliveries = management.messages.open_deliveries
    management.messages.open_deliveries = slow_page  # type: ignore[assignment,method-assign]

    monkeypatch.setattr("outbox_worker.service.SWEEP_PAGE_MESSAGES", 2)

    # When: the first invocation, then the one it handed on
    first = service.sweep(sweep)
    ((resumed, delay),) = management.outbox_tasks()
    assert isinstance(resumed, Sweep)
    second = service.sweep(resumed)

    # Then: two ended first (the newest), the third by the resumed sweep, sent on at once
    assert (first, second, delay) == (2, 1, 0)
    assert resumed.position is not None
    assert {_status(management, m, pull)[0] for m in messages} == {DeliveryStatus.CLEARED}


@pytest.mark.parametrize(
    ("early_ms", "hop_seconds", "slept_seconds"),
    [(1_500, 1, None), (1_000, 1, None), (999, None, 0.999), (400, None, 0.4), (0, None, None)],
)
def test_a_release_waits_its_last_second_itself_and_never_sends_before_its_time(
    early_ms: int, hop_seconds: int | None, slept_seconds: float | None
) -> None:
    # Given: a scheduled message whose release arrives ``early_ms`` before its time (SQS delays
    # count whole seconds: a hop rounds down and comes back up to a second early)
    management = Management()
    room = management.room()
    pull = management.subscription(room)
    due_ms = NOW_MS + 60_000
    message = replace(_stored(management, room, pull), deliver_at_ms=due_ms)
    management.messages.messages[(TENANT, message.id)] = message
    slept: list[float] = []
    service = _service(management)
    service.clock = lambda: due_ms - early_ms
    service.sleep = slept.append

    # When
    service.release(Release(TENANT, room.id, message.id, due_ms, "rel_1"))

    # Then: a second or more early, it hops again for the whole seconds left; less, the function
    # waits the rest and sends; on time, it sends at once
    hops = [delay for task, delay in management.outbox_tasks() if isinstance(task, Release)]
    assert hops == ([hop_seconds] if hop_seconds is not None else [])
    assert slept == ([slept_seconds] if slept_seconds is not None else [])
    assert _sent(management) == ([] if hop_seconds is not None else [(message.id, pull.id)])


def test_a_hop_waits_the_whole_seconds_left_and_at_most_fifteen_minutes() -> None:
    assert [hop_delay_seconds(10_000, now) for now in (10_000, 9_001, 9_000, 7_500, 11_000)] == [
        0,
        0,
        1,
        2,
        0,
    ]
    assert hop_delay_seconds(3_600_000, 0) == 900
