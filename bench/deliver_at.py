"""Deliver-at's long waits: what carrying a scheduled message's wait costs, by SQS hops against an
EventBridge Scheduler one-time schedule, in USD per million messages against the wait's length,
and where the scheduler gets cheaper (the crossover).

Measured, on the emulator with the real handlers (one PUSH subscription, one message at a time):
- the AWS requests of a publish now, for reference, and of a publish scheduled below and above the
  crossover (the release armed by a delayed send, or by a schedule);
- one *early arrival*: the outbox function given a release that is not due (it sends it on), with
  its requests and its local time (billed as a 512 MB arm64 Lambda would bill it, upper bound);
- the release on time (the same for both carriers: printed, not in the comparison).

Priced: each SQS request (a send; the event source mapping's receive and delete of each arrival,
one message a batch: the worst case), a Lambda invocation per arrival, a scheduler invocation per
schedule (CreateSchedule itself is not billed). A wait of w by hops is ceil(w / 15 min) sends and
one early arrival less; by the scheduler, one schedule, its send, one early arrival (five minutes
before the time) and one more send.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench.cost_model import (
    LAMBDA_ARM64_PER_GB_SECOND,
    LAMBDA_REQUEST_PER_MILLION,
    PRICES_AS_OF,
    SQS_REQUEST_PER_MILLION,
)
from bench.harness import AwsCallCounter, FakeContext, bench_stack, call, load_handlers, room_with
from roomcast.deliver_at.rules import HOP_MAX_MS, SCHEDULER_ABOVE_MS, SCHEDULER_LEAD_MS, hops_for
from roomcast.outbox.tasks import Release
from roomcast.platform.clock import DAY_MS, HOUR_MS, MINUTE_MS
from roomcast_dev.samples import SAMPLE_TENANT
from tests.support import api_event

SCHEDULER_INVOCATION_PER_MILLION = 1.00  # EventBridge Scheduler, after the free 14 million a month
FUNCTION_MEMORY_GB = 512 / 1024  # template.yaml Globals
WAITS_MS = (
    MINUTE_MS,
    15 * MINUTE_MS,
    30 * MINUTE_MS,
    45 * MINUTE_MS,
    HOUR_MS,
    6 * HOUR_MS,
    DAY_MS,
    30 * DAY_MS,
    365 * DAY_MS,
)
ROUNDS = 5


@dataclass(frozen=True)
class UnitCosts:
    """USD per message of each step a wait is made of."""

    send: float  # one SQS send
    early_arrival: float  # the mapping's receive and delete, and the outbox's invocation that sends it on
    schedule: float  # one scheduler invocation

    def by_hops(self, wait_ms: int) -> float:
        sends = hops_for(wait_ms)
        return sends * self.send + (sends - 1) * self.early_arrival

    def by_scheduler(self) -> float:
        return self.schedule + 2 * self.send + self.early_arrival


def crossover_ms(costs: UnitCosts, step_ms: int = MINUTE_MS) -> int:
    """The longest wait (to the minute, up to a day) for which hops cost no more than a schedule."""
    longest = 0
    for wait_ms in range(step_ms, DAY_MS + 1, step_ms):
        if costs.by_hops(wait_ms) <= costs.by_scheduler():
            longest = wait_ms
    return longest


def unit_costs(early_requests: int, early_lambda_seconds: float) -> UnitCosts:
    """Prices of the measured steps: an early arrival is its requests (the handler's and the
    mapping's receive and delete) and one Lambda invocation of its measured length."""
    per_request = SQS_REQUEST_PER_MILLION / 1e6
    lambda_usd = (
        LAMBDA_REQUEST_PER_MILLION / 1e6
        + early_lambda_seconds * FUNCTION_MEMORY_GB * LAMBDA_ARM64_PER_GB_SECOND
    )
    return UnitCosts(
        send=per_request,
        early_arrival=(early_requests + 2) * per_request + lambda_usd,
        schedule=SCHEDULER_INVOCATION_PER_MILLION / 1e6,
    )


def _requests(counter: AwsCallCounter, action: Callable[[], Any]) -> tuple[dict[str, int], float]:
    counter.reset()
    started = time.perf_counter()
    action()
    return dict(counter.calls), time.perf_counter() - started


def _queue_event(task: Release) -> dict[str, Any]:
    body = task.to_json()
    return {
        "Records": [
            {
                "messageId": "bench",
                "receiptHandle": "bench",
                "body": body,
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:outbox",
                "awsRegion": "us-east-1",
            }
        ]
    }


def run() -> dict[str, bool]:
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, _endpoint):
        manage, publish, outbox = load_handlers(
            model, "ManagementFunction", "PublishFunction", "OutboxFunction"
        )
        room_id = room_with(manage, "PUSH", 1)

        def publish_with(**when: Any) -> dict[str, Any]:
            body = {"eventType": "invoice.reminder", "eventVersion": "1", "payload": {"invoiceId": 7}, **when}
            answer: dict[str, Any] = call(publish, api_event("POST", f"/rooms/{room_id}/messages", body))
            return answer

        publish_with()  # warm
        now_calls, _ = _requests(counter, publish_with)
        hop_calls, _ = _requests(counter, lambda: publish_with(deliverAfterMs=10 * MINUTE_MS))
        scheduled = {}
        schedule_calls, _ = _requests(
            counter, lambda: scheduled.update(publish_with(deliverAfterMs=2 * DAY_MS))
        )
        message_id = scheduled["messageId"]

        def arrive(due_in_ms: int, release_id: str) -> None:
            due_ms = int(time.time() * 1000) + due_in_ms
            answer = outbox(
                _queue_event(Release(SAMPLE_TENANT, room_id, message_id, due_ms, release_id)), FakeContext()
            )
            assert answer["batchItemFailures"] == [], answer

        arrive(20 * MINUTE_MS, "rel_" + "0" * 32)  # warm
        early = [_requests(counter, partial(arrive, 20 * MINUTE_MS, f"rel_{n:032x}")) for n in range(ROUNDS)]
        on_time_calls, _ = _requests(counter, lambda: arrive(0, "rel_" + "f" * 32))

    early_calls = early[0][0]
    early_seconds = sorted(seconds for _, seconds in early)[ROUNDS // 2]
    costs = unit_costs(sum(early_calls.values()), early_seconds)
    print("\n## Deliver-at: what carries a long wait (moto server, handlers in-process)\n")
    print(f"publish now:                {_calls(now_calls)}")
    print(f"publish, 10 minutes ahead:  {_calls(hop_calls)}   (a delayed send of the release)")
    print(f"publish, 2 days ahead:      {_calls(schedule_calls)}   (a one-time schedule)")
    print(
        f"an early arrival (outbox):  {_calls(early_calls)}, {early_seconds * 1000:.0f} ms locally; "
        "+ the mapping's receive and delete"
    )
    print(f"the release on time:        {_calls(on_time_calls)}   (both carriers)")
    print(
        f"\nUSD per million messages for the wait itself (prices: {PRICES_AS_OF}; scheduler "
        f"${SCHEDULER_INVOCATION_PER_MILLION:.2f}/M invocations, CreateSchedule not billed)\n"
    )
    print(f"{'wait':>10} {'hops':>6} {'by hops':>10} {'by scheduler':>13} {'cheaper':>10}")
    for wait_ms in WAITS_MS:
        hops, scheduler = costs.by_hops(wait_ms) * 1e6, costs.by_scheduler() * 1e6
        print(
            f"{_wait(wait_ms):>10} {hops_for(wait_ms):>6} {hops:>10.2f} {scheduler:>13.2f} "
            f"{'hops' if hops <= scheduler else 'scheduler':>10}"
        )
    measured = crossover_ms(costs)
    print(
        f"\ncrossover: hops up to {_wait(measured)} of wait, the scheduler above "
        f"(roomcast switches above {_wait(SCHEDULER_ABOVE_MS)}: SCHEDULER_ABOVE_MS; a hop waits at "
        f"most {_wait(HOP_MAX_MS)}, a schedule fires {_wait(SCHEDULER_LEAD_MS)} early)"
    )
    return {
        "deliver-at: roomcast's switch to the scheduler is within 15 minutes of the measured crossover": abs(
            measured - SCHEDULER_ABOVE_MS
        )
        <= HOP_MAX_MS
    }


def _calls(calls: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(calls.items())) or "none"


def _wait(ms: int) -> str:
    for unit, size in (("d", DAY_MS), ("h", HOUR_MS), ("min", MINUTE_MS)):
        if ms >= size and ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms / MINUTE_MS:.0f} min"


if __name__ == "__main__":
    run()
