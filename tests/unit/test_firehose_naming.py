"""How the local stack's Firehose stand-in names, prefixes and compresses what it delivers (the
documented S3 object name format and custom prefixes)."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone

import pytest

from roomcast_dev.firehose import LOCAL_INTERVAL_SECONDS, interval_from_environment
from roomcast_dev.firehose_objects import java_timestamp, object_body, object_key, render_prefix

MOMENT = datetime(2026, 3, 4, 5, 6, 7, 890_000, tzinfo=UTC)


@pytest.mark.parametrize(
    ("pattern", "rendered"),
    [
        ("yyyy-MM-dd", "2026-03-04"),
        ("HH", "05"),
        ("yyyy/MM/dd/HH", "2026/03/04/05"),
        ("yyyy'-'MM'-'dd", "2026-03-04"),
        ("yy.mm.ss", "26.06.07"),
        ("'hour='HH''", "hour=05'"),
    ],
)
def test_timestamp_patterns_render_as_javas_date_time_formatter(pattern: str, rendered: str) -> None:
    assert java_timestamp(pattern, MOMENT) == rendered


@pytest.mark.parametrize("pattern", ["yyyyy", "EEE", "M", "'open"])
def test_a_pattern_the_local_stack_cannot_render_is_an_error(pattern: str) -> None:
    with pytest.raises(ValueError, match=r"local stack|quote"):
        java_timestamp(pattern, MOMENT)


def test_the_prefix_is_rendered_at_the_arrival_in_utc() -> None:
    # Given: an arrival given in another offset
    arrival = MOMENT.astimezone(timezone(timedelta(hours=-8)))

    # When
    prefix = render_prefix("raw/dt=!{timestamp:yyyy-MM-dd}/hour=!{timestamp:HH}/", arrival)

    # Then
    assert prefix == "raw/dt=2026-03-04/hour=05/"


def test_an_unknown_expression_is_an_error() -> None:
    with pytest.raises(ValueError, match="partitionKeyFromQuery"):
        render_prefix("raw/!{partitionKeyFromQuery:room}/", MOMENT)


def test_without_a_prefix_or_extension_firehose_defaults_apply() -> None:
    # When
    key = object_key({"CompressionFormat": "GZIP"}, "stream", "3", MOMENT, "id")

    # Then
    assert key == "2026/03/04/05/stream-3-2026-03-04-05-06-07-id.gz"


def test_the_body_is_the_records_concatenated_as_sent() -> None:
    # When
    gzipped = object_body({"CompressionFormat": "GZIP"}, [b"a\n", b"b"])
    plain = object_body({}, [b"a\n", b"b"])

    # Then
    assert gzip.decompress(gzipped) == plain == b"a\nb"


@pytest.mark.parametrize(
    ("environment", "interval"),
    [
        ({}, LOCAL_INTERVAL_SECONDS),
        ({"ROOMCAST_FIREHOSE_INTERVAL_SECONDS": "2.5"}, 2.5),
        ({"ROOMCAST_FIREHOSE_INTERVAL_SECONDS": "template"}, None),
    ],
)
def test_the_local_interval_comes_from_the_environment(
    environment: dict[str, str], interval: float | None
) -> None:
    assert interval_from_environment(environment) == interval
