"""The delivery log's port: where services put its records (a DeliveryLog, or a list in tests)."""

from __future__ import annotations

from typing import Protocol

from roomcast.log.records import LogRecord


class LogSink(Protocol):
    def add(self, record: LogRecord) -> None: ...

    def flush(self, invocation_id: str | None = None) -> int:
        """Write what was added so far (the function's handler flushes what is left at its end)."""
        ...
