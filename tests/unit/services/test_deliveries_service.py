"""Retry now (of named deliveries, and of all as a job) and Clear All's job with in-memory fakes:
they count exactly what they did, also when several calls run at once (each read before any of
them wrote)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from management_api.deliveries.service import DeliveriesService
from roomcast.catalog.model import Room, Subscription, SubscriptionType
from roomcast.jobs.model import Job, JobState
from roomcast.jobs.retry_now import RetryNow
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import (
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    OwedFilter,
    TrackedMessage,
)
from roomcast.messages.ports import DeliveryPage
from roomcast.messages.sender import QueueAddresses
from roomcast.platform.errors import Conflict
from roomcast.platform.pages import Page, Position
from tests.fakes import FakeMessages
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT, Management

NOW_MS = 1_795_435_200_000


class StaleReads(FakeMessages):
    """Lists answer what they answered first: every call reads before any call writes."""

    def __init__(self) -> None:
        super().__init__()
        self.first_answers: dict[tuple[Any, ...], Page[TrackedMessage]] = {}
        self.first_pages: dict[tuple[Any, ...], DeliveryPage] = {}

    def list_room_messages(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        key = (tenant_id, room_id, limit, start, wanted)
        if key not in self.first_answers:
            self.first_answers[key] = super().list_room_messages(tenant_id, room_id, limit, start, wanted)
        return self.first_answers[key]

    def open_deliveries(
        self, tenant_id: str, owed: OwedFilter, start: Position | None, limit: int
    ) -> DeliveryPage:
        key = (tenant_id, owed.room_id, tuple(owed.subscriptions), start, limit)
        if key not in self.first_pages:
            self.first_pages[key] = super().open_deliveries(tenant_id, owed, start, limit)
        return self.first_pages[key]

    def get_delivery(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None:
        return next(
            d for d in self.written if (d.message_id, d.subscription_id) == (message_id, subscription_id)
        )


def _setup(count: int, stale: bool = True) -> tuple[Management, Room, Subscription, list[Message]]:
    """A PUSH subscription with ``count`` retrying deliveries (``stale``: lists read once)."""
    management = Management(messages=StaleReads() if stale else FakeMessages())
    room = management.room()
    push = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    messages = []
    for n in range(count):
        message = Message(
            f"msg_{n:032x}",
            TENANT,
            room.id,
            "e",
            "1",
            f"c{n}",
            {},
            "2026-11-22T10:00:00.000Z",
            NOW_MS,
            None,
            (push.id,),
        )
        management.messages.put_message(message, [])
        management.messages.update_delivery(
            Delivery(
                message.id,
                TENANT,
                push.id,
                SubscriptionType.PUSH,
                DeliveryStatus.RETRYING,
                1,
                "HTTP 500",
                "2026-11-23T13:00:00.000Z",
            )
        )
        messages.append(message)
    return management, room, push, messages


def _service(management: Management, now_ms: int = NOW_MS) -> DeliveriesService:
    retrier = RetryNow(management.messages, management.sender, QueueAddresses(PUSH_QUEUE_URL), management.log)
    return DeliveriesService(management.catalog, management.messages, replace(retrier, clock=lambda: now_ms))


def _retry_all(management: Management, room: Room, push: Subscription, now_ms: int = NOW_MS) -> Job:
    """Retry every delivery now, as the API does it without names: start the job, let it run."""
    at = replace(management, clock=lambda: now_ms)
    job = at.jobs.retry_deliveries(TENANT, room.id, push.id)
    at.run_jobs()
    return management.job_store.jobs[(job.tenant_id, job.id)]


def _envelopes(sent: Sequence[Any]) -> list[Envelope]:
    return [o.envelope for o in sent if isinstance(o.envelope, Envelope)]


def test_concurrent_retry_now_jobs_send_each_delivery_once_and_their_counts_add_up() -> None:
    # Given: 5 retrying deliveries, and six retry-now jobs that all read them before any wrote
    management, room, push, _ = _setup(5)

    # When
    jobs = [_retry_all(management, room, push) for _ in range(6)]

    # Then: one envelope per delivery, and the jobs' counts add up to them
    assert [job.state for job in jobs] == [JobState.SUCCEEDED] * 6
    assert sum(job.counts["retried"] for job in jobs) == 5
    assert len(_envelopes(management.sender.sent)) == 5


def test_concurrent_retry_nows_of_named_messages_send_each_delivery_once() -> None:
    # Given: 5 retrying deliveries, named by six calls
    management, room, push, messages = _setup(5)
    names = [m.id for m in messages]

    # When
    answers = [_service(management).retry_now(TENANT, room.id, push.id, names) for _ in range(6)]

    # Then: the first call retried them all; the others name them not retrying
    assert [len(a.retried) for a in answers] == [5, 0, 0, 0, 0, 0]
    assert [len(a.not_retrying) for a in answers] == [0, 5, 5, 5, 5, 5]
    assert len(_envelopes(management.sender.sent)) == 5


def test_a_delivery_a_retry_now_made_due_is_not_retried_again() -> None:
    # Given: a retrying delivery, made due now by a retry-now
    management, room, push, (message,) = _setup(1, stale=False)
    first = _retry_all(management, room, push)

    # When: another retry-now a moment later
    second = _retry_all(management, room, push, NOW_MS + 10)

    # Then: nothing to do the second time; one envelope in all
    assert (first.counts["retried"], second.counts["retried"]) == (1, 0)
    assert len(_envelopes(management.sender.sent)) == 1
    assert _envelopes(management.sender.sent)[0].message_id == message.id


def test_a_retry_now_whose_claim_lapsed_can_be_claimed_again() -> None:
    # Given: a retry-now that claimed a delivery and died before moving it
    management, room, push, (message,) = _setup(1)
    record = management.messages.get_delivery(TENANT, message.id, push.id)
    assert record is not None
    assert management.messages.claim_retry(record, "dead-call", NOW_MS)

    # When: retried soon, then after the claim lapsed
    soon = _service(management, NOW_MS + 1_000).retry_now(TENANT, room.id, push.id, [message.id])
    later = _service(management, NOW_MS + 31_000).retry_now(TENANT, room.id, push.id, [message.id])

    # Then
    assert (soon.retried, later.retried) == ([], [message.id])


def test_retry_now_of_a_pull_subscription_is_refused_before_a_job_starts() -> None:
    # Given
    management = Management()
    room = management.room()
    pull = management.subscription(room, type="PULL")

    # When
    with pytest.raises(Conflict, match="PUSH"):
        management.jobs.retry_deliveries(TENANT, room.id, pull.id)

    # Then
    assert management.job_store.jobs == {}
    assert management.outbox_tasks() == []


def test_concurrent_clear_alls_all_succeed_and_their_counts_add_up() -> None:
    # Given: 5 retrying deliveries, and six Clear All jobs that all read them before any wrote
    management, room, push, messages = _setup(5)

    # When
    for n in range(6):
        replace(management.jobs, clock=partial(int, NOW_MS + n)).clear_deliveries(TENANT, room.id, push.id)
    jobs = management.run_jobs()

    # Then
    assert [job.state for job in jobs] == [JobState.SUCCEEDED] * 6
    assert sum(job.counts["cleared"] for job in jobs) == 5
    subscription = management.catalog.get_subscription(TENANT, room.id, push.id)
    assert subscription.cleared_before_ms == NOW_MS + 5
    assert {management.messages.current(TENANT, m.id, push.id).status for m in messages} == {  # type: ignore[union-attr]
        DeliveryStatus.CLEARED
    }
