"""Payload filters and schemas: publishing to a room of 100 PUSH subscriptions with a filter policy
on each, and a payload checked against its event type's schema, next to the same room without
filters and an event type without a schema, in the same run on the same emulator; and the routing
decision alone (``route_message``, no AWS), with and without filters.

Rooms compared (100 PUSH subscriptions each; one publish to each room in turn, the push queue
emptied before each, as in bench/messaging.py):
- no filters (the reference);
- a three-key policy on each subscription that the message matches: the same sends, plus the
  evaluation — the cost of filters themselves;
- the same policy, with half the subscriptions asking for more than the message has: half the
  records and sends, which filtering saves.
- the room without filters, its message of an event type of the catalog whose schema (a realistic
  order schema, ``validation: reject``) the payload meets: the catalog read, the check.
Targets: matching filters, and a schema, each add at most 20% to a publish to 100 subscriptions.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from bench.harness import AwsCallCounter, bench_stack, call, load_handlers, median_ms
from bench.messaging import Drained
from roomcast.platform.payloads import JsonValue
from tests.support import api_event

SUBSCRIPTIONS = 100
PUBLISHES = 15
TARGET_RATIO = 1.2
WITH_SCHEMA = "no filters, schema"
ORDER_SCHEMA = {
    "type": "object",
    "required": ["orderId", "amount", "currency", "customer"],
    "properties": {
        "orderId": {"type": "integer", "minimum": 1},
        "amount": {"type": "number", "minimum": 0},
        "currency": {"enum": ["EUR", "USD", "GBP"]},
        "customer": {
            "type": "object",
            "required": ["tier"],
            "properties": {
                "tier": {"type": "string"},
                "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
            },
        },
    },
}
PAYLOAD: dict[str, JsonValue] = {
    "orderId": 42,
    "amount": 150,
    "currency": "EUR",
    "customer": {"tier": "gold", "country": "DE"},
}


def _policy(minimum_amount: int) -> dict[str, Any]:
    return {
        "amount": [{"numeric": [">=", minimum_amount]}],
        "currency": ["EUR", "USD"],
        "customer": {"tier": [{"prefix": "g"}, "platinum"]},
    }


def _room(manage: Any, name: str, policy_of: Callable[[int], dict[str, Any] | None]) -> str:
    room = call(manage, api_event("POST", "/rooms", {"name": name}))
    for n in range(SUBSCRIPTIONS):
        body: dict[str, Any] = {"type": "PUSH", "pushUrl": "https://93.184.216.34/hook"}
        policy = policy_of(n)
        if policy is not None:
            body["filterPolicy"] = policy
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
    return str(room["id"])


def _routing_ms() -> tuple[float, float]:
    """``route_message`` over 100 subscriptions, without and with matching filters (ms per call)."""
    from dataclasses import replace

    from roomcast.catalog.model import (
        DeliveryOverrides,
        Room,
        Subscription,
        SubscriptionStatus,
        SubscriptionType,
    )
    from roomcast.filters.policy import FilterPolicy
    from roomcast.messages.model import Publication
    from roomcast.publishing.routing import route_message

    room = Room(
        "room_1", "t", "orders", None, 1000, 2.0, 5, (), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"
    )
    plain = [
        Subscription(
            f"sub_{n:03}",
            "room_1",
            "t",
            SubscriptionType.PUSH,
            SubscriptionStatus.ACTIVE,
            (),
            DeliveryOverrides(),
            None,
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        )
        for n in range(SUBSCRIPTIONS)
    ]
    policy = FilterPolicy.of(_policy(100))
    filtered = [replace(s, filter_policy=policy) for s in plain]
    publication = Publication("order.created", "1", PAYLOAD)

    def per_call_ms(subscriptions: list[Subscription]) -> float:
        rounds = 200
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(rounds):
                route_message(room, subscriptions, publication)
            best = min(best, (time.perf_counter() - start) / rounds)
        return best * 1000

    return per_call_ms(plain), per_call_ms(filtered)


def _schema_check_us() -> float:
    """One payload checked by the compiled validator (µs per check, best of 5 rounds)."""
    from roomcast.event_types.model import check_payload, checked_schema, compile_schema

    validator = compile_schema(checked_schema("1", ORDER_SCHEMA).text)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(2_000):
            check_payload(validator, PAYLOAD)
        best = min(best, (time.perf_counter() - start) / 2_000)
    return best * 1e6


def run() -> dict[str, bool]:
    os.environ["MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR"] = "false"
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, _endpoint):
        manage, publish = load_handlers(model, "ManagementFunction", "PublishFunction")
        from roomcast.platform.aws import sqs_client

        sqs = sqs_client()
        push_queue_url = model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
        rooms = {
            "no filters": _room(manage, "plain", lambda n: None),
            "filters, all match": _room(manage, "matching", lambda n: _policy(100)),
            "filters, half match": _room(manage, "half", lambda n: _policy(100 if n % 2 else 1000)),
        }
        events = {
            name: api_event(
                "POST",
                f"/rooms/{room_id}/messages",
                {"eventType": "order.created", "eventVersion": "1", "payload": PAYLOAD},
            )
            for name, room_id in rooms.items()
        }
        # The same room and payload under an event type of the catalog with a schema it meets
        # (validation: reject, so the whole check runs); "order.created" is not in the catalog.
        call(
            manage,
            api_event("POST", "/event-types", {"name": "order.checked", "schemas": {"1": ORDER_SCHEMA}}),
        )
        events[WITH_SCHEMA] = api_event(
            "POST",
            f"/rooms/{rooms['no filters']}/messages",
            {"eventType": "order.checked", "eventVersion": "1", "payload": PAYLOAD},
        )
        drained = {name: Drained(sqs, push_queue_url, counter) for name in events}
        samples: dict[str, list[float]] = {name: [] for name in events}
        answers = {name: call(publish, event) for name, event in events.items()}  # warm, and checked
        for _ in range(PUBLISHES):  # in turn, so that the emulator's drift is shared
            for name, event in events.items():
                samples[name].append(drained[name].timed(lambda event=event: call(publish, event)))  # type: ignore[misc]

    plain_ms = median_ms(samples["no filters"])
    print(f"\n## Payload filters: publish to {SUBSCRIPTIONS} PUSH subscriptions (moto server, in-process)\n")
    print(f"{'room':<20} {'median ms':>10} {'x no filters':>13} {'calls':>6} {'destinations':>13}")
    for name in events:
        ms = median_ms(samples[name])
        calls = drained[name].calls.total() / PUBLISHES
        reached = len(answers[name]["destinations"])
        print(f"{name:<20} {ms:>10.1f} {ms / plain_ms:>13.2f} {calls:>6.1f} {reached:>13}")
    ratio = median_ms(samples["filters, all match"]) / plain_ms
    without_ms, with_ms = _routing_ms()
    print(
        f"\nrouting alone (route_message, {SUBSCRIPTIONS} subscriptions): {without_ms * 1000:.0f} µs without "
        f"filters, {with_ms * 1000:.0f} µs with a three-key policy each ({with_ms / without_ms:.1f}x): "
        f"{(with_ms - without_ms) * 1000 / SUBSCRIPTIONS:.1f} µs per policy evaluated"
    )
    print(f"matching filters: {ratio:.2f}x a publish without (target <= {TARGET_RATIO}x)")
    schema_ratio = median_ms(samples[WITH_SCHEMA]) / plain_ms
    check_us = _schema_check_us()
    print(
        f"a payload checked against its schema: {schema_ratio:.2f}x a publish without "
        f"(target <= {TARGET_RATIO}x); the check alone (compiled validator): {check_us:.1f} µs"
    )
    return {
        f"publish to {SUBSCRIPTIONS} subscriptions with a payload schema <= {TARGET_RATIO}x without": (
            schema_ratio <= TARGET_RATIO
        ),
        f"publish to {SUBSCRIPTIONS} subscriptions with matching filters <= {TARGET_RATIO}x without": ratio
        <= TARGET_RATIO,
    }
