"""Delivery-log lines and raw files for the Glue tests: lines by the functions' own writer
(roomcast.log.records, a gzip member per record as roomcast.log.delivery_log sends them),
files named and written as the template's Firehose stream delivers them
(the local stack's stand-in, roomcast_dev.firehose_objects), so the jobs are tested against what is really
written."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession

from roomcast.catalog.model import SubscriptionType
from roomcast.log.delivery_log import gzip_member
from roomcast.log.records import LogEvent, LogRecord
from roomcast_dev.firehose_objects import object_body, object_key
from roomcast_dev.template import load_template

_DESTINATION = load_template()["Resources"]["DeliveryLogStream"]["Properties"][
    "ExtendedS3DestinationConfiguration"
]
DAY = "2026-11-22"
NEXT_DAY = "2026-11-23"
PUBLISHED_AT = "2026-11-22T10:00:00.000Z"


def log_line(
    event: str,
    record_id: str,
    timestamp: str,
    *,
    message_id: str = "msg-1",
    subscription_id: str | None = "sub-a",
    subscription_type: str | None = "PUSH",
    room_id: str = "room-1",
    tenant_id: str = "tenant-1",
    **fields: Any,
) -> str:
    """One NDJSON line as the functions write it (``fields``: attempt, http_status, published_at, ...)."""
    return LogRecord(
        event=LogEvent(event),
        message_id=message_id,
        correlation_id=f"corr-{message_id}",
        tenant_id=tenant_id,
        room_id=room_id,
        subscription_id=subscription_id,
        subscription_type=SubscriptionType(subscription_type) if subscription_type else None,
        timestamp=timestamp,
        record_id=record_id,
        **fields,
    ).to_json()


def write_raw(
    root: Path, flushed_at: datetime, lines: Sequence[str], function: str = "push", invocation: str = "inv-1"
) -> Path:
    """One raw object as Firehose delivers it: gzip NDJSON under raw/dt=…/hour=…/ (the hour of
    ``flushed_at``, its oldest record's arrival); ``function``-``invocation`` stands for Firehose's
    random uuid in the name."""
    path = root / object_key(
        _DESTINATION, "roomcast-DeliveryLogStream", "1", flushed_at, f"{function}-{invocation}"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    record = gzip_member(("\n".join(lines) + "\n").encode("utf-8"))  # as the functions send it
    path.write_bytes(object_body(_DESTINATION, [record]))
    return path


def lines_frame(spark: SparkSession, lines: Sequence[str], source_file: str = "raw/a.ndjson.gz") -> DataFrame:
    return spark.createDataFrame([(line, source_file) for line in lines], "value string, source_file string")


def sorted_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in the order of their values, column by column (the first column first)."""
    return sorted(rows, key=lambda row: [repr(value) for value in row.values()])


def as_dicts(frame: DataFrame, *columns: str) -> list[dict[str, Any]]:
    """The rows (of ``columns``, default all) as dicts, sorted, for exact comparison."""
    selected = frame.select(*columns) if columns else frame
    rows: list[Row] = selected.collect()
    return sorted_rows(row.asDict(recursive=True) for row in rows)


def data_files(directory: Path) -> list[Path]:
    """The files Spark wrote under ``directory`` (not its _SUCCESS and .crc companions)."""
    if not directory.exists():
        return []
    return sorted(p for p in directory.rglob("*") if p.is_file() and not p.name.startswith((".", "_")))
