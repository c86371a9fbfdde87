"""Run the Glue jobs on a laptop against the running local stack's log bucket (what `make compact`
and `make analytics` do): copy the objects out of the emulated S3, run the job on local PySpark,
copy the results back.

    make compact                      # today's UTC partition
    make compact DATE=2026-11-21
    make analytics OUT=/tmp/analytics # also writes the Parquet and report.html there, prints the table
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from roomcast_dev.local_aws import aws_client
from roomcast_dev.report import render_report
from roomcast_dev.stack_state import read_state
from roomcast_glue.runtime import resolve_date

GLUE_JOBS_DIR = Path(__file__).resolve().parents[2] / "glue_jobs"


def download_prefix(s3: Any, bucket: str, prefix: str, into: Path) -> int:
    count = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", []):
            target = into / item["Key"]
            target.parent.mkdir(parents=True, exist_ok=True)
            s3.download_file(bucket, item["Key"], str(target))
            count += 1
    return count


def replace_prefix(s3: Any, bucket: str, prefix: str, source: Path) -> int:
    """Make ``prefix`` hold exactly the files under ``source`` (a re-run replaces, never adds)."""
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
        if keys:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": keys})
    count = 0
    if source.exists():
        for path in sorted(p for p in source.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))):
            s3.upload_file(str(path), bucket, f"{prefix}{path.relative_to(source).as_posix()}")
            count += 1
    return count


LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")


def local_spark(app_name: str = "roomcast-local-glue", jvm_log: Path | None = None) -> Any:
    """A quiet local[2] session for the Glue jobs' code (make compact/analytics, tests, bench).
    With ``jvm_log``, the JVM's own stderr (start-up notices, errors) goes to that file."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # a laptop's Spark talks to itself only
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}")
    )
    with _stderr_of_children_to(jvm_log):
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")  # a missing neighbour-hour folder is expected, not news
    return spark


@contextmanager
def _stderr_of_children_to(path: Path | None) -> Iterator[None]:
    """Processes started meanwhile (the JVM) inherit ``path`` as their stderr."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with path.open("ab") as log:
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def compact(endpoint_url: str, bucket: str, day: str, spark: Any) -> dict[str, Any]:
    from compact_job import run_compaction

    s3 = aws_client("s3", endpoint_url)
    with tempfile.TemporaryDirectory(prefix="roomcast-compact-") as work:
        root = Path(work)
        the_day = date.fromisoformat(day)
        for neighbour in (the_day - timedelta(days=1), the_day, the_day + timedelta(days=1)):
            download_prefix(s3, bucket, f"raw/dt={neighbour.isoformat()}/", root / "in")
        summary = run_compaction(spark, str(root / "in"), str(root / "out"), day)
        summary["uploaded"] = {
            prefix: replace_prefix(
                s3, bucket, f"{prefix}dt={day}/", root / "out" / prefix.rstrip("/") / f"dt={day}"
            )
            for prefix in ("compacted/", "rejected/")
        }
        return dict(summary)


def analytics(endpoint_url: str, bucket: str, day: str, spark: Any, out: Path | None) -> list[dict[str, Any]]:
    from analytics_job import run_analytics

    s3 = aws_client("s3", endpoint_url)
    with tempfile.TemporaryDirectory(prefix="roomcast-analytics-") as work:
        root = Path(work)
        download_prefix(s3, bucket, f"compacted/dt={day}/", root / "in")
        frame = run_analytics(spark, str(root / "in"), str(root / "out"), day)
        rows = [row.asDict(recursive=True) for row in frame.collect()]
        written = root / "out" / "analytics" / "daily" / f"dt={day}"
        replace_prefix(s3, bucket, f"analytics/daily/dt={day}/", written)
        if out is not None:
            destination = out / "analytics" / "daily" / f"dt={day}"
            shutil.rmtree(destination, ignore_errors=True)
            if written.exists():
                shutil.copytree(written, destination)
            out.mkdir(parents=True, exist_ok=True)
            (out / "report.html").write_text(render_report(day, rows), encoding="utf-8")
        return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    columns = [
        ("roomId", 37),
        ("subscriptionId", 37),
        ("published", 9),
        ("delivered", 9),
        ("first_try_success_rate", 9),
        ("retries", 7),
        ("dead", 4),
        ("expired", 7),
        ("failovers", 9),
        ("latency_p50_ms", 8),
        ("latency_p95_ms", 8),
        ("latency_p99_ms", 8),
    ]
    headers = {
        "first_try_success_rate": "1st-try",
        "latency_p50_ms": "p50 ms",
        "latency_p95_ms": "p95 ms",
        "latency_p99_ms": "p99 ms",
    }
    print(" ".join(f"{headers.get(name, name):>{width}}" for name, width in columns) + "  attempts")
    for row in sorted(rows, key=lambda r: (str(r.get("roomId")), str(r.get("subscriptionId")))):
        cells = []
        for name, width in columns:
            value = row.get(name)
            text = "-" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)
            cells.append(f"{text:>{width}}")
        histogram = row.get("attempts_histogram") or {}
        print(" ".join(cells) + "  " + ", ".join(f"{k}:{v}" for k, v in sorted(histogram.items())))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("job", choices=["compact", "analytics"])
    parser.add_argument("--date", default=None, help="YYYY-MM-DD (default: today, UTC)")
    parser.add_argument(
        "--out",
        default=None,
        help="analytics: also write the Parquet and report.html (charts) here and print the table",
    )
    args = parser.parse_args(argv)
    state = read_state()
    if state is None:
        print("error: no local stack is running; start it first: make run", file=sys.stderr)
        return 1
    day = resolve_date(args.date)
    sys.path.insert(0, str(GLUE_JOBS_DIR))
    spark = local_spark()
    try:
        bucket = state["outputs"]["LogBucketName"]
        if args.job == "compact":
            summary = compact(state["endpointUrl"], bucket, day, spark)
            print(f"compacted s3://{bucket}/raw/dt={day}/ -> compacted/dt={day}/: {summary}")
        else:
            rows = analytics(state["endpointUrl"], bucket, day, spark, Path(args.out) if args.out else None)
            print(f"analytics for {day}: {len(rows)} rows -> s3://{bucket}/analytics/daily/dt={day}/")
            if args.out:
                print(f"Parquet also written under {args.out}/analytics/daily/dt={day}/")
                print(f"charts of the day: {Path(args.out) / 'report.html'}\n")
                print_table(rows)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
