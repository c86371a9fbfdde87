"""The floor of the compaction on Spark: the same day compacted in the fewest steps Spark offers,
beside the job in bench/compaction.py. It bounds what any job on this engine could reach here.

- Spark's own JSON reader with the v1 schema (Jackson, in the JVM: Spark's fastest parse; the
  job's variant parse also tells why a line is rejected);
- lines missing a required field or of another schema version dropped, no rejected-lines output,
  no counts;
- no persist: each line is read and parsed once, by the one pass that writes;
- one shuffle into two tasks (both cores) on (dt, tenantId, roomId), de-duplication within it
  (the job's rule: a record's copies are one line written twice), the files' sort, Parquet by dt;
- read tasks of 16 MB of gzip, as the job sizes them (Spark's default of 128 MB would parse a
  1 M-line day in one task).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

READ_PARTITION_BYTES = 16 * 1024 * 1024
TASKS = 2  # local[2]
V1_TYPES = (
    *(("schemaVersion", "int"), ("recordId", "string"), ("timestamp", "string"), ("event", "string")),
    *(("messageId", "string"), ("correlationId", "string"), ("tenantId", "string"), ("roomId", "string")),
    *(("subscriptionId", "string"), ("subscriptionType", "string"), ("attempt", "int")),
    *(("httpStatus", "int"), ("latencyMs", "bigint"), ("error", "string"), ("nextDelayMs", "bigint")),
    ("publishedAt", "string"),
)
SORTED_BY = ("roomId", "subscriptionId", "ts", "messageId", "recordId")


def floor_compaction(spark: Any, source: Path, target: Path, day: str) -> None:
    """Compact ``day``'s raw files under ``source`` into ``target``/compacted/dt=…/ (what
    bench.compaction_duckdb.differing_records compares)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as f

    spark.conf.set("spark.sql.files.maxPartitionBytes", str(READ_PARTITION_BYTES))
    schema = ", ".join(f"`{name}` {kind}" for name, kind in V1_TYPES)
    lines = spark.read.schema(schema).json(str(source / "raw" / f"dt={day}" / "*" / "*.ndjson.gz"))
    required = " AND ".join(f"{name} IS NOT NULL" for name in ("recordId", "timestamp", "event", "messageId"))
    records = (
        lines.where(f"{required} AND schemaVersion = 1")
        .withColumn("ts", f.to_timestamp("timestamp"))
        .withColumn("dt", f.date_format("ts", "yyyy-MM-dd"))
        .where(f.col("dt") == day)
    )
    copies = Window.partitionBy("dt", *SORTED_BY, "tenantId").orderBy("timestamp")
    (
        records.repartition(TASKS, "dt", "tenantId", "roomId")
        .withColumn("copy", f.row_number().over(copies))
        .where("copy = 1")
        .drop("copy")
        .sortWithinPartitions(*SORTED_BY)
        .write.mode("overwrite")
        .partitionBy("dt")
        .parquet(str(target / "compacted"))
    )
