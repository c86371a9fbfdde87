"""Push lanes with in-memory fakes: an endpoint marked slow is delivered from the slow lane, a
request in flight too long marks it, an answer in time there brings it back (roomcast.catalog.lanes)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from push_worker.plans import Deliver, Plan
from roomcast.catalog.lanes import Lane
from roomcast.catalog.model import Subscription
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages import Attempt, AttemptEvent
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import DeliveryStatus
from roomcast.messages.sender import QueueAddresses
from roomcast.webhooks.answers import HttpResult
from tests.unit.services.management import PUSH_QUEUE_URL, SLOW_PUSH_QUEUE_URL, TENANT
from tests.unit.services.test_push_service import NOW_MS, Push, ScriptedWebhook, answer


def _marked_slow(push: Push, since_ms: int = NOW_MS - 60_000) -> Subscription:
    """The push's subscription, marked slow in the catalog (as another container would have)."""
    push.management.catalog.mark_slow(push.subscription, since_ms)
    return push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)


def _stored(push: Push) -> Subscription:
    return push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)


def test_the_fast_lane_moves_a_slow_endpoints_envelope_to_the_slow_lane_without_a_request() -> None:
    # Given
    push = Push()
    _marked_slow(push)
    webhook = ScriptedWebhook([])
    service = push.service(webhook)
    envelope = push.envelope()

    # When
    outcome = service.deliver(envelope, Lane.FAST)

    # Then: the same attempt, unchanged, on the slow lane's queue; nothing posted, nothing recorded
    assert outcome is DeliveryOutcome.SLOW_LANE
    [moved] = push.management.sender.sent
    assert (moved.queue_url, moved.envelope, moved.delay_seconds) == (SLOW_PUSH_QUEUE_URL, envelope, 0)
    assert moved.group_id == TENANT
    assert webhook.posted == []
    assert push.status() is None
    assert push.management.log.events() == ["slow_lane"]


def test_the_slow_lane_delivers_and_an_answer_in_time_ends_the_mark() -> None:
    # Given
    push = Push()
    _marked_slow(push)
    service = push.service(ScriptedWebhook([answer(200)]))

    # When
    outcome = service.deliver(push.envelope(), Lane.SLOW)
    service.apply.finish_batch()

    # Then
    assert outcome is DeliveryOutcome.DELIVERED
    assert _stored(push).slow_since_ms is None


def test_a_slow_answer_in_the_slow_lane_keeps_the_mark_and_its_retry_stays_in_the_lane() -> None:
    # Given
    push = Push()
    marked = _marked_slow(push)
    service = push.service(ScriptedWebhook([HttpResult(503, None, None, 4_000, "")]))

    # When
    outcome = service.deliver(push.envelope(), Lane.SLOW)

    # Then
    assert outcome is DeliveryOutcome.RETRY
    assert _stored(push).slow_since_ms == marked.slow_since_ms
    [retry] = push.management.sender.sent
    assert retry.queue_url == SLOW_PUSH_QUEUE_URL
    assert isinstance(retry.envelope, Envelope)
    assert retry.envelope.attempt == 1


def _held_endpoint(release: threading.Event, latency_ms: int = 2_500) -> Any:
    """A webhook that answers 200 only once ``release`` is set (or after 5 s)."""

    def post(*_request: Any, **_options: Any) -> HttpResult:
        release.wait(5)
        return HttpResult(200, None, None, latency_ms, "")

    return post


