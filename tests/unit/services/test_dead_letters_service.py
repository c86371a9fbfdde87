"""DeadLettersService and the dead-letter jobs with in-memory fakes: replay from attempt 0, each
letter by one replay at a time; replay and purge jobs, a page at a time."""

from __future__ import annotations

from dataclasses import replace

from roomcast.dead_letters.ports import ReplayClaim
from roomcast.dead_letters.replays import REPLAY_CLAIM_MS
from roomcast.jobs.model import JobState
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import DeliveryStatus
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT, Management, dead_letter

CLAIMED_AT_MS = 1_795_435_300_000


def test_a_replayed_dead_letter_is_sent_from_attempt_0_recorded_pending_and_removed() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    letter = dead_letter(subscription, 1)
    management.dead_letter_store.put(letter)

    # When
    replayed = management.dead_letters.replay(
        TENANT, room.id, subscription.id, [letter.envelope.message_id, "msg_x"]
    )

    # Then
    assert replayed.replayed == [letter.envelope.message_id]
    assert replayed.not_found == ["msg_x"]
    [sent] = management.sender.sent
    assert sent.queue_url == PUSH_QUEUE_URL
    assert sent.group_id == subscription.tenant_id
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


def test_a_replay_job_replays_every_letter_that_died_before_it_a_page_at_a_time() -> None:
    # Given: 130 dead letters, and one that dies after the job started
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    for number in range(130):
        management.dead_letter_store.put(dead_letter(subscription, number))
    job = management.jobs.replay_dead_letters(TENANT, room.id, subscription.id, (None, None))
    management.dead_letter_store.put(
        replace(dead_letter(subscription, 500), dead_at="2999-01-01T00:00:00.000Z")
    )

    # When
    [ended] = management.run_jobs()

    # Then: the 130 replayed (two pages), the later one left
    assert (ended.id, ended.state, ended.steps) == (job.id, JobState.SUCCEEDED, 2)
    assert ended.counts == {"examined": 131, "replayed": 130, "alreadyReplaying": 0}
    assert len(management.sender.sent) == 130
    assert {o.queue_url for o in management.sender.sent} == {subscription.queue_url}
    assert [k[3] for k in management.dead_letter_store.letters] == [f"msg_{500:032x}"]


def test_a_replay_job_with_a_window_replays_only_the_letters_that_died_within_it() -> None:
    # Given: letters that died at 10:00:10, 10:00:20 and 10:00:30
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    for number in (10, 20, 30):
        letter = dead_letter(subscription, number)
        management.dead_letter_store.put(replace(letter, dead_at=f"2026-11-22T10:00:{number}.000Z"))

    # When
    window = ("2026-11-22T10:00:15.000Z", "2026-11-22T10:00:30.000Z")
    management.jobs.replay_dead_letters(TENANT, room.id, subscription.id, window)
    [ended] = management.run_jobs()

    # Then: the bounds are inclusive
    assert ended.counts["replayed"] == 2
    assert sorted(k[3] for k in management.dead_letter_store.letters) == [f"msg_{10:032x}"]


def test_a_purge_job_deletes_every_dead_letter_and_empties_a_pull_dead_letter_queue() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    for number in range(120):
        management.dead_letter_store.put(dead_letter(subscription, number))

    # When
    management.jobs.purge_dead_letters(TENANT, room.id, subscription.id)
    [ended] = management.run_jobs()

    # Then
    assert (ended.state, ended.counts["purged"]) == (JobState.SUCCEEDED, 120)
    assert management.dead_letter_store.letters == {}
    assert management.queues.purged == [subscription.dead_letter_queue_url]


def _claimed_by_another_replay(at_ms: int) -> tuple[Management, str, str, str]:
    """A dead letter another replay claimed at ``at_ms``: the services, room, subscription, message."""
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    letter = dead_letter(subscription, 1)
    management.dead_letter_store.put(letter)
    message_id = letter.envelope.message_id
    claim = ReplayClaim("another-replay", at_ms, at_ms + REPLAY_CLAIM_MS)
    management.dead_letter_store.claim(TENANT, room.id, subscription.id, [message_id], claim)
    return management, room.id, subscription.id, message_id


def test_a_dead_letter_another_replay_holds_is_reported_and_not_sent_again() -> None:
    # Given: a dead letter another replay has claimed and is sending
    management, room_id, subscription_id, message_id = _claimed_by_another_replay(CLAIMED_AT_MS)
    held = dict(management.dead_letter_store.letters)

    # When
    replayer = replace(management.replayer, clock=lambda: CLAIMED_AT_MS + 1)
    replayed = replace(management.dead_letters, replayer=replayer).replay(
        TENANT, room_id, subscription_id, [message_id]
    )

    # Then: nothing sent by this replay; the letter stays for the other one to remove
    assert (replayed.replayed, replayed.already_replaying, replayed.not_found) == ([], [message_id], [])
    assert management.sender.sent == []
    assert management.dead_letter_store.letters == held


def test_the_claim_of_a_replay_that_crashed_is_taken_over_once_it_ran_out() -> None:
    # Given: a dead letter claimed by a replay that never finished
    management, room_id, subscription_id, message_id = _claimed_by_another_replay(CLAIMED_AT_MS)

    # When: replayed again once that claim ran out
    replayer = replace(management.replayer, clock=lambda: CLAIMED_AT_MS + REPLAY_CLAIM_MS)
    later = replace(management.dead_letters, replayer=replayer)
    replayed = later.replay(TENANT, room_id, subscription_id, [message_id])

    # Then: sent (the message is never lost) and removed
    assert replayed.replayed == [message_id]
    assert [o.envelope.message_id for o in management.sender.sent if isinstance(o.envelope, Envelope)] == [
        message_id
    ]
    assert management.dead_letter_store.letters == {}
