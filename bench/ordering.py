"""Ordering keys: messages to an ordered PUSH subscription next to the same messages to an
unordered one, with 10 keys and with 1,000, in the same run on the same emulator.

Each scenario publishes its messages in batches of 100 (each message's key ``k<n % keys>``), then
runs the functions the way their event sources would — the outbox on the table's stream (the
local stack's poller), the push function on its two lanes' queues (10 messages an invocation),
each poller on a thread of its own as the event source mappings run side by side — until a
loopback endpoint answering 200 at once has every message. The figure is messages per
second from the first publish to the last delivery, each scenario run five times both ways (the
median of the five ratios). An ordered key moves one message per round
trip through the stream and the outbox, so with few keys and many messages each, ordering costs
throughput by design (ADR 0041); with many keys it should cost little (targets: issue 52). Then a
batch publish of 100 keyed messages to an ordered subscription, against the same to an unordered
one (the publish handler alone).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import boto3

from bench.harness import FakeContext, bench_stack, call, load_handlers, reset
from roomcast_dev.stream_sources import StreamPoller
from roomcast_dev.template import StackModel
from roomcast_dev.webhook_receiver import WebhookReceiver
from tests.integration.push_harness import EventSourceMapping
from tests.support import api_event

# (keys, messages): 30 messages a key, and one message for each of 1,000 keys.
SCENARIOS = ((10, 300), (1_000, 1_000))
# Each scenario runs unordered then ordered this many times; the figure is the median of the pairs'
# ratios: the unordered rate alone moved 75-96 msg/s between runs minutes apart on this machine,
# and each pair's two runs are side by side in time; three pairs' ratios with 1,000 keys spread
# over 0.47-0.65 in one run (docs/benchmarks.md, issue 52).
PAIRS = 5
RATIO_TARGETS = {10: 0.25, 1_000: 0.5}  # issue 52
BATCH = 100
BATCH_REPEATS = 5
BATCH_TARGET = 2.0
TIMEOUT_S = 600.0
# After a round that found nothing, each poller waits 10 ms, as the bench's one loop did before
# the pollers ran side by side: the figure is the functions' throughput, not the pollers' cadence.
# (Lambda polls an idle stream shard four times a second, IDLE_SECONDS: with that wait, the
# ordered/unordered ratio measured 0.19-0.25 with 10 keys and 0.47-0.54 with 1,000, a key moving
# one message per stream poll; docs/benchmarks.md, issue 52.)
STREAM_IDLE_S = 0.01
QUEUE_IDLE_S = 0.01


@dataclass(frozen=True)
class Throughput:
    keys: int
    messages: int
    ordered: bool
    seconds: float
    # Envelopes the slow lane's event source mapping received: a webhook request that outlasted
    # the fast lane's budget in real time (a loaded machine's) moves its endpoint there.
    slow_lane: int = 0

    @property
    def per_second(self) -> float:
        return self.messages / self.seconds


def _publish_all(publish: Any, room_id: str, keys: int, messages: int) -> None:
    for start in range(0, messages, BATCH):
        batch = [
            {"eventType": "e", "eventVersion": "1", "payload": {"n": n}, "orderingKey": f"k{n % keys}"}
            for n in range(start, min(messages, start + BATCH))
        ]
        call(publish, api_event("POST", f"/rooms/{room_id}/messages/batch", {"messages": batch}))


def _scenario(model: StackModel, endpoint: str, keys: int, messages: int, ordered: bool) -> Throughput:
    reset(model, endpoint)
    manage, publish, outbox, push = load_handlers(
        model, "ManagementFunction", "PublishFunction", "OutboxFunction", "PushFunction"
    )
    (trigger,) = [t for t in model.stream_triggers if t.function_id == "OutboxFunction"]
    table = model.tables["Table"]["TableName"]
    invoke_outbox = lambda _function, event: outbox(event, FakeContext())  # noqa: E731 - the poller's invoke
    # (its client factory serves only its own thread, which this drive does without)
    stream = StreamPoller(
        trigger, table, "us-east-1", cast(Callable[[str], Any], boto3.client), invoke_outbox
    )
    dynamodb, streams = boto3.client("dynamodb"), boto3.client("dynamodbstreams")
    # Both lanes' event source mappings, as the template wires them (PushFunction, SlowPushFunction):
    # a request that outlasts the fast lane's budget moves its endpoint to the slow lane, whose
    # queue would otherwise strand the rest of the run's deliveries.
    environment = model.functions["PushFunction"].environment
    fast, slow = (
        EventSourceMapping(boto3.client("sqs"), environment[name], push)
        for name in ("PUSH_QUEUE_URL", "SLOW_PUSH_QUEUE_URL")
    )
    slow_received = [0]

    def poll_slow() -> bool:
        received = slow.poll_once()
        slow_received[0] += received
        return received > 0

    with WebhookReceiver() as webhook:
        room = call(manage, api_event("POST", "/rooms", {"name": "orders"}))
        body = {"type": "PUSH", "pushUrl": webhook.url(), "ordered": ordered}
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
        started = time.perf_counter()
        _publish_all(publish, room["id"], keys, messages)
        done = threading.Event()
        # The stream's poller and the queues' side by side, as their event source mappings run
        # (on AWS and in the local stack): none waits for another's round.
        pollers = [
            threading.Thread(
                target=_poll_until, args=(lambda: stream.poll_once(dynamodb, streams), done, STREAM_IDLE_S)
            ),
            threading.Thread(target=_poll_until, args=(lambda: fast.poll_once() > 0, done, QUEUE_IDLE_S)),
            threading.Thread(target=_poll_until, args=(poll_slow, done, QUEUE_IDLE_S)),
        ]
        for poller in pollers:
            poller.start()
        try:
            while len(webhook.requests) < messages:
                if time.perf_counter() - started > TIMEOUT_S or not all(p.is_alive() for p in pollers):
                    raise RuntimeError(f"{len(webhook.requests)} of {messages} delivered in {TIMEOUT_S} s")
                time.sleep(0.005)
            return Throughput(keys, messages, ordered, time.perf_counter() - started, slow_received[0])
        finally:
            done.set()
            for poller in pollers:
                poller.join()


def _poll_until(poll_once: Callable[[], bool], done: threading.Event, idle_s: float) -> None:
    """Poll until ``done``, pausing ``idle_s`` after a round that found nothing."""
    while not done.is_set():
        if not poll_once():
            done.wait(idle_s)


def _batch_seconds(model: StackModel, endpoint: str, ordered: bool) -> list[float]:
    """BATCH_REPEATS batch publishes of 100 messages with 100 keys never used before, to a room
    with one PUSH subscription, ordered or not: each one's seconds."""
    reset(model, endpoint)
    manage, publish = load_handlers(model, "ManagementFunction", "PublishFunction")
    room = call(manage, api_event("POST", "/rooms", {"name": "orders"}))
    body = {"type": "PUSH", "pushUrl": "https://93.184.216.34/hook", "ordered": ordered}
    call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
    seconds = []
    for repeat in range(BATCH_REPEATS + 1):
        batch = [
            {"eventType": "e", "eventVersion": "1", "payload": {"n": n}, "orderingKey": f"r{repeat}k{n}"}
            for n in range(BATCH)
        ]
        started = time.perf_counter()
        call(publish, api_event("POST", f"/rooms/{room['id']}/messages/batch", {"messages": batch}))
        seconds.append(time.perf_counter() - started)
    return seconds[1:]  # the first warms the container


