"""The delivery log end to end: traffic through the local stack (PUSH with failing webhooks, PULL
with a nack), then the Glue jobs on local PySpark over the emulated bucket, and the analytics
figures checked against what this test itself saw."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from roomcast_dev.glue_local import GLUE_JOBS_DIR, analytics, compact, local_spark
from roomcast_dev.stack import LocalStack
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, wait_until
from tests.e2e.delivery_log import log_events
from tests.e2e.test_publish_and_pull import publish, pull, status
from tests.e2e.webhook_server import Reply, WebhookServers, always, fail_first

webhook_servers = webhook_server.webhook_servers

MESSAGES = 6
FLAKY_FAILURES = 2
TERMINAL = {"delivered", "dead", "expired"}


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    sys.path.insert(0, str(GLUE_JOBS_DIR))
    session = local_spark()
    yield session
    session.stop()


def _wait_until_finished(client: ApiClient, room_id: str, message_ids: list[str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        statuses = [d["status"] for m in message_ids for d in status(client, room_id, m)["deliveries"]]
        if all(s in TERMINAL for s in statuses):
            return
        time.sleep(0.25)
    raise AssertionError(f"deliveries did not finish in time: {statuses}")


def test_analytics_figures_match_the_traffic_the_test_sent(
    tenant_a: ApiClient, empty_stack: LocalStack, webhook_servers: WebhookServers, spark: Any, tmp_path: Path
) -> None:
    # Given: one room, three PUSH subscriptions (healthy; failing twice first; refusing) and a PULL one
    healthy = webhook_servers(always())
    flaky = webhook_servers(fail_first(FLAKY_FAILURES, status=500))  # the server's first two requests fail
    refusing = webhook_servers(always(Reply(status=400)))
    room = tenant_a.create_room(deliveryDelayMs=500, deliveryDelayMultiplier=1.0, deliveryAttempts=3)
    subscriptions = {
        "healthy": tenant_a.create_subscription(
            room["id"], type="PUSH", pushUrl=healthy.url(), timeoutMs=2000
        ),
        "flaky": tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=flaky.url(), timeoutMs=2000),
        "refusing": tenant_a.create_subscription(
            room["id"], type="PUSH", pushUrl=refusing.url(), timeoutMs=2000
        ),
        "pull": tenant_a.create_subscription(room["id"], type="PULL"),
    }
    path = f"/rooms/{room['id']}/subscriptions/{subscriptions['pull']['id']}"

    # When: six messages are published; the PULL consumer nacks the first one once, acks everything
    message_ids = [publish(tenant_a, room["id"], payload={"n": n})["messageId"] for n in range(MESSAGES)]
    pull_attempts: dict[str, int] = {}
    nacked_once = False
    deadline = time.monotonic() + 60
    while len(pull_attempts) < MESSAGES and time.monotonic() < deadline:
        for message in pull(tenant_a, room["id"], subscriptions["pull"]["id"], maxMessages=10, waitSeconds=1):
            if message["messageId"] == message_ids[0] and not nacked_once:
                tenant_a.post(f"{path}/nack", {"receipts": [message["receipt"]]})
                nacked_once = True
                continue
            tenant_a.post(f"{path}/ack", {"receipts": [message["receipt"]]})
            pull_attempts[message["messageId"]] = message["attempt"]
    _wait_until_finished(tenant_a, room["id"], message_ids, timeout_s=60)
    # A push invocation writes its records, then its delivery-log lines when it ends: on a busy
    # machine the records can read finished before the lines are sent to Firehose.
    ends = {"healthy": "delivered", "flaky": "delivered", "refusing": "dead"}
    wait_until(
        lambda: all(
            len(log_events(empty_stack, event, subscriptions[name]["id"])) >= MESSAGES
            for name, event in ends.items()
        ),
        "the push deliveries' last log lines",
        30,
    )
    day = datetime.now(UTC).date().isoformat()
    bucket = empty_stack.output("LogBucketName")
    empty_stack.flush_delivery_streams()  # Firehose's buffering interval passes
    summary = compact(empty_stack.endpoint_url, bucket, day, spark)
    rows = analytics(empty_stack.endpoint_url, bucket, day, spark, out=tmp_path)

    # Then: one row per subscription with the figures this test can count itself
    assert summary["rejected"] == 0
    by_subscription = {row["subscriptionId"]: row for row in rows if row["roomId"] == room["id"]}
    healthy_row = by_subscription[subscriptions["healthy"]["id"]]
    assert (healthy_row["published"], healthy_row["delivered"], healthy_row["retries"]) == (
        MESSAGES,
        MESSAGES,
        0,
    )
    assert healthy_row["first_try_success_rate"] == 1.0
    assert healthy_row["attempts_histogram"] == {0: MESSAGES}
    flaky_row = by_subscription[subscriptions["flaky"]["id"]]
    flaky_attempts: dict[int, int] = {}
    for request in flaky.requests:
        if request.number >= FLAKY_FAILURES:
            attempt = int(request.json["attempt"])
            flaky_attempts[attempt] = flaky_attempts.get(attempt, 0) + 1
    assert flaky_row["delivered"] == MESSAGES
    assert flaky_row["retries"] == FLAKY_FAILURES
    assert flaky_row["attempts_histogram"] == flaky_attempts
    assert flaky_row["first_try_success_rate"] == pytest.approx(flaky_attempts.get(0, 0) / MESSAGES)
    refusing_row = by_subscription[subscriptions["refusing"]["id"]]
    assert (refusing_row["published"], refusing_row["delivered"], refusing_row["dead"]) == (
        MESSAGES,
        0,
        MESSAGES,
    )
    assert refusing_row["first_try_success_rate"] is None
    pull_row = by_subscription[subscriptions["pull"]["id"]]
    histogram: dict[int, int] = {}
    for attempt in pull_attempts.values():
        histogram[attempt] = histogram.get(attempt, 0) + 1
    assert (pull_row["published"], pull_row["delivered"], pull_row["retries"]) == (MESSAGES, MESSAGES, 1)
    assert pull_row["attempts_histogram"] == histogram
    for row in (healthy_row, flaky_row, pull_row):
        assert 0 <= row["latency_p50_ms"] <= row["latency_p95_ms"] <= row["latency_p99_ms"] < 60_000

    # and `make analytics OUT=dir`'s files: the Parquet and the page of charts with every subscription
    assert list((tmp_path / "analytics" / "daily" / f"dt={day}").glob("*.parquet"))
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    for subscription in subscriptions.values():
        assert f"Subscription {subscription['id']}" in report
    assert report.count("<svg") == 4 * 3 + 2  # the refusing one delivered nothing: no latency, no attempts

    # and a second compaction of the same day changes nothing (idempotent)
    again = compact(empty_stack.endpoint_url, bucket, day, spark)
    assert again["records"] == summary["records"]
    assert analytics(empty_stack.endpoint_url, bucket, day, spark, out=None) == rows
