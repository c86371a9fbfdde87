"""Reading what users type: JSON from an argument, a file or stdin, ``--set field=value`` pairs,
event-type filters and times. Pure functions; a bad input is a CliError (exit code 2) that says
what is wrong before any request is made."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from roomcast_cli.exit_codes import CliError

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d)$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise CliError(f"{what} is not valid JSON: {error}") from None


def read_json_input(argument: str | None, file: Path | None, stdin: TextIO, what: str) -> Any:
    """The JSON given as the argument (``-`` reads stdin), with ``--file``, or piped on stdin."""
    if argument is not None and file is not None:
        raise CliError(f"Give {what} as an argument or with --file, not both.")
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"Cannot read {what} from {file}: {error.strerror or error}") from None
        return parse_json(text, f"{what} in {file}")
    if argument == "-" or (argument is None and not stdin.isatty()):
        return parse_json(stdin.read(), f"{what} on stdin")
    if argument is None:
        raise CliError(f"Give {what} as JSON: an argument, --file PATH, or on stdin (-).")
    return parse_json(argument, what)


def parse_assignments(assignments: Iterable[str]) -> dict[str, Any]:
    """``--set deliveryAttempts=5 --set maxDelayMs=null --set pushUrl=https://…``: the value is read
    as JSON when it is JSON (numbers, null, true, lists, objects), else taken as a string."""
    fields: dict[str, Any] = {}
    for assignment in assignments:
        name, equals, raw = assignment.partition("=")
        name = name.strip()
        if not equals or not name:
            raise CliError(f"--set takes field=value (for example deliveryAttempts=5), got {assignment!r}.")
        try:
            fields[name] = json.loads(raw)
        except ValueError:
            fields[name] = raw
    return fields


def parse_event_types(specs: Iterable[str]) -> list[dict[str, Any]]:
    """``order.created`` (every version) or ``order.created:1,2`` → the API's eventTypes list."""
    event_types = []
    for spec in specs:
        name, _, versions = spec.partition(":")
        if not name:
            raise CliError(f"--event-type takes NAME or NAME:VERSION[,VERSION…], got {spec!r}.")
        entry: dict[str, Any] = {"name": name}
        if versions:
            entry["versions"] = [version.strip() for version in versions.split(",") if version.strip()]
        event_types.append(entry)
    return event_types


def parse_when(text: str, now: datetime, option: str) -> datetime:
    """An ISO 8601 time (UTC when it names no zone) or a time ago: ``90s``, ``15m``, ``2h``, ``1d``."""
    relative = _RELATIVE.match(text.strip())
    if relative:
        return now - timedelta(seconds=float(relative.group(1)) * _UNIT_SECONDS[relative.group(2)])
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CliError(
            f"{option} takes an ISO 8601 time (2026-11-22T10:00:00Z) or a time ago "
            f"(30s, 15m, 2h, 1d), got {text!r}."
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_wait_ms(text: str, option: str) -> int:
    """A wait as 90s, 15m, 2h or 3d: milliseconds."""
    found = _RELATIVE.match(text.strip())
    if found is None:
        raise CliError(f"{option} takes a wait like 90s, 15m, 2h or 3d, got {text!r}.")
    return round(float(found.group(1)) * _UNIT_SECONDS[found.group(2)] * 1000)


def iso_utc(moment: datetime) -> str:
    """The API's spelling: ``2026-11-22T10:00:00.000Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def read_receipts(arguments: list[str], stdin: TextIO) -> list[str]:
    """Receipts as arguments, or one per line on stdin (``-`` or nothing given with a pipe)."""
    if arguments and arguments != ["-"]:
        return arguments
    if arguments == ["-"] or not stdin.isatty():
        receipts = [line.strip() for line in stdin.read().splitlines() if line.strip()]
        if receipts:
            return receipts
    raise CliError("Give at least one receipt: as arguments, or one per line on stdin.")
