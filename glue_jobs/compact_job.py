"""Glue job: compact a day of the raw delivery log into de-duplicated Parquet (docs/delivery-log.md).

Under Glue (``awsglue`` importable) the arguments come from the job run; anywhere else:

    python glue_jobs/compact_job.py --source DIR --target DIR --date 2026-11-22
        [--hour 09] [--files_per_partition N]

Reads ``{source}/raw/dt=D/`` plus the last hour of D-1 and the first hour of D+1 (records are
filed by their own timestamp, and a file flushed just after midnight holds records of the day
before), keeps the records of day D and replaces ``{target}/compacted/dt=D/`` (dynamic partition
overwrite: no other day is touched) and ``{target}/rejected/dt=D/``. ``--hour H`` does the same
for one hour into ``{target}/hourly/compacted/dt=D/hour=H/`` (the day partition is written only
by a whole-day run): a day too big for one run's time limit runs as 24 hourly runs. Read tasks,
shuffle partitions and the number of Parquet files follow the input's size (roomcast_glue.sizing);
``--files_per_partition`` sets the files. Prints a JSON summary line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import reduce
from typing import Any, Final

from pyspark import StorageLevel
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, Observation, Row, SparkSession, functions as sf

from roomcast_glue.runtime import ON_GLUE, resolve_date, spark_session
from roomcast_glue.sizing import WorkSize, work_size
from roomcast_glue.transforms import classify_lines, compact, records_of, rejected_of, with_partitions

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
        "--files_per_partition", help="Parquet files per partition, at most (default: one per ~1 GiB of text)"
    )
    return {name: value for name, value in vars(parser.parse_args(argv[1:])).items() if value is not None}


@dataclass(frozen=True)
class RawInput:
    """What a run reads: the lines (``value``, ``source_file``, ``own``) and the files they are in."""

    lines: DataFrame
    own_files: int = 0
    neighbour_files: int = 0
    own_bytes: int = 0
    neighbour_bytes: int = 0


def read_lines(spark: SparkSession, own: list[str], neighbours: list[str]) -> RawInput:
    """The text lines of every file under the directories that exist, with ``source_file`` and
    ``own`` (the file is under ``own``, not a neighbour's), and the files' counts and bytes. Each
    directory is one ``spark.read`` that lists it recursively (every file name: the functions' and
    Firehose's); the bytes are that listing's (no second one)."""
    frames = []
    for paths, is_own in ((own, True), (neighbours, False)):
        for path in paths:
            try:
                frame = spark.read.option("recursiveFileLookup", "true").text(path)
            except AnalysisException as error:
                if error.getCondition() != "PATH_NOT_FOUND":
                    raise
                continue
            frames.append((frame, is_own))
    if not frames:
        return RawInput(spark.createDataFrame([], "value string, source_file string, own boolean"))
    lines = [
        frame.select("value", sf.col("_metadata.file_path").alias("source_file"), sf.lit(is_own).alias("own"))
        for frame, is_own in frames
    ]
    files = {True: 0, False: 0}  # own or a neighbour's
    sizes = {True: 0, False: 0}
    for frame, is_own in frames:
        files[is_own] += len(frame.inputFiles())
        # The relation's size statistic: the sum of the listed files' lengths.
        sizes[is_own] += int(frame._jdf.queryExecution().analyzed().stats().sizeInBytes())
    return RawInput(
        reduce(DataFrame.unionByName, lines), files[True], files[False], sizes[True], sizes[False]
    )


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
    files_per_partition: int | None = None,
) -> dict[str, Any]:
    """Compact day ``date`` (or one ``hour`` of it) from ``{source}/raw/`` into ``target``; the summary."""
    own_paths, neighbour_paths = raw_paths(source, date, hour)
    raw = read_lines(spark, own_paths, neighbour_paths)
    size = work_size(raw.own_bytes + raw.neighbour_bytes, raw.own_bytes, files_per_partition)
    sized = {
        "spark.sql.files.maxPartitionBytes": str(size.read_partition_bytes),
        "spark.sql.shuffle.partitions": str(size.shuffle_partitions),
    }
    with session_settings(spark, sized):
        return _compact(spark, raw, size, target, date, hour)


@contextmanager
def session_settings(spark: SparkSession, settings: dict[str, str]) -> Iterator[None]:
    """The session's ``settings`` set meanwhile (as they were afterwards)."""
    before = {name: spark.conf.get(name, None) for name in settings}
    for name, value in settings.items():
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, earlier in before.items():
            if earlier is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, earlier)


def _compact(
    spark: SparkSession, raw: RawInput, size: WorkSize, target: str, date: str, hour: str | None
) -> dict[str, Any]:
    # Each line is read and parsed once: the counts, the compacted and the rejected output are all
    # computed from this persisted frame.
    classified = with_partitions(classify_lines(raw.lines))
    # A record's raw line is not needed any more (only a rejected line is written as it was read).
    classified = classified.withColumn("value", sf.when(sf.col("reason").isNotNull(), sf.col("value")))
    # On disk, not in memory: a day's classified lines outgrow any heap (a 1 GB local heap failed
    # at 4 M lines with MEMORY_AND_DISK, while filling its in-memory batches); written once, read
    # once more, each line parsed once (docs/decisions/0022-compaction-speed.md).
    classified = classified.persist(StorageLevel.DISK_ONLY)
    in_window = sf.col("dt") == date
    if hour is not None:
        in_window &= sf.col("hour") == hour
    is_record = ~sf.col("blank") & sf.col("reason").isNull()
    counts = (
        sf.count(sf.lit(1)).alias("lines_read"),
        sf.count(sf.when(is_record & in_window, 1)).alias("in_window"),
        sf.count(sf.when(is_record & sf.col("own") & ~in_window, 1)).alias("for_other_days"),
        sf.count(sf.when(sf.col("own") & sf.col("reason").isNotNull(), 1)).alias("rejected"),
    )
    target = target.rstrip("/")
    if hour is None:
        compacted_path, rejected_path = f"{target}/compacted", f"{target}/rejected/dt={date}"
        written_path = f"{compacted_path}/dt={date}"
    else:
        compacted_path = written_path = f"{target}/hourly/compacted/dt={date}/hour={hour}"
        rejected_path = f"{target}/hourly/rejected/dt={date}/hour={hour}"
    if raw.own_files:
        # The first pass reads and parses every line into the persisted frame, writes the rejected
        # lines and counts them all as they go by (observe): no pass of its own for the counts.
        # Their own day's run reports the neighbour hours' rejected lines.
        lines = Observation("lines")
        rejected = rejected_of(classified.observe(lines, *counts).filter(sf.col("own")))
        # One file, sorted: gathered by a shuffle of the few rejected lines, not a range sort's sampling.
        one_file = rejected.repartition(1).sortWithinPartitions("source_file", "value")
        # Without adaptive execution: with no rejected line it would drop the stage that counted
        # (an empty shuffle), and the counts with it.
        with session_settings(spark, {"spark.sql.adaptive.enabled": "false"}):
            one_file.write.mode("overwrite").json(rejected_path)
        tally = lines.get
    else:
        tally = (
            classified.agg(*counts).first() or Row(lines_read=0, in_window=0, for_other_days=0, rejected=0)
        ).asDict()
    records_in_window = int(tally["in_window"])
    written = 0
    if records_in_window:  # none: keep what an earlier run wrote (raw files expire before compacted ones)
        compacted = compact(records_of(classified), size.output_files, dt=date, hour=hour)
        observed = Observation("compacted")
        compacted = compacted.observe(observed, sf.count(sf.lit(1)).alias("rows"))
        if hour is None:
            compacted.write.mode("overwrite").option("partitionOverwriteMode", "dynamic").partitionBy(
                "dt"
            ).parquet(compacted_path)
        else:
            compacted.drop("dt").write.mode("overwrite").parquet(compacted_path)
        written = int(observed.get["rows"])  # counted as they were written, not read back
    summary = {
        "job": "compaction",
        "date": date,
        "hour": hour,
        "files_read": raw.own_files + raw.neighbour_files,
        "lines_read": int(tally["lines_read"]),
        "records": written,
        "duplicates_dropped": records_in_window - written,
        "rejected": int(tally["rejected"]),
        "records_for_other_days": int(tally["for_other_days"]),
        "partitions_written": [written_path[len(target) + 1 :]] if written else [],
    }
    classified.unpersist()
    return summary


def main(argv: list[str] | None = None) -> int:
    options = arguments(sys.argv if argv is None else ["compact_job.py", *argv])
    summary = run_compaction(
        spark_session("roomcast-compaction"),
        options["source"],
        options["target"],
        resolve_date(options["date"]),
        hour=f"{int(options['hour']):02d}" if "hour" in options else None,
        files_per_partition=int(options["files_per_partition"]) if "files_per_partition" in options else None,
    )
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
