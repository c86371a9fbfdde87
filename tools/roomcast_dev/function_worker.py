"""Inside a local function's worker process: the function's environment, its handler imported once
and kept warm, one invocation at a time, as a Lambda execution environment runs it.

The pool that starts these processes and hands them invocations is ``functions``. Each reply
carries what the invocation cost: how long it waited for AWS (the emulator), its CPU time and the
process's peak memory.

Each worker serves Lambda's Extensions API on loopback (``lambda_extensions``; its address in
``AWS_LAMBDA_RUNTIME_API``). When the function registered an extension at its import, the answer
goes to the pool as soon as the handler returns, and the worker then waits for the extension to ask
for its next event before it sends the invocation's costs, as Lambda answers the caller first and
keeps the environment until its extensions are done.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from roomcast_dev.lambda_extensions import LocalExtensionsApi
from roomcast_dev.template import FunctionSpec

# In the extra environment: a file the workers write their output to (not passed to the function).
FUNCTION_LOG_VARIABLE = "ROOMCAST_LOCAL_FUNCTION_LOG"


@dataclass(frozen=True)
class InvocationContext:
    function_name: str
    memory_limit_in_mb: int
    invoked_function_arn: str
    aws_request_id: str
    deadline_epoch_ms: int


class _Context:
    """The subset of Lambda's context object handlers and powertools use."""

    def __init__(self, data: InvocationContext) -> None:
        self.function_name = data.function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = data.memory_limit_in_mb
        self.invoked_function_arn = data.invoked_function_arn
        self.aws_request_id = data.aws_request_id
        self.log_group_name = f"/aws/lambda/{data.function_name}"
        self.log_stream_name = "local"
        self._deadline_epoch_ms = data.deadline_epoch_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self._deadline_epoch_ms - int(time.time() * 1000))


def worker_main(connection: Connection, spec: FunctionSpec, extra_environment: dict[str, str]) -> None:
    """Entry point of a worker process: set the function's environment, import it, serve invocations."""
    import importlib
    import sys
    import traceback

    log_file = extra_environment.get(FUNCTION_LOG_VARIABLE)
    if log_file:  # what the function prints goes there, as a Lambda function's goes to CloudWatch Logs
        descriptor = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(descriptor, 1)
        os.dup2(descriptor, 2)
        os.close(descriptor)
    os.environ.clear()
    os.environ.update({k: v for k, v in extra_environment.items() if k != FUNCTION_LOG_VARIABLE})
    os.environ.update(spec.environment)
    os.environ["AWS_LAMBDA_FUNCTION_NAME"] = spec.name
    os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(spec.memory_mb)
    extensions = LocalExtensionsApi(spec.name)
    os.environ["AWS_LAMBDA_RUNTIME_API"] = extensions.address
    for path in reversed([str(spec.code_path), *(str(p) for p in spec.layer_paths)]):
        sys.path.insert(0, path)
    waits = _AwsWaits.installed()
    module_name, _, attribute = spec.handler.rpartition(".")
    try:
        handler = getattr(importlib.import_module(module_name), attribute)
    except Exception as error:  # reported on every invocation, like Lambda's Runtime.ImportModuleError
        import_error = f"{type(error).__name__}: {error}"
        import_trace = traceback.format_exc()
        handler = None
    # Lambda's init ends once every extension registered during it asked for its first event.
    extensions.wait_until_ready(10)
    with_extensions = bool(extensions.registered)
    while True:
        try:
            request = connection.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if handler is None:
            connection.send(
                ("error", "Runtime.ImportModuleError", import_error, import_trace, 0.0, 0.0, 0, False)
            )
            continue
        event, context_data = request
        waits.reset()
        cpu_started = time.process_time()
        if with_extensions:
            extensions.begin_invocation(
                context_data.aws_request_id, context_data.deadline_epoch_ms, context_data.invoked_function_arn
            )
        try:
            result = handler(event, _Context(context_data))
            reply: tuple[Any, ...] = ("ok", result)
        except Exception as error:
            reply = ("error", type(error).__name__, str(error), traceback.format_exc())
        # Every thread of the worker counts: the handler's own and those it started. The peak
        # resident memory is the process's so far, as Lambda's "Max Memory Used" is the sandbox's.
        cpu_seconds = time.process_time() - cpu_started
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # The last field: whether the costs follow once the extensions are done (the pool keeps the
        # worker busy until then; past the deadline it kills it, as Lambda's timeout would).
        connection.send((*reply, waits.seconds(), cpu_seconds, peak_kb, with_extensions))
        if with_extensions:
            extensions.wait_until_done(None)
            cpu_seconds = time.process_time() - cpu_started
            peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            connection.send((waits.seconds(), cpu_seconds, peak_kb))


class _AwsWaits:
    """How long the current invocation waited for AWS (the emulator): every botocore call's
    interval, overlapping calls counted once."""

    def __init__(self) -> None:
        self._intervals: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    @classmethod
    def installed(cls) -> _AwsWaits:
        waits = cls()
        try:
            from botocore.client import BaseClient
        except ImportError:  # a function without boto3 waits for nothing
            return waits
        original = getattr(BaseClient, "_make_api_call")  # noqa: B009 - private, untyped in the stubs

        def timed(client: Any, operation_name: str, api_params: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(client, operation_name, api_params)
            finally:
                with waits._lock:
                    waits._intervals.append((started, time.perf_counter()))

        setattr(BaseClient, "_make_api_call", timed)  # noqa: B010
        return waits

    def reset(self) -> None:
        with self._lock:
            self._intervals.clear()

    def seconds(self) -> float:
        with self._lock:
            return covered_seconds(self._intervals)


def covered_seconds(intervals: list[tuple[float, float]]) -> float:
    """How long at least one of the (start, end) intervals was open; overlaps counted once."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total
