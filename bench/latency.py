"""Publish → delivery latency: the waits on a delivery's path, their model on AWS, and the local
stack's measured p50/p99 (issue 52's latency budget).

1. The path, counted by the request recorder (``AwsCallCounter``, every botocore call of this
   process) around the real handlers on the emulator. Calls in flight together are one wait. PUSH:
   API Gateway, the publish function's waits up to the envelope's send to the push queue (what comes
   after only delays the publish's answer), the event source's window and hand-over, the push
   function's waits before the webhook's POST arrives, and the POST. PULL: API Gateway, the publish's
   waits up to the send to the subscription's queue, a waiting pull's receive, the pull's waits after
   it, and API Gateway's answer.
2. The AWS model (bench/latency_model.py): each wait's typical latency, the path's p50/p99.
3. The local stack (gateway, authorizer, function workers, event source pollers, moto) over real
   HTTP: a fast loopback endpoint, LOCAL_MESSAGES messages LOCAL_GAP_S apart after a warm-up; the
   time from sending the publish request to the webhook's arrival.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bench.harness import (
    AwsCallCounter,
    FakeContext,
    bench_stack,
    call,
    describe_waits,
    load_handlers,
    waits_in_sequence,
)
from bench.latency_local import (
    DELIVER_AFTER_MS,
    LOCAL_GAP_S,
    LOCAL_MESSAGES,
    LOCAL_WARMUP,
    MESSAGE,
    measure_local,
)
from bench.latency_model import (
    API_GATEWAY,
    EVENT_SOURCE_HANDOVER,
    SQS_RECEIVE,
    WEBHOOK_POST,
    Step,
    percentiles,
    typical_of,
)
from roomcast_dev.event_sources import sqs_record
from roomcast_dev.webhook_receiver import WebhookReceiver
from tests.support import api_event

TARGET_LOCAL_P50_S = 0.5
TARGET_LOCAL_P99_S = 1.5
TARGET_MODEL_P50_MS = 150.0
TARGET_DELIVER_AT_LATE_S = 1.0
SENDS = {"SendMessage", "SendMessageBatch"}

Call = tuple[tuple[float, float], str]


@dataclass(frozen=True)
class Path:
    """The waits of one delivery's path, in order, and the steps of its model."""

    name: str
    steps: list[Step]

    def lines(self) -> list[str]:
        rows = []
        for number, step in enumerate(self.steps, 1):
            if step.typical is None:
                figure = f"{step.window_ms:>7.0f} ms (window)"
            else:
                figure = f"{step.typical.p50_ms:>4.0f}/{step.typical.p99_ms:<4.0f} ms p50/p99"
            rows.append(f"{number:>3}. {step.what:<62} {figure}")
        return rows


def _calls(counter: AwsCallCounter) -> list[Call]:
    return list(zip(counter.intervals, counter.operations, strict=True))


def _wait_steps(calls: list[Call], prefix: str) -> list[Step]:
    return [
        Step(f"{prefix}: {describe_waits([group])}", typical_of(list(group)))
        for group in waits_in_sequence(calls)
    ]


def _send_end(counter: AwsCallCounter, queue_url: str) -> float:
    """When the first send to ``queue_url`` among the recorded calls ended."""
    for (_, end), operation, (_, params) in zip(
        counter.intervals, counter.operations, counter.requests, strict=True
    ):
        if operation in SENDS and params.get("QueueUrl") == queue_url:
            return end
    raise RuntimeError(f"no send to {queue_url} was recorded")


def _before(calls: list[Call], moment: float) -> list[Call]:
    return [c for c in calls if c[0][0] < moment]


def measure_paths(batching_window_seconds: float) -> tuple[Path, Path]:
    """The PUSH and PULL paths, counted around the real handlers (the second message of each: the
    first also reads what a warm container keeps)."""
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, _endpoint), WebhookReceiver(clock=time.perf_counter) as hook:
        manage, publish, push, pull = load_handlers(
            model, "ManagementFunction", "PublishFunction", "PushFunction", "PullFunction"
        )
        from roomcast.platform.aws import sqs_client

        sqs = sqs_client()
        push_queue = model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
        room = call(manage, api_event("POST", "/rooms", {"name": "latency"}))
        body = {"type": "PUSH", "pushUrl": hook.url()}
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
        for _ in range(2):
            counter.reset()
            call(publish, api_event("POST", f"/rooms/{room['id']}/messages", MESSAGE))
            publish_calls, sent = _calls(counter), _send_end(counter, push_queue)
            received = sqs.receive_message(
                QueueUrl=push_queue, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
            )["Messages"]
            records = [
                sqs_record(m, "arn:aws:sqs:us-east-1:123456789012:push", "us-east-1") for m in received
            ]
            counter.reset()
            before = len(hook.requests)
            push({"Records": records}, FakeContext())
            arrived = hook.requests[before].arrived_at
            push_calls = _before(_calls(counter), arrived)
        window = [Step("event source batching window", None, batching_window_seconds * 1000)]
        push_path = Path(
            "PUSH: publish request -> webhook POST",
            [
                Step("API Gateway and the publish function's invoke", API_GATEWAY),
                *_wait_steps(_before(publish_calls, sent), "publish"),
                *(window if batching_window_seconds else []),
                Step("event source hand-over to the push function", EVENT_SOURCE_HANDOVER),
                *_wait_steps(push_calls, "push, before the POST"),
                Step("webhook POST", WEBHOOK_POST),
            ],
        )
        pull_path = _pull_path(manage, publish, pull, counter)
    return push_path, pull_path


