"""`roomcast filters test`: which subscriptions of a room a message would reach, and why not."""

from __future__ import annotations

from typing import Annotated

import typer

from roomcast_cli import render
from roomcast_cli.common import JsonFlag, RoomId, dump
from roomcast_cli.inputs import parse_json
from roomcast_cli.session import session_of

app = typer.Typer(
    help="Payload filters: dry-run a message against a room's subscriptions.", no_args_is_help=True
)


@app.command("test")
def dry_run(
    context: typer.Context,
    room_id: RoomId,
    payload: Annotated[str, typer.Argument(help="The message's payload, as JSON.", show_default=False)],
    event_type: Annotated[str, typer.Option("--event-type", "-t", help="The message's eventType.")],
    event_version: Annotated[str, typer.Option("--event-version", "-V", help="Its eventVersion.")] = "1",
    filter_policy: Annotated[
        str | None, typer.Option(help="A candidate filter policy (JSON) to try on the payload too.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """For every subscription of the room: would this message reach it now, and if not, why (its
    status, event types, or the first condition of its filter that failed). Publishes nothing."""
    session = session_of(context, json_output)
    answer = session.client.filters.test(
        room_id,
        event_type,
        parse_json(payload, "the payload"),
        event_version=event_version,
        filter_policy=parse_json(filter_policy, "--filter-policy") if filter_policy is not None else None,
    )
    session.output.result(dump(answer), render.filter_test_table)
