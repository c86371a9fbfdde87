"""`roomcast api-keys …`: create, list, delete (revoke) the tenant's API keys."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli._enums import ApiKeyScope
from roomcast_cli.common import JsonFlag, confirm_options, confirmed_session, dump, list_command, with_options
from roomcast_cli.session import session_of

app = typer.Typer(help="Your tenant's API keys: create (shown once), list, revoke.", no_args_is_help=True)


@app.command("create")
def create(
    context: typer.Context,
    name: Annotated[str | None, typer.Option(help="What the key is for (1-100 characters).")] = None,
    scope: Annotated[
        list[ApiKeyScope] | None,
        typer.Option(help="What it may do (repeat for several; default admin: everything)."),
    ] = None,
    room: Annotated[
        list[str] | None, typer.Option(help="The only rooms it works on (repeat; default every room).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Create an API key; the key itself is shown only in this answer."""
    session = session_of(context, json_output)
    scopes = [str(one.value) for one in scope] if scope else None
    created = dump(session.client.api_keys.create(name=name, scopes=scopes, rooms=room or None))
    session.output.result(created, render.created_api_key)


list_command(
    app,
    "Your tenant's keys (ids and names; `current` is the one in use).",
    "apiKeys",
    render.api_keys_table,
    lambda client, limit, at: client.api_keys.list(limit=limit, cursor=at),
)


@app.command("delete")
@with_options(confirm_options)
def delete(
    context: typer.Context,
    key_id: Annotated[str, typer.Argument(help="The key's id (key_…), from list.", show_default=False)],
    **options: Any,
) -> None:
    """Revoke a key (it keeps working until the authorizer's cache forgets it, up to 5 minutes)."""
    session = confirmed_session(context, options, f"Revoke API key {key_id}?")
    session.client.api_keys.delete(key_id)
    session.output.result({"deleted": key_id}, lambda _d: render.line(f"revoked API key {key_id}"))
