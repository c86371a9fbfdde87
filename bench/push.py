"""PUSH delivery: a batch of 10 webhooks next to 10 plain concurrent POSTs, a batch with one 2 s
endpoint, and AWS requests (and cost) per delivered message for a workload with 10% first-try
failures. The push handler runs in-process against moto in server mode; webhooks are
roomcast_dev.webhook_receiver endpoints on loopback.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any
from urllib.request import Request, urlopen

from bench.harness import (
    AwsCallCounter,
    FakeContext,
    bench_stack,
    call,
    load_handlers,
    median_ms,
    reset,
    timed,
)
from roomcast_dev.event_sources import failed_message_ids, sqs_record
from roomcast_dev.webhook_receiver import RecordedRequest, Reply, Script, WebhookReceiver, always
from tests.support import api_event

BATCH = 10
REPEATS = 7
SLOW_ENDPOINT_SECONDS = 2.0
WORKLOAD_MESSAGES = 100
FIRST_TRY_FAILURE_RATE = 0.10

# Public list prices, us-east-1, USD, as published on the AWS pricing pages in 2025 (not
# re-checked since: update PRICES_AS_OF and the figures together).
PRICES_AS_OF = "2025-06 (AWS public pricing pages, us-east-1)"
PRICE_PER_MILLION = {
    "SQS request (standard, per 64 KB chunk)": 0.40,
    "DynamoDB write request unit (on-demand)": 0.625,
    "DynamoDB read request unit (on-demand)": 0.125,
    "Lambda request": 0.20,
    "S3 PUT request": 5.00,
    "API Gateway HTTP API request": 1.00,
}
LAMBDA_ARM_PRICE_PER_GB_SECOND = 0.0000133334
PUSH_FUNCTION_MEMORY_GB = 0.5


def _slow(delay_seconds: float = 0.0) -> WebhookReceiver:
    """A webhook receiver answering 200 after ``delay_seconds``."""
    return WebhookReceiver(always(Reply(delay_seconds=delay_seconds)))


def _first_try_fails(failing: set[str]) -> Script:
    """500 on the first request for each message id in ``failing`` (filled in later), else 200."""
    seen: set[str] = set()
    lock = threading.Lock()

    def script(number: int, request: RecordedRequest) -> Reply:
        body = request.json
        message_id = str(body.get("messageId", "")) if isinstance(body, dict) else ""
        with lock:
            first = message_id not in seen
            seen.add(message_id)
        return Reply(500) if first and message_id in failing else Reply()

    return script


def _delivered(hook: WebhookReceiver) -> int:
    """Messages the receiver answered 2xx at least once."""
    return len(
        {
            request.json["messageId"]
            for request in hook.requests
            if request.reply is not None and request.reply.status < 300
        }
    )


def _plain_posts(urls: list[str], bodies: list[bytes]) -> None:
    def post(pair: tuple[str, bytes]) -> None:
        request = Request(pair[0], data=pair[1], headers={"content-type": "application/json"}, method="POST")  # noqa: S310
        with urlopen(request, timeout=10) as response:  # noqa: S310 - loopback
            response.read()

    with ThreadPoolExecutor(max_workers=len(urls)) as pool:
        list(pool.map(post, zip(urls, bodies, strict=True)))


def _setup(manage: Any, urls: list[str]) -> str:
    """A room with one PUSH subscription per URL; returns its id."""
    room = call(manage, api_event("POST", "/rooms", {"name": "bench", "deliveryAttempts": 3}))
    for url in urls:
        call(
            manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": url})
        )
    return str(room["id"])


def _publish(publish: Any, room_id: str) -> None:
    """One message: one envelope per subscription of the room on the push queue."""
    body = {"eventType": "e", "eventVersion": "1", "payload": {"orderId": 42}}
    call(publish, api_event("POST", f"/rooms/{room_id}/messages", body))


def _drain_push_queue(sqs: Any, queue_url: str, wanted: int) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    while len(records) < wanted:
        messages = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=360,
            MessageSystemAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            break
        records.extend(
            sqs_record(m, "arn:aws:sqs:us-east-1:123456789012:push", "us-east-1") for m in messages
        )
    return records


def run() -> dict[str, bool]:
    """Prints the figures; returns each target with whether it was met."""
    verdicts: dict[str, bool] = {}
    counter = AwsCallCounter.installed()
    with bench_stack() as (model, endpoint_url):
        manage, publish, push = load_handlers(model, "ManagementFunction", "PublishFunction", "PushFunction")
        from push_worker.service import webhook_body  # importable once the handler is loaded
        from roomcast.dal.aws import sqs_client
        from roomcast.domain.envelope import Envelope

        sqs = sqs_client()
        push_queue = model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]

        print("\n## Push: one batch of 10 webhooks vs 10 plain concurrent POSTs of the same bodies\n")
        print(f"{'endpoint answers after':<24} {'batch ms':>9} {'plain ms':>9} {'ratio':>6}  target <= 1.3")
        for server_ms in (0, 100):
            batch_samples, plain_samples = [], []
            with _slow(server_ms / 1000) as hook:
                # One room with 10 subscriptions, reused: a warm container, as in steady traffic.
                reset(model, endpoint_url)
                room_id = _setup(manage, [hook.url()] * BATCH)
                for _ in range(REPEATS + 1):
                    _publish(publish, room_id)
                    records = _drain_push_queue(sqs, push_queue, BATCH)
                    # the same bytes the webhooks carry
                    bodies = [webhook_body(Envelope.from_json(r["body"])) for r in records]
                    batch_samples.append(timed(partial(push, {"Records": records}, FakeContext())))
                    plain_samples.append(timed(partial(_plain_posts, [hook.url()] * BATCH, bodies)))
            batch, plain = median_ms(batch_samples[1:]), median_ms(plain_samples[1:])
            verdict = "ok" if batch / plain <= 1.3 else "over"
            verdicts[f"push batch of 10 <= 1.3x plain POSTs (endpoints answering after {server_ms} ms)"] = (
                batch / plain <= 1.3
            )
            print(f"{server_ms:>5} ms{'':<16} {batch:>9.1f} {plain:>9.1f} {batch / plain:>6.2f}  {verdict}")

        print(f"\n## Push: a batch of 10 where one endpoint takes {SLOW_ENDPOINT_SECONDS:.0f} s\n")
        with _slow() as fast, _slow(SLOW_ENDPOINT_SECONDS) as slow:
            reset(model, endpoint_url)
            _publish(publish, _setup(manage, [slow.url()] + [fast.url()] * (BATCH - 1)))
            records = _drain_push_queue(sqs, push_queue, BATCH)
            seconds = timed(partial(push, {"Records": records}, FakeContext()))
        print(f"batch took {seconds:.2f} s (target <= 2.5 s): {'ok' if seconds <= 2.5 else 'over'}")
        verdicts["push batch with one 2 s endpoint <= 2.5 s"] = seconds <= 2.5

        # -- requests per delivered message ----------------------------------------------------------
        reset(model, endpoint_url)
        failing: set[str] = set()
        with WebhookReceiver(_first_try_fails(failing)) as hook:
            room = call(manage, api_event("POST", "/rooms", {"name": "workload", "deliveryDelayMs": 0}))
            call(
                manage,
                api_event(
                    "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": hook.url()}
                ),
            )
            counter.reset()
            body = {"eventType": "e", "eventVersion": "1", "payload": {"orderId": 42}}
            message_ids = [
                call(publish, api_event("POST", f"/rooms/{room['id']}/messages", body))["messageId"]
                for _ in range(WORKLOAD_MESSAGES)
            ]
            publish_calls = Counter(counter.calls)
            failing.update(message_ids[: int(WORKLOAD_MESSAGES * FIRST_TRY_FAILURE_RATE)])
            counter.reset()
            esm_calls: Counter[str] = Counter()
            invocations = 0
            deadline = time.monotonic() + 120
            while _delivered(hook) < WORKLOAD_MESSAGES and time.monotonic() < deadline:
                invocations += _esm_round(sqs, push_queue, push, esm_calls)
            push_calls = Counter(counter.calls)
            push_calls.subtract(esm_calls)
        _report_costs(publish_calls, +push_calls, esm_calls, invocations, _delivered(hook))
        _report_flow_control_costs(model, endpoint_url, manage, publish, push, sqs, push_queue, counter)
    return verdicts


FLOW_CONTROL_MESSAGES = 30
FLOW_CONTROL_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("no limits", {}),
    ("maxConcurrency 5", {"maxConcurrency": 5}),
    ("rateLimitPerSecond 500", {"rateLimitPerSecond": 500}),
    ("both", {"maxConcurrency": 5, "rateLimitPerSecond": 500}),
)


def _report_flow_control_costs(
    model: Any, endpoint_url: str, manage: Any, publish: Any, push: Any, sqs: Any, queue: str, counter: Any
) -> None:
    """AWS requests the push function makes per delivery with and without flow control (limits
    high enough that nothing waits: the cost of checking them)."""
    print(
        f"\n## Flow control: push-function AWS requests per delivery ({FLOW_CONTROL_MESSAGES} messages, "
        "endpoint answering at once, limits never reached)\n"
    )
    columns = ("DynamoDB writes", "DynamoDB reads", "SQS sends", "extra writes")
    print(f"{'subscription':<24} " + " ".join(f"{c:>16}" for c in columns))
    baseline: float | None = None
    for name, limits in FLOW_CONTROL_CASES:
        reset(model, endpoint_url)
        with WebhookReceiver() as hook:
            room = call(manage, api_event("POST", "/rooms", {"name": "flow", "deliveryDelayMs": 0}))
            body = {"type": "PUSH", "pushUrl": hook.url(), **limits}
            call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
            message = {"eventType": "e", "eventVersion": "1", "payload": {}}
            for _ in range(FLOW_CONTROL_MESSAGES):
                call(publish, api_event("POST", f"/rooms/{room['id']}/messages", message))
            counter.reset()
            esm_calls: Counter[str] = Counter()
            deadline = time.monotonic() + 60
            while _delivered(hook) < FLOW_CONTROL_MESSAGES and time.monotonic() < deadline:
                _esm_round(sqs, queue, push, esm_calls)
            calls = Counter(counter.calls)
            calls.subtract(esm_calls)
            delivered = max(_delivered(hook), 1)
        writes = (
            sum(calls[op] for op in ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")) / delivered
        )
        reads = sum(calls[op] for op in ("GetItem", "Query", "BatchGetItem")) / delivered
        sends = sum(calls[op] for op in ("SendMessage", "SendMessageBatch")) / delivered
        baseline = writes if baseline is None else baseline
        print(f"{name:<24} " + " ".join(f"{v:>16.2f}" for v in (writes, reads, sends, writes - baseline)))


def _esm_round(sqs: Any, queue_url: str, push: Any, esm_calls: Counter[str]) -> int:
    """One poll of the event source mapping: receive, invoke, delete what succeeded."""
    messages = sqs.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, VisibilityTimeout=360, MessageSystemAttributeNames=["All"]
    ).get("Messages", [])
    esm_calls["ReceiveMessage"] += 1
    if not messages:
        time.sleep(0.2)  # retries wait at least SQS's 1 s delay granularity
        return 0
    records = [sqs_record(m, "arn:aws:sqs:us-east-1:123456789012:push", "us-east-1") for m in messages]
    result = push({"Records": records}, FakeContext())
    kept = failed_message_ids(result, {m["MessageId"] for m in messages}) or set()
    done = [m for m in messages if m["MessageId"] not in kept]
    if done:
        sqs.delete_message_batch(
            QueueUrl=queue_url,
            Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
        )
        esm_calls["DeleteMessageBatch"] += 1
    return 1


def _report_costs(
    publish_calls: Counter[str],
    push_calls: Counter[str],
    esm_calls: Counter[str],
    invocations: int,
    delivered: int,
) -> None:
    sqs_ops = {"SendMessageBatch", "SendMessage", "ReceiveMessage", "DeleteMessageBatch", "DeleteMessage"}
    rows: Counter[str] = Counter()
    for calls in (publish_calls, push_calls, esm_calls):
        for operation, count in calls.items():
            if operation in sqs_ops:
                rows["SQS request (standard, per 64 KB chunk)"] += count
            elif operation in {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}:
                rows["DynamoDB write request unit (on-demand)"] += count
            elif operation in {"GetItem", "Query", "BatchGetItem"}:
                rows["DynamoDB read request unit (on-demand)"] += count
            elif operation == "PutObject":
                rows["S3 PUT request"] += count
    rows["Lambda request"] = WORKLOAD_MESSAGES + invocations  # one publish call each + push batches
    rows["API Gateway HTTP API request"] = WORKLOAD_MESSAGES
    print(
        f"\n## AWS requests per delivered message: {WORKLOAD_MESSAGES} messages, "
        f"{FIRST_TRY_FAILURE_RATE:.0%} fail their first try, 1 PUSH subscription\n"
    )
    print(f"delivered {delivered}/{WORKLOAD_MESSAGES} in {invocations} push invocations")
    print(f"publish calls: {dict(publish_calls)}")
    print(f"push calls:    {dict(push_calls)}")
    print(f"event source mapping calls: {dict(esm_calls)}\n")
    total_per_million = 0.0
    print(f"{'request':<42} {'per message':>12} {'USD per 1M deliveries':>22}")
    for name, count in rows.items():
        per_message = count / max(delivered, 1)
        cost = per_message * PRICE_PER_MILLION[name]
        total_per_million += cost
        print(f"{name:<42} {per_message:>12.2f} {cost:>22.2f}")
    print(f"{'total (requests only; items <= 1 KB, chunks <= 64 KB)':<55} {total_per_million:>22.2f}")
    print(
        f"prices: {PRICES_AS_OF}; Lambda duration not included "
        f"(arm64 {LAMBDA_ARM_PRICE_PER_GB_SECOND} USD per GB-s at {PUSH_FUNCTION_MEMORY_GB} GB)"
    )
