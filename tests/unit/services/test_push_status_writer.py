"""A push delivery's status is written in one place: every write of a delivery record the push
function makes, whatever the envelope comes to, is made by push_worker.apply (issue 23)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from roomcast.catalog.model import SubscriptionStatus
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import Delivery
from tests.fakes import FakeMessages
from tests.unit.services.test_push_service import NOW_MS, Push, ScriptedWebhook, answer

WRITER = "push_worker.apply"


class WhoWrites(FakeMessages):
    """Records which module called each write of a delivery record."""

    def __init__(self) -> None:
        super().__init__()
        self.writers: list[str] = []

    def _caller(self) -> None:
        frame = inspect.stack()[2].frame
        self.writers.append(str(frame.f_globals.get("__name__")))

    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        self._caller()
        return super().update_delivery(delivery, force=force, only_if_attempts_below=only_if_attempts_below)

    def record_first_tries(self, deliveries: Sequence[Delivery]) -> None:
        self._caller()
        super().record_first_tries(deliveries)


def _push(**subscription: Any) -> Push:
    push = Push()
    push.management.messages = WhoWrites()
    if subscription:
        key = (push.subscription.tenant_id, push.room.id, push.subscription.id)
        push.subscription = replace(push.subscription, **subscription)
        push.management.catalog.subscriptions[key] = push.subscription
    return push


Scenario = tuple[str, Callable[[], Push], list[Any], Callable[[Push], Envelope], DeliveryOutcome]
SCENARIOS: list[Scenario] = [
    ("delivered", _push, [answer(200)], lambda p: p.envelope(), DeliveryOutcome.DELIVERED),
    ("retried", _push, [answer(503)], lambda p: p.envelope(), DeliveryOutcome.RETRY),
    ("dead", _push, [answer(400)], lambda p: p.envelope(), DeliveryOutcome.DEAD),
    ("gone", _push, [answer(410)], lambda p: p.envelope(), DeliveryOutcome.DEAD),
    ("exhausted", _push, [answer(500)], lambda p: p.envelope(attempt=2), DeliveryOutcome.DEAD),
    ("expired", _push, [], lambda p: p.envelope(expires_at_ms=NOW_MS), DeliveryOutcome.EXPIRED),
    (
        "expires after failing",
        _push,
        [answer(500)],
        lambda p: p.envelope(expires_at_ms=NOW_MS + 500),
        DeliveryOutcome.EXPIRED,
    ),
    (
        "disabled",
        lambda: _push(status=SubscriptionStatus.DISABLED),
        [],
        lambda p: p.envelope(),
        DeliveryOutcome.DEAD,
    ),
    ("cleared", lambda: _push(cleared_before_ms=NOW_MS), [], lambda p: p.envelope(), DeliveryOutcome.CLEARED),
]


@pytest.mark.parametrize(
    ("name", "make", "answers", "envelope", "outcome"), SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
def test_every_status_write_of_a_push_delivery_is_made_by_the_apply_module(
    name: str,
    make: Callable[[], Push],
    answers: list[Any],
    envelope: Callable[[Push], Envelope],
    outcome: DeliveryOutcome,
) -> None:
    # Given
    push = make()
    service = push.service(ScriptedWebhook(answers))

    # When
    result = service.deliver(envelope(push))
    service.apply.finish_batch()

    # Then: the status was written, and only by the apply module
    assert result is outcome
    writers = push.management.messages
    assert isinstance(writers, WhoWrites)
    assert writers.writers
    assert set(writers.writers) == {WRITER}, name
