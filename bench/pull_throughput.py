"""PULL throughput, one consumer, 10 at a time: pull + ack next to bare SQS ``ReceiveMessage(10)`` +
``DeleteMessageBatch`` on an identical queue of the same emulator — through the pull handler
in-process (moto in a process of its own), and over the HTTP API of the local stack (gateway,
authorizer, function workers; bench/pull_http.py). With the calls one pull + ack waits for one
after another, counted from when each call was in flight (docs/decisions/0026-pull-ack-waits.md).

Each way is measured in ROUNDS rounds, each round one drain of roomcast's and one of bare SQS's
back to back (which goes first alternates): the emulator's speed moves by half between drains a
minute apart (bare SQS 124-190 msg/s in three runs of the same code), so a ratio is taken within a
round and the figure is the rounds' median, printed with their range.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.harness import (
    AwsCallCounter,
    bench_stack,
    call,
    describe_waits,
    load_handlers,
    room_with,
    waits_in_sequence,
)
from bench.pull_floor import FLOOR_OPERATIONS, RawCall, delete_entries, floor_drain
from tests.support import api_event

PULL_MESSAGES = 200
ROUNDS = 3  # rounds of each way, each next to a drain of bare SQS; the figure is their median ratio
HANDLER_TARGET = 0.5  # pull + ack through the handlers: this share of bare SQS's rate at least
HTTP_TARGET = 0.35  # the same over the HTTP API
WAITS_TARGET = 3  # waits one after another per pull + ack, at most


@dataclass(frozen=True)
class Rates:
    """Messages per second through roomcast and through bare SQS, one pair per round, each pair
    measured back to back on one emulator."""

    messages: int
    rounds: tuple[tuple[float, float], ...]  # (roomcast, bare SQS) msg/s

    @property
    def roomcast_per_second(self) -> float:
        return statistics.median(ours for ours, _ in self.rounds)

    @property
    def bare_per_second(self) -> float:
        return statistics.median(bare for _, bare in self.rounds)

    @property
    def ratios(self) -> list[float]:
        return sorted(ours / bare for ours, bare in self.rounds)

    @property
    def ratio(self) -> float:
        """The median of the rounds' ratios (each round's own reference, not the medians')."""
        return statistics.median(self.ratios)


def drain_rate(drain: Callable[[], int]) -> float:
    """Messages per second of ``drain`` (which returns how many it took)."""
    started = time.perf_counter()
    taken = drain()
    return taken / (time.perf_counter() - started)


def bare_sqs_rate(sqs: Any, queue_name: str, messages: int) -> float:
    """Receive 10 + delete batch until empty, on a queue (made if new) of ``messages`` messages."""
    queue_url = sqs.create_queue(QueueName=queue_name)["QueueUrl"]
    for n in range(messages):
        sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps({"n": n}))

    def drain() -> int:
        done = 0
        while received := sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []):
            sqs.delete_message_batch(QueueUrl=queue_url, Entries=delete_entries(received))
            done += len(received)
        return done

    return drain_rate(drain)


def alternated(
    fill: Callable[[], object],
    drain: Callable[[], int],
    bare_rate: Callable[[], float],
    after_first: Callable[[], object] = lambda: None,
) -> Rates:
    """ROUNDS rounds of ``fill`` then ``drain`` (roomcast's; it returns the messages it took) next
    to ``bare_rate`` (bare SQS's), roomcast first in even rounds and second in odd ones;
    ``after_first`` runs right after the first round's drain (to read what it did, alone)."""

    def ours() -> float:
        fill()
        return drain_rate(drain)

    first = ours()
    after_first()
    rounds = [(first, bare_rate())]
    for number in range(1, ROUNDS):
        if number % 2:
            bare = bare_rate()
            rounds.append((ours(), bare))
        else:
            rounds.append((ours(), bare_rate()))
    return Rates(PULL_MESSAGES, tuple(rounds))


