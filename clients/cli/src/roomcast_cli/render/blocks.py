"""The rich building blocks every view is made of: a table of plain-text cells, an object's
``field  value`` lines, a page of a list with the hint to the next one, a one-time secret."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from roomcast_cli.render.text import Json, show_value

# Ids are copied from the output: their columns never fold.
_UNFOLDED_COLUMNS = frozenset({"ID", "SUBSCRIPTION", "MESSAGE", "KEY ID"})


def new_table(*columns: str) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None)
    for column in columns:
        table.add_column(column, no_wrap=column in _UNFOLDED_COLUMNS)
    table.columns[0].header_style = "bold"
    return table


def add_row(table: Table, *cells: str) -> None:
    """Cells as plain text: a payload's ``[true]`` or a name's ``[bold]`` is shown, never read as markup."""
    table.add_row(*(Text(cell) for cell in cells))


def details(data: Json, hide: Iterable[str] = ()) -> Table:
    """One object as ``field  value`` lines, in the API's order."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    hidden = set(hide)
    for name, value in data.items():
        if name not in hidden:
            add_row(table, name, show_value(value))
    return table


def more_hint(next_cursor: str | None) -> list[RenderableType]:
    if not next_cursor:
        return []
    return [Text(f"more: --cursor {next_cursor}  (or --all)", style="dim")]


def page_table(
    page: Json,
    items_key: str,
    columns: Sequence[str],
    cells: Callable[[Json], Sequence[str]],
    *,
    empty: str | None,
) -> list[RenderableType]:
    """A page of a list (``{items_key: [...], "nextCursor": ...}``) as a table, one row of
    ``cells(item)`` per item, then the hint to the next page; ``empty`` says an empty page instead
    of an empty table (None: the empty table is shown)."""
    items = page[items_key]
    if not items and empty is not None:
        return [Text(empty)]
    table = new_table(*columns)
    for item in items:
        add_row(table, *cells(item))
    return [table, *more_hint(page.get("nextCursor"))]


def shown_once(label: str, secret: str) -> Text:
    """A secret the API shows only in this answer: called out, and never folded, so it copies whole."""
    return Text(f"{label} (shown once, store it): {secret}", style="bold yellow", no_wrap=True)


def line(text: str) -> Text:
    """A one-line answer (deleted, retried, cleared …)."""
    return Text(text)
