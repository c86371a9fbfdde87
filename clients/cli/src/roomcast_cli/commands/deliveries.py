"""`roomcast deliveries …` (list, retry, clear) and `roomcast dead-letters …` (list, replay, purge)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli.common import (
    AllPages,
    Cursor,
    JsonFlag,
    Limit,
    RoomId,
    SubscriptionId,
    Yes,
    dump,
    page_json,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import iso_utc, parse_when
from roomcast_cli.session import confirm, session_of

deliveries_app = typer.Typer(
    help="A subscription's deliveries: list them, retry now, clear pending.", no_args_is_help=True
)
dead_letters_app = typer.Typer(
    help="A subscription's dead letters: list, replay (by ids or time range), purge.", no_args_is_help=True
)

MessageIds = Annotated[
    list[str] | None, typer.Option("--id", metavar="MESSAGE_ID", help="Only this message (repeatable).")
]


class DeliveryStatus(StrEnum):
    pending = "pending"
    retrying = "retrying"
    delivered = "delivered"
    dead = "dead"
    expired = "expired"
    cleared = "cleared"


@deliveries_app.command("list")
def list_deliveries(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    status: Annotated[DeliveryStatus | None, typer.Option(help="Only deliveries in this status.")] = None,
    limit: Limit = None,
    cursor: Cursor = None,
    all_pages: AllPages = False,
    json_output: JsonFlag = False,
) -> None:
    """The subscription's deliveries, newest first."""
    session = session_of(context, json_output)
    filters: dict[str, Any] = {"status": status.value} if status else {}
    page = page_json(
        session,
        "deliveries",
        lambda at: session.client.deliveries.list(
            room_id, subscription_id, limit=limit, cursor=at, **filters
        ),
        cursor,
        all_pages,
    )
    session.output.result(page, render.deliveries_table)


@deliveries_app.command("retry")
def retry(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    message_ids: MessageIds = None,
    json_output: JsonFlag = False,
) -> None:
    """Retrying deliveries of a PUSH subscription (all, or --id's) become due now."""
    session = session_of(context, json_output)
    result = dump(session.client.deliveries.retry(room_id, subscription_id, message_ids=message_ids or None))
    session.output.result(
        result,
        lambda data: render.line(
            f"retried {data['retried']}"
            + (f"; not retrying: {', '.join(data['notRetrying'])}" if data.get("notRetrying") else "")
        ),
    )


@deliveries_app.command("clear")
def clear(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    yes: Yes = False,
    json_output: JsonFlag = False,
) -> None:
    """Every pending, retrying or paused delivery ends `cleared` and is never sent."""
    session = session_of(context, json_output)
    confirm(session, f"Clear every pending delivery of {subscription_id}?", yes)
    result = dump(session.client.deliveries.clear(room_id, subscription_id))
    session.output.result(result, lambda data: render.line(f"cleared {data['cleared']} deliveries"))


@dead_letters_app.command("list")
def list_dead_letters(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    limit: Limit = None,
    cursor: Cursor = None,
    all_pages: AllPages = False,
    json_output: JsonFlag = False,
) -> None:
    """Messages that ended dead for this subscription, with the reason."""
    session = session_of(context, json_output)
    page = page_json(
        session,
        "deadLetters",
        lambda at: session.client.dead_letters.list(room_id, subscription_id, limit=limit, cursor=at),
        cursor,
        all_pages,
    )
    session.output.result(page, render.dead_letters_table)


@dead_letters_app.command("replay")
def replay(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    message_ids: MessageIds = None,
    since: Annotated[
        str | None, typer.Option(help="Letters that died at or after: ISO 8601, or ago (15m, 2h).")
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Letters that died at or before: ISO 8601, or ago.")
    ] = None,
    replay_all: Annotated[bool, typer.Option("--all", help="Replay every dead letter.")] = False,
    json_output: JsonFlag = False,
) -> None:
    """Send dead letters again from attempt 0: by --id, by --since/--until, or --all. A range or
    --all is replayed 100 at a time until none is left."""
    ranged = since is not None or until is not None
    if sum((bool(message_ids), ranged, replay_all)) != 1:
        raise CliError(
            "Say which dead letters to replay: --id MESSAGE_ID (repeatable), --since/--until, or --all."
        )
    now = datetime.now(UTC)
    window = {
        "since": iso_utc(parse_when(since, now, "--since")) if since else None,
        "until": iso_utc(parse_when(until, now, "--until")) if until else None,
    }
    session = session_of(context, json_output)
    total: dict[str, Any] = {"replayed": [], "notFound": [], "alreadyReplaying": [], "remaining": False}
    with session.output.waiting("replaying dead letters…") as progress:
        while True:
            result = dump(
                session.client.dead_letters.replay(
                    room_id, subscription_id, message_ids=message_ids or None, **window
                )
            )
            for name in ("replayed", "notFound", "alreadyReplaying"):
                total[name].extend(result.get(name) or [])
            total["remaining"] = bool(result.get("remaining"))
            # Ids are one call; a range goes on while letters remain and each call replays some.
            if message_ids or not total["remaining"] or not result.get("replayed"):
                break
            progress(f"replaying dead letters… {len(total['replayed'])} so far")
    session.output.result(total, render.replay_result)


@dead_letters_app.command("purge")
def purge(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    yes: Yes = False,
    json_output: JsonFlag = False,
) -> None:
    """Delete every dead letter of the subscription (they cannot be replayed afterwards)."""
    session = session_of(context, json_output)
    confirm(session, f"Delete every dead letter of {subscription_id}?", yes)
    result = dump(session.client.dead_letters.purge(room_id, subscription_id))
    session.output.result(result, lambda data: render.line(f"purged {data['purged']} dead letters"))
