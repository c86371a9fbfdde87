"""The cost model: what one million deliveries cost, from every request the emulator received.

A standard scenario runs on the local stack (the gateway, the functions in their workers, the
event source mappings long-polling as Lambda's do, the Firehose stand-in), with moto metered from
inside (bench/meter.py): 1,000 messages into a room of 5 PUSH subscriptions (5,000 deliveries), one
first attempt in ten failing (retried after 1 s), published one by one and in batches of 10. Each
request is priced with the dated table below; Lambda duration comes from the measured invocations:
their CPU time at the function's share of a vCPU plus their waiting as measured (an upper bound:
the emulator answers slower than AWS; ``lambda_seconds``). SNS and EventBridge API destinations
are priced for the same scenario beside it.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests

from bench.harness import FUNCTION_LOG
from bench.meter import METER, install_meter
from roomcast.dal.repository import Repository
from roomcast_dev.function_worker import FUNCTION_LOG_VARIABLE
from roomcast_dev.functions import InvocationTiming
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver

MESSAGES = 1_000
SUBSCRIPTIONS = 5
BATCH = 10
FIRST_TRY_FAILURE_PERCENT = 10
TARGET_USD_PER_MILLION = 1.40
SCENARIO_TIMEOUT_SECONDS = 600
MAX_BACKLOG = 100  # envelopes on the push queue before publishing waits (see _publish)
# One invocation of each function at a time, one poller per queue: Lambda duration is priced from
# each invocation's measured time, and the emulator serves the whole stack's AWS calls from one
# Python process on this 2-core machine, so invocations side by side wait for each other's calls
# and for a core, which on AWS they do not (docs/decisions/0025-lambda-duration.md: 4 at a time
# measured 1.5 times the GB-s for the same requests).
FUNCTION_CONCURRENCY = 1
POLLERS_PER_QUEUE = 1

# Public list prices, us-east-1, USD, from the AWS pricing pages as of 2025-06 (not re-checked
# since: update PRICES_AS_OF and the figures together). Per million units unless said otherwise.
PRICES_AS_OF = "2025-06, us-east-1, AWS public pricing pages (first tier)"
API_GATEWAY_HTTP_PER_MILLION = 1.00  # HTTP API requests
LAMBDA_REQUEST_PER_MILLION = 0.20
LAMBDA_ARM64_PER_GB_SECOND = 0.0000133334
LAMBDA_MB_PER_VCPU = 1769  # Lambda's CPU share: one vCPU at 1,769 MB, in proportion below
DYNAMODB_WRU_PER_MILLION = 0.625  # on-demand write request units (1 KB each)
DYNAMODB_RRU_PER_MILLION = 0.125  # on-demand read request units (4 KB strongly consistent)
SQS_REQUEST_PER_MILLION = 0.40  # standard queue, per 64 KB chunk
FIREHOSE_PER_GB = 0.029  # Direct PUT ingestion, each record rounded up to 5 KB
S3_PUT_PER_MILLION = 5.00
S3_GET_PER_MILLION = 0.40
SECRETS_MANAGER_CALL_PER_MILLION = 5.00
CLOUDWATCH_LOGS_PER_GB = 0.50  # ingestion (the functions' logs and EMF metrics)
SNS_PUBLISH_PER_MILLION = 0.50  # per 64 KB chunk; a PublishBatch entry is one request
SNS_HTTP_DELIVERY_PER_MILLION = 0.60
EVENTBRIDGE_EVENT_PER_MILLION = 1.00  # PutEvents entries, per 64 KB chunk
EVENTBRIDGE_API_DESTINATION_PER_MILLION = 0.20  # invocations


def lambda_seconds(timing: InvocationTiming, memory_mb: int) -> tuple[float, float]:
    """(upper, lower) bound of the seconds Lambda would bill for an invocation measured locally.

    Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB: below that, the
    CPU time a local core spent (every thread of the worker) takes ``1769 / memory_mb`` times as long
    there (one local core-second taken as one vCPU-second). The rest of the local time was waiting:
    for the webhooks, for the emulator (which serves every AWS call of the whole stack from one
    Python process, each slower than AWS's), for a core on this 2-core machine. The upper bound
    keeps all of that waiting; the lower bound drops the time spent in AWS calls.
    """
    stretch = max(1.0, LAMBDA_MB_PER_VCPU / memory_mb)
    cpu_seconds, wall_seconds = timing.cpu_ms / 1000, timing.duration_ms / 1000
    waiting = max(0.0, wall_seconds - cpu_seconds)
    not_for_aws = max(0.0, waiting - timing.aws_wait_ms / 1000)
    return waiting + cpu_seconds * stretch, not_for_aws + cpu_seconds * stretch


@dataclass(frozen=True)
class FunctionUsage:
    """A function's invocations in one scenario and what Lambda would bill for them."""

    memory_mb: int
    invocations: int
    wall_ms: float  # the invocations' local times, summed
    cpu_ms: float
    aws_wait_ms: float
    max_memory_mb: float  # the workers' peak resident memory: Lambda's "Max Memory Used"
    gb_seconds: float  # upper bound (lambda_seconds)
    gb_seconds_lower: float

    @classmethod
    def of(cls, timings: list[InvocationTiming], memory_mb: int) -> FunctionUsage:
        bounds = [lambda_seconds(timing, memory_mb) for timing in timings]
        memory_gb = memory_mb / 1024
        return cls(
            memory_mb=memory_mb,
            invocations=len(timings),
            wall_ms=sum(t.duration_ms for t in timings),
            cpu_ms=sum(t.cpu_ms for t in timings),
            aws_wait_ms=sum(t.aws_wait_ms for t in timings),
            max_memory_mb=max(t.max_memory_mb for t in timings),
            gb_seconds=sum(upper for upper, _ in bounds) * memory_gb,
            gb_seconds_lower=sum(lower for _, lower in bounds) * memory_gb,
        )


@dataclass(frozen=True)
class Run:
    """What one scenario used."""

    name: str
    api_requests: int
    deliveries: int
    first_try_failures: int
    requests: Counter[tuple[str, str]]
    units: dict[str, float]
    units_by_operation: dict[tuple[str, str], float]
    functions: dict[str, FunctionUsage]  # by logical id, the functions invoked
    emulator_seconds: dict[tuple[str, str], float]  # how long the emulator took to answer, by operation
    log_bytes: int
    seconds: float


@dataclass(frozen=True)
class Line:
    what: str
    quantity: float
    unit: str
    usd: float


def _fails_first(message_id: str, subscription_path: str) -> bool:
    digest = hashlib.sha256(f"{message_id}{subscription_path}".encode()).digest()
    return digest[0] % 100 < FIRST_TRY_FAILURE_PERCENT


class _Endpoints:
    """One receiver for the room's 5 subscriptions (a path each): 500 on the first attempt of one
    (message, subscription) in ten, 200 otherwise."""

    def __init__(self) -> None:
        self.delivered: set[tuple[str, str]] = set()
        self.first_try_failures = 0
        self._lock = threading.Lock()
        self.receiver = WebhookReceiver(self._script)

    def _script(self, number: int, request: RecordedRequest) -> Reply:
        body = request.json if isinstance(request.json, dict) else {}
        message_id = str(body.get("messageId", ""))
        if body.get("attempt") == 0 and _fails_first(message_id, request.path):
            with self._lock:
                self.first_try_failures += 1
            return Reply(500)
        with self._lock:
            self.delivered.add((message_id, request.path))
        return Reply()


@contextmanager
def _stack() -> Iterator[LocalStack]:
    install_meter()
    FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
    FUNCTION_LOG.write_text("", encoding="utf-8")
    stack = LocalStack(
        stack_name="roomcast-bench-cost",
        function_concurrency=FUNCTION_CONCURRENCY,
        max_pollers_per_trigger=POLLERS_PER_QUEUE,
        extra_function_environment={FUNCTION_LOG_VARIABLE: str(FUNCTION_LOG.resolve())},
    )
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def _local_queues() -> dict[str, Any]:
    """The local stack's queues by name, read in-process (not a request the meter counts)."""
    from moto.sqs.models import sqs_backends

    from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID, LOCAL_REGION

    queues: dict[str, Any] = sqs_backends[LOCAL_ACCOUNT_ID][LOCAL_REGION].queues
    return queues


def _queues_empty() -> bool:
    return all(not queue._messages for queue in _local_queues().values())


def _scenario(stack: LocalStack, name: str, batch: int) -> Run:
    stack.reset()
    repository = Repository(stack.output("TableName"), client=stack.client("dynamodb"))
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {create_api_key(repository, 'bench-cost')}"
    endpoints = _Endpoints()
    with endpoints.receiver:
        api = stack.api_url
        room = session.post(f"{api}/rooms", json={"name": "cost", "deliveryDelayMs": 1000}, timeout=60)
        room.raise_for_status()
        room_id = room.json()["id"]
        for number in range(SUBSCRIPTIONS):
            body = {"type": "PUSH", "pushUrl": endpoints.receiver.url(f"/hook/{number}")}
            session.post(f"{api}/rooms/{room_id}/subscriptions", json=body, timeout=60).raise_for_status()
        time.sleep(1)  # the set-up's last invocations and log records settle before counting starts
        METER.reset()
        timings_from = {fid: len(f.timings) for fid, f in stack.functions.items()}
        log_from = FUNCTION_LOG.stat().st_size
        started = time.monotonic()
        api_requests = _publish(stack, session, f"{api}/rooms/{room_id}/messages", batch)
        wanted = MESSAGES * SUBSCRIPTIONS
        deadline = started + SCENARIO_TIMEOUT_SECONDS
        while (len(endpoints.delivered) < wanted or not _queues_empty()) and time.monotonic() < deadline:
            time.sleep(0.5)
        seconds = time.monotonic() - started
        time.sleep(2)  # the last batches' bookkeeping and log writes
    requests_seen, units, units_by_operation = METER.snapshot()
    with METER.lock:
        emulator_seconds = dict(METER.seconds)
    usage = {
        function_id: FunctionUsage.of(function.timings[timings_from[function_id] :], function.spec.memory_mb)
        for function_id, function in stack.functions.items()
        if function.timings[timings_from[function_id] :]
    }
    return Run(
        name=name,
        api_requests=api_requests,
        deliveries=len(endpoints.delivered),
        first_try_failures=endpoints.first_try_failures,
        requests=requests_seen,
        units=units,
        units_by_operation=units_by_operation,
        functions=usage,
        emulator_seconds=emulator_seconds,
        log_bytes=FUNCTION_LOG.stat().st_size - log_from,
        seconds=seconds,
    )


def _push_backlog(stack: LocalStack) -> int:
    """Envelopes on the push queue, visible or in flight."""
    queue = _local_queues().get(stack.output("PushQueueUrl").rsplit("/", 1)[-1])
    return len(queue._messages) if queue is not None else 0


def _publish(stack: LocalStack, session: requests.Session, url: str, batch: int) -> int:
    """MESSAGES messages, one per request or ``batch`` per request; returns the requests made.

    Publishing waits while the push queue holds more than MAX_BACKLOG envelopes: on AWS the push
    function scales out and keeps up, while moto's SQS slows down with every message queued (each
    send scans the whole queue) and the local stack runs few workers."""
    message: dict[str, Any] = {
        "eventType": "order.created",
        "eventVersion": "1",
        "payload": {"orderId": 42, "total": "9.90"},
    }
    made = 0
    for start in range(0, MESSAGES, batch):
        deadline = time.monotonic() + 60
        while _push_backlog(stack) > MAX_BACKLOG and time.monotonic() < deadline:
            time.sleep(0.05)
        if batch == 1:
            response = session.post(url, json=message, timeout=60)
        else:
            count = min(batch, MESSAGES - start)
            response = session.post(f"{url}/batch", json={"messages": [message] * count}, timeout=60)
        made += 1
        if response.status_code >= 300:
            raise RuntimeError(f"publish failed: {response.status_code} {response.text[:300]}")
    return made


def price(run: Run) -> list[Line]:
    """Every billed quantity of the run, priced."""
    by_service: Counter[str] = Counter()
    for (service, _operation), count in run.requests.items():
        by_service[service] += count
    s3_puts = sum(c for (s, op), c in run.requests.items() if s == "s3" and op == "PutObject")
    s3_gets = sum(c for (s, op), c in run.requests.items() if s == "s3" and op != "PutObject")
    lambda_requests = sum(usage.invocations for usage in run.functions.values())
    gb_seconds = sum(usage.gb_seconds for usage in run.functions.values())
    firehose_gb = run.units.get("firehose_billed_bytes", 0.0) / 1024**3
    return [
        Line(
            "API Gateway HTTP API requests",
            run.api_requests,
            "requests",
            run.api_requests * API_GATEWAY_HTTP_PER_MILLION / 1e6,
        ),
        Line(
            "Lambda requests",
            lambda_requests,
            "invocations",
            lambda_requests * LAMBDA_REQUEST_PER_MILLION / 1e6,
        ),
        Line("Lambda duration (upper bound)", gb_seconds, "GB-s", gb_seconds * LAMBDA_ARM64_PER_GB_SECOND),
        Line(
            "DynamoDB writes",
            run.units.get("dynamodb_wru", 0.0),
            "WRU",
            run.units.get("dynamodb_wru", 0.0) * DYNAMODB_WRU_PER_MILLION / 1e6,
        ),
        Line(
            "DynamoDB reads",
            run.units.get("dynamodb_rru", 0.0),
            "RRU",
            run.units.get("dynamodb_rru", 0.0) * DYNAMODB_RRU_PER_MILLION / 1e6,
        ),
        Line(
            "SQS requests",
            run.units.get("sqs_requests", 0.0),
            "64 KB chunks",
            run.units.get("sqs_requests", 0.0) * SQS_REQUEST_PER_MILLION / 1e6,
        ),
        Line("Firehose ingestion", firehose_gb, "GB (5 KB steps)", firehose_gb * FIREHOSE_PER_GB),
        Line("S3 PUT (Firehose's objects)", s3_puts, "requests", s3_puts * S3_PUT_PER_MILLION / 1e6),
        Line("S3 GET/LIST", s3_gets, "requests", s3_gets * S3_GET_PER_MILLION / 1e6),
        Line(
            "Secrets Manager calls",
            by_service["secretsmanager"],
            "calls",
            by_service["secretsmanager"] * SECRETS_MANAGER_CALL_PER_MILLION / 1e6,
        ),
    ]


def competitors(run: Run) -> dict[str, float]:
    """USD per million deliveries of the same scenario on SNS and EventBridge (retries not billed
    by either: the favourable reading for them)."""
    deliveries = max(run.deliveries, 1)
    sns = (MESSAGES * SNS_PUBLISH_PER_MILLION + deliveries * SNS_HTTP_DELIVERY_PER_MILLION) / 1e6
    eventbridge = (
        MESSAGES * EVENTBRIDGE_EVENT_PER_MILLION + deliveries * EVENTBRIDGE_API_DESTINATION_PER_MILLION
    ) / 1e6
    return {
        "SNS HTTP/S (publish + delivery)": sns / deliveries * 1e6,
        "EventBridge (PutEvents + API destinations)": eventbridge / deliveries * 1e6,
    }


def report(run: Run) -> tuple[float, float]:
    """Prints the run's table; returns USD per million deliveries (the target's scope), with Lambda
    duration's upper bound and its lower bound (without the time in AWS calls)."""
    lines = price(run)
    deliveries = max(run.deliveries, 1)
    print(
        f"\n### {run.name}: {run.api_requests} API requests, {run.deliveries} deliveries "
        f"({run.first_try_failures} first attempts failed), {run.seconds:.0f} s\n"
    )
    print(f"{'what':<34} {'quantity':>12} {'unit':<16} {'per delivery':>13} {'USD per 1M deliveries':>22}")
    total = 0.0
    for line in lines:
        per_million = line.usd / deliveries * 1e6
        total += per_million
        print(
            f"{line.what:<34} {line.quantity:>12.2f} {line.unit:<16} "
            f"{line.quantity / deliveries:>13.4f} {per_million:>22.3f}"
        )
    print(f"{'total':<77} {total:>22.3f}")
    compute = sum(usage.gb_seconds_lower for usage in run.functions.values())
    measured = sum(usage.gb_seconds for usage in run.functions.values())
    lower = total - (measured - compute) * LAMBDA_ARM64_PER_GB_SECOND / deliveries * 1e6
    print(
        f"{'total with Lambda duration without the AWS calls time':<77} {lower:>22.3f}  "
        f"({compute:.1f} of {measured:.1f} GB-s: the rest waited for the emulator)"
    )
    logs = run.log_bytes / 1024**3 * CLOUDWATCH_LOGS_PER_GB / deliveries * 1e6
    print(
        f"{'(besides: CloudWatch Logs ingestion':<34} {run.log_bytes / 1024:>12.0f} {'KB of logs':<16} "
        f"{run.log_bytes / deliveries:>13.1f} {logs:>22.3f})"
    )
    for name, usd in competitors(run).items():
        print(f"{name:<77} {usd:>22.3f}")
    print(
        "not priced: DynamoDB Streams reads (free when Lambda reads them), KMS requests (not seen by "
        "the emulator; SQS and DynamoDB cache their data keys), storage, CloudWatch metrics and alarms "
        "(per month, not per request)"
    )
    print("\nrequests the emulator received (DynamoDB with their units; how long it took to answer them):")
    for (service, operation), count in sorted(run.requests.items()):
        used = {
            name: run.units_by_operation.get((name, operation), 0.0)
            for name in ("dynamodb_wru", "dynamodb_rru")
        }
        units = " ".join(f"{v:.1f} {n.removeprefix('dynamodb_').upper()}" for n, v in used.items() if v)
        took = run.emulator_seconds.get((service, operation), 0.0)
        print(f"  {service:<16} {operation:<28} {count:>7} {took:>8.1f} s  {units}")
    print("\nLambda, per invocation (local: time, CPU of the worker, waiting for the emulator):")
    for function_id, usage in sorted(run.functions.items()):
        count = max(usage.invocations, 1)
        print(
            f"  {function_id:<18} {usage.memory_mb:>5} MB {usage.invocations:>5} invocations  "
            f"{usage.wall_ms / count:>7.1f} ms, CPU {usage.cpu_ms / count:>6.1f} ms, "
            f"AWS calls {usage.aws_wait_ms / count:>6.1f} ms, max memory used {usage.max_memory_mb:.0f} MB "
            f"-> {usage.gb_seconds:.1f} GB-s (without AWS calls {usage.gb_seconds_lower:.1f})"
        )
    return total, lower


def run() -> dict[str, bool]:
    print(
        f"\n## Cost per million deliveries: {MESSAGES} messages x {SUBSCRIPTIONS} PUSH subscriptions, "
        f"{FIRST_TRY_FAILURE_PERCENT}% of first attempts failing\n"
    )
    print(f"prices: {PRICES_AS_OF}; counted from the requests the emulator received")
    with _stack() as stack:
        one_by_one, one_by_one_lower = report(_scenario(stack, "published one by one", 1))
        batched, batched_lower = report(_scenario(stack, f"published in batches of {BATCH}", BATCH))
    print(
        f"\nbatched: {batched:.3f} USD per million deliveries (target <= {TARGET_USD_PER_MILLION}; "
        f"{batched_lower:.3f} without the AWS calls' time); one by one: {one_by_one:.3f} "
        f"({one_by_one_lower:.3f})"
    )
    return {
        f"cost, batched 5-subscription scenario <= {TARGET_USD_PER_MILLION} USD per 1M deliveries": batched
        <= TARGET_USD_PER_MILLION
    }


if __name__ == "__main__":
    os.environ.setdefault("POWERTOOLS_DEV", "false")
    run()
