"""Human output: rich tables built from the API's JSON (camelCase dicts), with no I/O, so each is
tested on its own (tests/unit/test_cli_render.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

Json = Mapping[str, Any]

EXCERPT_CHARS = 60
FINAL_STATUSES = frozenset({"delivered", "dead", "expired", "cleared"})


# -- small values -------------------------------------------------------------------------------------


def parse_time(value: str | None) -> datetime | None:
    """An API timestamp (ISO 8601, ``Z`` for timezone.utc) as an aware datetime; None when absent or odd."""
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


def _table(*columns: str) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None)
    for column in columns:
        table.add_column(column, no_wrap=column in {"ID", "SUBSCRIPTION", "MESSAGE", "KEY ID"})
    table.columns[0].header_style = "bold"
    return table


def _add_row(table: Table, *cells: str) -> None:
    """Cells as plain text: a payload's ``[true]`` or a name's ``[bold]`` is shown, never read as markup."""
    table.add_row(*(Text(cell) for cell in cells))


def details(data: Json, hide: Iterable[str] = ()) -> Table:
    """One object as ``field  value`` lines, in the API's order."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    hidden = set(hide)
    for name, value in data.items():
        if name not in hidden:
            _add_row(table, name, show_value(value))
    return table


def more_hint(next_cursor: str | None) -> list[RenderableType]:
    if not next_cursor:
        return []
    return [Text(f"more: --cursor {next_cursor}  (or --all)", style="dim")]


# -- rooms, subscriptions, keys ------------------------------------------------------------------------


def rooms_table(page: Json) -> list[RenderableType]:
    table = _table("ID", "NAME", "DELAY MS", "MULTIPLIER", "RETRIES", "EXPIRATION MS", "EVENT TYPES")
    for room in page["rooms"]:
        _add_row(
            table,
            room["id"],
            room["name"],
            str(room["deliveryDelayMs"]),
            show_value(room["deliveryDelayMultiplier"]),
            str(room["deliveryAttempts"]),
            show_value(room.get("messageExpirationMs")),
            event_types_text(room.get("eventTypes")),
        )
    return [table, *more_hint(page.get("nextCursor"))] if page["rooms"] else [Text("no rooms")]


def subscriptions_table(page: Json) -> list[RenderableType]:
    table = _table("ID", "TYPE", "STATUS", "TARGET", "EVENT TYPES", "RETRIES")
    for subscription in page["subscriptions"]:
        _add_row(
            table,
            subscription["id"],
            subscription["type"],
            subscription["status"],
            subscription.get("pushUrl") or "pull queue",
            event_types_text(subscription.get("eventTypes")),
            show_value(subscription.get("deliveryAttempts"))
            + ("" if subscription.get("deliveryAttempts") is not None else " (room's)"),
        )
    if not page["subscriptions"]:
        return [Text("no subscriptions")]
    return [table, *more_hint(page.get("nextCursor"))]


def subscription_details(subscription: Json) -> list[RenderableType]:
    """A subscription; a new secret (create, rotate) is called out, since it is shown only once."""
    shown: list[RenderableType] = [details(subscription, hide=("signingSecret",))]
    secret = subscription.get("signingSecret")
    if secret:
        shown.append(
            Text(f"signing secret (shown once, store it): {secret}", style="bold yellow", no_wrap=True)
        )
    return shown


def rotated_secret(rotated: Json) -> list[RenderableType]:
    until = rotated.get("previousSecretsValidUntil")
    lines: list[RenderableType] = [
        Text(
            f"new signing secret (shown once, store it): {rotated['signingSecret']}",
            style="bold yellow",
            no_wrap=True,
        )
    ]
    if until:
        lines.append(Text(f"the previous secrets keep signing until {show_time(until)} UTC"))
    return lines


