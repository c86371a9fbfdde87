"""The delivery log's port: where services put its records (a DeliveryLog, or a list in tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from roomcast.log.records import LogRecord


class LogSink(Protocol):
    def add(self, record: LogRecord) -> None: ...

    def flush(self, invocation_id: str | None = None, beside: Callable[[], object] | None = None) -> int:
        """Write what was added so far (the function's handler flushes what is left at its end);
        ``beside``: a call made while the write is in flight, done when this returns."""
        ...
