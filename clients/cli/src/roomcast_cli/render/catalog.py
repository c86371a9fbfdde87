"""The event-type catalog: its list, one event type with its schemas, a payload's check, and the
schema errors a warned message carries."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import details, page_table
from roomcast_cli.render.text import Json, compact_json


def _cells(event_type: Json) -> tuple[str, ...]:
    return (
        event_type["name"],
        event_type["validation"],
        ", ".join(event_type.get("versions") or []) or "-",
        "deprecated" if event_type.get("deprecated") else "",
        "archived" if event_type.get("archived") else "",
    )


def event_types_table(page: Json) -> list[RenderableType]:
    columns = ("NAME", "VALIDATION", "SCHEMA VERSIONS", "", "")
    return page_table(page, "eventTypes", columns, _cells, empty="the catalog is empty")


def event_type_details(event_type: Json) -> list[RenderableType]:
    shown: list[RenderableType] = [details(event_type, hide=("schemas",))]
    for version, schema in (event_type.get("schemas") or {}).items():
        shown.append(Text(f"schema of version {version}: {compact_json(schema)}"))
    return shown


def validated(answer: Json) -> list[RenderableType]:
    if not answer["checked"]:
        return [Text("no schema for that version: nothing to check")]
    if answer["valid"]:
        return [Text("valid")]
    return [Text("invalid", style="bold"), *(Text(f"{e['path']}: {e['message']}") for e in answer["errors"])]


def schema_error_lines(errors: Sequence[str] | None) -> list[RenderableType]:
    """A warned message's schema errors, one line each (none when it has none)."""
    return [Text(f"schema error: {error}", style="dim") for error in errors or []]
