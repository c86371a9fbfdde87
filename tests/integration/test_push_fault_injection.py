"""Crash the push function at every step boundary, at random, over many runs: every message still
ends delivered, dead or expired — none lost; duplicates are counted (at-least-once)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from roomcast.messages.sender import EnvelopeSender
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.crash_harness import Crash, Crashes
from tests.integration.push_harness import (
    PUSH_QUEUE_VISIBILITY_SECONDS,
    PushLanes,
    SendSpy,
    webhook_server,
)
from tests.support import FakeLambdaContext, api_event

RUNS = 12
MESSAGES_PER_SUBSCRIPTION = 3
# Per step boundary and record: a batch of 10 passes ~40 boundaries, so most invocations still crash.
CRASH_PROBABILITY = 0.03
TERMINAL = {"delivered", "dead", "expired"}


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


@pytest.mark.parametrize("seed", range(RUNS))
def test_no_message_is_lost_whatever_step_the_function_crashes_at(
    seed: int,
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crashes = Crashes(seed, CRASH_PROBABILITY)

    with (
        time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock,
        webhook_server([500, 200]) as flaky,
        webhook_server([503, 503, 503]) as failing,
        webhook_server([400]) as refusing,
        webhook_server([200]) as healthy,
    ):
        # Given: four subscriptions whose webhooks recover, keep failing, refuse, or work; a room
        # retrying after 1 s x2 up to 3 times, and one whose messages expire after 4 s
        manage = function_handler("ManagementFunction")
        policy = {"deliveryDelayMs": 1000, "deliveryDelayMultiplier": 2.0, "deliveryAttempts": 3}
        rooms = [
            _call(manage, "POST", "/rooms", {"name": "lasting", **policy}),
            _call(manage, "POST", "/rooms", {"name": "short-lived", **policy, "messageExpirationMs": 4000}),
        ]
        subscriptions: dict[str, str] = {}
        for room in rooms:
            for webhook in (flaky, failing, refusing, healthy):
                created = _call(
                    manage,
                    "POST",
                    f"/rooms/{room['id']}/subscriptions",
                    {"type": "PUSH", "pushUrl": webhook.url(), "timeoutMs": 1000},
                )
                subscriptions[created["id"]] = room["id"]
        publish = function_handler("PublishFunction")
        push = function_handler("PushFunction")
        spy = SendSpy()
        spy.install(monkeypatch)
        crashes.install(monkeypatch)
        crashing_send, spied_send = EnvelopeSender.send, crashes.spied_send
        published: list[tuple[str, str]] = []
        for room in rooms:
            for n in range(MESSAGES_PER_SUBSCRIPTION):
                monkeypatch.setattr(EnvelopeSender, "send", spied_send)  # publishing itself does not crash
                message = _call(
                    publish,
                    "POST",
                    f"/rooms/{room['id']}/messages",
                    {"eventType": "e", "eventVersion": "1", "payload": {"n": n}},
                )
                published.append((room["id"], message["messageId"]))
        monkeypatch.setattr(EnvelopeSender, "send", crashing_send)
        lanes = PushLanes(stack_model, push)

        # When: the event source mappings run until the queues are empty, crashing at random
        for _ in range(3000):
            try:
                if lanes.poll_once(crash=crashes.before_acknowledging):
                    continue
            except Crash:
                continue  # nothing acknowledged: the batch comes back after the visibility timeout
            if lanes.idle():
                break
            now = time.time()
            upcoming = [s.at + s.delay_seconds for s in spy.sends if s.at + s.delay_seconds > now]
            clock.move_to(
                datetime.fromtimestamp(min([*upcoming, now + PUSH_QUEUE_VISIBILITY_SECONDS]) + 0.001, UTC)
            )
        else:
            pytest.fail("the push queues never drained")

        # Then: every delivery of every message ended delivered, dead or expired
        assert sum(crashes.counts.values()) > 0, "no crash was injected; the run proves nothing"
        statuses: dict[tuple[str, str], str] = {}
        for room_id, message_id in published:
            status = _call(manage, "GET", f"/rooms/{room_id}/messages/{message_id}")
            for delivery in status["deliveries"]:
                statuses[(message_id, delivery["subscriptionId"])] = delivery["status"]
        assert len(statuses) == len(published) * 4
        # An envelope the function crashed on 10 times is parked in the poison queue (redrive
        # policy) for an operator: not lost, but not finished either.
        parked = {(envelope["message_id"], envelope["subscription_id"]) for envelope in lanes.parked()}
        unfinished = {key: status for key, status in statuses.items() if status not in TERMINAL}
        assert set(unfinished) <= parked, (unfinished, parked)

        # and a delivered one really reached its webhook with a 2xx; a refusing webhook's are dead letters
        delivered_ids = [
            json.loads(r.body)["messageId"]
            for w in (flaky, healthy)
            for r in w.requests
            if r.reply is not None and r.reply.status == 200
        ]
        for (message_id, _), status in statuses.items():
            if status == "delivered":
                assert message_id in delivered_ids
        for subscription_id, room_id in subscriptions.items():
            letters = _call(manage, "GET", f"/rooms/{room_id}/subscriptions/{subscription_id}/dead-letters")
            dead = {(m, s) for (m, s), st in statuses.items() if st == "dead" and s == subscription_id}
            assert {(d["messageId"], subscription_id) for d in letters["deadLetters"]} == dead
        duplicates = len(delivered_ids) - len(set(delivered_ids))
        print(
            f"seed {seed}: crashes {crashes.counts}, duplicates {duplicates}, "
            f"parked in poison queue {len(parked)}"
        )
