"""parse_lines: raw NDJSON lines → v1 records and rejected lines with a reason."""

from __future__ import annotations

import json

from pyspark.sql import SparkSession, functions as sf

from roomcast_glue.schema import RECORD_V1
from roomcast_glue.transforms import TIMESTAMP_FORMAT, parse_lines, parse_timestamp
from tests.glue.logfiles import PUBLISHED_AT, as_dicts, lines_frame, log_line, sorted_rows


def test_a_v1_record_is_read_field_for_field_with_its_types(spark: SparkSession) -> None:
    # Given a line as the push worker writes it
    line = log_line(
        "retry_scheduled",
        "rec-1",
        "2026-11-22T10:00:01.250Z",
        attempt=2,
        http_status=503,
        latency_ms=1200,
        error="HTTP 503",
        next_delay_ms=4000,
        published_at=PUBLISHED_AT,
    )

    # When it is parsed
    records, rejected = parse_lines(lines_frame(spark, [line], source_file="raw/f.ndjson.gz"))

    # Then every field is there, typed as RECORD_V1 says, with the file it came from
    assert records.columns == [*RECORD_V1.fieldNames(), "source_file"]
    assert [field.dataType for field in records.schema.fields[:-1]] == [f.dataType for f in RECORD_V1.fields]
    assert as_dicts(records) == [
        {
            "schemaVersion": 1,
            "recordId": "rec-1",
            "timestamp": "2026-11-22T10:00:01.250Z",
            "event": "retry_scheduled",
            "messageId": "msg-1",
            "correlationId": "corr-msg-1",
            "tenantId": "tenant-1",
            "roomId": "room-1",
            "subscriptionId": "sub-a",
            "subscriptionType": "PUSH",
            "attempt": 2,
            "httpStatus": 503,
            "latencyMs": 1200,
            "error": "HTTP 503",
            "nextDelayMs": 4000,
            "publishedAt": PUBLISHED_AT,
            "source_file": "raw/f.ndjson.gz",
        }
    ]
    assert rejected.count() == 0


def test_malformed_lines_are_rejected_with_a_reason_and_the_rest_are_processed(spark: SparkSession) -> None:
    # Given a file mixing good lines with every kind of bad one
    good = log_line("published", "rec-good", PUBLISHED_AT)
    wrong_version = json.dumps({**json.loads(good), "schemaVersion": 2, "recordId": "rec-v2"})
    no_version = json.dumps({k: v for k, v in json.loads(good).items() if k != "schemaVersion"})
    missing_fields = json.dumps({**json.loads(good), "recordId": None, "event": " "})
    bad_timestamp = json.dumps(
        {**json.loads(good), "recordId": "rec-bad-ts", "timestamp": "22/11/2026 10:00"}
    )
    no_zone = json.dumps(
        {**json.loads(good), "recordId": "rec-no-zone", "timestamp": "2026-11-22T10:00:00.000"}
    )
    also_good = log_line("delivered", "rec-good-2", "2026-11-22T10:00:00.100Z", attempt=0)
    lines = [
        good,
        "this is not json",
        '{"schemaVersion": 1, "recordId": "cut',
        '[{"schemaVersion": 1}]',
        "42",
        "null",
        wrong_version,
        no_version,
        missing_fields,
        bad_timestamp,
        no_zone,
        also_good,
    ]

    # When the lines are parsed
    records, rejected = parse_lines(lines_frame(spark, lines, source_file="raw/mixed.ndjson.gz"))

    # Then the good lines are records, each bad one is rejected once with the first reason that applies
    assert as_dicts(records, "recordId") == [{"recordId": "rec-good"}, {"recordId": "rec-good-2"}]
    expected = [
        ("this is not json", "not valid JSON"),
        ('{"schemaVersion": 1, "recordId": "cut', "not valid JSON"),
        ('[{"schemaVersion": 1}]', "not a JSON object"),
        ("42", "not a JSON object"),
        ("null", "not a JSON object"),
        (wrong_version, "unsupported schemaVersion: 2"),
        (no_version, "unsupported schemaVersion: none"),
        (missing_fields, "missing field(s): recordId, event"),
        (bad_timestamp, "timestamp does not parse: 22/11/2026 10:00"),
        (no_zone, "timestamp does not parse: 2026-11-22T10:00:00.000"),
    ]
    assert as_dicts(rejected) == sorted_rows(
        {"value": value, "source_file": "raw/mixed.ndjson.gz", "reason": reason} for value, reason in expected
    )


