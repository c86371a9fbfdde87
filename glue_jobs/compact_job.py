"""Glue job: compact a day of the raw delivery log into de-duplicated Parquet (docs/delivery-log.md).

Under Glue (``awsglue`` importable) the arguments come from the job run; anywhere else:

    python glue_jobs/compact_job.py --source DIR --target DIR --date 2026-11-22
        [--hour 09] [--files_per_partition 2]

Reads ``{source}/raw/dt=D/`` plus the last hour of D-1 and the first hour of D+1 (records are
filed by their own timestamp, and a file flushed just after midnight holds records of the day
before), keeps the records of day D and replaces ``{target}/compacted/dt=D/`` (dynamic partition
overwrite: no other day is touched) and ``{target}/rejected/dt=D/``. ``--hour H`` does the same
for one hour into ``{target}/hourly/compacted/dt=D/hour=H/`` (the day partition is written only
by a whole-day run). Prints a JSON summary line.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta
from functools import reduce
from typing import Any, Final

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf

from roomcast_glue.runtime import ON_GLUE, resolve_date, spark_session
from roomcast_glue.transforms import compact, parse_lines, with_partitions

FILES_PER_PARTITION: Final = 2
ONE_HOUR: Final = timedelta(hours=1)
ONE_DAY: Final = timedelta(days=1)


def arguments(argv: list[str]) -> dict[str, str]:
    """--source, --target, --date (YYYY-MM-DD, ``today`` or ``yesterday``), [--hour HH],
    [--files_per_partition N] (underscores: Glue's argument names)."""
    if ON_GLUE:
        from awsglue.utils import getResolvedOptions  # type: ignore[import-not-found]

        optional = [name for name in ("hour", "files_per_partition") if f"--{name}" in argv]
        return dict(getResolvedOptions(argv, ["source", "target", "date", *optional]))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for name in ("source", "target", "date"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--hour", help="HH: compact one hour into hourly/")
    parser.add_argument(
        "--files_per_partition", help=f"Parquet files per partition, at most (default {FILES_PER_PARTITION})"
    )
    return {name: value for name, value in vars(parser.parse_args(argv[1:])).items() if value is not None}


def read_lines(spark: SparkSession, paths: list[str]) -> tuple[DataFrame, int]:
    """The text lines of every file under ``paths`` that exist, with ``source_file``; and the file count."""
    frames = []
    for path in paths:
        try:
            frames.append(spark.read.option("recursiveFileLookup", "true").text(path))
        except AnalysisException as error:
            if error.getCondition() != "PATH_NOT_FOUND":
                raise
    if not frames:
        return spark.createDataFrame([], "value string, source_file string"), 0
    lines = [frame.select("value", sf.col("_metadata.file_path").alias("source_file")) for frame in frames]
    return reduce(DataFrame.unionByName, lines), sum(len(frame.inputFiles()) for frame in frames)


def raw_paths(source: str, date: str, hour: str | None) -> tuple[list[str], list[str]]:
    """(own, neighbours): the raw directories of the day (hour), and the hours either side of it."""
    raw = f"{source.rstrip('/')}/raw"

    def hour_directory(moment: datetime) -> str:
        return f"{raw}/dt={moment:%Y-%m-%d}/hour={moment:%H}/"

    start = datetime.fromisoformat(f"{date}T{hour or '00'}:00")
    if hour is None:
        return [f"{raw}/dt={date}/"], [hour_directory(start - ONE_HOUR), hour_directory(start + ONE_DAY)]
    return [hour_directory(start)], [hour_directory(start - ONE_HOUR), hour_directory(start + ONE_HOUR)]


def run_compaction(
    spark: SparkSession,
    source: str,
    target: str,
    date: str,
    hour: str | None = None,
    files_per_partition: int = FILES_PER_PARTITION,
) -> dict[str, Any]:
    """Compact day ``date`` (or one ``hour`` of it) from ``{source}/raw/`` into ``target``; the summary."""
    own_paths, neighbour_paths = raw_paths(source, date, hour)
    own_lines, own_files = read_lines(spark, own_paths)
    neighbour_lines, neighbour_files = read_lines(spark, neighbour_paths)
    own_lines, neighbour_lines = own_lines.cache(), neighbour_lines.cache()
    own_records, rejected = parse_lines(own_lines)
    neighbour_records, _ = parse_lines(neighbour_lines)  # their own day's run reports their rejects
    own_records, neighbour_records = own_records.cache(), neighbour_records.cache()
    records = own_records.unionByName(neighbour_records)

    in_window = sf.col("dt") == date
    if hour is not None:
        in_window &= sf.col("hour") == hour
    tally = (
        with_partitions(own_records.withColumn("_own", sf.lit(True)))
        .unionByName(with_partitions(neighbour_records.withColumn("_own", sf.lit(False))))
        .agg(
            sf.count(sf.when(in_window, 1)).alias("in_window"),
            sf.count(sf.when(sf.col("_own") & ~in_window, 1)).alias("for_other_days"),
        )
        .first()
    )
    records_in_window, records_for_other_days = (tally[0], tally[1]) if tally else (0, 0)
    compacted = compact(records, files_per_partition, dt=date, hour=hour)
    target = target.rstrip("/")
    if hour is None:
        compacted_path, rejected_path = f"{target}/compacted", f"{target}/rejected/dt={date}"
        written_path = f"{compacted_path}/dt={date}"
    else:
        compacted_path = written_path = f"{target}/hourly/compacted/dt={date}/hour={hour}"
        rejected_path = f"{target}/hourly/rejected/dt={date}/hour={hour}"
    written = 0
    if records_in_window:  # none: keep what an earlier run wrote (raw files expire before compacted ones)
        if hour is None:
            compacted.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy(
                "dt"
            ).parquet(compacted_path)
        else:
            compacted.drop("dt").write.mode("overwrite").parquet(compacted_path)
        written = spark.read.parquet(written_path).count()
    rejected_count = 0
    if own_files:
        rejected = rejected.orderBy("source_file", "value").coalesce(1).cache()
        rejected_count = rejected.count()
        rejected.write.mode("overwrite").json(rejected_path)
        rejected.unpersist()
    summary = {
        "job": "compaction",
        "date": date,
        "hour": hour,
        "files_read": own_files + neighbour_files,
        "lines_read": own_lines.count() + neighbour_lines.count(),
        "records": written,
        "duplicates_dropped": records_in_window - written,
        "rejected": rejected_count,
        "records_for_other_days": records_for_other_days,
        "partitions_written": [written_path[len(target) + 1 :]] if written else [],
    }
    for cached in (own_lines, neighbour_lines, own_records, neighbour_records):
        cached.unpersist()
    return summary


def main(argv: list[str] | None = None) -> int:
    options = arguments(sys.argv if argv is None else ["compact_job.py", *argv])
    summary = run_compaction(
        spark_session("roomcast-compaction"),
        options["source"],
        options["target"],
        resolve_date(options["date"]),
        hour=f"{int(options['hour']):02d}" if "hour" in options else None,
        files_per_partition=int(options.get("files_per_partition", FILES_PER_PARTITION)),
    )
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
