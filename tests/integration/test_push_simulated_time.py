"""A webhook that fails 5 times, with a 1-hour base delay and multiplier 2, in simulated time:
31 hours of backoff pass in seconds, through 15-minute SQS hops, and nothing arrives late."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from standardwebhooks.webhooks import Webhook as Verifier

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import PushLanes, SendSpy, webhook_server
from tests.support import FakeLambdaContext, api_event

HOUR_MS = 3_600_000
SQS_MAX_DELAY_SECONDS = 900
ON_TIME_SECONDS = 2.0


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def test_five_failures_with_an_hour_base_delay_are_retried_on_time_through_hops(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock,
        webhook_server([500, 500, 500, 500, 500, 200]) as webhook,
    ):
        # Given: a room retrying after 1 h, 2 h, 4 h, 8 h, 16 h, and a webhook failing five times
        manage = function_handler("ManagementFunction")
        room = _call(
            manage,
            "POST",
            "/rooms",
            {
                "name": "slow",
                "deliveryDelayMs": HOUR_MS,
                "deliveryDelayMultiplier": 2.0,
                "deliveryAttempts": 5,
            },
        )
        subscription = _call(
            manage,
            "POST",
            f"/rooms/{room['id']}/subscriptions",
            {"type": "PUSH", "pushUrl": webhook.url(), "timeoutMs": 2000},
        )
        publish = function_handler("PublishFunction")
        push = function_handler("PushFunction")
        spy = SendSpy()
        spy.install(monkeypatch)
        lanes = PushLanes(stack_model, push)

        # When: the message is published and the event source mapping runs, the clock jumping to
        # the moment the next delayed message becomes visible
        published = _call(
            publish,
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": {}},
        )
        for _ in range(1000):
            if webhook.requests and webhook.requests[-1].json["attempt"] == 5:
                break
            if lanes.poll_once():
                continue
            now = time.time()
            upcoming = [s.at + s.delay_seconds for s in spy.sends if s.at + s.delay_seconds > now]
            clock.move_to(datetime.fromtimestamp(min(upcoming) + 0.001, UTC))

        # Then: six POSTs carrying attempts 0..5, all signed, one webhook-id
        attempts = [r.json["attempt"] for r in webhook.requests]
        assert attempts == [0, 1, 2, 3, 4, 5]
        verifier = Verifier(subscription["signingSecret"])
        for request in webhook.requests:
            clock.move_to(datetime.fromtimestamp(request.arrived_at, UTC))  # verified as it arrived
            verifier.verify(request.body, dict(request.headers))
        assert {r.headers["webhook-id"] for r in webhook.requests} == {published["messageId"]}

        # and each retry arrived no more than 2 s after it was due (never before)
        arrivals = [r.arrived_at for r in webhook.requests]
        for k in range(1, 6):
            delay_s = HOUR_MS * 2 ** (k - 1) / 1000
            due = arrivals[k - 1] + delay_s
            assert due <= arrivals[k] <= due + ON_TIME_SECONDS, (k, arrivals[k] - due)

        # and each wait was made of ceil(delay / 900 s) SQS sends (the retry, then hops)
        push_sends = [s for s in spy.sends if s.queue_url in lanes.queue_urls]
        for k in range(1, 6):
            delay_s = HOUR_MS * 2 ** (k - 1) / 1000
            window = [s for s in push_sends if json.loads(s.body)["attempt"] == k]
            assert len(window) == math.ceil(delay_s / SQS_MAX_DELAY_SECONDS), k
            assert all(s.delay_seconds <= SQS_MAX_DELAY_SECONDS for s in window)

        status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{published['messageId']}")
        assert status["deliveries"][0]["status"] == "delivered"
        assert status["deliveries"][0]["attempts"] == 6
