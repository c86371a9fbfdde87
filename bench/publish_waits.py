"""A publish in few waits (issue 52): the AWS calls a publisher waits for one after another, counted
by the request recorder around the real publish handler on the emulator (calls in flight together
are one wait), for one message and for a batch of 100, to a room of 10 PUSH subscriptions.

The handler runs as on Lambda: its after-answer extension registered with the Extensions API
(roomcast_dev.lambda_extensions on loopback), each call an invocation the extension sees. The calls
that start once the handler has returned (the extension's: the sends-done mark and the delivery
log) are counted apart, as waits after the answer. The second publish of each is counted: the first
also reads what a warm container keeps."""

from __future__ import annotations

import importlib
import time
import uuid
from collections import Counter
from typing import Any

from bench.harness import (
    AwsCallCounter,
    FakeContext,
    bench_stack,
    describe_waits,
    load_handlers,
    room_with,
)
from bench.latency_local import MESSAGE
from bench.outputs import logging_to_file
from roomcast.platform import after_answer
from roomcast_dev.lambda_extensions import LocalExtensionsApi
from tests.support import api_event

SUBSCRIPTIONS = 10
TARGET_WAITS = 3
# Counted the same way before issue 52's changes (the delivery log's flush was a wait of its own,
# and every call was made before the answer).
BEFORE_ISSUE_52 = 5

Waits = list[Counter[str]]


class _Invocation(FakeContext):
    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())


def measure() -> dict[str, tuple[Waits, Waits]]:
    """Each publish's waits before its answer and after it, by the publish's name."""
    counter = AwsCallCounter.installed()
    shapes = {
        "one message": ("/messages", MESSAGE),
        "a batch of 100": ("/messages/batch", {"messages": [MESSAGE] * 100}),
    }
    measured: dict[str, tuple[Waits, Waits]] = {}
    extensions = LocalExtensionsApi()
    try:
        with bench_stack() as (model, _endpoint):
            manage, _ = load_handlers(model, "ManagementFunction", "PublishFunction")
            publish, returned = _publish_with_its_extension(extensions)
            room_id = room_with(manage, "PUSH", SUBSCRIPTIONS)
            for name, (path, body) in shapes.items():
                for _ in range(2):
                    counter.reset()
                    invocation = _Invocation()
                    extensions.begin_invocation(invocation.aws_request_id, int((time.time() + 30) * 1000))
                    response = publish(api_event("POST", f"/rooms/{room_id}{path}", body), invocation)
                    if response["statusCode"] >= 300 or not extensions.wait_until_done(30):
                        raise RuntimeError(f"bench publish failed: {response}")
                measured[name] = counter.waits_split_at(returned[-1])
    finally:
        extensions.close()
        after_answer.stop_extension()
    return measured


def _publish_with_its_extension(extensions: LocalExtensionsApi) -> tuple[Any, list[float]]:
    """The publish function's handler with its extension registered (this process imported the
    function earlier, so its init's registration is made here), and when each call's own code
    returned (its answer made: what follows is the extension's)."""
    if not after_answer.start_extension(extensions.address) or not extensions.wait_until_ready(5):
        raise RuntimeError("the after-answer extension did not register")
    inner = importlib.import_module("publish_api.handler").lambda_handler.__wrapped__
    returned: list[float] = []

    def answering(event: dict[str, Any], context: Any) -> Any:
        try:
            return inner(event, context)
        finally:
            returned.append(time.perf_counter())

    return logging_to_file(after_answer.answer_first(answering)), returned


def run() -> dict[str, bool]:
    print(f"\n## A publish's waits, one after another (a room of {SUBSCRIPTIONS} PUSH subscriptions)\n")
    print(f"{'publish':<16} {'waits':>6} {'after':>6} {'before':>7}  target  the waits  | after the answer")
    verdicts: dict[str, bool] = {}
    for name, (waits, after) in measure().items():
        print(
            f"{name:<16} {len(waits):>6} {len(after):>6} {BEFORE_ISSUE_52:>7}  <= {TARGET_WAITS}   "
            f"{describe_waits(waits)}  | {describe_waits(after)}"
        )
        verdicts[f"publish of {name} to {SUBSCRIPTIONS} subscriptions in <= {TARGET_WAITS} waits"] = (
            len(waits) <= TARGET_WAITS
        )
    print(
        "\n'waits': before the answer (what a publisher waits for); 'after': the extension's, after the"
        " answer (the sends-done mark beside the delivery log; billed, not waited for);"
        " 'before': issue 52's start."
    )
    return verdicts


if __name__ == "__main__":
    run()
