"""PushService with in-memory fakes and a scripted webhook answer: what each answer leads to."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import pytest

from push_worker.admission import FlowControl
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.delivery import PushDelivery
from push_worker.health import STREAK_CONFIRM_MS, EndpointHealth
from push_worker.lanes import Lanes
from push_worker.plans import DESTINATION_GONE
from roomcast.catalog.lanes import SLOW_ENDPOINT_MS
from roomcast.catalog.model import Room, Subscription, SubscriptionStatus
from roomcast.endings.endings import Endings
from roomcast.flow.ports import FlowKey
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages.envelope import Envelope, first_envelope
from roomcast.messages.model import DeliveryStatus, Message
from roomcast.messages.sender import QueueAddresses
from roomcast.operations.events import OperationalEvents
from roomcast.platform.clock import iso_from_ms
from roomcast.publishing.publisher import Publisher
from roomcast.webhooks.answers import HttpResult
from roomcast.webhooks.urls import PushUrlPolicy, PushUrlRejected, PushUrlUnresolvable
from tests.fakes import FakeFlowGate
from tests.unit.services.management import PUSH_QUEUE_URL, SLOW_PUSH_QUEUE_URL, TENANT, Management

NOW_MS = 1_795_435_200_000
PUSH_URL = "https://hooks.example.com/in"


@dataclass
class ScriptedWebhook:
    """Answers each POST with the next result (or raises it); records what was posted."""

    answers: list[HttpResult | Exception]
    posted: list[dict[str, Any]] = field(default_factory=list)

    def __call__(
        self,
        url: str,
        body: bytes,
        headers: dict[str, str],
        timeout_ms: int,
        policy: Any,
        method: str = "POST",
    ) -> HttpResult:
        self.posted.append(
            {"url": url, "headers": headers, "timeout_ms": timeout_ms, "body": body, "method": method}
        )
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def answer(status: int | None, retry_after_ms: int | None = None, error: str | None = None) -> HttpResult:
    return HttpResult(status, retry_after_ms, error, 12, "")


@dataclass
class Push:
    management: Management = field(default_factory=Management)
    flow_gate: FakeFlowGate = field(default_factory=FakeFlowGate)
    now_ms: int = NOW_MS
    slow_after_ms: int = SLOW_ENDPOINT_MS
    slow_lane: bool = True

    def __post_init__(self) -> None:
        self.room: Room = self.management.room(
            deliveryDelayMs=1000, deliveryDelayMultiplier=2.0, deliveryAttempts=2
        )
        self.subscription: Subscription = self.management.subscription(
            self.room, type="PUSH", pushUrl=PUSH_URL
        )

    def service(self, webhook: ScriptedWebhook) -> PushDelivery:
        """The push delivery over the fakes, put together as push_worker.dependencies does."""
        m = self.management
        addresses = QueueAddresses(PUSH_QUEUE_URL, SLOW_PUSH_QUEUE_URL if self.slow_lane else "")
        publisher = Publisher(
            m.catalog,
            m.messages,
            m.sender,
            addresses,
            m.log,
            m.outbox,
            lambda: NOW_MS,
            marks=m.messages,
            numbers=m.messages,
        )
        events = OperationalEvents(m.catalog, lambda: publisher, lambda: NOW_MS)
        endings = Endings(m.catalog, m.dead_letter_store, m.sender, addresses, m.log, events)

        def clock() -> int:
            return self.now_ms

        batch_catalog = BatchCatalog(m.catalog, clock)
        health = EndpointHealth(m.catalog, batch_catalog, events, m.outbox)
        apply = PushApply(m.messages, m.sender, addresses, endings, health, m.log, clock)
        lanes = Lanes(m.catalog, batch_catalog, addresses, clock, self.slow_after_ms)
        return PushDelivery(
            batch_catalog,
            m.messages,
            FlowControl(self.flow_gate, clock),
            health,
            lanes,
            apply,
            PushUrlPolicy(),
            post=webhook,
            clock=clock,
            random_fraction=lambda: 0.0,
        )

    def envelope(self, **changes: Any) -> Envelope:
        message = Message(
            id="msg_" + "1" * 32,
            tenant_id=TENANT,
            room_id=self.room.id,
            event_type="order.created",
            event_version="1",
            correlation_id="order-1",
            payload={"orderId": 1},
            published_at="2026-11-22T10:00:00.000Z",
            published_at_ms=NOW_MS,
            expires_at_ms=None,
            destinations=(self.subscription.id,),
        )
        return replace(first_envelope(message, self.subscription.id), **changes)

    def status(self) -> tuple[DeliveryStatus, int, str | None] | None:
        record = self.management.messages.current(TENANT, "msg_" + "1" * 32, self.subscription.id)
        return None if record is None else (record.status, record.attempts, record.last_error)


def test_a_2xx_is_delivered_and_recorded_when_the_batch_is_flushed() -> None:
    # Given
    push = Push()
    webhook = ScriptedWebhook([answer(204)])
    service = push.service(webhook)

    # When
    outcome = service.deliver(push.envelope())
    before_flush = push.status()
    service.apply.finish_batch()

    # Then
    assert outcome is DeliveryOutcome.DELIVERED
    assert before_flush is None
    assert push.status() == (DeliveryStatus.DELIVERED, 1, None)
    assert webhook.posted[0]["headers"]["webhook-id"] == "msg_" + "1" * 32
    assert push.management.log.events() == ["attempt", "delivered"]


def test_a_5xx_is_retried_after_the_backoff_delay_on_the_tenants_group() -> None:
    # Given
    push = Push()
    service = push.service(ScriptedWebhook([answer(503)]))

    # When: an envelope of a batch, and the batch's end (a first try's record is written there)
    outcome = service.deliver(push.envelope())
    service.apply.finish_batch()

    # Then
    assert outcome is DeliveryOutcome.RETRY
    [retry] = push.management.sender.sent
    assert (retry.queue_url, retry.group_id, retry.delay_seconds) == (PUSH_QUEUE_URL, TENANT, 1)
    assert isinstance(retry.envelope, Envelope)
    assert (retry.envelope.attempt, retry.envelope.due_at_ms) == (1, NOW_MS + 1000)
    assert push.status() == (DeliveryStatus.RETRYING, 1, "HTTP 503")


def test_retry_after_lengthens_the_wait_but_never_shortens_it() -> None:
    # Given
    push = Push()
    service = push.service(
        ScriptedWebhook([answer(429, retry_after_ms=5_000), answer(503, retry_after_ms=10)])
    )

    # When: the retry comes when it is due
    service.deliver(push.envelope())
    [retry] = push.management.sender.sent
    assert isinstance(retry.envelope, Envelope)
    push.now_ms = retry.envelope.due_at_ms
    service.deliver(retry.envelope)

    # Then
    delays = [o.delay_seconds for o in push.management.sender.sent]
    assert delays == [5, 2]


def test_the_last_attempt_failing_makes_a_dead_letter() -> None:
    # Given: deliveryAttempts 2 → attempt 2 is the last
    push = Push()
    service = push.service(ScriptedWebhook([answer(None, error="connection refused")]))

    # When
    outcome = service.deliver(push.envelope(attempt=2))

    # Then
    assert outcome is DeliveryOutcome.DEAD
    [letter] = push.management.dead_letter_store.letters.values()
    assert letter.reason == "connection refused; attempts exhausted"
    assert push.status() == (DeliveryStatus.DEAD, 3, "connection refused; attempts exhausted")
    assert push.management.sender.sent == []


def test_a_permanent_4xx_is_dead_at_once_and_410_also_disables_the_subscription() -> None:
    # Given
    push = Push()
    service = push.service(ScriptedWebhook([answer(410)]))

    # When
    outcome = service.deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.DEAD
    assert push.status() == (DeliveryStatus.DEAD, 1, "HTTP 410 (permanent)")
    stored = push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)
    assert stored.status is SubscriptionStatus.DISABLED


def test_a_failure_hands_the_message_to_the_failover_from_attempt_0() -> None:
    # Given
    push = Push()
    failover = push.management.subscription(push.room)
    push.management.catalog.subscriptions[(TENANT, push.room.id, push.subscription.id)] = replace(
        push.subscription, failover_subscription_id=failover.id
    )
    service = push.service(ScriptedWebhook([answer(400)]))

    # When
    outcome = service.deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.FAILOVER
    [handed] = push.management.sender.sent
    assert handed.queue_url == failover.queue_url
    assert isinstance(handed.envelope, Envelope)
    assert (handed.envelope.subscription_id, handed.envelope.attempt, handed.envelope.failovers) == (
        failover.id,
        0,
        1,
    )
    assert handed.envelope.origin_subscription_id == push.subscription.id
    assert push.status() == (
        DeliveryStatus.DEAD,
        1,
        f"HTTP 400 (permanent); handed to failover {failover.id}",
    )
    assert push.management.dead_letter_store.letters == {}


def test_an_envelope_past_its_expiry_is_expired_without_a_request() -> None:
    # Given
    push = Push()
    webhook = ScriptedWebhook([])
    service = push.service(webhook)

    # When
    outcome = service.deliver(push.envelope(expires_at_ms=NOW_MS))

    # Then
    assert outcome is DeliveryOutcome.EXPIRED
    assert webhook.posted == []
    assert push.status() == (DeliveryStatus.EXPIRED, 0, "expired before delivery")


def test_a_retry_that_would_fall_past_the_expiry_expires_at_once() -> None:
    # Given: the next attempt would be due after 1 s, the message expires in 0.5 s
    push = Push()
    service = push.service(ScriptedWebhook([answer(500)]))

    # When
    outcome = service.deliver(push.envelope(expires_at_ms=NOW_MS + 500))

    # Then
    assert outcome is DeliveryOutcome.EXPIRED
    assert push.management.sender.sent == []
    assert push.status() == (DeliveryStatus.EXPIRED, 1, "HTTP 500; next attempt past expiry")


def test_an_envelope_not_yet_due_hops_without_an_attempt() -> None:
    # Given: due in an hour (more than SQS can delay)
    push = Push()
    webhook = ScriptedWebhook([])
    service = push.service(webhook)

    # When
    outcome = service.deliver(push.envelope(attempt=1, due_at_ms=NOW_MS + 3_600_000))

    # Then
    assert outcome is DeliveryOutcome.HOP
    [hop] = push.management.sender.sent
    assert hop.delay_seconds == 900
    assert isinstance(hop.envelope, Envelope)
    assert (hop.envelope.attempt, hop.envelope.hops) == (1, 1)
    assert webhook.posted == []


def test_a_disabled_subscription_ends_its_deliveries_dead() -> None:
    # Given
    push = Push()
    push.management.catalog.subscriptions[(TENANT, push.room.id, push.subscription.id)] = replace(
        push.subscription, status=SubscriptionStatus.DISABLED
    )
    webhook = ScriptedWebhook([])

    # When
    outcome = push.service(webhook).deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.DEAD
    assert webhook.posted == []
    assert push.status() == (DeliveryStatus.DEAD, 0, "subscription is disabled")


def test_a_message_of_a_deleted_subscription_ends_cleared_without_a_request() -> None:
    # Given
    push = Push()
    webhook = ScriptedWebhook([])
    push.management.catalog.delete_subscription(TENANT, push.room.id, push.subscription.id)

    # When
    outcome = push.service(webhook).deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.CLEARED
    assert webhook.posted == []
    assert push.status() == (DeliveryStatus.CLEARED, 0, DESTINATION_GONE)


def test_a_retry_of_a_deleted_subscription_ends_cleared_keeping_its_attempts() -> None:
    # Given: a delivery retrying after two failed attempts, then its room deleted
    push = Push()
    push.management.delete_room(push.room)

    # When
    outcome = push.service(ScriptedWebhook([])).deliver(push.envelope(attempt=2))

    # Then
    assert outcome is DeliveryOutcome.CLEARED
    assert push.status() == (DeliveryStatus.CLEARED, 2, DESTINATION_GONE)


def test_a_push_url_refused_at_delivery_time_is_dead_at_once() -> None:
    # Given: the host now resolves into a private network
    push = Push()

    # When
    outcome = push.service(ScriptedWebhook([PushUrlRejected("resolves to a private address")])).deliver(
        push.envelope()
    )

    # Then
    assert outcome is DeliveryOutcome.DEAD
    assert push.status() == (DeliveryStatus.DEAD, 1, "push URL refused: resolves to a private address")


def test_a_host_that_does_not_resolve_at_delivery_time_is_retried_like_a_network_error() -> None:
    # Given: DNS fails for a moment
    push = Push()

    # When: the batch's end writes its first tries' records
    service = push.service(ScriptedWebhook([PushUrlUnresolvable("host 'x' does not resolve")]))
    outcome = service.deliver(push.envelope())
    service.apply.finish_batch()

    # Then
    assert outcome is DeliveryOutcome.RETRY
    assert push.status() == (DeliveryStatus.RETRYING, 1, "host 'x' does not resolve")


def _with(push: Push, **changes: Any) -> None:
    key = (TENANT, push.room.id, push.subscription.id)
    push.management.catalog.subscriptions[key] = replace(push.subscription, **changes)


def test_a_paused_subscription_holds_its_deliveries_without_an_attempt_doubling_the_wait() -> None:
    # Given
    push = Push()
    _with(push, status=SubscriptionStatus.PAUSED)
    webhook = ScriptedWebhook([])
    service = push.service(webhook)

    # When: the delivery comes back twice while paused
    first = service.deliver(push.envelope())
    [held] = push.management.sender.sent
    assert isinstance(held.envelope, Envelope)
    second = service.deliver(held.envelope)

    # Then
    assert (first, second) == (DeliveryOutcome.HELD, DeliveryOutcome.HELD)
    delays = [o.delay_seconds for o in push.management.sender.sent]
    envelopes = [o.envelope for o in push.management.sender.sent if isinstance(o.envelope, Envelope)]
    assert delays == [1, 2]
    assert [(e.attempt, e.holds) for e in envelopes] == [(0, 1), (0, 2)]
    assert webhook.posted == []
    assert push.status() is None  # no write for a wait
    assert push.management.log.events() == ["held", "held"]


def test_a_resumed_subscription_delivers_a_held_envelope_as_its_first_attempt() -> None:
    # Given: held once while paused
    push = Push()
    _with(push, status=SubscriptionStatus.PAUSED)
    push.service(ScriptedWebhook([])).deliver(push.envelope())
    [held] = push.management.sender.sent
    assert isinstance(held.envelope, Envelope)

    # When: resumed
    _with(push, status=SubscriptionStatus.ACTIVE)
    service = push.service(ScriptedWebhook([answer(200)]))
    outcome = service.deliver(held.envelope)
    service.apply.finish_batch()

    # Then
    assert outcome is DeliveryOutcome.DELIVERED
    assert push.status() == (DeliveryStatus.DELIVERED, 1, None)


def test_a_paused_wait_never_passes_the_expiry_and_the_delivery_then_expires() -> None:
    # Given: 300 ms before its expiry
    push = Push()
    _with(push, status=SubscriptionStatus.PAUSED)
    service = push.service(ScriptedWebhook([]))

    # When
    outcome = service.deliver(push.envelope(expires_at_ms=NOW_MS + 300, holds=5))

    # Then
    assert outcome is DeliveryOutcome.HELD
    [held] = push.management.sender.sent
    assert held.delay_seconds == 1  # 300 ms, rounded up to SQS's whole seconds, not 32 s
    assert isinstance(held.envelope, Envelope)
    assert service.deliver(replace(held.envelope, expires_at_ms=NOW_MS - 1)) is DeliveryOutcome.EXPIRED


def test_no_lease_left_holds_the_delivery_back_which_is_not_an_attempt() -> None:
    # Given: maxConcurrency 1, its one lease taken by another invocation
    push = Push()
    _with(push, max_concurrency=1)
    flow = FlowKey(TENANT, push.subscription.id)
    push.flow_gate.leases[flow] = {"other": NOW_MS + 60_000}
    webhook = ScriptedWebhook([])
    service = push.service(webhook)
    waited: list[int] = []
    service.flow_control = FlowControl(push.flow_gate, lambda: NOW_MS + sum(waited), waited.append)

    # When
    outcome = service.deliver(push.envelope(attempt=2))

    # Then
    assert outcome is DeliveryOutcome.HELD
    [held] = push.management.sender.sent
    assert isinstance(held.envelope, Envelope)
    assert (held.envelope.attempt, held.envelope.holds, held.delay_seconds) == (2, 1, 1)
    assert webhook.posted == []
    assert 4_000 < sum(waited) <= 5_000  # asked again for a lease within the local wait
    # by reading: the lease item was written once, the first try, not at every poll (a hot key)
    assert push.flow_gate.writes == 1
    assert push.flow_gate.reads == len(waited)
    assert push.management.log.events() == ["held"]
    assert push.management.log.records[0].error == "held back by maxConcurrency"


def test_an_admitted_delivery_releases_its_lease_whatever_the_answer() -> None:
    # Given
    push = Push()
    _with(push, max_concurrency=1, rate_limit_per_second=5.0)
    service = push.service(ScriptedWebhook([answer(503), RuntimeError("network stack broke")]))

    # When: the first answer is a 503, the retry's request breaks
    service.deliver(push.envelope())
    [retry] = push.management.sender.sent
    assert isinstance(retry.envelope, Envelope)
    push.now_ms = retry.envelope.due_at_ms
    with pytest.raises(RuntimeError):
        service.deliver(retry.envelope)

    # Then
    assert push.flow_gate.leases[FlowKey(TENANT, push.subscription.id)] == {}
    assert push.flow_gate.tat_ms[FlowKey(TENANT, push.subscription.id)] == push.now_ms + 200  # the last slot


def _reports_to_operations_room(push: Push) -> Room:
    """An operations room for the test's room, with one PULL subscriber (its queue is fake)."""
    operations = push.management.room(name="operations")
    push.management.subscription(operations)
    push.management.catalog.rooms[(TENANT, push.room.id)] = replace(
        push.room, operations_room_id=operations.id
    )
    return operations


