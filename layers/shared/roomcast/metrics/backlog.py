"""A scope's backlog: its open deliveries and when the oldest was first due, from its
open-deliveries items (pure; roomcast.metrics.store reads them)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from roomcast.metrics.model import MINUTE_PREFIX
from roomcast.platform import MINUTE_MS, ms_from_iso

if TYPE_CHECKING:
    from roomcast.platform import items

# A bucket's snapshot of its scope's backlog, written with it.
BACKLOG: Final = "backlog"
OLDEST_OPEN_FROM: Final = "oldestOpenFromMs"


@dataclass(frozen=True)
class Backlog:
    """A scope's open deliveries now, and when the oldest of them was first due (None: none)."""

    open: int
    oldest_from_ms: int | None


def backlog_of(open_items: Iterable[items.Item]) -> Backlog:
    """A scope's backlog from its open-deliveries items (a minute below zero, a delivery opened
    before the metrics counted it, counts as none)."""
    total, oldest = 0, None
    for item in open_items:
        hour_ms = ms_from_iso(str(item["SK"]))
        for name, value in item.items():
            if name.startswith(MINUTE_PREFIX) and name[1:].isdigit() and int(value) > 0:
                total += int(value)
                at = hour_ms + int(name[1:]) * MINUTE_MS
                oldest = at if oldest is None or at < oldest else oldest
    return Backlog(total, oldest)
