"""Endpoints that recover by themselves (roomcast.catalog.recovery), over fakes: the warning before an
automatic disable, the probing an automatic disable starts (and a 410 or an operator's does not),
deliveries held while probed, and each probe: early, stopped, failed (the next one sent first,
each attempt made once), recovered (re-enabled and reported)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from outbox_worker.probes import ProbeOutcome, ProbeService
from push_worker.plans import PROBING
from roomcast.catalog.model import Subscription, SubscriptionStatus
from roomcast.catalog.recovery import PROBE_MAX_MS, RECOVERED, probe_delay_ms, warning_due
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages.sender import QueueAddresses
from roomcast.operations.events import OperationalEvents
from roomcast.outbox.tasks import Probe
from roomcast.platform.clock import iso_from_ms
from roomcast.publishing.publisher import Publisher
from roomcast.webhooks.answers import HttpResult
from roomcast.webhooks.urls import PushUrlPolicy
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT
from tests.unit.services.test_push_service import (
    NOW_MS,
    Push,
    ScriptedWebhook,
    _operational_events,
    _reports_to_operations_room,
    _with,
    answer,
)

DAY_MS = 86_400_000


def _stored(push: Push) -> Subscription:
    return push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)


def test_probes_back_off_from_a_minute_to_an_hour_and_warn_at_80_percent() -> None:
    assert [probe_delay_ms(n) for n in (0, 1, 2, 5, 6, 40)] == [
        60_000,
        120_000,
        240_000,
        1_920_000,
        PROBE_MAX_MS,
        PROBE_MAX_MS,
    ]
    assert not warning_due(0, 79, 100)
    assert warning_due(0, 80, 100)


def test_a_streak_at_80_percent_warns_the_operations_room_once() -> None:
    push = Push()
    operations = _reports_to_operations_room(push)
    _with(push, failing_since_ms=NOW_MS - 4 * DAY_MS)  # of the default 5 days
    service = push.service(ScriptedWebhook([answer(503), answer(503)]))

    service.deliver(push.envelope())
    service.deliver(push.envelope())

    [(event_type, payload)] = _operational_events(push, operations)
    assert event_type == "subscription.failing"
    assert payload["disabledAt"] == iso_from_ms(NOW_MS + DAY_MS)  # when it will be disabled
    assert _stored(push).status is SubscriptionStatus.ACTIVE


def test_an_automatic_disable_starts_probing_and_its_deliveries_wait_instead_of_ending() -> None:
    push = Push()
    _with(push, failing_since_ms=NOW_MS - 5 * DAY_MS - 1)
    service = push.service(ScriptedWebhook([answer(503)]))

    service.deliver(push.envelope())

    stored = _stored(push)
    assert (stored.status, stored.probing_since_ms) == (SubscriptionStatus.DISABLED, NOW_MS)
    [(probe, delay_s)] = push.management.outbox_tasks()
    assert probe == Probe(TENANT, push.room.id, push.subscription.id, NOW_MS, 0, NOW_MS + 60_000)
    assert delay_s == 60
    # Then a delivery of it is held, not ended
    assert service.deliver(push.envelope(message_id="msg_" + "2" * 32)) is DeliveryOutcome.HELD
    assert push.management.log.records[-1].error == PROBING


def test_a_410_disables_without_probing() -> None:
    push = Push()
    service = push.service(ScriptedWebhook([answer(410)]))

    assert service.deliver(push.envelope()) is DeliveryOutcome.DEAD

    stored = _stored(push)
    assert (stored.status, stored.probing_since_ms) == (SubscriptionStatus.DISABLED, None)
    assert push.management.outbox_tasks() == []


def test_with_probes_turned_off_an_automatic_disable_probes_nothing() -> None:
    push = Push()
    _with(push, failing_since_ms=NOW_MS - 5 * DAY_MS - 1, recovery_probes=False)
    service = push.service(ScriptedWebhook([answer(503)]))

    service.deliver(push.envelope())

    stored = _stored(push)
    assert (stored.status, stored.probing_since_ms) == (SubscriptionStatus.DISABLED, None)
    assert push.management.outbox_tasks() == []


class Probed:
    """A subscription disabled automatically at NOW_MS, its endpoint scripted, and its probes."""

    def __init__(self, *answers: HttpResult) -> None:
        self.push = Push()
        self.operations = _reports_to_operations_room(self.push)
        _with(
            self.push,
            status=SubscriptionStatus.DISABLED,
            disabled_reason="every attempt failed",
            disabled_at="2026-11-22T10:00:00.000Z",
            probing_since_ms=NOW_MS,
        )
        self.webhook = ScriptedWebhook(list(answers))
        self.now_ms = NOW_MS + 60_000
        m = self.push.management

        publisher = Publisher(
            m.catalog,
            m.messages,
            m.sender,
            QueueAddresses(PUSH_QUEUE_URL),
            m.log,
            m.outbox,
            lambda: NOW_MS,
            marks=m.messages,
            numbers=m.messages,
        )
        events = OperationalEvents(m.catalog, lambda: publisher, lambda: NOW_MS)
        self.service = ProbeService(
            m.catalog, m.outbox, events, PushUrlPolicy(), self.webhook, lambda: self.now_ms
        )

    def probe(self, attempt: int = 0, **changes: Any) -> ProbeOutcome:
        ids = (TENANT, self.push.room.id, self.push.subscription.id)
        task = replace(Probe(*ids, NOW_MS, attempt, NOW_MS + 60_000), **changes)
        return self.service.probe(task)


def test_a_failing_probe_sends_the_next_first_and_a_duplicate_probes_nothing() -> None:
    probed = Probed(answer(503))

    assert probed.probe() is ProbeOutcome.FAILED
    assert probed.probe() is ProbeOutcome.STOPPED  # the same task again: attempt 0 is taken

    [posted] = probed.webhook.posted
    assert b'"type":"roomcast.ping"' in posted["body"]
    assert posted["headers"]["webhook-id"].startswith("ping_")
    tasks = [task for task, _ in probed.push.management.outbox_tasks() if isinstance(task, Probe)]
    assert [(t.attempt, t.due_at_ms) for t in tasks] == [(1, probed.now_ms + 120_000)] * 2
    assert _stored(probed.push).status is SubscriptionStatus.DISABLED


def test_a_2xx_re_enables_the_subscription_and_tells_the_operations_room() -> None:
    probed = Probed(answer(204))

    assert probed.probe() is ProbeOutcome.RECOVERED

    stored = _stored(probed.push)
    assert (stored.status, stored.disabled_reason, stored.probing_since_ms) == (
        SubscriptionStatus.ACTIVE,
        None,
        None,
    )
    [(event_type, payload)] = _operational_events(probed.push, probed.operations)
    assert (event_type, payload["reason"]) == ("subscription.enabled", RECOVERED)


def test_an_early_probe_waits_on_and_one_of_an_older_disable_or_a_re_enabled_subscription_stops() -> None:
    probed = Probed(answer(204))

    assert probed.probe(due_at_ms=probed.now_ms + 600_000) is ProbeOutcome.WAITING
    assert probed.probe(chain_ms=NOW_MS - 1) is ProbeOutcome.STOPPED
    _with(probed.push, recovery_probes=False)
    assert probed.probe() is ProbeOutcome.STOPPED
    assert probed.webhook.posted == []
