"""`roomcast rooms …`: create, list, show, patch, delete."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli.common import (
    JsonFlag,
    RoomId,
    confirm_options,
    confirmed_session,
    dump,
    edit_options,
    list_command,
    print_job,
    request_fields,
    retry_options,
    with_options,
)
from roomcast_cli.exit_codes import CliError
from roomcast_cli.session import session_of

app = typer.Typer(
    help="Rooms: where messages are published, with their default delivery policy.", no_args_is_help=True
)

EventTypes = Annotated[
    list[str] | None,
    typer.Option(
        "--event-type",
        "-e",
        metavar="NAME[:V1,V2]",
        help="An event type the room accepts (repeatable; none = any).",
    ),
]
ExpirationMs = Annotated[
    int | None, typer.Option(help="messageExpirationMs: messages expire this long after publish (0 = never).")
]
OperationsRoom = Annotated[
    str | None,
    typer.Option(help="operationsRoomId: the room that receives roomcast's events about this one."),
]


def room_options(
    message_expiration_ms: ExpirationMs = None,
    event_type: EventTypes = None,
    operations_room: OperationsRoom = None,
) -> None:
    """The options of create and patch that set a room's fields, after its delivery policy's."""


# The options of create and patch that set a room's fields.
_FIELD_OPTIONS = (retry_options, room_options)


def _room_fields(name: str | None, options: dict[str, Any]) -> dict[str, Any]:
    return request_fields(_FIELD_OPTIONS, options, renamed={"operations_room": "operationsRoomId"}, name=name)


@app.command("create")
@with_options(*_FIELD_OPTIONS, edit_options)
def create(
    context: typer.Context, name: Annotated[str, typer.Argument(help="The room's name.")], **options: Any
) -> None:
    """Create a room."""
    session = session_of(context, options["json_output"])
    room = dump(session.client.rooms.create(**_room_fields(name, options)))
    session.output.result(room, render.details)


list_command(
    app,
    "List your rooms.",
    "rooms",
    render.rooms_table,
    lambda client, limit, at: client.rooms.list(limit=limit, cursor=at),
)


@app.command("show")
def show(context: typer.Context, room_id: RoomId, json_output: JsonFlag = False) -> None:
    """Show a room."""
    session = session_of(context, json_output)
    session.output.result(dump(session.client.rooms.get(room_id)), render.details)


@app.command("patch")
@with_options(*_FIELD_OPTIONS, edit_options)
def patch(
    context: typer.Context,
    room_id: RoomId,
    name: Annotated[str | None, typer.Option(help="A new name.")] = None,
    **options: Any,
) -> None:
    """Change a room's fields (only those given; --set field=null clears one)."""
    session = session_of(context, options["json_output"])
    fields = _room_fields(name, options)
    if not fields:
        raise CliError("Nothing to change: give at least one option or --set field=value.")
    room = dump(session.client.rooms.update(room_id, **fields))
    session.output.result(room, render.details)


@app.command("delete")
@with_options(confirm_options)
def delete(context: typer.Context, room_id: RoomId, **options: Any) -> None:
    """Delete a room with its subscriptions and their queues."""
    session = confirmed_session(context, options, f"Delete room {room_id} with its subscriptions?")
    print_job(session, session.client.rooms.delete(room_id), "deleting the room")
