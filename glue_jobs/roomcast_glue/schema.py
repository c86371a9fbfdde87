"""The delivery log's record schema, version 1, and the shapes the jobs write (docs/delivery-log.md).

v1 only ever gains fields (add-only): a reader with this schema drops fields it does not know,
and a record written before a field existed reads it as null. A breaking change is a v2 with its
own StructType here; the parser routes each line by its ``schemaVersion``.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

SCHEMA_VERSION: Final = 1

# What layers/shared/roomcast/log/records.py writes, field for field, in its order.
RECORD_V1: Final = StructType(
    [
        StructField("schemaVersion", IntegerType()),
        StructField("recordId", StringType()),
        StructField("timestamp", StringType()),  # ISO-8601 UTC with milliseconds, "…Z"
        StructField("event", StringType()),
        StructField("messageId", StringType()),
        StructField("correlationId", StringType()),
        StructField("tenantId", StringType()),
        StructField("roomId", StringType()),
        StructField("subscriptionId", StringType()),
        StructField("subscriptionType", StringType()),  # "PUSH" | "PULL" | null
        StructField("attempt", IntegerType()),
        StructField("httpStatus", IntegerType()),
        StructField("latencyMs", LongType()),
        StructField("error", StringType()),
        StructField("nextDelayMs", LongType()),
        StructField("publishedAt", StringType()),
    ]
)

# A line without these is rejected: nothing can be de-duplicated, placed or counted without them.
REQUIRED_FIELDS: Final = ("recordId", "timestamp", "event", "messageId")

# Every ``event`` a record may carry: the Glue side's one list (transforms.is_event checks each
# name the jobs count against it). It must name exactly the events the functions write, listed in
# layers/shared/roomcast/log/records.py (LogEvent); the jobs ship to Glue without the layer,
# hence two lists, which tests/glue/test_schema.py keeps equal.
EVENTS: Final = (
    "published",
    "attempt",
    "hop",
    "delivered",
    "retry_scheduled",
    "dead",
    "expired",
    "failover",
    "replayed",
    "held",
    "slow_lane",
    "extended",
    "cleared",
    "retry_now",
    "aborted",
    "filtered",
)

# Columns the transforms add: the record's own time, and where it is filed.
PARTITION_FIELDS: Final = (
    StructField("ts", TimestampType()),  # ``timestamp`` parsed (an instant)
    StructField("dt", StringType()),  # yyyy-MM-dd of ``ts`` in UTC: the partition
    StructField("hour", StringType()),  # HH of ``ts`` in UTC, zero-padded like raw/…/hour=HH/
)

# The Glue tables' partition key: compacted/dt=…/ and analytics/daily/dt=…/ are directories.
TABLE_PARTITION_KEY: Final = PARTITION_FIELDS[1]

# A compacted Parquet file's columns (``dt`` is the directory, compacted/dt=…/, not a column).
COMPACTED: Final = StructType([*RECORD_V1.fields, PARTITION_FIELDS[0], PARTITION_FIELDS[2]])

# A rejected line: the raw text, the file it came from and why it was refused.
REJECTED: Final = StructType(
    [
        StructField("value", StringType()),
        StructField("source_file", StringType()),
        StructField("reason", StringType()),
    ]
)

# One row of analytics/daily/dt=…/ (plus ``dt`` while in memory; the directory once written).
DAILY_ANALYTICS: Final = StructType(
    [
        StructField("dt", StringType()),
        StructField("tenantId", StringType()),
        StructField("roomId", StringType()),
        StructField("subscriptionId", StringType()),
        StructField("published", LongType()),
        StructField("delivered", LongType()),
        StructField("first_try_success_rate", DoubleType()),
        StructField("retries", LongType()),
        StructField("dead", LongType()),
        StructField("expired", LongType()),
        StructField("failovers", LongType()),
        StructField("latency_p50_ms", DoubleType()),
        StructField("latency_p95_ms", DoubleType()),
        StructField("latency_p99_ms", DoubleType()),
        StructField("attempts_histogram", MapType(IntegerType(), LongType())),
    ]
)
