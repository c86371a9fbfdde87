"""PULL waits longer than SQS can hold (12 h of visibility, 15 min of delay), in simulated time.

The handlers run in-process against moto; time-machine moves the clock that both use.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import time_machine

from roomcast_dev.samples import SAMPLE_ROOM_ID, SAMPLE_SUBSCRIPTION_ID, seed_sample_tenant
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

THIRTEEN_HOURS_MS = 13 * 3600 * 1000
SQS_MAX_DELAY_SECONDS = 900
PULL_PATH = f"/rooms/{SAMPLE_ROOM_ID}/subscriptions/{SAMPLE_SUBSCRIPTION_ID}"


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def test_a_nack_with_a_13_hour_backoff_comes_back_after_13_hours_through_hops(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    with time_machine.travel(datetime(2026, 11, 22, 9, 0, tzinfo=UTC), tick=False) as clock:
        # Given: a room whose first redelivery waits 13 hours
        manage = function_handler("ManagementFunction")
        seed_sample_tenant(
            stack_model.tables["Table"]["TableName"],
            stack_model.functions["ManagementFunction"].environment["PULL_QUEUE_PREFIX"],
        )
        _call(manage, "PATCH", f"/rooms/{SAMPLE_ROOM_ID}", {"deliveryDelayMs": THIRTEEN_HOURS_MS})
        publish = function_handler("PublishFunction")
        pull = function_handler("PullFunction")
        published = _call(
            publish,
            "POST",
            f"/rooms/{SAMPLE_ROOM_ID}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": 1},
        )
        first = _call(pull, "POST", f"{PULL_PATH}/pull", {})["messages"][0]

        # When: the consumer nacks, and then pulls every SQS delay period for 13 hours
        nack = _call(pull, "POST", f"{PULL_PATH}/nack", {"receipts": [first["receipt"]]})
        empty_pulls = 0
        received: list[dict[str, Any]] = []
        waited_seconds = 0
        while not received and waited_seconds < 14 * 3600:
            clock.shift(SQS_MAX_DELAY_SECONDS)
            waited_seconds += SQS_MAX_DELAY_SECONDS
            received = _call(pull, "POST", f"{PULL_PATH}/pull", {})["messages"]
            empty_pulls += 0 if received else 1

        # Then: nothing came early; attempt 1 came once 13 hours had passed, after a hop per 15 minutes
        assert nack["nacked"][0]["outcome"] == "retry"
        assert nack["nacked"][0]["nextAttemptAt"].startswith("2026-11-22T22:00")
        assert received[0]["messageId"] == published["messageId"]
        assert received[0]["attempt"] == 1
        assert waited_seconds >= THIRTEEN_HOURS_MS / 1000
        assert waited_seconds < THIRTEEN_HOURS_MS / 1000 + SQS_MAX_DELAY_SECONDS
        assert empty_pulls == math.ceil(THIRTEEN_HOURS_MS / 1000 / SQS_MAX_DELAY_SECONDS) - 1
