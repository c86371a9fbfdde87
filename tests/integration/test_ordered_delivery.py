"""Ordered delivery through the functions (moto server, a webhook on loopback): publish keyed
messages to an ordered PUSH subscription, feed the outbox function the table's stream records its
filters pass, run the push function on its queue — each key's messages reach the endpoint one at a
time, in publish order, while other keys and unkeyed messages go at once; a dead message pauses
its key (docs/decisions/0041-ordering-keys.md)."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from roomcast.messages.sender import EnvelopeSender
from roomcast.ordering.model import KeyRef
from roomcast.ordering.store import OrderingKeys
from roomcast_dev.template import StackModel
from roomcast_dev.webhook_receiver import Reply, per_path, statuses
from tests.integration.conftest import Handler
from tests.integration.push_harness import OutboxStream, PushLanes, webhook_server
from tests.support import FakeLambdaContext, api_event


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def _ordered_subscription(
    manage: Handler, url: str, on_dead: str = "pause", **policy: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    room = _call(manage, "POST", "/rooms", {"name": "orders", **policy})
    body = {"type": "PUSH", "pushUrl": url, "ordered": True, "onDeadKey": on_dead}
    created = _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", body)
    assert (created["ordered"], created["onDeadKey"]) == (True, on_dead)
    return room, created


def _publish(publish: Handler, room_id: str, n: int, key: str | None) -> str:
    body: dict[str, Any] = {"eventType": "e", "eventVersion": "1", "payload": {"n": n}}
    if key is not None:
        body["orderingKey"] = key
    message = _call(publish, "POST", f"/rooms/{room_id}/messages", body)
    return str(message["messageId"])


def _deliver(stream: OutboxStream, push: PushLanes, limit_s: float = 20.0) -> None:
    """Run the outbox on its stream and the push function on its queues until neither has work,
    nor a delayed retry on its way (a second's wait: the room's first retry delay)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if stream.run() or push.poll_once():
            continue
        if push.idle():
            return
        time.sleep(0.1)
    raise AssertionError(f"still moving after {limit_s} s")


@dataclass
class Functions:
    """The functions an ordered delivery goes through, with their triggers."""

    manage: Handler
    publish: Handler
    stream: OutboxStream
    push: PushLanes


