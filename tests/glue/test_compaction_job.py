"""run_compaction: raw/ → compacted/ and rejected/, on local directories laid out as log.py writes."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

from pyspark.sql import SparkSession

from compact_job import run_compaction
from tests.glue.logfiles import DAY, NEXT_DAY, PUBLISHED_AT, as_dicts, data_files, log_line, write_raw


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def compacted_rows(spark: SparkSession, target: Path, day: str = DAY) -> list[dict[str, object]]:
    return as_dicts(spark.read.parquet(str(target / "compacted" / f"dt={day}")))


def test_a_day_is_compacted_without_duplicates_and_its_bad_lines_are_set_aside(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Given a day's raw files: a publish, a push invocation written twice (a retried S3 write)
    # and a file with a bad line and a blank line
    source, target = tmp_path / "in", tmp_path / "out"
    publish = [log_line("published", "rec-1", PUBLISHED_AT, published_at=PUBLISHED_AT)]
    push = [
        log_line("attempt", "rec-2", "2026-11-22T10:00:00.080Z", attempt=0, http_status=200),
        log_line("delivered", "rec-3", "2026-11-22T10:00:00.100Z", attempt=0, http_status=200),
    ]
    write_raw(source, at("2026-11-22T10:00:00"), publish, "publish", "inv-p")
    write_raw(source, at("2026-11-22T10:00:01"), push, "push", "inv-1")
    write_raw(source, at("2026-11-22T10:00:02"), push, "push", "inv-1-again")
    bad_file = write_raw(source, at("2026-11-22T11:00:00"), ["not json", ""], "pull", "inv-x")

    # When the day is compacted
    summary = run_compaction(spark, str(source), str(target), DAY)

    # Then each record is written once, the bad line is rejected with its reason, the summary adds up
    assert [row["recordId"] for row in compacted_rows(spark, target)] == ["rec-1", "rec-2", "rec-3"]
    assert summary == {
        "job": "compaction",
        "date": DAY,
        "hour": None,
        "files_read": 4,
        "lines_read": 7,
        "records": 3,
        "duplicates_dropped": 2,
        "rejected": 1,
        "records_for_other_days": 0,
        "partitions_written": [f"compacted/dt={DAY}"],
    }
    [rejected_file] = data_files(target / "rejected" / f"dt={DAY}")
    assert [json.loads(line) for line in rejected_file.read_text().splitlines()] == [
        {"value": "not json", "source_file": f"file:{bad_file}", "reason": "not valid JSON"}
    ]


def test_records_either_side_of_midnight_land_in_their_own_days_partition(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Given one raw file, flushed just after midnight, with a record of each day
    source, target = tmp_path / "in", tmp_path / "out"
    lines = [
        log_line("published", "rec-late", "2026-11-22T23:59:59.999Z"),
        log_line("published", "rec-midnight", "2026-11-23T00:00:00.000Z"),
    ]
    write_raw(source, at("2026-11-23T00:00:00.500"), lines, "publish")

    # When D+1 and then D are compacted
    next_day = run_compaction(spark, str(source), str(target), NEXT_DAY)
    day = run_compaction(spark, str(source), str(target), DAY)

    # Then each record is in its own day's partition, and compacting D left D+1 alone
    assert [row["recordId"] for row in compacted_rows(spark, target, DAY)] == ["rec-late"]
    assert [row["recordId"] for row in compacted_rows(spark, target, NEXT_DAY)] == ["rec-midnight"]
    assert (next_day["records"], next_day["records_for_other_days"]) == (1, 1)
    assert (day["records"], day["files_read"], day["partitions_written"]) == (1, 1, [f"compacted/dt={DAY}"])


def test_a_rerun_on_the_same_input_gives_the_same_rows_and_files(spark: SparkSession, tmp_path: Path) -> None:
    # Given a compacted day
    source, target = tmp_path / "in", tmp_path / "out"
    lines = [
        log_line("attempt", f"rec-{n}", f"2026-11-22T10:00:0{n}.000Z", room_id=f"room-{n % 3}", attempt=0)
        for n in range(9)
    ]
    write_raw(source, at("2026-11-22T10:00:10"), lines[:5], invocation="inv-1")
    write_raw(source, at("2026-11-22T10:00:11"), lines[3:], invocation="inv-2")
    first = run_compaction(spark, str(source), str(target), DAY)
    rows_before = compacted_rows(spark, target)
    files_before = len(data_files(target / "compacted"))

    # When it is compacted again
    second = run_compaction(spark, str(source), str(target), DAY)

    # Then the output is the same: same rows, no duplicates, as many files
    assert second == first
    assert compacted_rows(spark, target) == rows_before
    assert len(rows_before) == len({row["recordId"] for row in rows_before}) == 9
    assert len(data_files(target / "compacted")) == files_before


def test_no_raw_files_writes_no_partition(spark: SparkSession, tmp_path: Path) -> None:
    # Given no raw files at all for the day
    source, target = tmp_path / "in", tmp_path / "out"

    # When the day is compacted
    summary = run_compaction(spark, str(source), str(target), DAY)

    # Then nothing is read, nothing written, nothing fails
    assert (summary["files_read"], summary["records"], summary["partitions_written"]) == (0, 0, [])
    assert not (target / "compacted").exists()


def test_empty_raw_files_give_no_records_and_no_partition(spark: SparkSession, tmp_path: Path) -> None:
    # Given a day whose raw files are empty (a gzip of nothing, and a zero-byte object)
    source, target = tmp_path / "in", tmp_path / "out"
    hour = source / "raw" / f"dt={DAY}" / "hour=09"
    hour.mkdir(parents=True)
    (hour / "20261122T090000-push-a.ndjson.gz").write_bytes(gzip.compress(b""))
    (hour / "20261122T090001-push-b.ndjson.gz").write_bytes(b"")

    # When the day is compacted
    summary = run_compaction(spark, str(source), str(target), DAY)

    # Then there are no records and no partition; the day's rejected lines are replaced by none
    assert summary["files_read"] == 2
    assert (summary["lines_read"], summary["records"], summary["rejected"]) == (0, 0, 0)
    assert summary["partitions_written"] == []
    assert not (target / "compacted").exists()
    assert all(file.stat().st_size == 0 for file in data_files(target / "rejected" / f"dt={DAY}"))


def test_one_hour_is_compacted_into_the_hourly_prefix(spark: SparkSession, tmp_path: Path) -> None:
    # Given records of 09:00, of 09:59:59.999 flushed at 10:00, and of 10:00
    source, target = tmp_path / "in", tmp_path / "out"
    write_raw(source, at("2026-11-22T09:00:01"), [log_line("published", "rec-9", "2026-11-22T09:00:00.000Z")])
    write_raw(
        source,
        at("2026-11-22T10:00:00.200"),
        [
            log_line("published", "rec-9-late", "2026-11-22T09:59:59.999Z"),
            log_line("published", "rec-10", "2026-11-22T10:00:00.100Z"),
        ],
    )

    # When hour 09 alone is compacted
    summary = run_compaction(spark, str(source), str(target), DAY, hour="09")

    # Then that hour's records, and only they, are under hourly/; the day partition is untouched
    written = spark.read.parquet(str(target / "hourly" / "compacted" / f"dt={DAY}" / "hour=09"))
    assert as_dicts(written, "recordId", "hour") == [
        {"recordId": "rec-9", "hour": "09"},
        {"recordId": "rec-9-late", "hour": "09"},
    ]
    assert summary["partitions_written"] == [f"hourly/compacted/dt={DAY}/hour=09"]
    assert not (target / "compacted").exists()
