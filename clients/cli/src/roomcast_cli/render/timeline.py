"""`messages show`'s timeline: each destination's attempts in time order, offset from the publish,
then its next due attempt while it waits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, details, new_table
from roomcast_cli.render.catalog import schema_error_lines
from roomcast_cli.render.filters import filtered_out_lines
from roomcast_cli.render.text import (
    FINAL_STATUSES,
    Json,
    compact_json,
    event_text,
    excerpt,
    seconds_between,
    show_offset,
    show_time,
)


@dataclass(frozen=True)
class TimelineEntry:
    at: str | None
    since_publish_s: float | None
    attempt: int | None
    event: str
    http_status: int | None = None
    duration_ms: int | None = None
    detail: str = ""


@dataclass
class DestinationTimeline:
    subscription_id: str
    subscription_type: str
    status: str
    attempts: int
    next_attempt_at: str | None
    last_error: str | None
    entries: list[TimelineEntry] = field(default_factory=list)

    @property
    def heading(self) -> str:
        text = f"{self.subscription_id} ({self.subscription_type}): {self.status}, {self.attempts} attempt(s)"
        return text + (
            f", last error: {self.last_error}" if self.last_error and self.status != "delivered" else ""
        )


def attempt_detail(attempt: Json) -> str:
    """The response's start, and the error when it says more than the status code does."""
    error = attempt.get("error")
    if error == f"HTTP {attempt.get('httpStatus')}":
        error = None
    return " · ".join(part for part in (error, excerpt(attempt.get("responseBody"))) if part)


def build_timeline(status: Json, attempts: Sequence[Json]) -> list[DestinationTimeline]:
    """Each destination's attempts in time order, then, while it waits, its next due attempt.
    ``status`` is a MessageStatus, ``attempts`` the message's AttemptView items."""
    published_at = status.get("publishedAt")
    timelines: dict[str, DestinationTimeline] = {}
    for delivery in status.get("deliveries") or []:
        timelines[delivery["subscriptionId"]] = DestinationTimeline(
            delivery["subscriptionId"],
            delivery["subscriptionType"],
            delivery["status"],
            delivery["attempts"],
            delivery.get("nextAttemptAt"),
            delivery.get("lastError"),
        )
    for attempt in sorted(attempts, key=lambda a: (a["startedAt"], a["attempt"])):
        timeline = timelines.get(attempt["subscriptionId"])
        if timeline is None:  # a destination the status no longer lists: show it anyway
            timeline = timelines[attempt["subscriptionId"]] = DestinationTimeline(
                attempt["subscriptionId"], "?", "?", 0, None, None
            )
        detail = attempt_detail(attempt)
        timeline.entries.append(
            TimelineEntry(
                attempt["startedAt"],
                seconds_between(published_at, attempt["startedAt"]),
                attempt["attempt"],
                attempt["event"],
                attempt.get("httpStatus"),
                attempt.get("durationMs"),
                detail or "",
            )
        )
    for timeline in timelines.values():
        if timeline.next_attempt_at and timeline.status not in FINAL_STATUSES:
            timeline.entries.append(
                TimelineEntry(
                    timeline.next_attempt_at,
                    seconds_between(published_at, timeline.next_attempt_at),
                    None,
                    "next due",
                )
            )
    return list(timelines.values())


_TIMELINE_COLUMNS = (
    "TIME (UTC)",
    "SINCE PUBLISH",
    "ATTEMPT",
    "EVENT",
    "STATUS",
    "LATENCY",
    "RESPONSE / ERROR",
)


def _entry_cells(entry: TimelineEntry) -> tuple[str, ...]:
    return (
        show_time(entry.at),
        show_offset(entry.since_publish_s),
        "-" if entry.attempt is None else str(entry.attempt),
        entry.event,
        "-" if entry.http_status is None else str(entry.http_status),
        "-" if entry.duration_ms is None else f"{entry.duration_ms} ms",
        entry.detail,
    )


def message_timeline(data: Json) -> list[RenderableType]:
    """``messages show``: the message, then one table per destination (data: {"message", "attempts"})."""
    status, attempts = data["message"], data["attempts"]
    header = details(
        {
            "messageId": status["messageId"],
            "event": event_text(status),
            "correlationId": status["correlationId"],
            "publishedAt": show_time(status["publishedAt"]),
            "expiresAt": show_time(status.get("expiresAt")) if status.get("expiresAt") else "never",
            "payload": excerpt(compact_json(status["payload"]), 200),
        }
    )
    shown: list[RenderableType] = [header]
    timelines = build_timeline(status, attempts)
    if not timelines:
        shown.append(Text("no destinations: nothing matched the message when it was published"))
    shown.extend(filtered_out_lines(status.get("filteredOut")))
    shown.extend(schema_error_lines(status.get("schemaErrors")))
    for timeline in timelines:
        table = new_table(*_TIMELINE_COLUMNS)
        for entry in timeline.entries:
            add_row(table, *_entry_cells(entry))
        if not timeline.entries:
            add_row(table, "-", "-", "-", "no attempt yet", "-", "-", "")
        shown.extend([Text(""), Text(timeline.heading, style="bold"), table])
    return [Group(*shown)]
