"""Pages of a list and the position of the next one.

A store answers a page with the *position* after it: only what varies in DynamoDB's
LastEvaluatedKey (a room id, a message's index sort key), never the partition, the key names or
the table's layout. Given a position back, the store checks its shape and rebuilds the
ExclusiveStartKey from the partition and prefix it knows itself. A position never leaves the
function as it is: the API seals it into an opaque cursor bound to the tenant and the list
(``roomcast.api.cursors``, docs/decisions/0027-sealed-list-cursors.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from roomcast.platform.errors import InvalidRequest

T = TypeVar("T")

# The varying values of a LastEvaluatedKey, in the store's own order.
Position = tuple[str, ...]

# What one value of a position may hold: far above any id or index key roomcast writes.
MAX_POSITION_VALUE_LENGTH: Final = 256


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_position: Position | None


def invalid_cursor() -> InvalidRequest:
    """The one refusal of a cursor, whatever is wrong with it (400, ``invalid_cursor``): which check
    failed is no help to a client and some help to someone forging one."""
    problem = "cursor is not valid for this list"
    return InvalidRequest(
        problem,
        code="invalid_cursor",
        http_status=400,
        details=[{"field": "query.cursor", "problem": problem, "type": "invalid_cursor"}],
    )


def position_value(start: Position, value_format: re.Pattern[str]) -> str:
    """The one value of a position of a list keyed by one value of ``value_format`` (an id, an
    index sort key); a position of another shape is refused as an invalid cursor (it was sealed
    for this list, so only a changed layout can make it so)."""
    if (
        len(start) != 1
        or not isinstance(start[0], str)
        or len(start[0]) > MAX_POSITION_VALUE_LENGTH
        or not value_format.fullmatch(start[0])
    ):
        raise invalid_cursor()
    return start[0]
