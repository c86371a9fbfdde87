"""`roomcast publish` (now, or at a time) and `roomcast messages …` (list, show with each
destination's timeline, cancel a scheduled one)."""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli._enums import DELIVERY_STATUSES
from roomcast_cli.common import JsonFlag, RoomId, dump, paging_options, print_pages, with_options
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.inputs import iso_utc, parse_wait_ms, parse_when, read_json_input
from roomcast_cli.session import Session, session_of

app = typer.Typer(
    help="Messages of a room: list them, show one with each destination's timeline.", no_args_is_help=True
)

MessageId = Annotated[str, typer.Argument(help="The message's id (msg_…).", show_default=False)]
POLL_INTERVAL_S = 0.5


def publish(
    context: typer.Context,
    room_id: RoomId,
    payload: Annotated[
        str | None,
        typer.Argument(
            help="The payload as JSON; - reads stdin (as does a pipe with no argument).", show_default=False
        ),
    ] = None,
    event_type: Annotated[
        str | None, typer.Option("--event-type", "-t", help="The message's eventType.")
    ] = None,
    event_version: Annotated[
        str, typer.Option("--event-version", "-V", help="The message's eventVersion.")
    ] = "1",
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Read the JSON from this file.", dir_okay=False)
    ] = None,
    correlation_id: Annotated[
        str | None, typer.Option(help="The correlationId (else the API makes one).")
    ] = None,
    destination: Annotated[
        list[str] | None,
        typer.Option("--destination", "-d", help="Send only to this subscription (repeatable)."),
    ] = None,
    idempotency_key: Annotated[
        str | None, typer.Option(help="Idempotency-Key: a retry with the same key publishes once.")
    ] = None,
    deliver_at: Annotated[
        str | None,
        typer.Option(
            help="Deliver at this time: RFC 3339 with its offset (2026-12-01T09:00:00Z), up to a year ahead."
        ),
    ] = None,
    deliver_in: Annotated[
        str | None, typer.Option(help="Deliver after this wait: 90s, 15m, 2h or 3d (up to 365d).")
    ] = None,
    ordering_key: Annotated[
        str | None,
        typer.Option(help="orderingKey: ordered subscriptions get a key's messages one at a time, in order."),
    ] = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="The JSON is a list of whole messages ({eventType, eventVersion, payload, …}), "
            "published in one "
            "request (up to 100); exits 1 when any was refused.",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Publish a message to a room: its payload from an argument, a file or stdin."""
    data = read_json_input(payload, file, sys.stdin, "the batch" if batch else "the payload")
    if batch:
        _publish_batch(context, room_id, data, json_output)
        return
    if not event_type:
        raise CliError("Give the message's event type: --event-type NAME (-t).")
    session = session_of(context, json_output)
    fields: dict[str, Any] = {"event_version": event_version}
    if correlation_id is not None:
        fields["correlation_id"] = correlation_id
    if destination:
        fields["destinations"] = destination
    if deliver_at is not None and deliver_in is not None:
        raise CliError("Give --deliver-at or --deliver-in, not both.")
    if deliver_at is not None:
        fields["deliver_at"] = deliver_at
    if deliver_in is not None:
        fields["deliver_after_ms"] = parse_wait_ms(deliver_in, "--deliver-in")
    if ordering_key is not None:
        fields["ordering_key"] = ordering_key
    result = dump(
        session.client.messages.publish(
            room_id, data, event_type=event_type, idempotency_key=idempotency_key, **fields
        )
    )
    session.output.result(result, render.publish_result)


def _publish_batch(context: typer.Context, room_id: str, messages: Any, json_output: bool) -> None:
    if not isinstance(messages, list) or not all(isinstance(message, dict) for message in messages):
        raise CliError(
            "With --batch the JSON must be a list of message objects ({eventType, eventVersion, payload})."
        )
    session = session_of(context, json_output)
    result = dump(session.client.messages.publish_batch(room_id, messages))
    session.output.result(result, render.publish_batch_result)
    if result.get("failedCount"):
        raise typer.Exit(ExitCode.REFUSED)


@app.command("list")
@with_options(paging_options)
def list_messages(
    context: typer.Context,
    room_id: RoomId,
    event_type: Annotated[
        str | None, typer.Option("--event-type", "-t", help="Only this event type.")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Published at or after: ISO 8601, or ago (15m, 2h).")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Published at or before: ISO 8601, or ago.")] = None,
    scheduled: Annotated[
        bool, typer.Option("--scheduled", help="Only messages waiting for their time, soonest first.")
    ] = False,
    **options: Any,
) -> None:
    """A room's messages, newest first, each with its deliveries' status."""
    now = datetime.now(UTC)
    filters: dict[str, Any] = {"scheduled": True} if scheduled else {}
    if event_type:
        filters["event_type"] = event_type
    if since:
        filters["since"] = iso_utc(parse_when(since, now, "--since"))
    if until:
        filters["until"] = iso_utc(parse_when(until, now, "--until"))
    print_pages(
        context,
        options,
        "messages",
        render.messages_table,
        lambda client, limit, at: client.messages.list(room_id, limit=limit, cursor=at, **filters),
    )


@app.command("cancel")
def cancel(
    context: typer.Context, room_id: RoomId, message_id: MessageId, json_output: JsonFlag = False
) -> None:
    """Cancel a scheduled message before its time: it is never delivered."""
    session = session_of(context, json_output)
    result = dump(session.client.messages.cancel(room_id, message_id))
    session.output.result(result, render.cancelled_message)


@app.command("show")
def show(
    context: typer.Context,
    room_id: RoomId,
    message_id: MessageId,
    subscription: Annotated[
        str | None, typer.Option("--subscription", "-s", help="Only this destination's attempts.")
    ] = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait",
            help="Wait until every delivery has ended: "
            f"{', '.join(s for s in DELIVERY_STATUSES if s in render.FINAL_STATUSES)}.",
        ),
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=0, help="With --wait: give up after this many seconds (exit code 5).")
    ] = 60.0,
    json_output: JsonFlag = False,
) -> None:
    """A message, its deliveries and each destination's timeline of attempts (time, status code,
    latency, response excerpt, next due). --json prints {"message": <status>, "attempts": [...]}."""
    session = session_of(context, json_output)
    if wait:
        status = _wait_until_final(session, room_id, message_id, timeout)
    else:
        status = dump(session.client.messages.get(room_id, message_id))
    attempts = [
        dump(attempt)
        for attempt in session.client.messages.iter_attempts(room_id, message_id, **_only(subscription))
    ]
    session.output.result({"message": status, "attempts": attempts}, render.message_timeline)


def _only(subscription: str | None) -> dict[str, str]:
    return {"subscription_id": subscription} if subscription else {}


def _wait_until_final(session: Session, room_id: str, message_id: str, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    with session.output.waiting(f"waiting for {message_id}'s deliveries to end…") as progress:
        while True:
            status: dict[str, Any] = dump(session.client.messages.get(room_id, message_id))
            deliveries = status.get("deliveries") or []
            if all(delivery["status"] in render.FINAL_STATUSES for delivery in deliveries):
                return status
            if time.monotonic() >= deadline:
                raise CliError(
                    f"{message_id}'s deliveries had not ended after {timeout_s:g} s: "
                    f"{render.deliveries_summary(deliveries)}.",
                    ExitCode.TIMED_OUT,
                )
            progress(f"waiting for {message_id}: {render.deliveries_summary(deliveries)}")
            time.sleep(POLL_INTERVAL_S)
