"""The job entrypoints run locally end to end: as the one-file script Glue runs
(glue_jobs/bundled/roomcast_jobs.py, roomcast_glue inside) and in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import analytics_job
import compact_job
from roomcast_dev.glue_assets import BUNDLE
from roomcast_glue.launch import JOB_ARGUMENT
from roomcast_glue.runtime import resolve_date
from tests.glue.logfiles import DAY, PUBLISHED_AT, as_dicts, log_line, write_raw


def a_raw_day(source: Path) -> None:
    """A message published to one subscription and delivered at the second attempt."""
    write_raw(
        source,
        datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC),
        [log_line("published", "pub-1", PUBLISHED_AT, published_at=PUBLISHED_AT)],
        "publish",
    )
    write_raw(
        source,
        datetime(2026, 11, 22, 10, 0, 2, tzinfo=UTC),
        [
            log_line(
                "retry_scheduled", "retry-1", f"{DAY}T10:00:00.500Z", attempt=0, published_at=PUBLISHED_AT
            ),
            log_line("delivered", "del-1", f"{DAY}T10:00:01.500Z", attempt=1, published_at=PUBLISHED_AT),
        ],
        "push",
    )


def test_the_one_file_script_runs_the_compaction_and_loads_the_analytics_job(tmp_path: Path) -> None:
    # Given a day of raw files written as the functions write them
    source, target = tmp_path / "bucket", tmp_path / "bucket"
    a_raw_day(source)
    small_local_spark = (
        "--master local[2] --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=4"
    )
    environment = {
        **{name: value for name, value in os.environ.items() if name != "PYTHONPATH"},
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_SUBMIT_ARGS": f"{small_local_spark} pyspark-shell",
    }

    def bundled(job: str, *arguments: str) -> subprocess.CompletedProcess[str]:
        """The job as Glue runs it: the one-file script, with neither glue_jobs/ nor the working
        directory on the import path."""
        return subprocess.run(  # noqa: S603 - our own script, with this interpreter
            [sys.executable, str(BUNDLE), JOB_ARGUMENT, job, *arguments],
            capture_output=True,
            text=True,
            env=environment,
            cwd=tmp_path,
            timeout=180,
            check=False,
        )

    # When the compaction job runs from it, and the analytics job is loaded from it (its run is
    # test_main_reads_its_arguments_and_prints_a_summary's: a second JVM here costs 17 s)
    compacted = bundled("compact_job", "--source", str(source), "--target", str(target), "--date", DAY)
    loaded = bundled("analytics_job", "--help")

    # Then the compaction printed its JSON summary and wrote its output; the analytics job's code,
    # roomcast_glue included, imports from the script alone
    assert compacted.returncode == 0, compacted.stderr[-3000:]
    compaction = json.loads(compacted.stdout.strip().splitlines()[-1])
    assert (compaction["records"], compaction["partitions_written"]) == (3, [f"compacted/dt={DAY}"])
    assert (target / "compacted" / f"dt={DAY}").is_dir()
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert "--source SOURCE --target TARGET --date DATE" in loaded.stdout


def test_main_reads_its_arguments_and_prints_a_summary(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a day of raw files
    source, target = tmp_path / "in", tmp_path / "out"
    a_raw_day(source)

    # When both jobs' main run in this process (they reuse its SparkSession)
    arguments = ["--source", str(source), "--target", str(target), "--date", DAY]
    arguments += ["--files_per_partition", "1"]
    assert compact_job.main(arguments) == 0
    assert analytics_job.main(["--source", str(target), "--target", str(target), "--date", DAY]) == 0

    # Then the summaries are printed and the figures are in analytics/daily/
    summaries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [summary["job"] for summary in summaries] == ["compaction", "analytics"]
    figures = as_dicts(spark.read.parquet(str(target / "analytics" / "daily" / f"dt={DAY}")))
    [row] = figures
    assert (row["subscriptionId"], row["delivered"], row["retries"]) == ("sub-a", 1, 1)
    assert row["attempts_histogram"] == {1: 1}
    assert row["latency_p50_ms"] == pytest.approx(1500.0)


def test_the_date_may_be_today_or_yesterday_in_utc() -> None:
    today = datetime.now(UTC).date()

    assert resolve_date("today") == resolve_date(None) == today.isoformat()
    assert resolve_date("yesterday") < today.isoformat()
    assert resolve_date(DAY) == DAY
    with pytest.raises(ValueError, match="Invalid isoformat"):
        resolve_date("22/11/2026")
