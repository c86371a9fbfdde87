"""PullConsumer's loop over a Client on ``httpx.MockTransport``: what it acks, nacks and when it
stops (the local stack's redelivery and extension are in tests/e2e/test_sdk.py)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx
import pytest

from roomcast_client import (
    AsyncClient,
    AsyncPullConsumer,
    Client,
    ConsumerStats,
    PullConsumer,
    PulledMessage,
    RetryPolicy,
)
from roomcast_client._consumer_steps import extension_interval_s


def pulled(number: int) -> dict[str, Any]:
    return {
        "messageId": f"msg_{number}",
        "correlationId": "c",
        "eventType": "order.created",
        "eventVersion": "1",
        "payload": {"n": number},
        "publishedAt": "2026-11-22T08:23:18.831Z",
        "receipt": f"rcpt_{number}",
        "attempt": 0,
    }


class FakeApi:
    """Answers pulls from a list of batches and records acks and nacks."""

    def __init__(self, batches: list[list[int]], extend_status: int = 200) -> None:
        self.batches = batches
        self.acked: list[str] = []
        self.nacked: list[str] = []
        self.extend_status = extend_status
        self.extend_calls = 0
        self.extended_twice = threading.Event()
        self.pull_acks: list[int] = []  # how many receipts each pull acked

    def __call__(self, request: httpx.Request) -> httpx.Response:
        action = request.url.path.rsplit("/", 1)[-1]
        body = json.loads(request.content) if request.content else {}
        if action == "pull":
            numbers = self.batches.pop(0) if self.batches else []
            answer: dict[str, Any] = {"messages": [pulled(n) for n in numbers]}
            if "ack" in body:
                self.acked += body["ack"]
                answer |= {"acked": [r.replace("rcpt", "msg") for r in body["ack"]], "ackFailed": []}
            self.pull_acks.append(len(body.get("ack", [])))
            return httpx.Response(200, json=answer)
        if action == "ack":
            self.acked += body["receipts"]
            return httpx.Response(200, json={"acked": [r.replace("rcpt", "msg") for r in body["receipts"]]})
        if action == "nack":
            self.nacked += body["receipts"]
            outcomes = [{"messageId": r.replace("rcpt", "msg"), "outcome": "retry"} for r in body["receipts"]]
            return httpx.Response(200, json={"nacked": outcomes})
        if action == "extend":
            self.extend_calls += 1
            if self.extend_calls >= 2:
                self.extended_twice.set()
            extended = [r.replace("rcpt", "msg") for r in body["receipts"]]
            return httpx.Response(self.extend_status, json={"extended": extended})
        return httpx.Response(404, json={"error": {"code": "route_not_found", "message": action}})


def consumer_of(api: FakeApi, handler: Any, ack_wait_ms: int = 60_000) -> PullConsumer:
    client = Client(
        "https://api.example",
        "rc_key",
        retry=RetryPolicy(max_retries=0),
        http=httpx.Client(transport=httpx.MockTransport(api)),
    )
    return PullConsumer(client, "room_1", "sub_1", handler, ack_wait_ms=ack_wait_ms, wait_seconds=0)


def test_returns_are_acked_and_raises_are_nacked_until_idle() -> None:
    # Given two batches; the handler fails on message 2
    api = FakeApi([[1, 2], [3]])

    def handler(message: PulledMessage) -> None:
        if message.payload["n"] == 2:
            raise ValueError("bad order")

    # When
    stats = consumer_of(api, handler).run(until_idle=True)

    # Then: each handled message acked by the next pull (no ack request of its own)
    assert (api.acked, api.nacked) == (["rcpt_1", "rcpt_3"], ["rcpt_2"])
    assert api.pull_acks == [0, 1, 1]
    assert (stats.pulls, stats.acked, stats.nacked) == (3, 2, 1)
    assert stats.errors == ["msg_2: ValueError('bad order')"]


def test_a_limit_pulls_no_more_than_it_needs() -> None:
    # Given
    api = FakeApi([[1], [2], [3]])
    seen: list[int] = []

    # When
    consumer_of(api, lambda message: seen.append(message.payload["n"])).run(limit=2)

    # Then: the last one acked on its own, as no pull follows
    assert seen == [1, 2]
    assert api.batches == [[3]]
    assert (api.pull_acks, api.acked) == ([0, 1], ["rcpt_1", "rcpt_2"])


def test_stop_gives_back_the_rest_of_the_batch_at_once() -> None:
    # Given a handler that stops the consumer on the first of three messages
    api = FakeApi([[1, 2, 3]])
    consumer: PullConsumer

    def handler(message: PulledMessage) -> None:
        consumer.stop()

    consumer = consumer_of(api, handler)

    # When
    stats = consumer.run()

    # Then the message in hand was finished, the other two nacked, and no more pulls
    assert (api.acked, api.nacked) == (["rcpt_1"], ["rcpt_2", "rcpt_3"])
    assert stats.pulls == 1


@pytest.mark.parametrize(
    ("ack_wait_ms", "interval_s"), [(30_000, 10.0), (3_000, 1.0), (1_000, 1 / 3), (300, 0.2)]
)
def test_held_messages_are_extended_three_times_per_ack_wait(ack_wait_ms: int, interval_s: float) -> None:
    # When / Then
    assert extension_interval_s(ack_wait_ms) == pytest.approx(interval_s)


def test_the_async_consumer_runs_the_same_loop() -> None:
    # Given
    api = FakeApi([[1, 2], [3]])
    http = httpx.AsyncClient(transport=httpx.MockTransport(api))

    async def handler(message: PulledMessage) -> None:
        if message.payload["n"] == 2:
            raise ValueError("bad order")

    async def consume() -> ConsumerStats:
        async with AsyncClient("https://api.example", "rc_key", http=http) as client:
            consumer = AsyncPullConsumer(
                client, "room_1", "sub_1", handler, ack_wait_ms=60_000, wait_seconds=0
            )
            return await consumer.run(until_idle=True)

    # When
    stats = asyncio.run(consume())

    # Then: each handled message acked by the next pull (no ack request of its own)
    assert (api.acked, api.nacked) == (["rcpt_1", "rcpt_3"], ["rcpt_2"])
    assert api.pull_acks == [0, 1, 1]
    assert (stats.pulls, stats.acked, stats.nacked) == (3, 2, 1)


@pytest.mark.parametrize("extend_status", [200, 503])
def test_held_messages_are_extended_while_the_handler_works_and_a_failed_extension_is_survived(
    extend_status: int,
) -> None:
    # Given a 600 ms ack wait (an extension every 200 ms) and a handler that works until two were sent
    api = FakeApi([[1]], extend_status=extend_status)

    def handler(message: PulledMessage) -> None:
        assert api.extended_twice.wait(5), f"{api.extend_calls} extension(s) while the handler worked"

    # When
    stats = consumer_of(api, handler, ack_wait_ms=600).run(limit=1)

    # Then the extender went on after a failure, the message was acked, and only successes count
    assert api.acked == ["rcpt_1"]
    assert stats.errors == []
    assert (stats.extensions >= 1) is (extend_status == 200)