def _until(condition: Any, seconds: float = 5.0) -> bool:
    """Whether ``condition()`` came true within ``seconds`` (an event another thread brings about)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_the_fast_lane_stops_waiting_marks_the_endpoint_slow_and_applies_the_late_answer() -> None:
    # Given: a budget of 10 ms, and an endpoint that answers only when the test lets it
    push = Push(slow_after_ms=10)
    release = threading.Event()
    service = replace(push.service(ScriptedWebhook([])), post=_held_endpoint(release))
    envelope = push.envelope()

    # When: the batch goes on without the answer
    outcome = service.deliver(envelope, Lane.FAST)

    # Then: the endpoint is marked slow, and the slow lane gets the attempt after its deadline
    assert outcome is DeliveryOutcome.SLOW_LANE
    assert _stored(push).slow_since_ms == NOW_MS
    [taken] = push.management.sender.sent
    assert taken.queue_url == SLOW_PUSH_QUEUE_URL
    assert taken.envelope == replace(envelope, takeover_of_ms=NOW_MS)
    assert taken.delay_seconds == 15  # the 10-s timeout, then a 5-s margin
    assert push.status() is None
    # and when the answer comes, it is applied (written at once, not with a batch)
    release.set()
    assert _until(lambda: push.status() is not None)
    assert push.status() == (DeliveryStatus.DELIVERED, 1, None)
    # the takeover then finds the attempt answered and makes no request
    assert service.deliver(taken.envelope, Lane.SLOW) is DeliveryOutcome.SUPERSEDED


def test_a_late_answer_after_the_takeover_is_due_is_left_to_the_takeover() -> None:
    # Given: the fast lane stopped waiting, and the request's answer comes only once the takeover
    # is due (a container frozen meanwhile)
    push = Push(slow_after_ms=10)
    release = threading.Event()
    service = replace(push.service(ScriptedWebhook([])), post=_held_endpoint(release))
    envelope = push.envelope()
    service.deliver(envelope, Lane.FAST)
    [taken] = push.management.sender.sent
    assert isinstance(taken.envelope, Envelope)
    answered: Future[Plan] = Future()
    answered.set_result(Deliver((), Attempt(0, AttemptEvent.POST, "2026-11-22T10:00:00.000Z", 9_000, 200)))

    # When
    service._late(envelope, answered, takeover_due_ms=push.now_ms)
    outcome = replace(service, post=ScriptedWebhook([answer(200)])).deliver(taken.envelope, Lane.SLOW)
    service.apply.finish_batch()

    # Then: the late answer wrote nothing; the takeover made the attempt
    assert outcome is DeliveryOutcome.DELIVERED
    assert push.status() == (DeliveryStatus.DELIVERED, 1, None)
    # (the held request itself ends long past its takeover: its answer is left alone too)
    push.now_ms += 60_000
    release.set()


def test_a_quick_request_marks_nothing() -> None:
    # Given
    push = Push(slow_after_ms=10_000)
    service = push.service(ScriptedWebhook([answer(200)]))

    # When
    service.deliver(push.envelope(), Lane.FAST)

    # Then
    assert _stored(push).slow_since_ms is None


def test_without_a_slow_lane_a_marked_endpoint_is_delivered_where_it_is() -> None:
    # Given
    push = Push(slow_lane=False)
    _marked_slow(push)
    webhook = ScriptedWebhook([answer(200)])
    service = push.service(webhook)

    # When
    outcome = service.deliver(push.envelope(), Lane.FAST)

    # Then
    assert outcome is DeliveryOutcome.DELIVERED
    assert len(webhook.posted) == 1


def test_a_record_s_lane_is_the_queue_it_came_from() -> None:
    addresses = QueueAddresses(PUSH_QUEUE_URL, SLOW_PUSH_QUEUE_URL)

    assert addresses.lane_of_queue("arn:aws:sqs:us-east-1:123456789012:push-slow") is Lane.SLOW
    assert addresses.lane_of_queue("arn:aws:sqs:us-east-1:123456789012:push") is Lane.FAST
    assert QueueAddresses(PUSH_QUEUE_URL).lane_of_queue("arn:aws:sqs:us-east-1:1:push-slow") is Lane.FAST


def test_new_envelopes_of_a_slow_endpoint_are_sent_straight_to_the_slow_lane() -> None:
    # Given
    push = Push()
    marked = _marked_slow(push)
    addresses = QueueAddresses(PUSH_QUEUE_URL, SLOW_PUSH_QUEUE_URL)

    # When
    outgoing = addresses.outgoing_for(marked, push.envelope())

    # Then
    assert outgoing.queue_url == SLOW_PUSH_QUEUE_URL
    assert addresses.outgoing_for(push.subscription, push.envelope()).queue_url == PUSH_QUEUE_URL


def test_a_request_whose_own_timeout_fits_the_budget_is_waited_for() -> None:
    # Given: a 50 ms budget, a subscription whose requests time out after 40 ms, and an endpoint
    # that answers only after the budget has passed
    push = Push(slow_after_ms=50)
    key = (TENANT, push.room.id, push.subscription.id)
    push.management.catalog.subscriptions[key] = replace(push.subscription, timeout_ms=40)
    release = threading.Event()
    threading.Timer(0.2, release.set).start()
    service = replace(push.service(ScriptedWebhook([])), post=_held_endpoint(release, latency_ms=40))

    # When
    outcome = service.deliver(push.envelope(), Lane.FAST)

    # Then: its answer decided, in this lane, and nothing was marked
    assert outcome is DeliveryOutcome.DELIVERED
    assert push.management.sender.sent == []
    assert _stored(push).slow_since_ms is None