def _operational_events(push: Push, operations: Room) -> list[tuple[str, dict[str, Any]]]:
    published = push.management.messages.messages.values()
    return [(m.event_type, cast(dict[str, Any], m.payload)) for m in published if m.room_id == operations.id]


def test_a_healthy_endpoint_costs_no_health_writes_and_a_success_ends_a_failing_streak() -> None:
    # Given
    push = Push()
    service = push.service(ScriptedWebhook([answer(500), answer(200), answer(200)]))
    key = (TENANT, push.room.id, push.subscription.id)

    # When / Then: the failure starts the streak ...
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms == NOW_MS
    # ... the success ends it, and the next success writes nothing more
    [retry] = push.management.sender.sent
    assert isinstance(retry.envelope, Envelope)
    push.now_ms = retry.envelope.due_at_ms
    service.deliver(retry.envelope)
    assert push.management.catalog.subscriptions[key].failing_since_ms is None
    push.management.catalog.subscriptions[key] = replace(push.subscription, failing_since_ms=123)
    service.batch_catalog.prefetch([push.envelope()])
    push.management.catalog.subscriptions[key] = replace(push.subscription, failing_since_ms=456)
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms is None


def test_failures_after_a_success_start_the_streak_at_the_first_only_once_they_have_lasted() -> None:
    # Given: a container that saw the endpoint succeed
    push = Push()
    service = push.service(
        ScriptedWebhook([answer(200), answer(500), answer(200), answer(500), answer(503), answer(500)])
    )
    key = (TENANT, push.room.id, push.subscription.id)
    service.deliver(push.envelope())

    # When / Then: a failure followed by a success leaves no trace on the subscription ...
    push.now_ms += 1_000
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms is None
    push.now_ms += 1_000
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms is None
    # ... nor do two failures in a row a second apart (an endpoint failing now and then) ...
    push.now_ms += 1_000
    first_failure_ms = push.now_ms
    service.deliver(push.envelope())
    push.now_ms += 1_000
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms is None
    # ... failures with no success between for STREAK_CONFIRM_MS start the streak at the first
    push.now_ms = first_failure_ms + STREAK_CONFIRM_MS
    service.deliver(push.envelope())
    assert push.management.catalog.subscriptions[key].failing_since_ms == first_failure_ms


