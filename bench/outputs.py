"""Where a bench's output goes: what the functions print (their log lines and EMF metrics, which go
to CloudWatch Logs on AWS) to FUNCTION_LOG, what the bench prints to the console."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from roomcast.platform.observability import SERVICE_NAME

FUNCTION_LOG = Path(".local/bench/functions.log")
Handler = Callable[[dict[str, Any], Any], Any]


def _function_log() -> TextIO:
    global _log
    if _log is None:
        FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
        _log = FUNCTION_LOG.open("w", encoding="utf-8")
    return _log


_log: TextIO | None = None


class _Outputs:
    """sys.stdout or sys.stderr while a bench runs: what the functions print goes to FUNCTION_LOG,
    what the bench prints to the console. The main thread writes to the log inside an invocation
    and to the console outside; every other thread (a function's pool, a bench's poller) to the
    log. Per thread, because contextlib.redirect_stdout swaps one process-wide stream: two
    threads invoking functions at once left it pointing at the log."""

    def __init__(self, console: TextIO) -> None:
        self.console = console
        self.invoking = 0  # the main thread's invocations in progress

    def _target(self) -> TextIO:
        if self.invoking or threading.current_thread() is not threading.main_thread():
            return _function_log()
        return self.console

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno…: the console's
        return getattr(self.console, name)


def _outputs() -> tuple[_Outputs, _Outputs]:
    if not isinstance(sys.stdout, _Outputs):
        sys.stdout = _Outputs(sys.stdout)
        # The functions' logger writes to the log whoever calls it (a bench may drive a service
        # outside an invocation): its stream was taken when it was made, on whatever thread.
        for log_handler in logging.getLogger(SERVICE_NAME).handlers:
            if isinstance(log_handler, logging.StreamHandler):
                log_handler.setStream(_function_log())
    if not isinstance(sys.stderr, _Outputs):
        sys.stderr = _Outputs(sys.stderr)
    return sys.stdout, sys.stderr


def logging_to_file(handler: Handler) -> Handler:
    """``handler`` with its stdout and stderr (logs, EMF metrics, warnings) going to FUNCTION_LOG,
    as a Lambda function's go to CloudWatch Logs."""

    def invoke(event: dict[str, Any], context: Any) -> Any:
        outputs = _outputs()
        on_main = threading.current_thread() is threading.main_thread()
        for output in outputs:
            output.invoking += on_main
        try:
            return handler(event, context)
        finally:
            for output in outputs:
                output.invoking -= on_main

    return invoke
