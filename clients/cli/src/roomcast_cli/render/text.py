"""Small values as people read them: times, offsets, excerpts, JSON on one line, event types and
a message's delivery summary. Plain strings, no rich."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from roomcast_cli._enums import DELIVERY_STATUSES

Json = Mapping[str, Any]

EXCERPT_CHARS = 60
# The delivery statuses a delivery still moves on from (the API's document lists its statuses,
# DELIVERY_STATUSES, but not which of them are final): every other status is final, so a status
# the API adds is final here until it is named below (tests/unit/test_generated_clients.py).
IN_FLIGHT_STATUSES = frozenset({"scheduled", "waiting", "pending", "retrying"})
FINAL_STATUSES = frozenset(DELIVERY_STATUSES) - IN_FLIGHT_STATUSES


def parse_time(value: str | None) -> datetime | None:
    """An API timestamp (ISO 8601, ``Z`` for UTC) as an aware datetime; None when absent or odd."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def show_time(value: str | None) -> str:
    """``2026-11-22 10:00:01.120`` (UTC, as the API gives it), or ``-``."""
    parsed = parse_time(value)
    if parsed is None:
        return value or "-"
    return parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def seconds_between(earlier: str | None, later: str | None) -> float | None:
    start, end = parse_time(earlier), parse_time(later)
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def show_offset(seconds: float | None) -> str:
    """``+1.02 s`` after a reference time, or ``-``."""
    return "-" if seconds is None else f"{seconds:+.2f} s"


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    """The start of a response body or payload on one line: whitespace runs become one space."""
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def show_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return compact_json(value)


def event_text(message: Json) -> str:
    """A message's event type and version: ``order.created v1``."""
    return f"{message['eventType']} v{message['eventVersion']}"


def event_types_text(event_types: Sequence[Json] | None) -> str:
    """``order.created v1,2; order.paid`` (a name without versions takes every version); ``*`` for all."""
    if not event_types:
        return "*"
    parts = []
    for event_type in event_types:
        versions = event_type.get("versions") or []
        parts.append(f"{event_type['name']} v{','.join(versions)}" if versions else str(event_type["name"]))
    return "; ".join(parts)


def deliveries_summary(deliveries: Iterable[Json]) -> str:
    """``delivered 2, retrying 1`` for a message's destinations."""
    counts: dict[str, int] = {}
    for delivery in deliveries:
        counts[delivery["status"]] = counts.get(delivery["status"], 0) + 1
    return ", ".join(f"{status} {count}" for status, count in counts.items()) or "no destinations"
