"""A publish in few waits (issue 52): the AWS calls a publish waits for one after another, counted
by the request recorder around the real publish handler on the emulator (calls in flight together
are one wait), for one message and for a batch of 100, to a room of 10 PUSH subscriptions. The
second publish of each is counted: the first also reads what a warm container keeps."""

from __future__ import annotations

from collections import Counter

from bench.harness import AwsCallCounter, bench_stack, call, describe_waits, load_handlers, room_with
from bench.latency_local import MESSAGE
from tests.support import api_event

SUBSCRIPTIONS = 10
TARGET_WAITS = 3
# Counted the same way before issue 52's changes (the delivery log's flush was a wait of its own).
BEFORE_ISSUE_52 = 5


def measure() -> dict[str, list[Counter[str]]]:
    """Each publish's waits, by the publish's name."""
    counter = AwsCallCounter.installed()
    shapes = {
        "one message": ("/messages", MESSAGE),
        "a batch of 100": ("/messages/batch", {"messages": [MESSAGE] * 100}),
    }
    waits: dict[str, list[Counter[str]]] = {}
    with bench_stack() as (model, _endpoint):
        manage, publish = load_handlers(model, "ManagementFunction", "PublishFunction")
        room_id = room_with(manage, "PUSH", SUBSCRIPTIONS)
        for name, (path, body) in shapes.items():
            for _ in range(2):
                counter.reset()
                call(publish, api_event("POST", f"/rooms/{room_id}{path}", body))
            waits[name] = counter.waits_in_sequence()
    return waits


def run() -> dict[str, bool]:
    print(f"\n## A publish's waits, one after another (a room of {SUBSCRIPTIONS} PUSH subscriptions)\n")
    print(f"{'publish':<16} {'waits':>6} {'before':>7}  target  the waits")
    verdicts: dict[str, bool] = {}
    for name, waits in measure().items():
        print(f"{name:<16} {len(waits):>6} {BEFORE_ISSUE_52:>7}  <= {TARGET_WAITS}   {describe_waits(waits)}")
        verdicts[f"publish of {name} to {SUBSCRIPTIONS} subscriptions in <= {TARGET_WAITS} waits"] = (
            len(waits) <= TARGET_WAITS
        )
    return verdicts


if __name__ == "__main__":
    run()