@pytest.fixture
def functions(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> Functions:
    manage = function_handler("ManagementFunction")  # (first: its environment has the region)
    return Functions(
        manage,
        function_handler("PublishFunction"),
        OutboxStream(stack_model, function_handler("OutboxFunction")),
        PushLanes(stack_model, function_handler("PushFunction")),
    )


def test_each_keys_messages_reach_an_ordered_endpoint_one_at_a_time_in_publish_order(
    stack_model: StackModel, functions: Functions
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        # Given: an ordered PUSH subscription
        room, subscription = _ordered_subscription(manage, webhook.url())

        # When: three messages of key a, two of key b, one without a key are published
        a = [_publish(publish, room["id"], n, "a") for n in range(3)]
        b = [_publish(publish, room["id"], n, "b") for n in range(2)]
        loose = _publish(publish, room["id"], 9, None)

        # Then: the unkeyed message went at once; each key's later messages wait their turn
        statuses = {
            m: _call(manage, "GET", f"/rooms/{room['id']}/messages/{m}")["deliveries"][0]["status"]
            for m in [*a, *b, loose]
        }
        assert statuses == {a[0]: "waiting", a[1]: "waiting", a[2]: "waiting", b[0]: "waiting"} | {
            b[1]: "waiting",
            loose: "pending",
        }
        _deliver(stream, push)

        # Then: all delivered, each key's in publish order
        arrived = [r.json["messageId"] for r in webhook.requests]
        assert sorted(arrived) == sorted([*a, *b, loose])
        assert [m for m in arrived if m in a] == a
        assert [m for m in arrived if m in b] == b
        # one at a time: a key's next message reached the endpoint only after the previous was answered
        at = {r.json["messageId"]: r for r in webhook.requests}
        for key in (a, b):
            for earlier, later in itertools.pairwise(key):
                answered = at[earlier].answered_at
                assert answered is not None
                assert at[later].arrived_at >= answered
        done = _call(manage, "GET", f"/rooms/{room['id']}/messages/{a[2]}")["deliveries"][0]
        assert done["status"] == "delivered"
        assert subscription["id"] == done["subscriptionId"]


def test_a_dead_message_pauses_its_key_while_other_keys_flow(
    stack_model: StackModel, functions: Functions
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        # (the endpoint fails a payload that says "bad", and answers the others)
        webhook.respond_with(
            lambda number, request: Reply(500 if request.json["payload"].get("bad") else 200)
        )
        # Given: an ordered subscription whose room gives a message one attempt
        room, subscription = _ordered_subscription(manage, webhook.url(), deliveryAttempts=1)

        # When: key a's first message fails for good; key b's go on
        body = {"eventType": "e", "eventVersion": "1", "payload": {"bad": True}, "orderingKey": "a"}
        dead = _call(publish, "POST", f"/rooms/{room['id']}/messages", body)["messageId"]
        after = _publish(publish, room["id"], 1, "a")
        b = [_publish(publish, room["id"], n, "b") for n in range(2)]
        _deliver(stream, push)

        # Then: key a is paused on its dead message, its next one still waiting; b delivered
        arrived = [r.json["messageId"] for r in webhook.requests]
        assert arrived.count(dead) == 2  # its first attempt and its one retry
        assert after not in arrived
        assert [m for m in arrived if m in b] == b
        keys = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/ordering-keys"
        listed = _call(manage, "GET", f"{keys}?status=paused")["orderingKeys"]
        assert [(k["orderingKey"], k["status"], k["deadMessageId"]) for k in listed] == [
            ("a", "paused", dead)
        ]
        assert "HTTP 500" in listed[0]["reason"]
        waiting = _call(manage, "GET", f"/rooms/{room['id']}/messages/{after}")["deliveries"][0]
        assert waiting["status"] == "waiting"

        # Another tenant finds neither the list nor the key; bad input is refused; nothing changes
        assert _answer(manage, "GET", f"{keys}?status=paused", tenant="globex") == (404, "not_found")
        assert _answer(manage, "POST", f"{keys}/a/resume", {}, tenant="globex") == (404, "not_found")
        assert _answer(manage, "GET", f"{keys}?status=flowing") == (422, "validation_error")
        assert _answer(manage, "GET", f"{keys}?status=paused&limit=0") == (422, "validation_error")
        assert _answer(manage, "POST", f"{keys}/a/resume", {"skip": "yes"}) == (422, "validation_error")
        assert _answer(manage, "POST", f"{keys}/a/resume", {"skip": True, "x": 1}) == (
            422,
            "validation_error",
        )
        assert _answer(manage, "POST", f"{keys}/a%20b/resume", {}) == (404, "not_found")
        assert _call(manage, "GET", f"{keys}?status=paused")["orderingKeys"] == listed
        assert [r.json["messageId"] for r in webhook.requests].count(dead) == 2

        # When: resumed without skipping, the dead message goes again first (and dies again)
        resumed = _call(manage, "POST", f"{keys}/a/resume", {})
        assert (resumed["status"], resumed["inFlight"]) == ("flowing", dead)
        _deliver(stream, push)
        arrived = [r.json["messageId"] for r in webhook.requests]
        assert arrived.count(dead) == 4
        assert after not in arrived
        # a flowing key cannot be resumed; an unknown one is not found
        assert _answer(manage, "POST", f"{keys}/b/resume", {}) == (409, "not_paused")
        assert _answer(manage, "POST", f"{keys}/zzz/resume", {}) == (404, "not_found")

        # When: resumed skipping it, the next message of the key is delivered
        skipped = _call(manage, "POST", f"{keys}/a/resume", {"skip": True})
        assert (skipped["status"], skipped["inFlight"]) == ("flowing", after)
        _deliver(stream, push)
        assert [r.json["messageId"] for r in webhook.requests][-1] == after
        assert _call(manage, "GET", f"{keys}?status=paused")["orderingKeys"] == []


def _answer(
    handler: Handler, method: str, path: str, body: Any = None, tenant: str = "acme"
) -> tuple[int, str]:
    response = handler(api_event(method, path, body, tenant=tenant), FakeLambdaContext())
    return response["statusCode"], json.loads(response["body"])["error"]["code"]


def test_a_crash_between_a_keys_claim_and_its_send_sends_it_when_the_stream_hands_it_back(
    functions: Functions, monkeypatch: pytest.MonkeyPatch
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        # Given: an ordered subscription, two messages of a key, and the outbox dying at its first
        # send (after the key was claimed for the first message)
        room, _ = _ordered_subscription(manage, webhook.url())
        first, second = (_publish(publish, room["id"], n, "a") for n in range(2))
        real_send = EnvelopeSender.send
        crashes = [RuntimeError("the outbox's worker died")]

        def send_or_die(sender: EnvelopeSender, outgoing: Any) -> None:
            if crashes:
                raise crashes.pop()
            real_send(sender, outgoing)

        monkeypatch.setattr(EnvelopeSender, "send", send_or_die)
        stream.failures_allowed = True

        # When: the stream's records are handed back, and everything runs on
        assert stream.run() > 0
        assert crashes == []
        _deliver(stream, push)

        # Then: the key was not left claimed with nothing sent: both delivered, in order, once each
        assert [r.json["messageId"] for r in webhook.requests] == [first, second]


def test_a_stuck_key_holds_only_itself_while_nine_other_keys_and_another_subscription_deliver(
    functions: Functions,
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        # (the endpoint at /hook fails key a's messages; /other answers everything)
        webhook.respond_with(
            lambda number, request: Reply(
                500 if request.path == "/hook" and request.json["payload"]["key"] == "a" else 200
            )
        )
        # Given: two ordered subscriptions of a room that retries after 10 minutes (the bound below
        # for key a's release: a loaded 2-core run takes ~20-40 s, far inside it)
        retry_after_s = 600
        room, stuck = _ordered_subscription(
            manage, webhook.url(), deliveryDelayMs=retry_after_s * 1000, deliveryAttempts=3
        )
        other = {"type": "PUSH", "pushUrl": webhook.url("/other"), "ordered": True}
        _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", other)

        # When: keys a to j get three messages each, interleaved
        keys = "abcdefghij"
        published: dict[str, list[str]] = {k: [] for k in keys}
        for _ in range(3):
            for key in keys:
                body = {"eventType": "e", "eventVersion": "1", "payload": {"key": key}, "orderingKey": key}
                published[key].append(
                    _call(publish, "POST", f"/rooms/{room['id']}/messages", body)["messageId"]
                )
        started = time.monotonic()
        while len(webhook.requests) < 1 + 9 * 3 + 30 and time.monotonic() - started < retry_after_s / 2:
            if not (stream.run() or push.poll_once()):
                time.sleep(0.05)

        # Then: every message of b to j is delivered, in its key's order, while a's first message
        # waits for its retry (10 minutes away) and a's later ones wait behind it
        def arrived(path: str) -> list[str]:
            return [r.json["messageId"] for r in webhook.requests if r.path == path]

        for key in keys[1:]:
            assert [m for m in arrived("/hook") if m in published[key]] == published[key]
        assert [m for m in arrived("/hook") if m in published["a"]] == published["a"][:1]
        statuses = [
            _call(manage, "GET", f"/rooms/{room['id']}/messages/{m}")["deliveries"] for m in published["a"]
        ]
        assert [d["status"] for s in statuses for d in s if d["subscriptionId"] == stuck["id"]] == [
            "retrying", "waiting", "waiting",
        ]  # fmt: skip
        # and the other subscription's key a was never held up by it
        for key in keys:
            assert [m for m in arrived("/other") if m in published[key]] == published[key]

        # When: the endpoint answers again and an operator retries key a's message now
        webhook.respond_with(lambda number, request: Reply(200))
        path = f"/rooms/{room['id']}/subscriptions/{stuck['id']}/deliveries/retry"
        _call(manage, "POST", path, {"messageIds": [published["a"][0]]})
        # (its old retry still waits on the queue: run until key a's messages are through, for at
        # most half of its wait, so that what arrives was released by the operator's retry)
        while (
            len([m for m in arrived("/hook") if m in published["a"]]) < 4
            and time.monotonic() - started < retry_after_s / 2
        ):
            if not (stream.run() or push.poll_once()):
                time.sleep(0.05)

        # Then: key a goes on, in order
        assert [m for m in arrived("/hook") if m in published["a"]] == [published["a"][0], *published["a"]]


def test_an_ordered_failover_gets_a_keys_messages_in_turn_too(functions: Functions) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        webhook.respond_with(per_path({"/origin": statuses(500), "/failover": statuses(500, 200)}))
        # Given: an ordered subscription that fails everything at once (no retry), handing each
        # message to an ordered failover whose endpoint fails its first request (retried in a second)
        room = _call(manage, "POST", "/rooms", {"name": "orders", "deliveryAttempts": 1})
        subscriptions = f"/rooms/{room['id']}/subscriptions"
        ordered = {"type": "PUSH", "ordered": True}
        failover = _call(manage, "POST", subscriptions, {**ordered, "pushUrl": webhook.url("/failover")})
        origin = _call(
            manage,
            "POST",
            subscriptions,
            {
                **ordered,
                "pushUrl": webhook.url("/origin"),
                "deliveryAttempts": 0,
                "failoverSubscriptionId": failover["id"],
            },
        )

        # When: three messages of a key are published to the origin alone
        sent = []
        for n in range(3):
            body = {
                "eventType": "e",
                "eventVersion": "1",
                "payload": {"n": n},
                "orderingKey": "a",
                "destinations": [origin["id"]],
            }
            sent.append(_call(publish, "POST", f"/rooms/{room['id']}/messages", body)["messageId"])
        _deliver(stream, push)

        # Then: the failover got each only once the one before was delivered there (the first after
        # its retry; the second at its first try, whose record is written whole)
        handed = [r.json["messageId"] for r in webhook.requests if r.path == "/failover"]
        assert handed == [sent[0], sent[0], sent[1], sent[2]]


def test_replaying_a_paused_keys_dead_message_delivers_it_first_and_the_key_goes_on(
    functions: Functions,
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([500]) as webhook:
        # Given: an ordered subscription with no retries whose key a paused on a dead message
        room, subscription = _ordered_subscription(manage, webhook.url(), deliveryAttempts=0)
        dead, after = (_publish(publish, room["id"], n, "a") for n in range(2))
        _deliver(stream, push)
        keys = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/ordering-keys?status=paused"
        assert [k["deadMessageId"] for k in _call(manage, "GET", keys)["orderingKeys"]] == [dead]

        # When: the endpoint answers again and the dead letter is replayed (not the key resumed)
        webhook.respond_with(lambda number, request: Reply(200))
        letters = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters/replay"
        _call(manage, "POST", letters, {"messageIds": [dead]})
        _deliver(stream, push)

        # Then: the dead message is delivered first, then the key's next one; nothing is paused
        assert [r.json["messageId"] for r in webhook.requests] == [dead, dead, after]
        assert _call(manage, "GET", keys)["orderingKeys"] == []


def test_a_stream_batch_sends_its_keys_envelopes_together_and_a_key_alone_is_released_without_a_read(
    functions: Functions, monkeypatch: pytest.MonkeyPatch
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        room, _ = _ordered_subscription(manage, webhook.url())
        keys = [f"k{n}" for n in range(12)]
        published = [_publish(publish, room["id"], n, key) for n, key in enumerate(keys)]
        real_send = EnvelopeSender.send
        calls: list[int] = []

        def counted(sender: EnvelopeSender, outgoing: Any) -> None:
            calls.append(len(outgoing))
            real_send(sender, outgoing)

        monkeypatch.setattr(EnvelopeSender, "send", counted)
        # When: the outbox reads the twelve arrivals in one batch
        assert stream.run() == 12
        # Then: their twelve envelopes went out in one send (ten an SQS call), not one each
        assert calls == [12]
        real_read = OrderingKeys.read
        reads: list[str] = []

        def read_counted(keys: OrderingKeys, ref: KeyRef, lookahead: int = 3) -> Any:
            reads.append(ref.ordering_key)
            return real_read(keys, ref, lookahead)

        monkeypatch.setattr(OrderingKeys, "read", read_counted)
        _deliver(stream, push)
        assert sorted(r.json["messageId"] for r in webhook.requests) == sorted(published)
        # and each key, holding its message alone, was released at its ending without reading it
        assert reads == []
        # (free for its next message, which goes at once)
        again = [_publish(publish, room["id"], 100 + n, key) for n, key in enumerate(keys[:3])]
        _deliver(stream, push)
        assert sorted(r.json["messageId"] for r in webhook.requests[-3:]) == sorted(again)


def test_an_ended_messages_place_left_in_line_moves_its_key_on_when_claimed(
    functions: Functions, stack_model: StackModel
) -> None:
    manage, publish, stream, push = functions.manage, functions.publish, functions.stream, functions.push
    with webhook_server([200]) as webhook:
        # Given: m0 delivered, its key released without a read, and the deletion of its place lost
        room, subscription = _ordered_subscription(manage, webhook.url())
        m0 = _publish(publish, room["id"], 0, "a")
        _deliver(stream, push)
        ref = KeyRef("acme", room["id"], subscription["id"], "a")
        table = stack_model.functions["OutboxFunction"].environment["TABLE_NAME"]
        keys = OrderingKeys(table, boto3.client("dynamodb"))
        assert keys.read(ref).waiting == ()
        keys.add_place(ref, m0, 1)
        # When: the key's next message arrives, behind that place
        m1 = _publish(publish, room["id"], 1, "a")
        _deliver(stream, push)
        # Then: m0's ending (read from its record) moved the key on; m1 went, m0 not again
        assert [r.json["messageId"] for r in webhook.requests] == [m0, m1]
        assert keys.read(ref).waiting == ()
