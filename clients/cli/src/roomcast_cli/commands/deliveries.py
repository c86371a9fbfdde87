"""`roomcast deliveries …` (list, retry, clear) and `roomcast dead-letters …` (list, replay, purge)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.console import RenderableType

from roomcast_cli import render
from roomcast_cli._enums import DeliveryStatus
from roomcast_cli.common import (
    JsonFlag,
    RoomId,
    SubscriptionId,
    confirm_options,
    confirmed_session,
    dump,
    paging_options,
    print_job,
    print_pages,
    with_options,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import iso_utc, parse_when
from roomcast_cli.session import session_of

deliveries_app = typer.Typer(
    help="A subscription's deliveries: list them, retry now, clear pending.", no_args_is_help=True
)
dead_letters_app = typer.Typer(
    help="A subscription's dead letters: list, replay (by ids or time range), purge.", no_args_is_help=True
)

MessageIds = Annotated[
    list[str] | None, typer.Option("--id", metavar="MESSAGE_ID", help="Only this message (repeatable).")
]


@deliveries_app.command("list")
@with_options(paging_options)
def list_deliveries(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    status: Annotated[DeliveryStatus | None, typer.Option(help="Only deliveries in this status.")] = None,
    **options: Any,
) -> None:
    """The subscription's deliveries, newest first."""
    filters: dict[str, Any] = {"status": status.value} if status else {}
    print_pages(
        context,
        options,
        "deliveries",
        render.deliveries_table,
        lambda client, limit, at: client.deliveries.list(
            room_id, subscription_id, limit=limit, cursor=at, **filters
        ),
    )


def _job_command(
    app: typer.Typer, name: str, summary: str, question: str, start: Callable[..., Any], doing: str
) -> None:
    """Registers a destructive command on one subscription: once the user said yes to ``question``
    (``{}`` is the subscription's id), the job ``start(client, room_id, subscription_id)`` begins,
    waited for and printed."""

    @app.command(name, help=summary)
    @with_options(confirm_options)
    def command(
        context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, **options: Any
    ) -> None:
        session = confirmed_session(context, options, question.format(subscription_id))
        print_job(session, start(session.client, room_id, subscription_id), doing)


def _retried_line(data: dict[str, Any]) -> RenderableType:
    not_retrying = f"; not retrying: {', '.join(data['notRetrying'])}" if data.get("notRetrying") else ""
    return render.line(f"retried {data['retried']}{not_retrying}")


@deliveries_app.command("retry")
def retry(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    message_ids: MessageIds = None,
    json_output: JsonFlag = False,
) -> None:
    """Retrying deliveries of a PUSH subscription become due now: --id's before the answer, or
    all of them by a job, waited for."""
    session = session_of(context, json_output)
    if message_ids:
        result = dump(session.client.deliveries.retry(room_id, subscription_id, message_ids))
        session.output.result(result, _retried_line)
        return
    print_job(session, session.client.deliveries.retry_all(room_id, subscription_id), "retrying deliveries")


_job_command(
    deliveries_app,
    "clear",
    "Every pending, retrying or paused delivery ends `cleared` and is never sent.",
    "Clear every pending delivery of {}?",
    lambda client, room, sub: client.deliveries.clear(room, sub),
    "clearing",
)


@dead_letters_app.command("list")
@with_options(paging_options)
def list_dead_letters(
    context: typer.Context, room_id: RoomId, subscription_id: SubscriptionId, **options: Any
) -> None:
    """Messages that ended dead for this subscription, with the reason."""
    print_pages(
        context,
        options,
        "deadLetters",
        render.dead_letters_table,
        lambda client, limit, at: client.dead_letters.list(room_id, subscription_id, limit=limit, cursor=at),
    )


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
    """Send dead letters again from attempt 0: by --id, or every one that died --since/--until
    (or --all) by a job, waited for."""
    ranged = since is not None or until is not None
    if sum((bool(message_ids), ranged, replay_all)) != 1:
        raise CliError(
            "Say which dead letters to replay: --id MESSAGE_ID (repeatable), --since/--until, or --all."
        )
    session = session_of(context, json_output)
    if message_ids:
        result = dump(session.client.dead_letters.replay(room_id, subscription_id, message_ids))
        session.output.result(result, render.replay_result)
        return
    now = datetime.now(UTC)
    window = {
        "since": iso_utc(parse_when(since, now, "--since")) if since else None,
        "until": iso_utc(parse_when(until, now, "--until")) if until else None,
    }
    started = session.client.dead_letters.replay_all(room_id, subscription_id, **window)
    print_job(session, started, "replaying dead letters")


_job_command(
    dead_letters_app,
    "purge",
    "Delete every dead letter of the subscription (they cannot be replayed afterwards).",
    "Delete every dead letter of {}?",
    lambda client, room, sub: client.dead_letters.purge(room, sub),
    "purging",
)
