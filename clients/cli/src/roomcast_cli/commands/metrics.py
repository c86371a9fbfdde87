"""`roomcast metrics [ROOM [SUB]]`: the tenant's, a room's or a subscription's metrics over time
(docs/metrics.md), per minute or per hour."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli._enums import MetricsResolution
from roomcast_cli.common import JsonFlag, dump
from roomcast_cli.exit_codes import CliError
from roomcast_cli.inputs import iso_utc, parse_when
from roomcast_cli.session import session_of


def metrics(
    context: typer.Context,
    room_id: Annotated[
        str | None,
        typer.Argument(help="Only this room (room_…); without it, the whole tenant.", show_default=False),
    ] = None,
    subscription_id: Annotated[
        str | None, typer.Argument(help="Only this subscription of the room (sub_…).", show_default=False)
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            help="The window's start: a time ago (15m, 2h, 1d) or ISO 8601; "
            "default an hour (1m) or a day (1h) before --until."
        ),
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="The window's end (exclusive): ISO 8601 or a time ago; default now.")
    ] = None,
    resolution: Annotated[
        MetricsResolution,
        typer.Option(help="1m: a point per minute (kept 48 h); 1h: a point per hour (kept 35 days)."),
    ] = MetricsResolution.V_1M,
    json_output: JsonFlag = False,
) -> None:
    """Delivered, failed attempts, success rate, latency percentiles and backlog over time: one
    row per minute (or hour) with activity, the window's summary and a sparkline of deliveries.
    --json prints the API's answer, every point of the window."""
    now = datetime.now(UTC)
    start = parse_when(since, now, "--since") if since else None
    end = parse_when(until, now, "--until") if until else None
    if start is not None and start >= (end or now):
        raise CliError(f"--since must be before {'--until' if end else 'now'}.")
    window: dict[str, Any] = {
        "from_": iso_utc(start) if start else None,
        "to": iso_utc(end) if end else None,
        "resolution": resolution.value,
    }
    session = session_of(context, json_output)
    client = session.client
    if room_id is None:
        answer = client.metrics.tenant(**window)
    elif subscription_id is None:
        answer = client.metrics.room(room_id, **window)
    else:
        answer = client.metrics.subscription(room_id, subscription_id, **window)
    session.output.result(dump(answer), render.metrics_view)
