"""Payload filters: which subscriptions a message missed, and the dry run's verdicts."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, new_table
from roomcast_cli.render.text import Json


def filtered_out_lines(filtered_out: Sequence[Json] | None) -> list[RenderableType]:
    """One line per subscription whose filter the message missed (none when it missed none)."""
    return [
        Text(f"filtered out of {item['subscriptionId']}: {item['reason']}", style="dim")
        for item in filtered_out or []
    ]


def filter_test_table(answer: Json) -> list[RenderableType]:
    """``filters test``: whether the room accepts the message, each subscription, the candidate."""
    shown: list[RenderableType] = []
    if not answer["accepted"]:
        shown.append(Text(f"the room refuses it: {answer['reason']}", style="bold"))
    table = new_table("SUBSCRIPTION", "TYPE", "STATUS", "MATCHED", "WHY NOT")
    for verdict in answer["subscriptions"]:
        add_row(
            table,
            verdict["subscriptionId"],
            verdict["type"],
            verdict["status"],
            "yes" if verdict["matched"] else "no",
            verdict.get("reason") or "",
        )
    shown.append(table if answer["subscriptions"] else Text("the room has no subscriptions"))
    candidate = answer.get("candidate")
    if candidate is not None:
        verdict_text = "matches" if candidate["matched"] else f"does not match: {candidate['reason']}"
        shown.append(Text(f"the candidate policy {verdict_text}"))
    return shown
