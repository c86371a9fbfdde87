"""PUSH delivery: a batch of 10 webhooks next to 10 plain concurrent POSTs (with the time the
batch waited for the emulator measured), a batch with one 2 s endpoint, and the push function's
DynamoDB requests per delivery with and without flow control. The push handler runs in-process
against moto in server mode; webhooks are roomcast_dev.webhook_receiver endpoints on loopback.
(What a delivery costs is bench/cost.py's.)
"""

from __future__ import annotations

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
from roomcast.catalog.lanes import SLOW_ENDPOINT_MS
from roomcast_dev.event_sources import failed_message_ids, sqs_record
from roomcast_dev.webhook_receiver import Reply, WebhookReceiver, always
from tests.support import api_event

BATCH = 10
REPEATS = 7
PUSH_BATCH_TARGETS = {0: 2.0, 100: 1.3}  # endpoint answer time (ms) -> batch / plain POSTs
SLOW_ENDPOINT_SECONDS = 2.0


def _slow(delay_seconds: float = 0.0) -> WebhookReceiver:
    """A webhook receiver answering 200 after ``delay_seconds``."""
    return WebhookReceiver(always(Reply(delay_seconds=delay_seconds)))


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
        from push_worker.webhook import WebhookBody  # importable once the handler is loaded
        from roomcast.messages.envelope import Envelope
        from roomcast.platform.aws import sqs_client

        sqs = sqs_client()
        push_queue = model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]

        print("\n## Push: one batch of 10 webhooks vs 10 plain concurrent POSTs of the same bodies\n")
        print(
            f"{'endpoint answers after':<24} {'batch ms':>9} {'emulator ms':>12} {'plain ms':>9} "
            f"{'ratio':>6} {'without emulator':>17}  target"
        )
        for server_ms, target in PUSH_BATCH_TARGETS.items():
            batch_samples, plain_samples, emulator_samples = [], [], []
            with _slow(server_ms / 1000) as hook:
                # One room with 10 subscriptions, reused: a warm container, as in steady traffic.
                reset(model, endpoint_url)
                room_id = _setup(manage, [hook.url()] * BATCH)
                for _ in range(REPEATS + 1):
                    _publish(publish, room_id)
                    records = _drain_push_queue(sqs, push_queue, BATCH)
                    # the same bytes the webhooks carry
                    bodies = [WebhookBody.of(Envelope.from_json(r["body"])).to_bytes() for r in records]
                    counter.reset()
                    batch_samples.append(timed(partial(push, {"Records": records}, FakeContext())))
                    emulator_samples.append(counter.in_flight_seconds())
                    plain_samples.append(timed(partial(_plain_posts, [hook.url()] * BATCH, bodies)))
            batch, plain = median_ms(batch_samples[1:]), median_ms(plain_samples[1:])
            emulator = median_ms(emulator_samples[1:])
            ratio, without = batch / plain, (batch - emulator) / plain
            name = f"push batch of 10 <= {target}x plain POSTs (endpoints answering after {server_ms} ms)"
            verdicts[name] = ratio <= target
            verdict = "met" if ratio <= target else ("emulator's share" if without <= target else "missed")
            print(
                f"{server_ms:>5} ms{'':<16} {batch:>9.1f} {emulator:>12.1f} {plain:>9.1f} {ratio:>6.2f} "
                f"{without:>17.2f}  <= {target}: {verdict}"
            )
        print(
            "(emulator ms: how long the batch waited for at least one AWS call; 'without emulator' is the "
            "ratio with that time taken out)"
        )

        verdicts.update(
            _report_slow_endpoint_batches(model, endpoint_url, manage, publish, push, sqs, push_queue)
        )

        _report_flow_control_costs(model, endpoint_url, manage, publish, push, sqs, push_queue, counter)
    return verdicts


def _report_slow_endpoint_batches(
    model: Any, endpoint_url: str, manage: Any, publish: Any, push: Any, sqs: Any, queue: str
) -> dict[str, bool]:
    """Two fast-lane batches of 10 where one endpoint takes SLOW_ENDPOINT_SECONDS, each timed next
    to that endpoint's answer time: the first waits the lane's budget, then the endpoint is marked
    slow and the second moves its envelope to the slow lane without a request."""
    print(
        f"\n## Push: fast-lane batches of 10 where one endpoint takes {SLOW_ENDPOINT_SECONDS:.0f} s "
        f"(the fast lane waits {SLOW_ENDPOINT_MS} ms at most)\n"
    )
    print(f"{'batch':<8} {'seconds':>8} {'/ slow answer':>14}  target")
    verdicts: dict[str, bool] = {}
    with _slow() as fast, _slow(SLOW_ENDPOINT_SECONDS) as slow:
        reset(model, endpoint_url)
        room_id = _setup(manage, [slow.url()] + [fast.url()] * (BATCH - 1))
        for name, target in (("first", 0.75), ("next", 0.25)):
            _publish(publish, room_id)
            records = _drain_push_queue(sqs, queue, BATCH)
            seconds = timed(partial(push, {"Records": records}, FakeContext()))
            ratio = seconds / SLOW_ENDPOINT_SECONDS
            met = ratio <= target
            verdicts[f"{name} fast-lane batch with one 2 s endpoint <= {target}x its answer time"] = met
            print(f"{name:<8} {seconds:>8.2f} {ratio:>14.2f}  <= {target}: {'met' if met else 'missed'}")
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
