"""Run Lambda functions locally, each invocation in a warm worker process of its own function.

Like Lambda, a worker ("execution environment") handles one invocation at a time, keeps its
module globals between invocations, gets exactly the function's environment from the template,
and is killed when an invocation runs past the function's timeout.

A worker can die (``kill_worker`` SIGKILLs one, as the soak test does; or the OS, or a segfault).
As on Lambda, the invocation it was running fails (``FunctionError`` "Crashed": the SQS poller
leaves the batch on the queue, the gateway answers 500) and the next invocation gets a fresh
worker (a cold start); an idle worker found dead is replaced without failing anyone.

This module is the pool, in the stack's process; what runs inside a worker is ``function_worker``.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from roomcast_dev.function_worker import InvocationContext, worker_main
from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID
from roomcast_dev.template import FunctionSpec

# `make run`'s terminal (logging is set up there) and pytest's log capture.
_log = logging.getLogger(__name__)

_SPAWN = multiprocessing.get_context("spawn")


@dataclass(eq=False, repr=False)  # an exception's own identity and repr
class FunctionError(Exception):
    """The handler raised, timed out or its process died; ``kind`` tells which."""

    kind: str
    message: str
    trace: str = ""

    def __post_init__(self) -> None:
        super().__init__(f"{self.kind}: {self.message}")


@dataclass(frozen=True)
class InvocationTiming:
    """One invocation as the caller saw it: its time (handler + hand-over to the worker; a
    worker's first invocation includes its cold start), how much of it the handler waited for
    AWS calls (here: the emulator, overlapping calls counted once), and the CPU time its worker
    process used meanwhile (every thread of it); and the worker's peak resident memory so far
    (what Lambda reports as "Max Memory Used")."""

    duration_ms: float
    aws_wait_ms: float
    cpu_ms: float
    max_memory_mb: float = 0.0


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
        self.warm = False  # its first invocation also imports the function (its init)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def is_alive(self) -> bool:
        # The sentinel is ready once the process has exited, even before it is reaped.
        return not multiprocessing.connection.wait([self.process.sentinel], timeout=0)

    def wait_for_exit(self, timeout_seconds: float) -> bool:
        return bool(multiprocessing.connection.wait([self.process.sentinel], timeout=timeout_seconds))

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
        self.crashes = 0  # invocations that failed because their worker died
        # Every invocation that ran to an answer (successful or not: both are billed).
        self.timings: list[InvocationTiming] = []

    def _take(self) -> _Worker:
        with self._lock:
            if self._closed:
                raise FunctionError("Stopped", f"{self.spec.logical_id} is stopped")
            while self._idle:
                worker = self._idle.pop()
                if worker.is_alive():
                    return worker
                # Died between invocations: Lambda would not hand it an event; neither do we.
                self._all.remove(worker)
                worker.stop()
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
        """Run one invocation; raise FunctionError when the handler fails, times out or crashes.
        The answer comes back as soon as the handler returns; a function with an extension keeps
        its worker (and its concurrency slot) until the extension is done (``_after_answer``)."""
        self._slots.acquire()
        try:
            worker, context, started, reply, init_seconds = self._run(event)
        except BaseException:
            self._slots.release()
            raise
        *answer, aws_wait_seconds, cpu_seconds, peak_kb, costs_follow = reply
        if costs_follow:
            threading.Thread(
                target=self._after_answer,
                args=(worker, context, started, init_seconds),
                name="after-answer",
                daemon=True,
            ).start()
        else:
            self._record(started, aws_wait_seconds, cpu_seconds, peak_kb)
            self._give_back(worker)
            self._slots.release()
        if answer[0] == "ok":
            return answer[1]
        raise FunctionError(answer[1], answer[2], answer[3])

    def _run(self, event: Any) -> tuple[_Worker, InvocationContext, float, tuple[Any, ...], int]:
        """The worker, the invocation, when it started, the worker's reply, and the time its init
        was allowed beside the timeout (a cold start's)."""
        worker = self._take()
        timeout_seconds = self.spec.timeout_seconds
        context = InvocationContext(
            function_name=self.spec.name,
            memory_limit_in_mb=self.spec.memory_mb,
            invoked_function_arn=f"arn:aws:lambda:local:{LOCAL_ACCOUNT_ID}:function:{self.spec.name}",
            aws_request_id=str(uuid.uuid4()),
            deadline_epoch_ms=int(time.time() * 1000) + timeout_seconds * 1000,
        )
        started = time.perf_counter()
        try:
            worker.connection.send((event, context))
            # The first call also pays the import (cold start): Lambda's timeout does not count
            # its init, which may take up to 10 s.
            init_seconds = 0 if worker.warm else 10
            if not worker.connection.poll(timeout_seconds + init_seconds):
                self._timed_out(worker, context)
            reply = worker.connection.recv()
            worker.warm = True
        except (EOFError, OSError) as error:  # BrokenPipeError and ConnectionResetError are OSErrors
            raise self._crashed(worker, context, error) from error
        return worker, context, started, reply, init_seconds

    def _after_answer(
        self, worker: _Worker, context: InvocationContext, started: float, init_seconds: int
    ) -> None:
        """Wait for the worker's extension to finish the invocation, then free the worker; past
        the invocation's deadline the worker is killed (Lambda's timeout ends the environment)."""
        try:
            remaining_seconds = max(0.0, context.deadline_epoch_ms / 1000 + init_seconds - time.time())
            if not worker.connection.poll(remaining_seconds):
                self._timed_out(worker, context)
            aws_wait_seconds, cpu_seconds, peak_kb = worker.connection.recv()
        except FunctionError:
            self._slots.release()
            return
        except (EOFError, OSError) as error:
            if self._closed:  # the stack stopped it
                self._discard(worker)
            else:
                self._crashed(worker, context, error)
            self._slots.release()
            return
        self._record(started, aws_wait_seconds, cpu_seconds, peak_kb)
        self._give_back(worker)
        self._slots.release()

    def _record(self, started: float, aws_wait_seconds: float, cpu_seconds: float, peak_kb: int) -> None:
        duration_ms = (time.perf_counter() - started) * 1000
        self.timings.append(
            InvocationTiming(duration_ms, aws_wait_seconds * 1000, cpu_seconds * 1000, peak_kb / 1024)
        )

    def _timed_out(self, worker: _Worker, context: InvocationContext) -> None:
        self._discard(worker)
        timeout_seconds = self.spec.timeout_seconds
        # What Lambda writes to the function's log when it stops a run at its timeout.
        _log.warning(
            "%s %s Task timed out after %d.00 seconds",
            self.spec.logical_id,
            context.aws_request_id,
            timeout_seconds,
        )
        raise FunctionError("Timeout", f"Task timed out after {timeout_seconds} seconds")

    def _crashed(self, worker: _Worker, context: InvocationContext, error: BaseException) -> FunctionError:
        self._discard(worker)
        with self._lock:
            self.crashes += 1
        exit_code = worker.process.exitcode
        _log.warning(
            "%s %s worker died (exit code %s)", self.spec.logical_id, context.aws_request_id, exit_code
        )
        return FunctionError(
            "Crashed", f"{self.spec.logical_id} worker died (exit code {exit_code}): {error!r}"
        )

    def kill_worker(self, rng: random.Random | None = None, busy_only: bool = True) -> int | None:
        """SIGKILL one worker (a busy one by default, chosen at random) and wait until it is gone;
        its pid, or None when there was none to kill.

        What a crashed execution environment looks like to Lambda: the invocation fails and the
        next one starts a fresh worker.
        """
        with self._lock:
            idle = set(map(id, self._idle))
            candidates = [w for w in self._all if w.pid is not None and (not busy_only or id(w) not in idle)]
            if not candidates:
                return None
            victim = (rng or random.Random()).choice(candidates)  # noqa: S311 - not a secret
            assert victim.pid is not None
            try:
                os.kill(victim.pid, signal.SIGKILL)
            except ProcessLookupError:
                return None
        victim.wait_for_exit(timeout_seconds=5)
        return victim.pid

    def stop(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._all, self._idle = list(self._all), [], []
        for worker in workers:
            worker.stop()
