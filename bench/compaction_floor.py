"""The floor of the compaction on Spark: the same day compacted in the fewest steps Spark offers,
beside the job in bench/compaction.py. It bounds what any job on this engine could reach here.

- Spark's own JSON reader with the job's v1 schema (Jackson, in the JVM: Spark's fastest parse;
  the job's variant parse also tells why a line is rejected);
- lines missing a required field or of another schema version dropped, no rejected-lines output,
  no counts;
- no persist: each line is read and parsed once, by the one pass that writes;
- then the job's own layout (``compact``: one shuffle on (dt, tenantId, roomId), de-duplication
  within it, the files' sort), into two tasks (both cores), written as Parquet by dt;
- read tasks of 16 MB of gzip, as the job sizes them (Spark's default of 128 MB would parse a
  1 M-line day in one task).
"""

from __future__ import annotations

from functools import reduce
from pathlib import Path
from typing import Any

READ_PARTITION_BYTES = 16 * 1024 * 1024
TASKS = 2  # local[2]


def floor_compaction(spark: Any, source: Path, target: Path, day: str) -> None:
    """Compact ``day``'s raw files under ``source`` into ``target``/compacted/dt=…/ (what
    bench.compaction_duckdb.differing_records compares)."""
    from pyspark.sql import functions as sf

    from roomcast_glue.schema import RECORD_V1, REQUIRED_FIELDS, SCHEMA_VERSION
    from roomcast_glue.transforms import compact

    spark.conf.set("spark.sql.files.maxPartitionBytes", str(READ_PARTITION_BYTES))
    lines = spark.read.schema(RECORD_V1).json(str(source / "raw" / f"dt={day}" / "*" / "*.ndjson.gz"))
    present = [sf.col(name).isNotNull() for name in REQUIRED_FIELDS]
    records = lines.where(reduce(lambda a, b: a & b, present) & (sf.col("schemaVersion") == SCHEMA_VERSION))
    laid_out = compact(records, TASKS, dt=day)
    laid_out.write.mode("overwrite").partitionBy("dt").parquet(str(target / "compacted"))
