"""The cost model's standard scenario, run on the local stack with moto metered from inside
(bench/meter.py): MESSAGES messages published to a room of SUBSCRIPTIONS PUSH subscriptions, one
first attempt in ten failing (retried after 1 s), until every delivery is made and every queue is
empty. ``run_scenario`` returns what the run used (a ``Run``), for ``cost_model.price``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests

from bench.cost_model import FunctionUsage, Run, WriteKind
from bench.harness import FUNCTION_LOG
from bench.meter import METER, install_meter
from roomcast.catalog.store import CatalogTable
from roomcast_dev.function_worker import FUNCTION_LOG_VARIABLE
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LOCAL_PARAMETERS, LocalStack
from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver

MESSAGES = 1_000
SUBSCRIPTIONS = 5
FIRST_TRY_FAILURE_PERCENT = 10
SCENARIO_TIMEOUT_SECONDS = 600
# The metrics' window as deployed (template.yaml's default), not the local stack's 2 s: their
# writes are per window, so the cost is measured with the window AWS runs.
METRICS_WINDOW_SECONDS = 30
MAX_BACKLOG = 100  # envelopes on the push queue before publishing waits (see _publish)

# One invocation of each function at a time, one poller per queue: Lambda duration is priced from
# each invocation's measured time, and the emulator serves the whole stack's AWS calls from one
# Python process on this 2-core machine, so invocations side by side wait for each other's calls
# and for a core, which on AWS they do not (docs/decisions/0025-lambda-duration.md: 4 at a time
# measured 1.5 times the GB-s for the same requests).
FUNCTION_CONCURRENCY = 1
POLLERS_PER_QUEUE = 1


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
def metered_stack(
    parameters: dict[str, str] | None = None, stack_name: str = "roomcast-bench-cost"
) -> Iterator[LocalStack]:
    """The local stack metered, with the template's ``parameters`` (beside the local ones); another
    stack in the same process needs a name of its own (the emulator keeps the first one's tables)."""
    install_meter()
    FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
    FUNCTION_LOG.write_text("", encoding="utf-8")
    stack = LocalStack(
        parameters={
            **LOCAL_PARAMETERS,
            "MetricsWindowSeconds": str(METRICS_WINDOW_SECONDS),
            **(parameters or {}),
        },
        stack_name=stack_name,
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


def run_scenario(stack: LocalStack, name: str, batch: int) -> Run:
    stack.reset()
    repository = CatalogTable(stack.output("TableName"), client=stack.client("dynamodb"))
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
        # The last batches' bookkeeping and log writes, and the metrics' last window closing.
        time.sleep(METRICS_WINDOW_SECONDS + 5)
    requests_seen, units, units_by_operation = METER.snapshot()
    with METER.lock:
        emulator_seconds = dict(METER.seconds)
        writes_by_kind = {
            kind: WriteKind(count, METER.kind_wru[kind], METER.kind_bytes[kind])
            for kind, count in METER.kind_writes.items()
        }
        reads_by_partition = dict(METER.partition_rru)
    usage = {
        function_id: FunctionUsage.of(function.timings[timings_from[function_id] :], function.spec.memory_mb)
        for function_id, function in stack.functions.items()
        if function.timings[timings_from[function_id] :]
    }
    return Run(
        name=name,
        messages=MESSAGES,
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
        writes_by_kind=writes_by_kind,
        reads_by_partition=reads_by_partition,
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
