"""DeadLettersService with in-memory fakes: replay from attempt 0, in batches; purge."""

from __future__ import annotations

from dataclasses import replace

from roomcast.dal.dead_letters import DeadLetter
from roomcast.domain.envelope import Envelope
from roomcast.domain.messages import DeliveryStatus
from roomcast.domain.models import Subscription
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT, Management


def _dead_letter(subscription: Subscription, number: int) -> DeadLetter:
    envelope = Envelope(
        message_id=f"msg_{number:032x}",
        tenant_id=subscription.tenant_id,
        room_id=subscription.room_id,
        subscription_id=subscription.id,
        event_type="order.created",
        event_version="1",
        correlation_id=f"order-{number}",
        published_at="2026-11-22T10:00:00.000Z",
        published_at_ms=1_795_435_200_000,
        expires_at_ms=None,
        attempt=5,
        due_at_ms=1_795_435_231_000,
        next_delay_ms=16_000,
        payload={"n": number},
        failovers=1,
    )
    return DeadLetter(envelope, "HTTP 503; attempts exhausted", "2026-11-22T10:00:31.000Z", 6)


def test_a_replayed_dead_letter_is_sent_from_attempt_0_recorded_pending_and_removed() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    letter = _dead_letter(subscription, 1)
    management.dead_letter_store.put(letter)

    # When
    replayed = management.dead_letters.replay(
        TENANT, room.id, subscription.id, [letter.envelope.message_id, "msg_x"]
    )

    # Then
    assert replayed.replayed == [letter.envelope.message_id]
    assert replayed.not_found == ["msg_x"]
    assert replayed.remaining is False
    [sent] = management.sender.sent
    assert sent.queue_url == PUSH_QUEUE_URL
    assert sent.group_id == subscription.id
    assert isinstance(sent.envelope, Envelope)
    assert (sent.envelope.attempt, sent.envelope.next_delay_ms, sent.envelope.failovers) == (0, 0, 0)
    assert (
        sent.envelope.queued_at_ms == sent.envelope.due_at_ms
    )  # queued again now (not cleared by an earlier Clear All)
    assert replace(
        sent.envelope, attempt=5, due_at_ms=0, next_delay_ms=16_000, failovers=1, queued_at_ms=0
    ) == replace(letter.envelope, due_at_ms=0)
    record = management.messages.current(TENANT, letter.envelope.message_id, subscription.id)
    assert record is not None
    assert (record.status, record.attempts) == (DeliveryStatus.PENDING, 0)
    assert record.last_error == "replayed from dead letters (HTTP 503; attempts exhausted)"
    assert management.dead_letter_store.letters == {}
    assert management.log.events() == ["replayed"]


def test_replay_without_ids_takes_the_next_hundred_and_says_more_remain() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    for number in range(130):
        management.dead_letter_store.put(_dead_letter(subscription, number))

    # When
    first = management.dead_letters.replay(TENANT, room.id, subscription.id, None)
    second = management.dead_letters.replay(TENANT, room.id, subscription.id, None)

    # Then
    assert (len(first.replayed), first.remaining) == (100, True)
    assert (len(second.replayed), second.remaining) == (30, False)
    assert {o.queue_url for o in management.sender.sent} == {subscription.queue_url}


def test_purge_deletes_every_dead_letter_and_empties_a_pull_dead_letter_queue() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    for number in range(120):
        management.dead_letter_store.put(_dead_letter(subscription, number))

    # When
    purged = management.dead_letters.purge(TENANT, room.id, subscription.id)

    # Then
    assert purged == 120
    assert management.dead_letter_store.letters == {}
    assert management.queues.purged == [subscription.dead_letter_queue_url]
