"""A bench stack: moto in server mode with the template's resources, handlers called in-process
with their template environment, and a counter of every AWS API call boto3 makes."""

from __future__ import annotations

import importlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench.outputs import FUNCTION_LOG as FUNCTION_LOG, logging_to_file
from roomcast_dev.function_worker import covered_seconds
from roomcast_dev.local_aws import LOCAL_REGION, aws_environment, queue_url_for
from roomcast_dev.provisioning import provision_resources
from roomcast_dev.stack import LOCAL_PARAMETERS
from roomcast_dev.template import StackModel, read_stack
from tests.support import api_event, clear_cached_factories

Handler = Callable[[dict[str, Any], Any], Any]
BENCH_STACK = "roomcast-bench"
# What the functions print (their log lines and EMF metrics, CloudWatch Logs' share on AWS) goes
# here, so that `make bench` prints only its tables.


class AwsCallCounter:
    """Counts botocore API calls (by operation) made by this process, and when each was in flight."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.intervals: list[tuple[float, float]] = []  # perf_counter() start and end of each call
        self.operations: list[str] = []  # the operation of each interval
        self.requests: list[tuple[Any, dict[str, Any]]] = []  # each call's client and parameters

    @classmethod
    def installed(cls) -> AwsCallCounter:
        """A counter already counting."""
        counter = cls()
        counter.install()
        return counter

    def install(self) -> None:
        from botocore.client import BaseClient

        original = getattr(BaseClient, "_make_api_call")  # noqa: B009 - private, untyped in the stubs
        counter = self

        def counting(client: Any, operation_name: str, api_params: Any) -> Any:
            counter.calls[operation_name] += 1
            started = time.perf_counter()
            try:
                return original(client, operation_name, api_params)
            finally:
                counter.intervals.append((started, time.perf_counter()))
                counter.operations.append(operation_name)
                counter.requests.append((client, api_params))

        setattr(BaseClient, "_make_api_call", counting)  # noqa: B010

    def total(self) -> int:
        return sum(self.calls.values())

    def reset(self) -> None:
        self.calls.clear()
        self.intervals.clear()
        self.operations.clear()
        self.requests.clear()

    def in_flight_seconds(self, *operations: str) -> float:
        """How long at least one call (of ``operations``, or any) was in flight, overlapping calls
        counted once: the time a caller spent waiting for the emulator."""
        return covered_seconds(
            [
                interval
                for interval, operation in zip(self.intervals, self.operations, strict=True)
                if not operations or operation in operations
            ]
        )

    def waits_in_sequence(self) -> list[Counter[str]]:
        """The calls grouped into the waits a caller made one after another: a call that started
        while another was in flight waited with it (the ten writes of an ack sent at once are one
        wait); each group's operations with their counts, in the order they happened."""
        return waits_in_sequence(list(zip(self.intervals, self.operations, strict=True)))

    def waits_split_at(self, moment: float) -> tuple[list[Counter[str]], list[Counter[str]]]:
        """``waits_in_sequence`` of the calls started before ``moment`` (a perf_counter() time),
        and of those started from it on."""
        calls = list(zip(self.intervals, self.operations, strict=True))
        return (
            waits_in_sequence([call for call in calls if call[0][0] < moment]),
            waits_in_sequence([call for call in calls if call[0][0] >= moment]),
        )


def waits_in_sequence(calls: list[tuple[tuple[float, float], str]]) -> list[Counter[str]]:
    """((start, end), operation) calls → their groups of overlapping calls, in time order."""
    groups: list[Counter[str]] = []
    reach = float("-inf")
    for (start, end), operation in sorted(calls):
        if start >= reach:
            groups.append(Counter())
        groups[-1][operation] += 1
        reach = max(reach, end)
    return groups


def describe_waits(groups: list[Counter[str]]) -> str:
    """``GetItem x2 -> ReceiveMessage -> PutRecordBatch``: one wait's calls joined by ``+``."""
    return " -> ".join(
        " + ".join(f"{op} x{n}" if n > 1 else op for op, n in sorted(group.items())) for group in groups
    )


