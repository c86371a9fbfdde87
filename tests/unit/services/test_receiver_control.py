"""A receiver's ``webhook-delivery`` answer header (docs/delivery-semantics.md, "What a receiver
can say"): ``abort`` ends the message for the subscription, ``disable`` disables the subscription
as an automatic disable does, an unknown value changes nothing; with the push service over fakes."""

from __future__ import annotations

import pytest

from push_worker.plans import RECEIVER_ABORTED, RECEIVER_DISABLED
from roomcast.catalog.model import SubscriptionStatus
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.log.records import LogEvent
from roomcast.messages.model import DeliveryStatus
from roomcast.webhooks.answers import DeliveryControl, HttpResult, parse_delivery_control
from tests.unit.services.management import TENANT
from tests.unit.services.test_push_service import (
    Push,
    ScriptedWebhook,
    _operational_events,
    _reports_to_operations_room,
)


def controlled(status: int, header: str) -> HttpResult:
    return HttpResult(status, None, None, 12, "", header)


def _subscription_status(push: Push) -> SubscriptionStatus:
    return push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id).status


def test_abort_on_a_failure_ends_the_message_aborted_with_no_retry_no_dead_letter() -> None:
    push = Push()
    service = push.service(ScriptedWebhook([controlled(503, "abort")]))

    outcome = service.deliver(push.envelope())

    assert outcome is DeliveryOutcome.ABORTED
    assert push.status() == (DeliveryStatus.ABORTED, 1, f"HTTP 503; {RECEIVER_ABORTED}")
    assert push.management.sender.sent == []
    assert push.management.dead_letter_store.letters == {}
    assert push.management.log.events() == [LogEvent.ATTEMPT, LogEvent.ABORTED]
    assert _subscription_status(push) is SubscriptionStatus.ACTIVE


def test_abort_on_a_2xx_changes_nothing_the_message_is_delivered() -> None:
    push = Push()
    service = push.service(ScriptedWebhook([controlled(200, "abort")]))

    assert service.deliver(push.envelope()) is DeliveryOutcome.DELIVERED


@pytest.mark.parametrize(
    ("status", "outcome"), [(503, DeliveryOutcome.DEAD), (204, DeliveryOutcome.DELIVERED)]
)
def test_disable_disables_the_subscription_and_tells_the_operations_room_as_an_automatic_disable(
    status: int, outcome: DeliveryOutcome
) -> None:
    push = Push()
    operations = _reports_to_operations_room(push)
    service = push.service(ScriptedWebhook([controlled(status, "disable")]))

    assert service.deliver(push.envelope()) is outcome
    service.apply.finish_batch()

    stored = push.management.catalog.get_subscription(TENANT, push.room.id, push.subscription.id)
    assert (stored.status, stored.disabled_reason) == (SubscriptionStatus.DISABLED, RECEIVER_DISABLED)
    # The disable is reported as an automatic one is (a dead message also as delivery.dead)
    reported = dict(_operational_events(push, operations))
    assert reported["subscription.disabled"]["reason"] == RECEIVER_DISABLED
    assert set(reported) == {"subscription.disabled"} | ({"delivery.dead"} if status >= 300 else set())
    recorded = push.status()
    assert recorded is not None
    assert recorded[0] is (DeliveryStatus.DEAD if status >= 300 else DeliveryStatus.DELIVERED)


def test_an_unknown_value_is_ignored_the_failure_is_retried() -> None:
    push = Push()
    service = push.service(ScriptedWebhook([controlled(503, "pause-please")]))

    assert service.deliver(push.envelope()) is DeliveryOutcome.RETRY
    assert _subscription_status(push) is SubscriptionStatus.ACTIVE


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, (None, None)),
        ("", (None, None)),
        ("ABORT", (DeliveryControl.ABORT, None)),
        ("  disable\t", (DeliveryControl.DISABLE, None)),
        ("retry-later", (None, "retry-later")),
        ("x" * 100, (None, "x" * 64)),
    ],
)
def test_the_header_is_read_without_regard_to_case_or_spaces(
    header: str | None, expected: tuple[DeliveryControl | None, str | None]
) -> None:
    assert parse_delivery_control(header) == expected