def test_a_short_disable_after_failing_ms_confirms_the_streak_sooner() -> None:
    # Given: a subscription allowed to fail for 1 s, in a container that saw it succeed
    push = Push()
    _with(push, disable_after_failing_ms=1_000)
    service = push.service(ScriptedWebhook([answer(200), answer(500), answer(500)]))
    key = (TENANT, push.room.id, push.subscription.id)
    service.deliver(push.envelope())
    push.now_ms += 1_000
    first_failure_ms = push.now_ms
    service.deliver(push.envelope())

    # When: it fails again a second later
    push.now_ms += 1_000
    service.deliver(push.envelope())

    # Then: the streak starts at the first failure, and has lasted long enough to disable
    stored = push.management.catalog.subscriptions[key]
    assert stored.status is SubscriptionStatus.DISABLED
    assert stored.disabled_reason is not None
    assert (
        f"every attempt failed for 1000 ms (since {iso_from_ms(first_failure_ms)})" in stored.disabled_reason
    )


def test_a_failure_long_after_the_last_success_starts_the_streak_at_once() -> None:
    push = Push()
    service = push.service(ScriptedWebhook([answer(200), answer(500)]))
    key = (TENANT, push.room.id, push.subscription.id)
    service.deliver(push.envelope())

    push.now_ms += 61_000  # no success seen for over a minute: nothing says the endpoint is healthy
    service.deliver(push.envelope())

    assert push.management.catalog.subscriptions[key].failing_since_ms == push.now_ms


