"""PullConsumer's loop over a Client on ``httpx.MockTransport``: what it acks, nacks and when it
stops (the local stack's redelivery and extension are in tests/e2e/test_sdk.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from roomcast_client import Client, PullConsumer, PulledMessage, RetryPolicy
from roomcast_client.consumer import extension_interval_s


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

    def __init__(self, batches: list[list[int]]) -> None:
        self.batches = batches
        self.acked: list[str] = []
        self.nacked: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        action = request.url.path.rsplit("/", 1)[-1]
        body = json.loads(request.content) if request.content else {}
        if action == "pull":
            numbers = self.batches.pop(0) if self.batches else []
            return httpx.Response(200, json={"messages": [pulled(n) for n in numbers]})
        if action == "ack":
            self.acked += body["receipts"]
            return httpx.Response(200, json={"acked": [r.replace("rcpt", "msg") for r in body["receipts"]]})
        if action == "nack":
            self.nacked += body["receipts"]
            outcomes = [{"messageId": r.replace("rcpt", "msg"), "outcome": "retry"} for r in body["receipts"]]
            return httpx.Response(200, json={"nacked": outcomes})
        return httpx.Response(404, json={"error": {"code": "route_not_found", "message": action}})


def consumer_of(api: FakeApi, handler: Any) -> PullConsumer:
    client = Client(
        "https://api.example",
        "rc_key",
        retry=RetryPolicy(max_retries=0),
        http=httpx.Client(transport=httpx.MockTransport(api)),
    )
    return PullConsumer(client, "room_1", "sub_1", handler, ack_wait_ms=60_000, wait_seconds=0)


def test_returns_are_acked_and_raises_are_nacked_until_idle() -> None:
    # Given two batches; the handler fails on message 2
    api = FakeApi([[1, 2], [3]])

    def handler(message: PulledMessage) -> None:
        if message.payload["n"] == 2:
            raise ValueError("bad order")

    # When
    stats = consumer_of(api, handler).run(until_idle=True)

    # Then
    assert (api.acked, api.nacked) == (["rcpt_1", "rcpt_3"], ["rcpt_2"])
    assert (stats.pulls, stats.acked, stats.nacked) == (3, 2, 1)
    assert stats.errors == ["msg_2: ValueError('bad order')"]


def test_a_limit_pulls_no_more_than_it_needs() -> None:
    # Given
    api = FakeApi([[1], [2], [3]])
    seen: list[int] = []

    # When
    consumer_of(api, lambda message: seen.append(message.payload["n"])).run(limit=2)

    # Then
    assert seen == [1, 2]
    assert api.batches == [[3]]


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
