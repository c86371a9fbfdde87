"""`roomcast portal …`: open a portal session for one of your customers, revoke one, and read or
set the portal's settings (docs/portal.md)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli.common import JsonFlag, confirm_options, confirmed_session, dump, with_options
from roomcast_cli.session import session_of

app = typer.Typer(
    help="The portal your customers manage their own endpoints in: open a session, revoke it, settings.",
    no_args_is_help=True,
)


@app.command("open")
def open_session(
    context: typer.Context,
    consumer: Annotated[str, typer.Option(help="Your id for the customer (its subscriptions' consumerId).")],
    room: Annotated[
        list[str], typer.Option(help="A room whose subscriptions it manages (repeat for several).")
    ],
    event_type: Annotated[
        list[str] | None, typer.Option(help="An event type its endpoints may receive (repeat; default any).")
    ] = None,
    read_only: Annotated[bool, typer.Option(help="It can look, not change.")] = False,
    expires_in: Annotated[int, typer.Option(help="Seconds the link works (60 to 86400).")] = 3600,
    json_output: JsonFlag = False,
) -> None:
    """Open a portal session: its URL (with its token) is shown only in this answer."""
    session = session_of(context, json_output)
    created = session.client.portal_sessions.create(
        consumer, room, event_types=event_type, read_only=read_only, expires_in_seconds=expires_in
    )
    session.output.result(dump(created), render.portal_session)


@app.command("revoke")
@with_options(confirm_options)
def revoke(
    context: typer.Context,
    session_id: Annotated[str, typer.Argument(help="The session's id (ps_…).", show_default=False)],
    **options: Any,
) -> None:
    """Revoke a portal session: its link stops working at once."""
    session = confirmed_session(context, options, f"Revoke portal session {session_id}?")
    session.client.portal_sessions.delete(session_id)
    session.output.result(
        {"revoked": session_id}, lambda _d: render.line(f"revoked portal session {session_id}")
    )


@app.command("settings")
def settings(
    context: typer.Context,
    title: Annotated[str | None, typer.Option(help="The page's title.")] = None,
    logo_url: Annotated[str | None, typer.Option(help="An https image shown beside the title.")] = None,
    accent_color: Annotated[str | None, typer.Option(help="Buttons' and links' colour, #rrggbb.")] = None,
    frame_ancestor: Annotated[
        list[str] | None, typer.Option(help="An origin that may embed the page in an iframe (repeat).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Show the portal's settings; with any option, set them (options not given: their defaults)."""
    session = session_of(context, json_output)
    portal = session.client.portal_settings
    changing = any(value is not None for value in (title, logo_url, accent_color, frame_ancestor))
    answer = (
        portal.put(title=title, logo_url=logo_url, accent_color=accent_color, frame_ancestors=frame_ancestor)
        if changing
        else portal.get()
    )
    session.output.result(dump(answer), lambda found: [render.details(found)])
