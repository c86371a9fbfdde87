"""An endpoint that fails, is warned of, disabled, probed and comes back, in simulated time against
moto with the real push and outbox handlers: the operations room hears `subscription.failing`
then `subscription.disabled`; the message in flight waits (held) while the endpoint is probed with
signed `roomcast.ping` requests; the first probe answered 2xx re-enables the subscription
(`subscription.enabled`), and the message that waited is delivered."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import EventSourceMapping, PushLanes, SendSpy, webhook_server
from tests.support import FakeLambdaContext, api_event

MINUTE_S = 60
# The endpoint fails its first 14 requests (11 attempts over 10 minutes, then 3 probes), then answers 200.
FAILURES = 14


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"]) if response.get("body") else None


def test_a_failing_endpoint_is_warned_of_disabled_probed_and_re_enabled_and_what_waited_is_delivered(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        webhook_server([500] * FAILURES + [200]) as webhook,
        time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock,
    ):
        spy = SendSpy()
        spy.install(monkeypatch)
        push_handler, outbox_handler = function_handler("PushFunction"), function_handler("OutboxFunction")
        sqs = boto3.client("sqs")
        push = PushLanes(stack_model, push_handler)
        outbox_queue = stack_model.functions["OutboxFunction"].environment["OUTBOX_QUEUE_URL"]
        outbox = EventSourceMapping(sqs, outbox_queue, outbox_handler)

        def step() -> None:
            if push.poll_once() or outbox.poll_once():
                return
            now = time.time()
            upcoming = [
                s.at + s.delay_seconds for s in [*spy.sends, *spy.other] if s.at + s.delay_seconds > now
            ]
            assert upcoming, "nothing left to wait for"
            clock.move_to(datetime.fromtimestamp(min(upcoming) + 0.001, UTC))

        # Given: a room retrying every minute, a subscription disabled after 10 minutes of failing,
        # and an operations room with a PULL subscriber
        manage = function_handler("ManagementFunction")
        operations = _call(manage, "POST", "/rooms", {"name": "operations"})
        watcher = _call(manage, "POST", f"/rooms/{operations['id']}/subscriptions", {"type": "PULL"})
        room = _call(
            manage,
            "POST",
            "/rooms",
            {
                "name": "flaky",
                "deliveryDelayMs": MINUTE_S * 1000,
                "deliveryDelayMultiplier": 1.0,
                "deliveryAttempts": 50,
                "operationsRoomId": operations["id"],
            },
        )
        body = {"type": "PUSH", "pushUrl": webhook.url(), "disableAfterFailingMs": 10 * MINUTE_S * 1000}
        subscription = _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", body)
        published = _call(
            function_handler("PublishFunction"),
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": {}},
        )

        # When: time passes until the endpoint answers 200 (after its probes) and the message is delivered
        status_path = f"/rooms/{room['id']}/messages/{published['messageId']}"
        for _ in range(500):
            step()
            deliveries = _call(function_handler("ManagementFunction"), "GET", status_path)["deliveries"]
            if deliveries[0]["status"] == "delivered":
                break

        # Then: eleven attempts a minute apart (0-10 min), the last making the streak 10 minutes
        # long: disabled; probes 1, 2, 4 and 8 minutes apart, the fourth answered 200; the message
        # that waited (held, re-checked at most 5 minutes apart) delivered after it
        bodies = [json.loads(r.body) for r in webhook.requests]
        kinds = ["ping" if b.get("type") == "roomcast.ping" else "message" for b in bodies]
        offsets = [round(r.arrived_at - webhook.requests[0].arrived_at) for r in webhook.requests]
        assert kinds == ["message"] * 11 + ["ping"] * 4 + ["message"]
        assert offsets[10:15] == [600, 660, 780, 1020, 1500]
        assert 1500 < offsets[15] <= 1500 + 300
        assert [b["probe"] for b in bodies[11:15]] == [0, 1, 2, 3]
        # one recovery (one chain), each probe its own webhook-id
        ids = [r.headers["webhook-id"] for r in webhook.requests[11:15]]
        assert len({i.rsplit("_", 1)[0] for i in ids}) == 1
        assert len(set(ids)) == 4
        assert deliveries[0]["status"] == "delivered"
        stored = _call(
            function_handler("ManagementFunction"),
            "GET",
            f"/rooms/{room['id']}/subscriptions/{subscription['id']}",
        )
        assert (stored["status"], stored["probingSince"], stored["disabledReason"]) == ("active", None, None)
        pulled = _call(
            function_handler("PullFunction"),
            "POST",
            f"/rooms/{operations['id']}/subscriptions/{watcher['id']}/pull",
            {"maxMessages": 10},
        )["messages"]
        assert [m["eventType"] for m in pulled] == [
            "subscription.failing",
            "subscription.disabled",
            "subscription.enabled",
        ]
