"""Compaction of 1,000,000 delivery-log records in 5,000 raw files (gzip NDJSON, as the functions
write them) by the Glue job's code on local PySpark, next to the same compaction done by DuckDB
on the same files — read, drop malformed lines, de-duplicate on recordId, partition by day, sort,
write Parquet — as the reference ratio.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.harness import FUNCTION_LOG

RECORDS = 1_000_000
FILES = 5_000
DUPLICATE_RATE = 0.01
MALFORMED_RATE = 0.001
DAY = "2026-11-21"
GLUE_JOBS_DIR = Path(__file__).resolve().parents[1] / "glue_jobs"
EVENTS = ["published", "attempt", "delivered", "attempt", "retry_scheduled", "attempt", "delivered"]


def generate(root: Path, seed: int = 7) -> int:
    """Write FILES gzip NDJSON files under root/raw/dt=DAY/hour=HH/; returns the lines written."""
    chance = random.Random(seed)
    start = datetime.fromisoformat(f"{DAY}T00:00:00+00:00")
    per_file = RECORDS // FILES
    rooms = [f"room_{n:032x}" for n in range(20)]
    subscriptions = [f"sub_{n:032x}" for n in range(200)]
    lines_written = 0
    previous: list[str] = []
    for index in range(FILES):
        moment = start + timedelta(seconds=index * 86_400 / FILES)
        folder = root / "raw" / f"dt={DAY}" / f"hour={moment:%H}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for _ in range(per_file):
            if previous and chance.random() < DUPLICATE_RATE:
                lines.append(chance.choice(previous))  # the same record written twice
                continue
            if chance.random() < MALFORMED_RATE:
                lines.append('{"schemaVersion": 1, "recordId": "broken"')
                continue
            stamp = moment + timedelta(milliseconds=chance.randrange(0, 17_000))
            record = {
                "schemaVersion": 1,
                "recordId": uuid.UUID(int=chance.getrandbits(128)).hex,
                "timestamp": stamp.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "event": chance.choice(EVENTS),
                "messageId": f"msg_{chance.getrandbits(128):032x}",
                "correlationId": "c",
                "tenantId": "bench",
                "roomId": chance.choice(rooms),
                "subscriptionId": chance.choice(subscriptions),
                "subscriptionType": "PUSH",
                "attempt": chance.randrange(0, 4),
                "httpStatus": 200,
                "latencyMs": chance.randrange(5, 500),
                "error": None,
                "nextDelayMs": None,
                "publishedAt": stamp.astimezone(UTC)
                .isoformat(timespec="milliseconds")
                .replace("+00:00", "Z"),
            }
            line = json.dumps(record, separators=(",", ":"))
            lines.append(line)
        previous = lines[-50:]
        (folder / f"{index:05d}-bench.ndjson.gz").write_bytes(
            gzip.compress(("\n".join(lines) + "\n").encode())
        )
        lines_written += len(lines)
    return lines_written


def duckdb_compaction(source: Path, target: Path) -> int:
    """The reference: the same compaction in DuckDB. Returns the records written."""
    import duckdb

    glob = str(source / "raw" / f"dt={DAY}" / "*" / "*.ndjson.gz")
    connection = duckdb.connect()
    connection.execute("SET threads TO 2")
    connection.execute(
        f"""
        CREATE TABLE compacted AS
        SELECT *, strftime(ts, '%Y-%m-%d') AS dt
        FROM (
            SELECT *, CAST(strptime("timestamp", '%Y-%m-%dT%H:%M:%S.%gZ') AS TIMESTAMP) AS ts
            FROM read_json('{glob}', format = 'newline_delimited', ignore_errors = true,
                           columns = {{schemaVersion: 'INTEGER', recordId: 'VARCHAR', "timestamp": 'VARCHAR',
                                       event: 'VARCHAR', messageId: 'VARCHAR', correlationId: 'VARCHAR',
                                       tenantId: 'VARCHAR', roomId: 'VARCHAR', subscriptionId: 'VARCHAR',
                                       subscriptionType: 'VARCHAR', attempt: 'INTEGER', httpStatus: 'INTEGER',
                                       latencyMs: 'BIGINT', error: 'VARCHAR', nextDelayMs: 'BIGINT',
                                       publishedAt: 'VARCHAR'}})
            WHERE recordId IS NOT NULL AND "timestamp" IS NOT NULL AND event IS NOT NULL
              AND messageId IS NOT NULL AND schemaVersion = 1
            QUALIFY row_number() OVER (PARTITION BY recordId ORDER BY "timestamp") = 1
        )
        """  # noqa: S608 - a local bench path, not input
    )
    written = connection.execute("SELECT count(*) FROM compacted").fetchone()
    order = "ORDER BY roomId, subscriptionId, ts, messageId, recordId"
    copy = f"COPY (SELECT * FROM compacted {order}) TO '{target}' (FORMAT parquet, PARTITION_BY (dt))"  # noqa: S608
    connection.execute(copy)
    return int(written[0]) if written else 0


def run() -> None:
    sys.path.insert(0, str(GLUE_JOBS_DIR))
    from compact_job import run_compaction
    from roomcast_dev.glue_local import local_spark

    with tempfile.TemporaryDirectory(prefix="roomcast-bench-compaction-") as work:
        root = Path(work)
        started = time.perf_counter()
        lines = generate(root / "in")
        generated_s = time.perf_counter() - started
        spark = local_spark(jvm_log=FUNCTION_LOG.with_name("spark.log"))
        try:
            run_compaction(
                spark, str(root / "warmup-in"), str(root / "warmup-out"), DAY
            )  # JVM warm-up, empty input
            started = time.perf_counter()
            summary = run_compaction(spark, str(root / "in"), str(root / "spark-out"), DAY)
            spark_s = time.perf_counter() - started
        finally:
            spark.stop()
        started = time.perf_counter()
        duck_records = duckdb_compaction(root / "in", root / "duck-out")
        duck_s = time.perf_counter() - started
        spark_files = len(list((root / "spark-out").rglob("*.parquet")))
        duck_files = len(list((root / "duck-out").rglob("*.parquet")))
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n## Compaction: {lines:,} lines in {FILES:,} gzip NDJSON files (made in {generated_s:.0f} s)\n")
    print(f"{'engine':<28} {'seconds':>8} {'records/s':>11} {'records out':>12} {'files out':>10}")
    rows = [
        ("roomcast job (PySpark 4.1)", spark_s, int(summary.get("records", 0)), spark_files),
        ("DuckDB (reference)", duck_s, duck_records, duck_files),
    ]
    for name, seconds, records, files in rows:
        print(f"{name:<28} {seconds:>8.1f} {lines / seconds:>11,.0f} {records:>12,} {files:>10}")
    print(f"ratio: the job takes {spark_s / duck_s:.1f}x DuckDB's time on this machine (local[2], 2 cores)")
    print(f"summary: {summary}")
