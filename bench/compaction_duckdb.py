"""The reference engine of bench/compaction.py: the same compaction as the Glue job, done by DuckDB
on the same files (read, drop malformed lines, de-duplicate on recordId, keep the day, sort, write
Parquet partitioned by dt), and the count of records on which the two outputs differ. It reads
the v1 format with its own column list (V1_FIELDS, and read_json's columns), not the job's schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

V1_FIELDS = (
    *("schemaVersion", "recordId", "timestamp", "event", "messageId", "correlationId", "tenantId"),
    *("roomId", "subscriptionId", "subscriptionType", "attempt", "httpStatus", "latencyMs", "error"),
    *("nextDelayMs", "publishedAt"),
)


def duckdb_compaction(source: Path, target: Path, lines: int, day: str) -> dict[str, int]:
    """The reference: the same compaction of ``day``'s raw files in DuckDB. Returns its counts,
    named as the job's summary."""
    import duckdb

    glob = str(source / "raw" / f"dt={day}" / "*" / "*.ndjson.gz")
    connection = duckdb.connect()
    connection.execute("SET threads TO 2")
    connection.execute(
        f"""
        CREATE TABLE parsed AS
        SELECT *, CAST(strptime("timestamp", '%Y-%m-%dT%H:%M:%S.%gZ') AS TIMESTAMP) AS ts
        FROM read_json('{glob}', format = 'newline_delimited', ignore_errors = true,
                       hive_partitioning = false,  -- dt is the record's day, not its folder's
                       columns = {{schemaVersion: 'INTEGER', recordId: 'VARCHAR', "timestamp": 'VARCHAR',
                                   event: 'VARCHAR', messageId: 'VARCHAR', correlationId: 'VARCHAR',
                                   tenantId: 'VARCHAR', roomId: 'VARCHAR', subscriptionId: 'VARCHAR',
                                   subscriptionType: 'VARCHAR', attempt: 'INTEGER', httpStatus: 'INTEGER',
                                   latencyMs: 'BIGINT', error: 'VARCHAR', nextDelayMs: 'BIGINT',
                                   publishedAt: 'VARCHAR'}})
        WHERE recordId IS NOT NULL AND "timestamp" IS NOT NULL AND event IS NOT NULL
          AND messageId IS NOT NULL AND schemaVersion = 1
        """  # noqa: S608 - a local bench path, not input
    )
    connection.execute(
        f"""
        CREATE TABLE compacted AS
        SELECT * FROM (
            SELECT *, strftime(ts, '%Y-%m-%d') AS dt FROM parsed
            QUALIFY row_number() OVER (PARTITION BY recordId ORDER BY "timestamp") = 1
        )
        WHERE dt = '{day}'  -- as the job: a record of another day is that day's run's
        """  # noqa: S608 - a constant
    )
    valid = _count(connection, f"SELECT count(*) FROM parsed WHERE strftime(ts, '%Y-%m-%d') = '{day}'")  # noqa: S608
    written = _count(connection, "SELECT count(*) FROM compacted")
    order = "ORDER BY roomId, subscriptionId, ts, messageId, recordId"
    copy = f"COPY (SELECT * FROM compacted {order}) TO '{target}' (FORMAT parquet, PARTITION_BY (dt))"  # noqa: S608
    connection.execute(copy)
    parsed = _count(connection, "SELECT count(*) FROM parsed")
    return {"records": written, "duplicates_dropped": valid - written, "rejected": lines - parsed}


def _count(connection: Any, query: str) -> int:
    found = connection.execute(query).fetchone()
    return int(found[0]) if found else 0


def differing_records(spark_out: Path, duck_out: Path) -> int:
    """Records (every v1 field) in one engine's output and not in the other's, both ways."""
    import duckdb

    fields = ", ".join(f'"{name}"' for name in V1_FIELDS)
    spark_glob, duck_glob = spark_out / "compacted" / "*" / "*.parquet", duck_out / "*" / "*.parquet"
    query = f"""
        SELECT count(*) FROM (
            (SELECT {fields} FROM '{spark_glob}' EXCEPT ALL SELECT {fields} FROM '{duck_glob}')
            UNION ALL
            (SELECT {fields} FROM '{duck_glob}' EXCEPT ALL SELECT {fields} FROM '{spark_glob}')
        )
    """  # noqa: S608 - local bench paths
    return _count(duckdb.connect(), query)
