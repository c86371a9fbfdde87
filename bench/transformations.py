"""What a transformation costs a delivery (issue 53): a webhook's request shaped 200 times without
a transformation, and with a small one (a rename) in its fresh V8 isolate, side by side in one
process; and how long a handler that loops forever runs before V8 stops it (its limit: 50 ms)."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from roomcast.catalog import Subscription, SubscriptionStatus, SubscriptionType
from roomcast.catalog.model import DeliveryOverrides
from roomcast.messages import Envelope
from roomcast.transformations import (
    TIME_LIMIT_MS,
    Transformation,
    TransformationFailed,
    WebhookShape,
    run_transformation,
)

ROUNDS = 200
RENAME = "function handler(webhook) { webhook.payload = {id: webhook.payload.orderId}; return webhook; }"
# A stopped loop may take the limit plus making and settling its isolate; more is a failure.
LOOP_TARGET_MS = 2 * TIME_LIMIT_MS


def _subscription(transformation: Transformation | None) -> Subscription:
    kind, status = SubscriptionType.PUSH, SubscriptionStatus.ACTIVE
    url = "https://hooks.example.com/in"
    return Subscription(
        "sub_1", "room_1", "tenant", kind, status, (), DeliveryOverrides(), None, "t", "t",
        push_url=url, transformation=transformation,
    )  # fmt: skip


def _envelope() -> Envelope:
    body = {
        "message_id": "msg_" + "1" * 32, "tenant_id": "tenant", "room_id": "room_1",
        "subscription_id": "sub_1",
        "event_type": "order.created", "event_version": "1", "correlation_id": "c-1",
        "published_at": "2026-11-28T10:00:00.000Z", "published_at_ms": 0, "expires_at_ms": None, "attempt": 0,
        "due_at_ms": 0, "next_delay_ms": 0, "payload": {"orderId": 1001, "lines": list(range(50))},
    }  # fmt: skip
    return Envelope(**body)  # type: ignore[arg-type]


PUSH_CODE = Path(__file__).resolve().parents[1] / "functions" / "push"


def measure() -> dict[str, float]:
    if str(PUSH_CODE) not in sys.path:  # the push function's own code, as its handler imports it
        sys.path.insert(0, str(PUSH_CODE))
    from push_worker.webhook import outgoing_webhook

    envelope = _envelope()
    plain, shaped = _subscription(None), _subscription(Transformation(1, RENAME, "t"))
    outgoing_webhook(envelope, shaped)  # V8 loads on a container's first run: not counted
    timings: dict[str, float] = {}
    for name, subscription in (("without", plain), ("with a rename", shaped)):
        started = time.perf_counter()
        for attempt in range(ROUNDS):
            outgoing_webhook(replace(envelope, attempt=attempt), subscription)
        timings[name] = (time.perf_counter() - started) * 1000 / ROUNDS
    started = time.perf_counter()
    try:
        run_transformation(
            "function handler(w) { while (true) {} }", WebhookShape("e", 1, "https://x.example")
        )
    except TransformationFailed:
        timings["loop stopped after"] = (time.perf_counter() - started) * 1000
    return timings


def run() -> dict[str, bool]:
    print(f"\n## Transformations: a webhook's request shaped {ROUNDS} times, side by side\n")
    timings = measure()
    without, rename = timings["without"], timings["with a rename"]
    print(f"without a transformation      {without:8.3f} ms a delivery")
    added = f"{rename / without:.0f}x; +{rename - without:.2f} ms"
    print(f"with a rename (fresh isolate) {rename:8.3f} ms a delivery ({added})")
    stopped = timings.get("loop stopped after", float("inf"))
    print(f"a handler that loops forever  stopped after {stopped:.1f} ms (limit {TIME_LIMIT_MS} ms)")
    return {
        f"transformations: a looping handler stopped within {LOOP_TARGET_MS} ms": stopped <= LOOP_TARGET_MS
    }