def schedule_table(preview: Json) -> list[RenderableType]:
    table = _table("ATTEMPT", "WAIT BEFORE", "SINCE PUBLISH", "")
    for attempt in preview["attempts"]:
        _add_row(
            table,
            str(attempt["attempt"]),
            f"{attempt['delayMs'] / 1000:g} s",
            f"{attempt['sincePublishMs'] / 1000:g} s",
            "cut by expiry" if attempt.get("cutByExpiry") else "",
        )
    return [
        Text(f"policy of {preview['subscriptionId']}", style="bold"),
        details(preview["policy"]),
        table,
        Text(preview.get("note", ""), style="dim"),
    ]


def api_keys_table(page: Json) -> list[RenderableType]:
    table = _table("KEY ID", "NAME", "CREATED", "")
    for key in page["apiKeys"]:
        _add_row(
            table,
            key["keyId"],
            key.get("name") or "",
            show_time(key.get("createdAt")),
            "current" if key.get("current") else "",
        )
    return [table, *more_hint(page.get("nextCursor"))]


def created_api_key(created: Json) -> list[RenderableType]:
    return [
        details(created, hide=("key",)),
        Text(f"API key (shown once, store it): {created['key']}", style="bold yellow", no_wrap=True),
    ]


# -- messages, deliveries, dead letters ---------------------------------------------------------------


def publish_result(result: Json) -> list[RenderableType]:
    destinations = result.get("destinations") or []
    return [
        Text(f"published {result['messageId']} to {len(destinations)} destination(s)"),
        details(result),
    ]


def publish_batch_result(result: Json) -> list[RenderableType]:
    table = _table("#", "STATUS", "MESSAGE", "DETAIL")
    for index, item in enumerate(result["results"]):
        if item.get("error"):
            _add_row(
                table,
                str(index),
                str(item["status"]),
                "-",
                f"{item['error']['code']}: {item['error']['message']}",
            )
        else:
            _add_row(
                table,
                str(index),
                str(item["status"]),
                item["messageId"],
                f"{len(item.get('destinations') or [])} destination(s)",
            )
    return [table, Text(f"{result['failedCount']} refused of {len(result['results'])}")]


def messages_table(page: Json) -> list[RenderableType]:
    table = _table("MESSAGE", "EVENT", "PUBLISHED", "CORRELATION", "DELIVERIES")
    for message in page["messages"]:
        _add_row(
            table,
            message["messageId"],
            f"{message['eventType']} v{message['eventVersion']}",
            show_time(message["publishedAt"]),
            message["correlationId"],
            deliveries_summary(message.get("deliveries") or []),
        )
    if not page["messages"]:
        return [Text("no messages")]
    return [table, *more_hint(page.get("nextCursor"))]


