"""Run Lambda functions locally, each invocation in a warm worker process of its own function.

Like Lambda, a worker ("execution environment") handles one invocation at a time, keeps its
module globals between invocations, gets exactly the function's environment from the template,
and is killed when an invocation runs past the function's timeout.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import uuid
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from roomcast_dev.template import LOCAL_ACCOUNT_ID, FunctionSpec

_SPAWN = multiprocessing.get_context("spawn")


class FunctionError(Exception):
    """The handler raised, timed out or its process died; ``kind`` tells which."""

    def __init__(self, kind: str, message: str, trace: str = "") -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.trace = trace


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

    os.environ.clear()
    os.environ.update(extra_environment)
    os.environ.update(spec.environment)
    os.environ["AWS_LAMBDA_FUNCTION_NAME"] = spec.name
    os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(spec.memory_mb)
    for path in reversed([str(spec.code_path), *(str(p) for p in spec.layer_paths)]):
        sys.path.insert(0, path)
    module_name, _, attribute = spec.handler.rpartition(".")
    try:
        handler = getattr(importlib.import_module(module_name), attribute)
    except Exception as error:  # reported on every invocation, like Lambda's Runtime.ImportModuleError
        import_error = f"{type(error).__name__}: {error}"
        import_trace = traceback.format_exc()
        handler = None
    while True:
        try:
            request = connection.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if handler is None:
            connection.send(("error", "Runtime.ImportModuleError", import_error, import_trace))
            continue
        event, context_data = request
        try:
            result = handler(event, _Context(context_data))
            connection.send(("ok", result))
        except Exception as error:
            connection.send(("error", type(error).__name__, str(error), traceback.format_exc()))


class _Worker:
    def __init__(self, spec: FunctionSpec, extra_environment: dict[str, str]) -> None:
        parent, child = _SPAWN.Pipe()
        self.connection = parent
        self.process = _SPAWN.Process(
            target=worker_main,
            args=(child, spec, extra_environment),
            name=f"lambda-{spec.logical_id}",
            daemon=True,
        )
        self.process.start()
        child.close()

    def stop(self) -> None:
        try:
            self.connection.close()
        finally:
            self.process.terminate()
            self.process.join(timeout=5)
            if self.process.is_alive():
                self.process.kill()


class LocalFunction:
    """A pool of warm workers for one function, at most ``max_concurrency`` busy at once."""

    def __init__(
        self, spec: FunctionSpec, extra_environment: dict[str, str], max_concurrency: int = 4
    ) -> None:
        self.spec = spec
        self._extra_environment = extra_environment
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._closed = False

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise FunctionError("Stopped", f"{self.spec.logical_id} is stopped")
            if self._idle:
                return self._idle.pop()
            worker = _Worker(self.spec, self._extra_environment)
            self._all.append(worker)
            return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if self._closed:
                worker.stop()
            else:
                self._idle.append(worker)

    def _discard(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    def invoke(self, event: Any) -> Any:
        """Run one invocation; raise FunctionError when the handler fails, times out or crashes."""
        with self._slots:
            worker = self._take()
            timeout_seconds = self.spec.timeout_seconds
            context = InvocationContext(
                function_name=self.spec.name,
                memory_limit_in_mb=self.spec.memory_mb,
                invoked_function_arn=f"arn:aws:lambda:local:{LOCAL_ACCOUNT_ID}:function:{self.spec.name}",
                aws_request_id=str(uuid.uuid4()),
                deadline_epoch_ms=int(time.time() * 1000) + timeout_seconds * 1000,
            )
            try:
                worker.connection.send((event, context))
                # The first call also pays the import (cold start), which Lambda's timeout does not count.
                if not worker.connection.poll(timeout_seconds + 10):
                    self._discard(worker)
                    raise FunctionError("Timeout", f"Task timed out after {timeout_seconds} seconds")
                reply = worker.connection.recv()
            except (EOFError, OSError, BrokenPipeError) as error:
                self._discard(worker)
                raise FunctionError("Crashed", f"{self.spec.logical_id} worker died: {error}") from error
            self._give_back(worker)
        if reply[0] == "ok":
            return reply[1]
        raise FunctionError(reply[1], reply[2], reply[3])

    def stop(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._all, self._idle = list(self._all), [], []
        for worker in workers:
            worker.stop()
