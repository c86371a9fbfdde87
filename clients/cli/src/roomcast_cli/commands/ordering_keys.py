"""`roomcast ordering-keys …`: an ordered subscription's paused keys, and their resume."""

from __future__ import annotations

from typing import Annotated

import typer

from roomcast_cli import render
from roomcast_cli.common import JsonFlag, RoomId, SubscriptionId, dump
from roomcast_cli.session import session_of

app = typer.Typer(
    help="Ordered subscriptions' keys: list the paused ones, resume one (docs/ordering-keys.md).",
    no_args_is_help=True,
)


@app.command("paused")
def paused(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    limit: Annotated[int | None, typer.Option(help="At most this many (1-100).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """The subscription's paused keys, longest paused first, with the message each waits behind."""
    session = session_of(context, json_output)
    listed = dump(session.client.ordering_keys.paused(room_id, subscription_id, limit=limit))
    session.output.result(listed, render.paused_keys_table)


@app.command("resume")
def resume(
    context: typer.Context,
    room_id: RoomId,
    subscription_id: SubscriptionId,
    ordering_key: Annotated[str, typer.Argument(help="The paused key.", show_default=False)],
    skip: Annotated[
        bool, typer.Option("--skip", help="Leave the dead message dead and send the key's next one.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Resume a paused key: its dead message sent again first (or, with --skip, the next one)."""
    session = session_of(context, json_output)
    resumed = dump(session.client.ordering_keys.resume(room_id, subscription_id, ordering_key, skip=skip))
    session.output.result(resumed, render.details)
