"""The delivery log's port: where services put its records (a DeliveryLog, or a list in tests)."""

from __future__ import annotations

from typing import Protocol

from roomcast.log.records import LogRecord


class LogSink(Protocol):
    def add(self, record: LogRecord) -> None: ...
