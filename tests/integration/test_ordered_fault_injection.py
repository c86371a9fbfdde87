"""Ordered delivery while the push function crashes at random step boundaries (simulated time):
every ordered delivery still ends, and each key's messages reach its endpoint in publish order,
none before the previous one was answered 2xx or ended — whatever the crashes duplicate."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine

from roomcast.ordering.model import KeyRef
from roomcast.ordering.store import OrderingKeys
from roomcast_dev.template import StackModel
from roomcast_dev.webhook_receiver import RecordedRequest
from tests.integration.conftest import Handler
from tests.integration.crash_harness import Crash, Crashes
from tests.integration.push_harness import (
    PUSH_QUEUE_VISIBILITY_SECONDS,
    OutboxStream,
    PushLanes,
    SendSpy,
    webhook_server,
)
from tests.support import FakeLambdaContext, api_event

RUNS = 4
KEYS = ("a", "b", "c")
MESSAGES_PER_KEY = 3
CRASH_PROBABILITY = 0.05
TERMINAL = {"delivered", "dead", "expired"}
TENANT = "acme"


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant=TENANT), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def _in_turn(requests: list[RecordedRequest], line: list[str]) -> None:
    """The key's messages first reached the endpoint in ``line``'s order, each after the previous
    one's first 2xx (when it had one)."""
    first: dict[str, float] = {}
    answered: dict[str, float] = {}
    for request in requests:
        message_id = request.json["messageId"]
        first.setdefault(message_id, request.arrived_at)
        if request.reply is not None and request.reply.status == 200:
            answered.setdefault(message_id, request.arrived_at)
    seen = [m for m in line if m in first]
    assert sorted(seen, key=first.__getitem__) == seen
    for earlier, later in itertools.pairwise(seen):
        assert first[later] >= answered.get(earlier, first[earlier]), (earlier, later)


def _unended(
    stack_model: StackModel, status: dict[str, Any], spy: SendSpy, crashes: Crashes, lanes: PushLanes
) -> str:
    """Why a message's delivery did not end, as far as the table, the sends and the poison queue
    tell: its key's head and line, every envelope of the message sent, and those parked (a
    failure's account)."""
    keys = OrderingKeys(stack_model.tables["Table"]["TableName"], boto3.client("dynamodb"))
    lines = [f"message {status['messageId']} (key {status['payload']['key']}): crashes {crashes.counts}"]
    for delivery in status["deliveries"]:
        ref = KeyRef(TENANT, status["roomId"], delivery["subscriptionId"], status["payload"]["key"])
        line = keys.read(ref)
        lines.append(
            f"  {delivery['subscriptionId']}: {delivery['status']}, attempts {delivery['attempts']};"
        )
        lines.append(f"    key head {line.head}; waiting {list(line.waiting_ids)}")
    for send in spy.sends:
        envelope = json.loads(send.body)
        if envelope.get("message_id") == status["messageId"]:
            lines.append(
                f"  sent at {send.at:.3f} to {send.queue_url.rpartition('/')[2]} delay {send.delay_seconds}: "
                f"{envelope.get('subscription_id')} attempt {envelope.get('attempt')}"
            )
    for envelope in lanes.parked():
        if envelope.get("message_id") == status["messageId"]:
            lines.append(f"  parked: {envelope.get('subscription_id')} attempt {envelope.get('attempt')}")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(RUNS))
def test_each_keys_messages_stay_in_turn_whatever_step_the_push_function_crashes_at(
    seed: int,
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crashes = Crashes(seed, CRASH_PROBABILITY)
    with (
        time_machine.travel(datetime(2026, 11, 22, 8, 0, tzinfo=UTC), tick=False) as clock,
        webhook_server([500, 200]) as flaky,
        webhook_server([200]) as healthy,
    ):
        # Given: two ordered subscriptions (one whose endpoint fails its first request), a room
        # retrying after 1 s x2 up to 3 times, and three keys of three messages each
        manage = function_handler("ManagementFunction")
        room = _call(
            manage, "POST", "/rooms", {"name": "orders", "deliveryDelayMs": 1000, "deliveryAttempts": 3}
        )
        for webhook in (flaky, healthy):
            body = {"type": "PUSH", "pushUrl": webhook.url(), "timeoutMs": 1000, "ordered": True}
            _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", body)
        publish = function_handler("PublishFunction")
        lines: dict[str, list[str]] = {key: [] for key in KEYS}
        for _, key in itertools.product(range(MESSAGES_PER_KEY), KEYS):
            body = {"eventType": "e", "eventVersion": "1", "payload": {"key": key}, "orderingKey": key}
            lines[key].append(_call(publish, "POST", f"/rooms/{room['id']}/messages", body)["messageId"])
        push = function_handler("PushFunction")
        stream = OutboxStream(stack_model, function_handler("OutboxFunction"))
        spy = SendSpy()
        spy.install(monkeypatch)
        crashes.install(monkeypatch)  # the push function's POSTs and sends (and the outbox's sends)
        stream.failures_allowed = True  # an outbox batch whose send crashed comes back
        lanes = PushLanes(stack_model, push)

        # When: the outbox runs on the table's stream and the push function on its queues until
        # all are idle, crashing at random; the clock jumps to the next message due. An envelope
        # the function crashed on 10 times is parked in the poison queue: it is moved back, as an
        # operator does (ADR 0011), and its key waits for it meanwhile
        redriven = 0
        for _ in range(3000):
            try:
                if stream.run() or lanes.poll_once(crash=crashes.before_acknowledging):
                    continue
            except Crash:
                continue  # nothing acknowledged: the batch comes back after the visibility timeout
            now = time.time()
            upcoming = [s.at + s.delay_seconds for s in spy.sends if s.at + s.delay_seconds > now]
            if not upcoming and lanes.idle():
                moved = lanes.redrive()
                if not moved:
                    break
                redriven += moved
                continue
            clock.move_to(
                datetime.fromtimestamp(min([*upcoming, now + PUSH_QUEUE_VISIBILITY_SECONDS]) + 0.001, UTC)
            )
        else:
            pytest.fail("the functions never went idle")

        # Then: every ordered delivery ended, and each key reached each endpoint in turn
        assert sum(crashes.counts.values()) > 0, "no crash was injected; the run proves nothing"
        for message_id in itertools.chain.from_iterable(lines.values()):
            status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message_id}")
            assert {d["status"] for d in status["deliveries"]} <= TERMINAL, _unended(
                stack_model, status, spy, crashes, lanes
            )
        for webhook in (flaky, healthy):
            for key in KEYS:
                requests = [r for r in webhook.requests if r.json["payload"]["key"] == key]
                _in_turn(requests, lines[key])
        print(f"seed {seed}: crashes {crashes.counts}, redriven from the poison queue {redriven}")
