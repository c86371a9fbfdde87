"""`roomcast api-keys …`: create, list, delete (revoke) the tenant's API keys."""

from __future__ import annotations

from typing import Annotated

import typer

from roomcast_cli import render
from roomcast_cli.common import AllPages, Cursor, JsonFlag, Limit, Yes, dump, page_json
from roomcast_cli.session import confirm, session_of

app = typer.Typer(help="Your tenant's API keys: create (shown once), list, revoke.", no_args_is_help=True)


@app.command("create")
def create(
    context: typer.Context,
    name: Annotated[str | None, typer.Option(help="What the key is for (1-100 characters).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Create an API key; the key itself is shown only in this answer."""
    session = session_of(context, json_output)
    created = dump(session.client.api_keys.create(name=name))
    session.output.result(created, render.created_api_key)


@app.command("list")
def list_keys(
    context: typer.Context,
    limit: Limit = None,
    cursor: Cursor = None,
    all_pages: AllPages = False,
    json_output: JsonFlag = False,
) -> None:
    """Your tenant's keys (ids and names; `current` is the one in use)."""
    session = session_of(context, json_output)
    page = page_json(
        session, "apiKeys", lambda at: session.client.api_keys.list(limit=limit, cursor=at), cursor, all_pages
    )
    session.output.result(page, render.api_keys_table)


@app.command("delete")
def delete(
    context: typer.Context,
    key_id: Annotated[str, typer.Argument(help="The key's id (key_…), from list.", show_default=False)],
    yes: Yes = False,
    json_output: JsonFlag = False,
) -> None:
    """Revoke a key (it keeps working until the authorizer's cache forgets it, up to 5 minutes)."""
    session = session_of(context, json_output)
    confirm(session, f"Revoke API key {key_id}?", yes)
    session.client.api_keys.delete(key_id)
    session.output.result({"deleted": key_id}, lambda _d: render.line(f"revoked API key {key_id}"))
