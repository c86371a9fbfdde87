"""What users type into the CLI: JSON from an argument, a file or stdin, --set pairs, event-type
filters, times and receipts; each mistake is a CliError (exit code 2) that says what is wrong."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.inputs import (
    iso_utc,
    parse_assignments,
    parse_event_types,
    parse_when,
    read_json_input,
    read_receipts,
)

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_comes_from_the_argument_a_file_or_stdin(tmp_path: Path) -> None:
    # Given
    payload_file = tmp_path / "payload.json"
    payload_file.write_text('{"from": "file"}')

    # When / Then
    assert read_json_input('{"from": "argument"}', None, _Terminal(), "the payload") == {"from": "argument"}
    assert read_json_input(None, payload_file, _Terminal(), "the payload") == {"from": "file"}
    assert read_json_input("-", None, io.StringIO('{"from": "stdin"}'), "the payload") == {"from": "stdin"}
    assert read_json_input(None, None, io.StringIO("[1, 2]"), "the payload") == [1, 2]  # a pipe


def test_invalid_json_is_a_usage_error_naming_the_problem() -> None:
    # When
    with pytest.raises(CliError) as raised:
        read_json_input("{order: 1}", None, _Terminal(), "the payload")

    # Then
    assert raised.value.exit_code is ExitCode.USAGE
    assert raised.value.message.startswith("the payload is not valid JSON: Expecting property name")


@pytest.mark.parametrize(
    ("argument", "file", "stdin", "words"),
    [
        (None, None, _Terminal(), "an argument, --file PATH, or on stdin"),
        ("{}", Path("x.json"), _Terminal(), "not both"),
        (None, Path("/no/such/file.json"), _Terminal(), "Cannot read the payload from /no/such/file.json"),
    ],
)
def test_missing_or_doubled_json_is_a_usage_error(
    argument: str | None, file: Path | None, stdin: io.StringIO, words: str
) -> None:
    with pytest.raises(CliError) as raised:
        read_json_input(argument, file, stdin, "the payload")
    assert words in raised.value.message


def test_assignments_read_json_values_and_keep_other_text() -> None:
    # When
    fields = parse_assignments(
        [
            "deliveryAttempts=5",
            "maxDelayMs=null",
            "retryScheduleMs=[1000,2000]",
            "pushUrl=https://x.test/a=b",
            "name=",
        ]
    )

    # Then
    assert fields == {
        "deliveryAttempts": 5,
        "maxDelayMs": None,
        "retryScheduleMs": [1000, 2000],
        "pushUrl": "https://x.test/a=b",
        "name": "",
    }


@pytest.mark.parametrize("assignment", ["deliveryAttempts", "=5"])
def test_an_assignment_without_a_field_is_refused(assignment: str) -> None:
    with pytest.raises(CliError, match="field=value"):
        parse_assignments([assignment])


def test_event_types_with_and_without_versions() -> None:
    assert parse_event_types(["order.created:1,2", "order.paid"]) == [
        {"name": "order.created", "versions": ["1", "2"]},
        {"name": "order.paid"},
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-22T09:00:00Z", "2026-11-22T09:00:00.000Z"),
        ("2026-11-22T09:00:00", "2026-11-22T09:00:00.000Z"),  # no zone: UTC
        ("2026-11-22T11:00:00+02:00", "2026-11-22T09:00:00.000Z"),
        ("90s", "2026-11-22T09:58:30.000Z"),
        ("15m", "2026-11-22T09:45:00.000Z"),
        ("2h", "2026-11-22T08:00:00.000Z"),
        ("1d", "2026-11-21T10:00:00.000Z"),
    ],
)
def test_times_are_iso_or_a_time_ago(text: str, expected: str) -> None:
    assert iso_utc(parse_when(text, NOW, "--since")) == expected


def test_an_unreadable_time_names_the_option_and_the_forms() -> None:
    with pytest.raises(CliError) as raised:
        parse_when("yesterday", NOW, "--since")
    assert "--since takes an ISO 8601 time" in raised.value.message
    assert "'yesterday'" in raised.value.message


def test_receipts_come_from_arguments_or_lines_on_stdin() -> None:
    assert read_receipts(["r1", "r2"], _Terminal()) == ["r1", "r2"]
    assert read_receipts(["-"], io.StringIO("r1\n\n r2 \n")) == ["r1", "r2"]
    assert read_receipts([], io.StringIO("r3\n")) == ["r3"]
    with pytest.raises(CliError, match="at least one receipt"):
        read_receipts([], _Terminal())