class FakeContext:
    function_name = "bench"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"
    aws_request_id = "bench"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


# moto's server as the local stack runs it (roomcast_dev.emulator: SQS sends and receives that do
# not scan the queue, PartiQL INSERT batches as DynamoDB runs them, moto's modules listed once), and
# with "atomic" as the first argument DynamoDB's atomicity: without it, racing transactions break
# moto itself (500s), and each copies the whole table.
_BENCH_MOTO = (
    "import sys; from roomcast_dev.emulator import patch_moto; "
    "patch_moto(atomic_dynamodb=sys.argv.pop(1) == 'atomic'); "
    "from moto.server import main; main(sys.argv[1:])"
)


@contextmanager
def bench_stack(*, atomic_dynamodb: bool = False) -> Iterator[tuple[StackModel, str]]:
    """moto in server mode in a process of its own, with the local stack's SQS patches: like AWS,
    the emulator's work does not compete with the function for this process's interpreter lock.
    ``atomic_dynamodb``: one DynamoDB request at a time, as in the local stack (a bench that runs
    transactions in parallel needs it)."""
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _BENCH_MOTO,
            "atomic" if atomic_dynamodb else "plain",
            "-H",
            "127.0.0.1",
            "-p",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(endpoint)
        model = read_stack(
            BENCH_STACK, LOCAL_REGION, LOCAL_PARAMETERS, lambda name: queue_url_for(endpoint, name)
        )
        provision_resources(model, endpoint)
        saved = dict(os.environ)
        os.environ.update(aws_environment(endpoint))
        os.environ["POWERTOOLS_TRACE_DISABLED"] = "true"
        try:
            yield model, endpoint
        finally:
            os.environ.clear()
            os.environ.update(saved)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:  # it may wait for our idle keep-alive connections
            server.kill()
            server.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_up(endpoint: str) -> None:
    from urllib.request import urlopen

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urlopen(f"{endpoint}/moto-api/", timeout=1):  # noqa: S310 - local
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("moto server did not start")


def load_handler(model: StackModel, function_id: str) -> Handler:
    """A function's handler, imported with the function's template environment."""
    from roomcast.platform.config import load_settings

    spec = model.functions[function_id]
    for path in (str(spec.code_path), *(str(p) for p in spec.layer_paths)):
        if path not in sys.path:
            sys.path.insert(0, path)
    os.environ.update(spec.environment)
    load_settings.cache_clear()
    from roomcast.platform.aws import reset_clients

    reset_clients()  # an earlier bench may have pointed them at another emulator
    module_name, _, attribute = spec.handler.rpartition(".")
    module = importlib.import_module(module_name)
    clear_cached_factories(module)
    return logging_to_file(getattr(module, attribute))


def load_handlers(model: StackModel, *function_ids: str) -> tuple[Handler, ...]:
    """Several functions' handlers, in the order asked."""
    return tuple(load_handler(model, function_id) for function_id in function_ids)


def call(handler: Handler, event: dict[str, Any]) -> Any:
    response = handler(event, FakeContext())
    if response["statusCode"] >= 300:
        raise RuntimeError(f"bench call failed: {response}")
    return json.loads(response["body"])


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def reset(model: StackModel, endpoint: str) -> None:
    """Empty the emulator and create the template's resources again."""
    from urllib.request import Request, urlopen

    with urlopen(Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=30):  # noqa: S310 - local
        pass
    provision_resources(model, endpoint)


def room_with(manage: Handler, subscription_type: str, count: int) -> str:
    """A room with ``count`` subscriptions of ``subscription_type``, made through the management
    handler (PUSH ones to an address never called); its id."""
    room = call(manage, api_event("POST", "/rooms", {"name": f"{subscription_type} x{count}"}))
    for _ in range(count):
        body = {"type": subscription_type}
        if subscription_type == "PUSH":
            body["pushUrl"] = "https://93.184.216.34/hook"
        call(manage, api_event("POST", f"/rooms/{room['id']}/subscriptions", body))
    return str(room["id"])
