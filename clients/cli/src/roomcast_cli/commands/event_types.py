"""`roomcast event-types …`: the tenant's catalog — list, show, create, validate, archive, restore,
export (docs/event-types.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer

from roomcast_cli import render
from roomcast_cli._enums import EventTypeValidation
from roomcast_cli.common import JsonFlag, dump, list_command
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.inputs import parse_json
from roomcast_cli.session import session_of

app = typer.Typer(
    help="The event-type catalog: schemas per version, and what a breaking publish gets.",
    no_args_is_help=True,
)
Name = Annotated[str, typer.Argument(help="The event type's name (its eventType).", show_default=False)]


def _schemas(specs: list[str]) -> dict[str, object]:
    schemas: dict[str, object] = {}
    for spec in specs:
        version, separator, text = spec.partition("=")
        if not separator or not version:
            raise CliError(f'--schema takes VERSION=JSON (1={{"type": "object"}}), got {spec[:60]!r}.')
        schemas[version] = parse_json(text, f"the schema of version {version}")
    return schemas


list_command(
    app,
    "The catalog by name (archived event types are left out).",
    "eventTypes",
    render.event_types_table,
    lambda client, limit, at: client.event_types.list(limit=limit, cursor=at),
)


def _on_one(summary: str, call: Callable[[Any, str], Any]) -> Callable[..., None]:
    """A command on one event type (NAME, ``--json``) that prints what the API answers."""

    def command(context: typer.Context, name: Name, json_output: JsonFlag = False) -> None:
        session = session_of(context, json_output)
        session.output.result(dump(call(session.client, name)), render.event_type_details)

    command.__doc__ = summary
    return command


app.command("show")(
    _on_one("An event type with its schemas.", lambda client, name: client.event_types.get(name))
)
app.command("archive")(
    _on_one(
        "Take an event type out of the catalog (restorable; what is in flight still delivers).",
        lambda client, name: client.event_types.archive(name),
    )
)
app.command("restore")(
    _on_one("Bring an archived event type back.", lambda client, name: client.event_types.restore(name))
)


@app.command("create")
def create(
    context: typer.Context,
    name: Name,
    schema: Annotated[
        list[str] | None,
        typer.Option("--schema", "-s", metavar="VERSION=JSON", help="A version's schema (repeatable)."),
    ] = None,
    validation: Annotated[
        EventTypeValidation,
        typer.Option(help="What a publish whose payload breaks its schema gets."),
    ] = EventTypeValidation.REJECT,
    description: Annotated[str, typer.Option(help="What the event means.")] = "",
    json_output: JsonFlag = False,
) -> None:
    """Add an event type to the catalog."""
    session = session_of(context, json_output)
    created = session.client.event_types.create(
        name, schemas=_schemas(schema or []), validation=validation.value, description=description
    )
    session.output.result(dump(created), render.event_type_details)


@app.command("validate")
def validate(
    context: typer.Context,
    name: Name,
    payload: Annotated[str, typer.Argument(help="The payload, as JSON.", show_default=False)],
    event_version: Annotated[str, typer.Option("--event-version", "-V", help="Its eventVersion.")] = "1",
    json_output: JsonFlag = False,
) -> None:
    """Check a payload against a version's schema (nothing is published); exits 1 when invalid."""
    session = session_of(context, json_output)
    answer = dump(
        session.client.event_types.validate(
            name, parse_json(payload, "the payload"), event_version=event_version
        )
    )
    session.output.result(answer, render.validated)
    if not answer["valid"]:
        raise typer.Exit(ExitCode.REFUSED)


@app.command("export")
def export(context: typer.Context) -> None:
    """The catalog as an OpenAPI 3.1 document of webhooks, on stdout (for code generators)."""
    session = session_of(context, True)
    typer.echo(json.dumps(session.client.event_types.export(), indent=2))