def pull_and_ack_all(pull: Callable[[], list[str]], ack: Callable[[list[str]], object]) -> int:
    """Pull 10 and ack them until a pull hands out nothing; the messages taken."""
    done = 0
    while receipts := pull():
        ack(receipts)
        done += len(receipts)
    return done


def pull_acking_all(pull: Callable[[list[str]], list[str]]) -> int:
    """Pull 10, each pull acking the ten before (``ack`` on the pull), until one hands out nothing
    (it acks the last ten); the messages taken."""
    done = 0
    receipts = pull([])
    while receipts:
        done += len(receipts)
        receipts = pull(receipts)
    return done


@dataclass(frozen=True)
class PullRates:
    """One consumer's rates both ways, pull then ack and pull acking the batch before (and the
    SDK's consumer, which acks that way), with bare SQS's beside them (one run, one emulator)."""

    separate: Rates
    acking: Rates
    consumer: Rates | None = None  # the Python SDK's PullConsumer (over HTTP only)
    floors: tuple[Rates, Rates] | None = None  # bench/pull_floor.py's three and four calls (handlers only)


def through_handlers() -> tuple[PullRates, list[list[Counter[str]]]]:
    """The rates through the handlers, and the waits one cycle made: most pulls' and most acks'
    (from the second cycle on: the first also fetched the receipt key and read the room's
    subscriptions), and most pulls' that acked the batch before."""
    counter = AwsCallCounter.installed()
    with bench_stack(atomic_dynamodb=True) as (model, _endpoint):
        manage, publish, pull = load_handlers(model, "ManagementFunction", "PublishFunction", "PullFunction")
        from roomcast.platform.aws import sqs_client

        room_id = room_with(manage, "PULL", 1)
        listed = call(manage, api_event("GET", f"/rooms/{room_id}/subscriptions", None))
        base_path = f"/rooms/{room_id}/subscriptions/{listed['subscriptions'][0]['id']}"
        batch = {"messages": [{"eventType": "e", "eventVersion": "1", "payload": {"n": 1}}] * 100}
        starts: list[int] = []  # where each request's calls start in the counter's record

        def publish_all() -> None:
            for _ in range(PULL_MESSAGES // 100):
                call(publish, api_event("POST", f"/rooms/{room_id}/messages/batch", batch))

        def pulled(ack: list[str] | None = None) -> list[str]:
            starts.append(len(counter.intervals))
            body: dict[str, Any] = {"maxMessages": 10} | ({"ack": ack} if ack else {})
            answer = call(pull, api_event("POST", f"{base_path}/pull", body))
            return [m["receipt"] for m in answer["messages"]]

        def ack(receipts: list[str]) -> None:
            starts.append(len(counter.intervals))
            call(pull, api_event("POST", f"{base_path}/ack", {"receipts": receipts}))

        def waits(first: int, step: int) -> list[Counter[str]]:
            calls = list(zip(counter.intervals, counter.operations, strict=True))
            return _usual(
                [
                    waits_in_sequence(calls[starts[i] : starts[i + 1]])
                    for i in range(first, len(starts) - 2, step)
                ]
            )

        def fill() -> None:
            publish_all()
            counter.reset()
            starts.clear()

        def bare_rate() -> float:
            return bare_sqs_rate(sqs_client(), "bench-reference", PULL_MESSAGES)

        cycle: list[list[Counter[str]]] = []
        separate = alternated(
            fill,
            lambda: pull_and_ack_all(pulled, ack),
            bare_rate,
            lambda: cycle.extend([waits(2, 2), waits(3, 2)]),
        )
        acking = alternated(
            fill, lambda: pull_acking_all(pulled), bare_rate, lambda: cycle.append(waits(2, 1))
        )
        fill()
        receipts = pulled([])
        counter.reset()
        receipts = pulled(receipts)  # a pull acking ten: the floor's calls are its own
        calls = {
            operation: RawCall(client, parameters)
            for (client, parameters), operation in zip(counter.requests, counter.operations, strict=True)
            if operation in FLOOR_OPERATIONS
        }
        while receipts:
            receipts = pulled(receipts)
        floors = (
            alternated(fill, floor_drain(calls, room_read=False), bare_rate),
            alternated(fill, floor_drain(calls, room_read=True), bare_rate),
        )
    return PullRates(separate, acking, floors=floors), cycle


def _usual(cycles: list[list[Counter[str]]]) -> list[Counter[str]]:
    """The waits most requests made (a request now and then also refills its tenant's allowance)."""
    patterns = Counter(describe_waits(waits) for waits in cycles)
    most_common = patterns.most_common(1)[0][0]
    return next(waits for waits in cycles if describe_waits(waits) == most_common)


def report(handlers: PullRates, http: PullRates, waits: list[list[Counter[str]]]) -> dict[str, bool]:
    """Prints the figures; the targets with whether each was met — by a consumer's faster way, a
    pull that acks the batch before (both ways printed)."""
    print("\n## PULL throughput: pull 10 + ack 10 vs bare SQS receive 10 + delete batch, one consumer\n")
    print(
        f"{ROUNDS} rounds of each way, each next to its own drain of bare SQS: medians, and the "
        "rounds' ratios\n"
    )
    print(
        f"{'path':<62} {'roomcast msg/s':>15} {'bare SQS msg/s':>15} {'ratio':>7} "
        f"{'rounds':>17} {'target':>7}"
    )
    for name, rates, target in (
        ("through the handlers (in-process)", handlers, HANDLER_TARGET),
        ("over the HTTP API (local stack)", http, HTTP_TARGET),
    ):
        ways = [("pull, then ack", rates.separate), ("pull acking the ten before", rates.acking)]
        if rates.consumer is not None:
            ways.append(("the SDK's PullConsumer", rates.consumer))
        if rates.floors is not None:
            three, four = rates.floors
            ways += [("floor: 3 calls raw, no handler", three), ("floor: 4 calls raw, no handler", four)]
        for way, way_rates in ways:
            print(
                f"{name + ': ' + way:<62} {way_rates.roomcast_per_second:>15.1f} "
                f"{way_rates.bare_per_second:>15.1f} {way_rates.ratio:>7.2f} "
                f"{' '.join(f'{r:.2f}' for r in way_rates.ratios):>17} {target:>7.2f}"
            )
    if handlers.floors is not None:
        three_calls, four_calls = (floor.ratio for floor in handlers.floors)
        print(
            "\nfloor (bench/pull_floor.py): the calls a pull acking ten cannot do without while it keeps "
            "PULL's guarantees, made raw with the handler's parameters (no handler, no log, no HTTP): "
            f"receive beside the ack's records, then delete: {three_calls:.2f}x; after the room's read: "
            f"{four_calls:.2f}x. A target above the floor cannot be met on this emulator by any handler."
        )
    pull_waits, ack_waits, acking_waits = waits
    print(
        f"\nwaits one after another per pull + ack: {len(pull_waits) + len(ack_waits)} as two requests "
        f"(pull: {describe_waits(pull_waits)}; ack: {describe_waits(ack_waits)}); {len(acking_waits)} as "
        f"a pull acking the ten before ({describe_waits(acking_waits)}); bare SQS 2 "
        "(ReceiveMessage -> DeleteMessageBatch)"
    )
    return {
        f"PULL pull+ack through the handlers >= {HANDLER_TARGET}x bare SQS": handlers.acking.ratio
        >= HANDLER_TARGET,
        f"PULL pull+ack over HTTP >= {HTTP_TARGET}x bare SQS": http.acking.ratio >= HTTP_TARGET,
        f"PULL waits per pull+ack <= {WAITS_TARGET}": len(acking_waits) <= WAITS_TARGET,
    }


def run() -> dict[str, bool]:
    from bench.pull_http import over_http

    handlers, waits = through_handlers()
    return report(handlers, over_http(), waits)


if __name__ == "__main__":
    run()