def test_failing_for_disable_after_failing_ms_disables_and_reports_to_the_operations_room() -> None:
    # Given: failing since 5 days and 1 ms, the default allowance
    push = Push()
    operations = _reports_to_operations_room(push)
    _with(push, failing_since_ms=NOW_MS - 432_000_001)
    service = push.service(ScriptedWebhook([answer(503)]))

    # When
    service.deliver(push.envelope())

    # Then
    stored = push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)
    assert stored.status is SubscriptionStatus.DISABLED
    assert stored.disabled_reason is not None
    assert "432000001 ms" in stored.disabled_reason
    assert stored.disabled_at is not None
    [(event_type, payload)] = _operational_events(push, operations)
    assert event_type == "subscription.disabled"
    assert payload["subscriptionId"] == push.subscription.id
    assert payload["roomId"] == push.room.id


def test_a_shorter_streak_than_allowed_leaves_the_subscription_active() -> None:
    push = Push()
    _with(push, failing_since_ms=NOW_MS - 1_000, disable_after_failing_ms=60_000)
    push.service(ScriptedWebhook([answer(503)])).deliver(push.envelope())
    stored = push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)
    assert stored.status is SubscriptionStatus.ACTIVE


def test_a_dead_delivery_is_reported_but_not_a_dead_operational_event() -> None:
    # Given: attempts exhausted for an ordinary message and for an operational event
    push = Push()
    operations = _reports_to_operations_room(push)
    service = push.service(ScriptedWebhook([answer(500), answer(500)]))

    # When
    service.deliver(push.envelope(attempt=2))
    service.deliver(
        push.envelope(
            message_id="msg_" + "2" * 32,
            attempt=2,
            event_type="delivery.dead",
            correlation_id="roomcast-operations:" + "0" * 32,
        )
    )

    # Then: one report, about the ordinary message
    [(event_type, payload)] = _operational_events(push, operations)
    assert event_type == "delivery.dead"
    assert payload["messageId"] == "msg_" + "1" * 32
    assert payload["reason"] == "HTTP 500; attempts exhausted"