def _pull_path(manage: Any, publish: Any, pull: Any, counter: AwsCallCounter) -> Path:
    room = call(manage, api_event("POST", "/rooms", {"name": "latency-pull"}))
    subscription = call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", {"type": "PULL"}))
    base = f"/rooms/{room['id']}/subscriptions/{subscription['id']}"
    queue_url = ""
    for _ in range(2):
        counter.reset()
        call(publish, api_event("POST", f"/rooms/{room['id']}/messages", MESSAGE))
        publish_calls = _calls(counter)
        queue_url = queue_url or next(
            params["QueueUrl"]
            for operation, (_, params) in zip(counter.operations, counter.requests, strict=True)
            if operation in SENDS and "pull" in str(params.get("QueueUrl", ""))
        )
        sent = _send_end(counter, queue_url)
        counter.reset()
        answer = call(pull, api_event("POST", f"{base}/pull", {"maxMessages": 10, "waitSeconds": 1}))
        assert answer["messages"], "the pull found no message"
        pull_calls = _calls(counter)
        (received_end,) = [end for (_, end), op in pull_calls if op == "ReceiveMessage"][:1]
        after = [c for c in pull_calls if c[0][0] >= received_end]
    return Path(
        "PULL: publish request -> in a waiting pull's answer",
        [
            Step("API Gateway and the publish function's invoke", API_GATEWAY),
            *_wait_steps(_before(publish_calls, sent), "publish"),
            Step("the waiting pull's receive answers", SQS_RECEIVE),
            *_wait_steps(after, "pull, after the receive"),
            Step("API Gateway's answer to the pull", API_GATEWAY),
        ],
    )


def _template_window_seconds() -> float:
    from roomcast_dev.local_aws import LOCAL_REGION, queue_url_for
    from roomcast_dev.stack import LOCAL_PARAMETERS
    from roomcast_dev.template import read_stack

    model = read_stack(
        "roomcast-bench", LOCAL_REGION, LOCAL_PARAMETERS, lambda n: queue_url_for("http://x", n)
    )
    (trigger,) = [t for t in model.sqs_triggers if t.function_id == "PushFunction"]
    return float(trigger.batching_window_seconds)


def run() -> dict[str, bool]:
    """Prints the budget; returns each target with whether it was met."""
    window_s = _template_window_seconds()
    push_path, pull_path = measure_paths(window_s)
    print("\n## Latency budget: the waits on a delivery's path, one after another\n")
    print("(counted by the request recorder around the real handlers; each wait's AWS p50/p99 from")
    print("bench/latency_model.py, where every figure names its source or says it is assumed)\n")
    verdicts: dict[str, bool] = {}
    for path in (push_path, pull_path):
        p50, p99 = percentiles(path.steps)
        print(f"### {path.name}\n")
        print("\n".join(path.lines()))
        print(f"\n{len(path.steps)} waits; AWS model: p50 {p50:.0f} ms, p99 {p99:.0f} ms\n")
        if path is push_path:
            verdicts[f"AWS model publish -> webhook p50 <= {TARGET_MODEL_P50_MS:.0f} ms"] = (
                p50 <= TARGET_MODEL_P50_MS
            )
    local = measure_local()
    print(
        f"### Local stack: publish -> webhook, {LOCAL_MESSAGES} messages {LOCAL_GAP_S} s apart after "
        f"{LOCAL_WARMUP} to warm up\n"
    )
    print(f"p50 {local.p50_s:.3f} s (target <= {TARGET_LOCAL_P50_S}), p99 {local.p99_s:.3f} s ", end="")
    print(f"(target <= {TARGET_LOCAL_P99_S}); the first delivery after start: {local.first_s:.2f} s")
    verdicts[f"local publish -> webhook p50 <= {TARGET_LOCAL_P50_S} s"] = local.p50_s <= TARGET_LOCAL_P50_S
    verdicts[f"local publish -> webhook p99 <= {TARGET_LOCAL_P99_S} s"] = local.p99_s <= TARGET_LOCAL_P99_S
    late = local.deliver_at_lateness_s
    print(
        f"deliverAfterMs ({len(late)} messages, {DELIVER_AFTER_MS[0]}-{DELIVER_AFTER_MS[-1]} ms): arrived "
        f"{min(late):+.3f} to {max(late):+.3f} s from their time (target: 0 to +{TARGET_DELIVER_AT_LATE_S} s)"
    )
    verdicts[f"local deliver-at within {TARGET_DELIVER_AT_LATE_S} s of its time, never before"] = (
        min(late) >= 0 and max(late) <= TARGET_DELIVER_AT_LATE_S
    )
    return verdicts


if __name__ == "__main__":
    run()