def deliveries_table(page: Json) -> list[RenderableType]:
    table = _table("MESSAGE", "EVENT", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR")
    for delivery in page["deliveries"]:
        _add_row(
            table,
            delivery["messageId"],
            f"{delivery['eventType']} v{delivery['eventVersion']}",
            delivery["status"],
            str(delivery["attempts"]),
            show_time(delivery.get("nextAttemptAt")),
            excerpt(delivery.get("lastError")),
        )
    if not page["deliveries"]:
        return [Text("no deliveries")]
    return [table, *more_hint(page.get("nextCursor"))]


def dead_letters_table(page: Json) -> list[RenderableType]:
    table = _table("MESSAGE", "EVENT", "DIED", "ATTEMPTS", "REASON")
    for letter in page["deadLetters"]:
        _add_row(
            table,
            letter["messageId"],
            f"{letter['eventType']} v{letter['eventVersion']}",
            show_time(letter["deadAt"]),
            str(letter["attempts"]),
            excerpt(letter.get("reason")),
        )
    if not page["deadLetters"]:
        return [Text("no dead letters")]
    return [table, *more_hint(page.get("nextCursor"))]


def replay_result(result: Json) -> list[RenderableType]:
    lines: list[RenderableType] = [Text(f"replayed {len(result['replayed'])} dead letter(s)")]
    for name, label in (("notFound", "not found"), ("alreadyReplaying", "already being replayed")):
        if result.get(name):
            lines.append(Text(f"{label}: {', '.join(result[name])}"))
    if result.get("remaining"):
        lines.append(Text("more dead letters remain: run it again", style="yellow"))
    return lines


def pulled_messages(data: Json) -> list[RenderableType]:
    messages = data["messages"]
    if not messages:
        return [Text("no messages")]
    table = _table("MESSAGE", "EVENT", "ATTEMPT", "PUBLISHED", "PAYLOAD")
    for message in messages:
        _add_row(
            table,
            message["messageId"],
            f"{message['eventType']} v{message['eventVersion']}",
            str(message["attempt"]),
            show_time(message["publishedAt"]),
            excerpt(compact_json(message["payload"])),
        )
    # Receipts are long: one per line, never folded, so each copies whole.
    receipts = [Text(m["receipt"], no_wrap=True, overflow="ignore") for m in messages]
    return [table, Text("receipts (for ack, nack, extend):", style="dim"), *receipts]


def receipts_result(data: Json) -> list[RenderableType]:
    """The answer of ack, nack or extend: what succeeded, then what failed and why."""
    lines: list[RenderableType] = []
    for name in ("acked", "extended"):
        if name in data:
            lines.append(
                Text(f"{name} {len(data[name])}: {', '.join(data[name])}" if data[name] else f"{name} 0")
            )
    for outcome in data.get("nacked", []):
        when = (
            f", next attempt at {show_time(outcome['nextAttemptAt'])}" if outcome.get("nextAttemptAt") else ""
        )
        lines.append(Text(f"nacked {outcome['messageId']}: {outcome['outcome']}{when}"))
    for failure in data.get("failed", []):
        lines.append(
            Text(f"failed {failure.get('messageId') or failure['receipt']}: {failure['error']}", style="red")
        )
    return lines


# -- a message's timeline ------------------------------------------------------------------------------


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


def message_timeline(data: Json) -> list[RenderableType]:
    """``messages show``: the message, then one table per destination (data: {"message", "attempts"})."""
    status, attempts = data["message"], data["attempts"]
    header = details(
        {
            "messageId": status["messageId"],
            "event": f"{status['eventType']} v{status['eventVersion']}",
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
    for timeline in timelines:
        table = _table(
            "TIME (timezone.utc)",
            "SINCE PUBLISH",
            "ATTEMPT",
            "EVENT",
            "STATUS",
            "LATENCY",
            "RESPONSE / ERROR",
        )
        for entry in timeline.entries:
            _add_row(
                table,
                show_time(entry.at),
                show_offset(entry.since_publish_s),
                "-" if entry.attempt is None else str(entry.attempt),
                entry.event,
                "-" if entry.http_status is None else str(entry.http_status),
                "-" if entry.duration_ms is None else f"{entry.duration_ms} ms",
                entry.detail,
            )
        if not timeline.entries:
            _add_row(table, "-", "-", "-", "no attempt yet", "-", "-", "")
        shown.extend([Text(""), Text(timeline.heading, style="bold"), table])
    return [Group(*shown)]


def webhook_line(delivery: Json) -> Text:
    """``roomcast listen``'s line for one verified delivery."""
    body = delivery.get("body") or {}
    if not isinstance(body, Mapping):
        received = show_time(delivery.get("receivedAt"))
        return Text(f"{received}  {delivery.get('webhookId', '')}  {excerpt(compact_json(body), 120)}")
    return Text(
        f"{show_time(delivery.get('receivedAt'))}  {body.get('eventType', '?')} "
        f"v{body.get('eventVersion', '?')}  {body.get('messageId', delivery.get('webhookId', '?'))}  "
        f"attempt {body.get('attempt', '?')}  "
        f"{excerpt(compact_json(body.get('payload')), 120)}  [signature ok → {delivery.get('answered')}]"
    )


def line(text: str) -> Text:
    """A one-line answer (deleted, retried, cleared …)."""
    return Text(text)