def run() -> dict[str, bool]:
    """Each scenario unordered, then ordered (PAIRS times), and a keyed batch publish both ways;
    the ratios against their targets."""
    print("\n## Ordering keys: ordered vs unordered PUSH throughput (messages/s, publish to last delivery)\n")
    print(
        f"{'keys':>6} {'messages':>9} {'unordered/s':>12} {'ordered/s':>10} {'ordered/unordered':>18}  target"
    )
    verdicts: dict[str, bool] = {}
    with bench_stack(atomic_dynamodb=True) as (model, endpoint):
        for keys, messages in SCENARIOS:
            pairs = [
                (
                    _scenario(model, endpoint, keys, messages, ordered=False),
                    _scenario(model, endpoint, keys, messages, ordered=True),
                )
                for _ in range(PAIRS)
            ]
            ratios = [ordered.per_second / unordered.per_second for unordered, ordered in pairs]
            ratio = statistics.median(ratios)
            unordered_rate = statistics.median(unordered.per_second for unordered, _ in pairs)
            ordered_rate = statistics.median(ordered.per_second for _, ordered in pairs)
            rates = f"{unordered_rate:>12.1f} {ordered_rate:>10.1f}"
            target = RATIO_TARGETS[keys]
            each = ", ".join(f"{r:.2f}" for r in ratios)
            print(f"{keys:>6} {messages:>9} {rates} {ratio:>18.2f}  >= {target}   (each pair: {each})")
            slow_lane = [run.slow_lane for pair in pairs for run in pair]
            if any(slow_lane):
                print(f"{'':>17}envelopes through the slow lane, each run in turn: {slow_lane}")
            verdicts[f"ordered / unordered throughput with {keys} keys >= {target}x"] = ratio >= target
        plain = statistics.median(_batch_seconds(model, endpoint, ordered=False))
        keyed = statistics.median(_batch_seconds(model, endpoint, ordered=True))
    print(
        f"\nbatch publish of {BATCH} messages with {BATCH} keys (median of {BATCH_REPEATS}): to an ordered "
        f"subscription {keyed:.3f} s, to an unordered one {plain:.3f} s: {keyed / plain:.2f}x "
        f"(target <= {BATCH_TARGET}x)"
    )
    verdicts[f"keyed batch publish of {BATCH} to an ordered subscription <= {BATCH_TARGET}x unordered"] = (
        keyed / plain <= BATCH_TARGET
    )
    return verdicts


if __name__ == "__main__":
    run()
