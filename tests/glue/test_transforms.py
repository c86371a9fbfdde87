"""deduplicate, with_partitions and compact: one row per record, filed by its own time, laid out."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pyspark.sql import SparkSession

from roomcast_glue.schema import COMPACTED
from roomcast_glue.transforms import compact, deduplicate, parse_lines, with_partitions
from tests.glue.logfiles import DAY, NEXT_DAY, PUBLISHED_AT, as_dicts, data_files, lines_frame, log_line


def test_a_record_written_twice_is_kept_once(spark: SparkSession) -> None:
    # Given a record that appears twice (a retried S3 write) next to another record
    twice = log_line("delivered", "rec-1", "2026-11-22T10:00:00.100Z", attempt=0)
    lines = [twice, log_line("published", "rec-2", PUBLISHED_AT), twice]
    records, _ = parse_lines(lines_frame(spark, lines))

    # When the records are de-duplicated
    deduplicated = deduplicate(records)

    # Then each recordId is there once
    assert as_dicts(deduplicated, "recordId", "event") == [
        {"recordId": "rec-1", "event": "delivered"},
        {"recordId": "rec-2", "event": "published"},
    ]


def test_the_copy_kept_is_the_same_whatever_order_the_copies_come_in(spark: SparkSession) -> None:
    # Given the same record in two files, read in either order
    line = log_line("published", "rec-1", PUBLISHED_AT)
    rows = [(line, "raw/b.ndjson.gz"), (line, "raw/a.ndjson.gz")]
    kept = []
    for ordered in (rows, rows[::-1]):
        records, _ = parse_lines(spark.createDataFrame(ordered, "value string, source_file string"))

        # When they are de-duplicated
        kept.append(as_dicts(deduplicate(records)))

    # Then the same copy is kept both times: the smallest (timestamp, source_file)
    assert kept[0] == kept[1]
    assert [row["source_file"] for row in kept[0]] == ["raw/a.ndjson.gz"]


def test_records_are_filed_under_their_own_utc_timestamp(spark: SparkSession) -> None:
    # Given records just before and at midnight, and one written with a +01:00 offset
    lines = [
        log_line("published", "rec-late", "2026-11-22T23:59:59.999Z"),
        log_line("published", "rec-midnight", "2026-11-23T00:00:00.000Z"),
        log_line("published", "rec-offset", "2026-11-23T00:30:00.000+01:00"),
    ]
    records, _ = parse_lines(lines_frame(spark, lines))

    # When they get their partition columns
    partitioned = with_partitions(records)

    # Then dt and hour are those of each record's instant in UTC
    assert as_dicts(partitioned, "recordId", "ts", "dt", "hour") == [
        {"recordId": "rec-late", "ts": datetime(2026, 11, 22, 23, 59, 59, 999000), "dt": DAY, "hour": "23"},
        {"recordId": "rec-midnight", "ts": datetime(2026, 11, 23, 0, 0), "dt": NEXT_DAY, "hour": "00"},
        {"recordId": "rec-offset", "ts": datetime(2026, 11, 22, 23, 30), "dt": DAY, "hour": "23"},
    ]


def test_partitions_do_not_depend_on_the_session_time_zone(spark: SparkSession) -> None:
    # Given a session set to a zone far from UTC
    records, _ = parse_lines(lines_frame(spark, [log_line("published", "rec-1", "2026-11-22T23:59:59.999Z")]))
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        # When the record gets its partition columns
        partitioned = as_dicts(with_partitions(records), "dt", "hour")
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")

    # Then they are still the UTC day and hour
    assert partitioned == [{"dt": DAY, "hour": "23"}]


def test_compact_writes_records_either_side_of_midnight_to_two_partitions(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Given one raw file holding a record at 23:59:59.999 on D and one at 00:00:00.000 on D+1
    lines = [
        log_line("published", "rec-late", "2026-11-22T23:59:59.999Z"),
        log_line("published", "rec-midnight", "2026-11-23T00:00:00.000Z"),
    ]
    records, _ = parse_lines(lines_frame(spark, lines))

    # When they are compacted and written partitioned by dt
    compact(records, 2).write.partitionBy("dt").parquet(str(tmp_path / "compacted"))

    # Then each is in the partition of its own day
    assert sorted(p.name for p in (tmp_path / "compacted").iterdir() if p.is_dir()) == [
        f"dt={DAY}",
        f"dt={NEXT_DAY}",
    ]
    for day, record_id in ((DAY, "rec-late"), (NEXT_DAY, "rec-midnight")):
        written = spark.read.parquet(str(tmp_path / "compacted" / f"dt={day}"))
        assert as_dicts(written, "recordId") == [{"recordId": record_id}]


def test_compact_sorts_each_partition_and_bounds_its_file_count(spark: SparkSession, tmp_path: Path) -> None:
    # Given records of 12 rooms in shuffled order, one of them twice
    lines = [
        log_line(
            "attempt",
            f"rec-{room:02d}-{second:02d}",
            f"2026-11-22T10:00:{second:02d}.000Z",
            room_id=f"room-{room:02d}",
            subscription_id=f"sub-{second % 2}",
            message_id=f"msg-{second}",
            attempt=0,
        )
        for second in (7, 3, 5, 1)
        for room in range(12, 0, -1)
    ]
    records, _ = parse_lines(lines_frame(spark, [*lines, lines[0]]))

    # When they are compacted into at most 3 files per partition
    compacted = compact(records, 3, dt=DAY)
    compacted.write.partitionBy("dt").parquet(str(tmp_path / "compacted"))

    # Then the partition has at most 3 files, every record once, each file sorted for the common queries
    files = data_files(tmp_path / "compacted" / f"dt={DAY}")
    assert 1 <= len(files) <= 3
    assert compacted.columns == [*COMPACTED.fieldNames(), "dt"]
    sort_key = ("roomId", "subscriptionId", "ts", "messageId", "recordId")
    total = 0
    for file in files:
        rows = [row.asDict() for row in spark.read.parquet(str(file)).collect()]
        assert rows == sorted(rows, key=lambda row: tuple(row[name] for name in sort_key))
        assert len({row["roomId"] for row in rows}) == len({(row["tenantId"], row["roomId"]) for row in rows})
        total += len(rows)
    assert total == 48


def test_compact_shuffles_and_sorts_the_records_once(spark: SparkSession) -> None:
    # Given records of two rooms, one of them twice
    lines = [
        log_line("attempt", f"rec-{n}", f"{DAY}T10:00:0{n}.000Z", room_id=f"room-{n % 2}", attempt=0)
        for n in range(4)
    ]
    records, _ = parse_lines(lines_frame(spark, [*lines, lines[0]]))

    # When they are compacted (and collected: adaptive execution's plan is then final)
    compacted = compact(records, 2, dt=DAY)
    assert len(compacted.collect()) == 4

    # Then the de-duplication and the layout share one shuffle and one sort
    plan = compacted._jdf.queryExecution().executedPlan().toString().split("== Initial Plan ==")[0]
    assert (plan.count("Exchange "), plan.count(" Sort [")) == (1, 1)
