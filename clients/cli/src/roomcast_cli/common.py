"""Options and helpers the command modules share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from roomcast_cli.session import Session

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print the API's JSON (for scripts) instead of tables.")
]
Limit = Annotated[
    int | None, typer.Option(min=1, max=100, help="Page size (1-100; the API's default is 50).")
]
Cursor = Annotated[str | None, typer.Option(help="Start at this page (the nextCursor of the previous one).")]
AllPages = Annotated[bool, typer.Option("--all", help="Follow nextCursor to the end and print every item.")]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
RoomId = Annotated[str, typer.Argument(help="The room's id (room_…).", show_default=False)]
SubscriptionId = Annotated[str, typer.Argument(help="The subscription's id (sub_…).", show_default=False)]
Assignments = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="FIELD=VALUE",
        help="Set any API field by its name; VALUE is read as JSON when it is JSON (5, null, [1000,2000]), "
        "else as text. Repeatable.",
    ),
]


def dump(value: Any) -> Any:
    """An SDK result as the API's JSON (camelCase field names)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list | tuple):
        return [dump(item) for item in value]
    return value


def page_json(
    session: Session,
    items_key: str,
    fetch: Callable[[str | None], Any],
    cursor: str | None,
    all_pages: bool,
) -> dict[str, Any]:
    """One page as the API answers it (``{items_key: [...], "nextCursor": ...}``), or with
    ``--all`` every page's items and ``nextCursor`` null."""
    items: list[Any] = []
    next_cursor = cursor
    with session.output.waiting(f"reading {items_key}…") as progress:
        while True:
            page = fetch(next_cursor)
            items.extend(dump(item) for item in page.items)
            next_cursor = page.next_cursor
            if not all_pages or not next_cursor:
                break
            progress(f"reading {items_key}… {len(items)} so far")
    return {items_key: items, "nextCursor": next_cursor}


def fields_of(flags: dict[str, Any], assignments: list[str] | None) -> dict[str, Any]:
    """The request's fields: the flags given (None = not given), then ``--set`` pairs over them."""
    from roomcast_cli.inputs import parse_assignments

    fields = {name: value for name, value in flags.items() if value is not None}
    fields.update(parse_assignments(assignments or []))
    return fields
