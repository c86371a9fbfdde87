"""daily_analytics and run_analytics: a hand-built day with known figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession

from analytics_job import run_analytics
from roomcast_glue.schema import DAILY_ANALYTICS
from roomcast_glue.transforms import compact, daily_analytics, parse_lines
from tests.glue.logfiles import DAY, PUBLISHED_AT, as_dicts, data_files, lines_frame, log_line

T0 = PUBLISHED_AT  # every message is published at 10:00:00.000


def at(clock: str) -> str:
    return f"{DAY}T{clock}Z"


def a_day_of_deliveries() -> list[str]:
    """Room room-1: sub-a (PUSH) gets msg-1..5, sub-b (PULL) msg-1..3, msg-0 goes nowhere."""
    published = [
        log_line("published", f"pub-a-{n}", T0, message_id=f"msg-{n}", published_at=T0) for n in range(1, 6)
    ] + [
        log_line(
            "published", f"pub-b-{n}", T0, message_id=f"msg-{n}", subscription_id="sub-b", published_at=T0
        )
        for n in range(1, 4)
    ]
    nowhere = log_line(
        "published", "pub-0", T0, message_id="msg-0", subscription_id=None, subscription_type=None
    )

    def push(event: str, record_id: str, clock: str, message: int, **fields: Any) -> str:
        return log_line(event, record_id, at(clock), message_id=f"msg-{message}", published_at=T0, **fields)

    def pull(event: str, record_id: str, clock: str, message: int, **fields: Any) -> str:
        return log_line(
            event,
            record_id,
            at(clock),
            message_id=f"msg-{message}",
            subscription_id="sub-b",
            subscription_type="PULL",
            **fields,
        )

    delivered_once = push("delivered", "del-a-1", "10:00:00.100", 1, attempt=0, http_status=200)
    retry_once = push("retry_scheduled", "retry-a-3a", "10:00:00.400", 3, attempt=0, next_delay_ms=1000)
    sub_a = [
        push("attempt", "att-a-1", "10:00:00.090", 1, attempt=0, http_status=200),
        delivered_once,
        delivered_once,  # the same record twice: counts once
        push("delivered", "del-a-1-again", "10:05:00.000", 1, attempt=0),  # an SQS redelivery
        push("attempt", "att-a-2", "10:00:00.500", 2, attempt=0, http_status=500),
        push("retry_scheduled", "retry-a-2", "10:00:00.510", 2, attempt=0, next_delay_ms=1000),
        push("delivered", "del-a-2", "10:00:02.000", 2, attempt=1, http_status=200),
        retry_once,
        retry_once,
        push("retry_scheduled", "retry-a-3b", "10:00:01.400", 3, attempt=1, next_delay_ms=2000),
        push("dead", "dead-a-3", "10:00:03.400", 3, attempt=2, error="HTTP 500; attempts exhausted"),
        push("failover", "failover-a-4", "10:00:04.000", 4, attempt=0, error="gone; to sub-b"),
        push("hop", "hop-a-5", "10:00:00.000", 5, attempt=0, next_delay_ms=3_600_000),
        push("expired", "expired-a-5", "11:00:00.000", 5, attempt=0),
    ]
    sub_b = [
        pull("attempt", "att-b-1", "10:00:00.200", 1, attempt=0, published_at=T0),
        pull("delivered", "del-b-1", "10:00:00.300", 1, attempt=0, published_at=T0),
        pull("delivered", "del-b-2", "10:00:00.500", 2, attempt=0, published_at=T0),
        pull("delivered", "del-b-3", "10:00:10.000", 3, attempt=3),  # no publishedAt: the published record's
        pull("delivered", "del-b-4", "10:00:05.000", 4, attempt=0, published_at=T0),  # handed over by sub-a
    ]
    return [*published, nowhere, *sub_a, *sub_b]


def figures_of(spark: SparkSession, lines: list[str]) -> DataFrame:
    records, rejected = parse_lines(lines_frame(spark, lines))
    assert rejected.count() == 0
    return daily_analytics(records)


def test_the_daily_figures_of_each_subscription_are_exact(spark: SparkSession) -> None:
    # Given a day with two subscriptions, retries, a dead, an expired, a failover and a duplicate
    lines = a_day_of_deliveries()

    # When the figures are computed
    figures = figures_of(spark, lines)

    # Then each subscription (and the room's message to nobody) has its exact figures
    key = {"dt": DAY, "tenantId": "tenant-1", "roomId": "room-1"}
    rows = {row["subscriptionId"]: row for row in as_dicts(figures)}
    assert rows["sub-a"] == {
        **key,
        "subscriptionId": "sub-a",
        "published": 5,
        "delivered": 2,  # msg-1 (twice, and a duplicate record), msg-2
        "first_try_success_rate": 0.5,
        "retries": 3,  # msg-2 once, msg-3 twice (one record written twice)
        "dead": 1,
        "expired": 1,
        "failovers": 1,
        "latency_p50_ms": pytest.approx(1050.0),  # latencies 100 and 2000 ms
        "latency_p95_ms": pytest.approx(1905.0),
        "latency_p99_ms": pytest.approx(1981.0),
        "attempts_histogram": {0: 1, 1: 1},
    }
    assert rows["sub-b"] == {
        **key,
        "subscriptionId": "sub-b",
        "published": 3,
        "delivered": 4,  # msg-4 came by failover
        "first_try_success_rate": 0.75,
        "retries": 0,
        "dead": 0,
        "expired": 0,
        "failovers": 0,
        "latency_p50_ms": pytest.approx(2750.0),  # latencies 300, 500, 5000 and 10000 ms
        "latency_p95_ms": pytest.approx(9250.0),
        "latency_p99_ms": pytest.approx(9850.0),
        "attempts_histogram": {0: 3, 3: 1},
    }
    assert rows[None] == {
        **key,
        "subscriptionId": None,
        "published": 1,
        "delivered": 0,
        "first_try_success_rate": None,
        "retries": 0,
        "dead": 0,
        "expired": 0,
        "failovers": 0,
        "latency_p50_ms": None,
        "latency_p95_ms": None,
        "latency_p99_ms": None,
        "attempts_histogram": {},
    }
    assert len(rows) == 3
    assert [(f.name, f.dataType) for f in figures.schema.fields] == [
        (f.name, f.dataType) for f in DAILY_ANALYTICS.fields
    ]


def test_duplicated_records_do_not_change_the_figures(spark: SparkSession) -> None:
    # Given the day, and the same day with every line written twice
    lines = a_day_of_deliveries()

    # When the figures are computed for both
    once, twice = (as_dicts(figures_of(spark, batch)) for batch in (lines, lines + lines))

    # Then they are the same
    assert once == twice


def test_analytics_of_the_compacted_day_are_written_as_one_parquet_file(
    spark: SparkSession, tmp_path: Path
) -> None:
    # Given a compacted day
    records, _ = parse_lines(lines_frame(spark, a_day_of_deliveries()))
    compacted = compact(records, 2, dt=DAY)
    compacted.write.partitionBy("dt").parquet(str(tmp_path / "in" / "compacted"))

    # When the analytics job runs on it
    returned = run_analytics(spark, str(tmp_path / "in"), str(tmp_path / "out"), DAY)

    # Then its figures are written under analytics/daily/dt=D/ (dt is the directory) and returned
    output = tmp_path / "out" / "analytics" / "daily" / f"dt={DAY}"
    [file] = data_files(output)
    written = spark.read.parquet(str(output))
    assert written.columns == [f.name for f in DAILY_ANALYTICS.fields if f.name != "dt"]
    assert as_dicts(written) == as_dicts(returned.drop("dt"))
    assert {row["subscriptionId"] for row in as_dicts(written)} == {"sub-a", "sub-b", None}
    assert file.suffix == ".parquet"


def test_a_day_without_a_compacted_partition_gives_empty_figures(spark: SparkSession, tmp_path: Path) -> None:
    # Given no compacted data for the day

    # When the analytics job runs
    returned = run_analytics(spark, str(tmp_path / "in"), str(tmp_path / "out"), DAY)

    # Then the figures are empty, and written as such
    assert returned.count() == 0
    assert spark.read.parquet(str(tmp_path / "out" / "analytics" / "daily" / f"dt={DAY}")).count() == 0