def test_blank_lines_are_neither_records_nor_rejected(spark: SparkSession) -> None:
    # Given a file whose lines include empty and whitespace-only ones
    lines = ["", log_line("published", "rec-1", PUBLISHED_AT), "   ", "\t"]

    # When they are parsed
    records, rejected = parse_lines(lines_frame(spark, lines))

    # Then only the record remains and nothing is rejected
    assert as_dicts(records, "recordId") == [{"recordId": "rec-1"}]
    assert rejected.count() == 0


def test_fields_v1_does_not_know_are_dropped_and_absent_ones_read_as_null(spark: SparkSession) -> None:
    # Given a line from a newer writer (an extra field) without the optional fields
    line = json.dumps(
        {
            "schemaVersion": 1,
            "recordId": "rec-1",
            "timestamp": PUBLISHED_AT,
            "event": "published",
            "messageId": "msg-1",
            "addedLater": {"any": "thing"},
        }
    )

    # When it is parsed (without a source file column)
    records, _ = parse_lines(spark.createDataFrame([(line,)], "value string"))

    # Then it is a record: the extra field is dropped, the absent ones are null
    [row] = as_dicts(records)
    assert "addedLater" not in row
    assert row["recordId"] == "rec-1"
    assert row["tenantId"] is None
    assert row["attempt"] is None
    assert row["source_file"] is None


def test_timestamps_with_other_precisions_and_offsets_are_accepted(spark: SparkSession) -> None:
    # Given ISO-8601 timestamps without fraction, with microseconds and with an offset
    lines = [
        log_line("published", "rec-s", "2026-11-22T10:00:00Z"),
        log_line("published", "rec-us", "2026-11-22T10:00:00.123456Z"),
        log_line("published", "rec-offset", "2026-11-22T11:00:00.000+01:00"),
    ]

    # When they are parsed
    records, rejected = parse_lines(lines_frame(spark, lines))

    # Then all are records
    assert rejected.count() == 0
    assert records.count() == 3


def test_the_writers_timestamp_shape_parses_as_the_iso_pattern_does(spark: SparkSession) -> None:
    # Given strings of the writer's shape (…T…:ss.SSSZ), valid and invalid, and ones of other shapes
    values = [
        "2026-11-22T10:00:00.123Z",
        "2028-02-29T23:59:59.999Z",
        "2026-02-29T10:00:00.000Z",
        "2026-13-01T10:00:00.000Z",
        "2026-11-22T24:00:00.000Z",
        "2026-11-22T23:59:60.000Z",
        "0001-01-01T00:00:00.000Z",
        "2026-11-22T10:00:00.123+01:00",
        "2026-11-22 10:00:00.123Z",
    ]
    frame = spark.createDataFrame([(value,) for value in values], "t string")

    # When each is parsed by the fast path and by the ISO pattern alone
    parsed = frame.select(
        sf.unix_micros(parse_timestamp(sf.col("t"))).alias("fast"),
        sf.unix_micros(sf.try_to_timestamp(sf.col("t"), sf.lit(TIMESTAMP_FORMAT))).alias("pattern"),
    ).collect()

    # Then both give the same instant, or both none
    assert [row["fast"] for row in parsed] == [row["pattern"] for row in parsed]
    assert parsed[0]["fast"] is not None
    assert parsed[2]["fast"] is None
