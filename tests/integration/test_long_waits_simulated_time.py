"""Days of waiting in simulated time: a subscription paused for two days sends nothing, holds its
message without attempts, and delivers it within minutes of its resume; an endpoint that fails
for five days (the default disableAfterFailingMs) is disabled exactly then, and the operations
room's PULL subscriber finds the subscription.disabled event."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import PushLanes, SendSpy, webhook_server
from tests.support import FakeLambdaContext, api_event

HOUR_S = 3600
DAY_S = 24 * HOUR_S
PAUSED_RECHECK_MAX_S = 300


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"]) if response.get("body") else None


@contextmanager
def _harness(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[SendSpy, Callable[[], None]]]:
    """The sends seen, and ``step()``: run one batch, or jump the clock to the next send's time."""
    with time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock:
        push = function_handler("PushFunction")
        spy = SendSpy()
        spy.install(monkeypatch)
        lanes = PushLanes(stack_model, push)

        def step() -> None:
            if lanes.poll_once():
                return
            now = time.time()
            upcoming = [s.at + s.delay_seconds for s in spy.sends if s.at + s.delay_seconds > now]
            assert upcoming, "nothing left to wait for"
            clock.move_to(datetime.fromtimestamp(min(upcoming) + 0.001, UTC))

        yield spy, step


def test_two_days_paused_send_nothing_and_resuming_delivers_within_minutes(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        webhook_server([200]) as webhook,
        _harness(stack_model, function_handler, monkeypatch) as (spy, step),
    ):
        # Given: a paused subscription and a message for it
        manage = function_handler("ManagementFunction")
        room = _call(manage, "POST", "/rooms", {"name": "paused"})
        subscription = _call(
            manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": webhook.url()}
        )
        path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
        _call(manage, "PATCH", path, {"status": "paused"})
        _call(
            function_handler("PublishFunction"),
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": {}},
        )
        paused_at = time.time()

        # When: two days pass
        while time.time() < paused_at + 2 * DAY_S:
            step()

        # Then: nothing was sent, and the waits grew to the 5-minute cap (a few hundred re-checks)
        assert webhook.requests == []
        holds = [json.loads(s.body) for s in spy.sends]
        assert {h["attempt"] for h in holds} == {0}
        assert max(s.delay_seconds for s in spy.sends) == PAUSED_RECHECK_MAX_S
        assert len(holds) <= 2 * DAY_S / PAUSED_RECHECK_MAX_S + 20

        # When: resumed
        manage = function_handler("ManagementFunction")
        _call(manage, "PATCH", path, {"status": "active"})
        resumed_at = time.time()
        while not webhook.requests:
            step()

        # Then: delivered as its first attempt, within the re-check cap of the resume
        [request] = webhook.requests
        assert request.json["attempt"] == 0
        assert request.arrived_at - resumed_at <= PAUSED_RECHECK_MAX_S + 2


def test_an_endpoint_failing_for_five_days_is_disabled_then_and_the_operations_room_is_told(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        webhook_server([500]) as webhook,
        _harness(stack_model, function_handler, monkeypatch) as (_sends, step),
    ):
        # Given: retries every 6 hours for long enough, the default 5-day allowance, and an
        # operations room with a PULL subscriber
        manage = function_handler("ManagementFunction")
        operations = _call(manage, "POST", "/rooms", {"name": "operations"})
        watcher = _call(manage, "POST", f"/rooms/{operations['id']}/subscriptions", {"type": "PULL"})
        room = _call(
            manage,
            "POST",
            "/rooms",
            {
                "name": "flaky",
                "deliveryDelayMs": 6 * HOUR_S * 1000,
                "deliveryDelayMultiplier": 1.0,
                "deliveryAttempts": 50,
                "operationsRoomId": operations["id"],
            },
        )
        subscription = _call(
            manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": webhook.url()}
        )
        path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
        _call(
            function_handler("PublishFunction"),
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": {}},
        )

        # When: time passes through 20 failed attempts (4 days 18 h of failing) ...
        while len(webhook.requests) < 20:
            step()
        manage = function_handler("ManagementFunction")
        still = _call(manage, "GET", path)
        # ... and the 21st, 5 days after the first
        while len(webhook.requests) < 21:
            step()
        manage = function_handler("ManagementFunction")
        stored = _call(manage, "GET", path)

        # Then: disabled at the first failure at or after 5 days of failing, not before
        first_failure = webhook.requests[0].arrived_at
        assert still["status"] == "active"
        assert stored["status"] == "disabled"
        assert webhook.requests[-1].arrived_at - first_failure == pytest.approx(5 * DAY_S, abs=5)
        assert "every attempt failed" in stored["disabledReason"]
        pulled = _call(
            function_handler("PullFunction"),
            "POST",
            f"/rooms/{operations['id']}/subscriptions/{watcher['id']}/pull",
            {"maxMessages": 10},
        )["messages"]
        # ... warned a day before (at 80% of the 5 days), then told of the disable
        assert [m["eventType"] for m in pulled] == ["subscription.failing", "subscription.disabled"]
        assert {m["payload"]["subscriptionId"] for m in pulled} == {subscription["id"]}
