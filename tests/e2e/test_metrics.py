"""Metrics over time, end to end (docs/metrics.md): real webhooks on loopback, the local stack's
table stream read in tumbling windows by the metrics function, the API's answer; and the counts
equal the messages' own records with the metrics function's workers killed under them."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from roomcast_dev.stack import LocalStack
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error, wait_until
from tests.e2e.webhook_server import WebhookServers, fail_first

webhook_servers = webhook_server.webhook_servers

MESSAGES = 20
# The metrics' promise: an attempt shows within a minute (a 2 s window here, 30 s on AWS).
VISIBLE_SECONDS = 60.0
DELIVERED_SECONDS = 90.0
KILLS = 3


def _publish_batch(client: ApiClient, room_id: str, count: int) -> list[str]:
    messages = [
        {"eventType": "order.created", "eventVersion": "1", "payload": {"n": n}} for n in range(count)
    ]
    answer = client.post(f"/rooms/{room_id}/messages/batch", {"messages": messages})
    assert answer.status_code == 200, answer.text
    return [result["messageId"] for result in answer.json()["results"]]


def _summary(client: ApiClient, path: str) -> dict[str, Any]:
    answer = client.get(path, params={"resolution": "1h"})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _records(client: ApiClient, room_id: str, message_ids: list[str]) -> list[dict[str, Any]]:
    found = []
    for message_id in message_ids:
        answer = client.get(f"/rooms/{room_id}/messages/{message_id}")
        assert answer.status_code == 200, answer.text
        found += answer.json()["deliveries"]
    return found


def test_a_subscriptions_metrics_show_its_deliveries_failures_and_latency_and_roll_up(
    tenant_a: ApiClient, tenant_b: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: an endpoint that fails its first 5 requests, then answers 200
    server = webhook_servers(fail_first(5, status=500))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryDelayMultiplier=1.0, deliveryAttempts=5)
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url("/hook"))
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/metrics"

    # When: 20 messages, all delivered in the end
    message_ids = _publish_batch(tenant_a, room["id"], MESSAGES)
    wait_until(
        lambda: all(d["status"] == "delivered" for d in _records(tenant_a, room["id"], message_ids)),
        "every message delivered",
        DELIVERED_SECONDS,
    )

    # Then: within a minute, the subscription's metrics say so, and the room's and tenant's agree
    def counted() -> dict[str, Any]:
        body = _summary(tenant_a, path)
        done = body["summary"]["delivered"] == MESSAGES and body["backlog"]["open"] == 0
        return body if done else {}

    summary = wait_until(counted, "the metrics of 20 deliveries", VISIBLE_SECONDS)["summary"]
    assert (summary["delivered"], summary["failedAttempts"], summary["attempts"]) == (20, 5, 25)
    assert summary["successRate"] == 0.8
    assert (
        summary["attemptLatencyMs"]["p50"]
        <= summary["attemptLatencyMs"]["p95"]
        <= summary["attemptLatencyMs"]["p99"]
    )
    assert summary["deliveryDelayMs"]["p99"] >= 1000  # the retried ones waited 1 s at least
    room_summary = _summary(tenant_a, f"/rooms/{room['id']}/metrics")["summary"]
    tenant_summary = _summary(tenant_a, "/metrics")["summary"]
    assert room_summary == summary
    assert tenant_summary == summary
    minutes = tenant_a.get(path, params={"resolution": "1m"}).json()
    assert sum(p["delivered"] for p in minutes["points"]) == 20
    assert len(minutes["points"]) in (60, 61)  # the last hour, from the minute it began in

    # Then: another tenant sees nothing of it; a bad window is refused, naming the parameter
    assert_error(tenant_b.get(path), 404, "not found")
    assert tenant_b.get("/metrics", params={"resolution": "1h"}).json()["summary"]["delivered"] == 0
    assert_error(
        tenant_a.get(path, params={"from": "2026-11-22T11:00:00Z", "to": "2026-11-22T10:00:00Z"}), 400, "from"
    )
    assert_error(tenant_a.get(path, params={"from": "2026-10-01T00:00:00Z", "resolution": "1m"}), 400, "from")
    assert_error(tenant_a.get(path, params={"resolution": "5m"}), 422, "resolution")
    assert_error(tenant_a.get(path, params={"from": "yesterday"}), 422, "from")


@pytest.mark.timeout(300)
def test_the_metrics_equal_the_records_with_metrics_workers_killed_mid_window(
    tenant_a: ApiClient, webhook_servers: WebhookServers, empty_stack: LocalStack
) -> None:
    # Given: an endpoint that fails one request in three, and metrics workers killed while they
    # work (up to KILLS of them: each retried window starts again from its last state)
    server = webhook_servers(lambda number, request: webhook_server.Reply(500 if number % 3 == 0 else 200))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryDelayMultiplier=1.0, deliveryAttempts=10)
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url("/hook"))
    rng, stop = random.Random(50), threading.Event()
    killed: list[int] = []

    def killer() -> None:
        while not stop.is_set() and len(killed) < KILLS:
            victim = empty_stack.functions["MetricsFunction"].kill_worker(rng)
            if victim is not None:
                killed.append(victim)
            time.sleep(0.02)

    # When: messages flow while the metrics' workers die under them
    thread = threading.Thread(target=killer)
    thread.start()
    try:
        message_ids = _publish_batch(tenant_a, room["id"], MESSAGES)
        wait_until(
            lambda: all(d["status"] == "delivered" for d in _records(tenant_a, room["id"], message_ids)),
            "every message delivered",
            DELIVERED_SECONDS,
        )
        wait_until(lambda: len(killed) >= KILLS, "metrics workers killed", VISIBLE_SECONDS)
    finally:
        stop.set()
        thread.join()
    records = _records(tenant_a, room["id"], message_ids)

    # Then: the metrics count what the records hold, neither more nor less
    attempts = sum(r["attempts"] for r in records)
    path = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/metrics"

    def counted() -> dict[str, Any] | None:
        summary = _summary(tenant_a, path)["summary"]
        return summary if summary["delivered"] >= MESSAGES and summary["attempts"] >= attempts else None

    summary = wait_until(counted, "the metrics of the deliveries", VISIBLE_SECONDS)
    time.sleep(3)  # a window more: anything counted twice would show now
    summary = _summary(tenant_a, path)["summary"]
    assert (summary["delivered"], summary["attempts"]) == (MESSAGES, attempts)
    assert summary["failedAttempts"] == attempts - MESSAGES
    assert _summary(tenant_a, path)["backlog"]["open"] == 0
