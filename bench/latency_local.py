"""The local stack's side of the latency budget (bench/latency.py): publish → webhook over real
HTTP (the gateway, the authorizer, the function workers, the event source pollers, moto), one
message at a time after a warm-up, and deliverAfterMs messages' arrival against their time."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

import requests

from bench.harness import FUNCTION_LOG
from roomcast_dev.function_worker import FUNCTION_LOG_VARIABLE
from roomcast_dev.webhook_receiver import WebhookReceiver

LOCAL_MESSAGES = 30
LOCAL_GAP_S = 0.4
LOCAL_WARMUP = 5
DELIVER_AFTER_MS = (1_200, 1_450, 1_700, 1_950, 2_200, 2_450, 2_700, 2_950)
MESSAGE: dict[str, Any] = {"eventType": "e", "eventVersion": "1", "payload": {"orderId": 42}}


@dataclass(frozen=True)
class LocalLatency:
    first_s: float  # the first delivery after the stack started (cold workers)
    samples_s: list[float]
    # deliverAfterMs messages: arrival minus their time (negative = early, never allowed)
    deliver_at_lateness_s: list[float]

    @property
    def p50_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def p99_s(self) -> float:
        ordered = sorted(self.samples_s)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def measure_local(messages: int = LOCAL_MESSAGES, gap_s: float = LOCAL_GAP_S) -> LocalLatency:
    """Publish → webhook on the local stack over real HTTP, one message at a time."""
    from roomcast.catalog.store import CatalogTable
    from roomcast_dev.keys import create_api_key
    from roomcast_dev.stack import LocalStack

    FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
    stack = LocalStack(
        stack_name="roomcast-bench-latency",
        extra_function_environment={FUNCTION_LOG_VARIABLE: str(FUNCTION_LOG.resolve())},
    )
    stack.start()
    try:
        repository = CatalogTable(stack.output("TableName"), client=stack.client("dynamodb"))
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {create_api_key(repository, 'bench-latency')}"
        with WebhookReceiver(clock=time.perf_counter) as hook:
            room = session.post(f"{stack.api_url}/rooms", json={"name": "latency"}, timeout=60).json()
            body = {"type": "PUSH", "pushUrl": hook.url()}
            session.post(f"{stack.api_url}/rooms/{room['id']}/subscriptions", json=body, timeout=60)
            url = f"{stack.api_url}/rooms/{room['id']}/messages"

            def one() -> float:
                before = len(hook.requests)
                started = time.perf_counter()
                session.post(url, json=MESSAGE, timeout=60).raise_for_status()
                return hook.wait_for_request(before, timeout_seconds=30).arrived_at - started

            first = one()
            for _ in range(LOCAL_WARMUP - 1):
                one()
            samples = []
            for _ in range(messages):
                samples.append(one())
                time.sleep(gap_s)
            lateness = _deliver_at_lateness(session, url, hook)
        return LocalLatency(first, samples, lateness)
    finally:
        stack.stop()


def _deliver_at_lateness(session: requests.Session, url: str, hook: WebhookReceiver) -> list[float]:
    """Messages published with deliverAfterMs (fractions of a second apart, so that SQS's whole
    seconds do not line up): each one's arrival minus its time. The time is counted from sending
    the request, a little before the function reads its clock: lateness is, if anything, overstated."""
    before = len(hook.requests)
    due: dict[int, float] = {}
    for number, after_ms in enumerate(DELIVER_AFTER_MS):
        started = time.perf_counter()
        body: dict[str, Any] = {**MESSAGE, "payload": {"n": number}, "deliverAfterMs": after_ms}
        session.post(url, json=body, timeout=60).raise_for_status()
        due[number] = started + after_ms / 1000
    arrived = hook.wait_for_requests(before + len(DELIVER_AFTER_MS), timeout_seconds=30)[before:]
    return [request.arrived_at - due[request.json["payload"]["n"]] for request in arrived]
