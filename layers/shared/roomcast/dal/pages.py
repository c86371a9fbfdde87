"""Pagination over DynamoDB's LastEvaluatedKey: pages, and the positions a list cursor seals."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from roomcast.errors import InvalidRequest

T = TypeVar("T")

# The varying values of a LastEvaluatedKey, in the store's own order.
Position = tuple[str, ...]

# What one value of a position may hold: far above any id or index key roomcast writes.
MAX_POSITION_VALUE_LENGTH: Final = 256


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None


def encode_cursor(last_key: Mapping[str, Any] | None) -> str | None:
    if not last_key:
        return None
    plain = {name: value["S"] for name, value in last_key.items()}
    return base64.urlsafe_b64encode(json.dumps(plain, separators=(",", ":")).encode()).decode().rstrip("=")


def _decoded(cursor: str) -> Any:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError) as error:
        raise _invalid() from error


def _invalid() -> InvalidRequest:
    return invalid_cursor()


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


def decode_cursor(cursor: str | None, partition_key: str) -> dict[str, dict[str, str]] | None:
    """The ExclusiveStartKey for a cursor; a cursor from another list (or tampered) is refused."""
    if not cursor:
        return None
    plain = _decoded(cursor)
    if (
        not isinstance(plain, dict)
        or set(plain) != {"PK", "SK"}
        or plain["PK"] != partition_key
        or not isinstance(plain["SK"], str)
    ):
        raise _invalid()
    return {name: {"S": value} for name, value in plain.items()}


def decode_index_cursor(
    cursor: str | None, index_key: str, partition_key: str
) -> dict[str, dict[str, str]] | None:
    """The ExclusiveStartKey of a query on a global secondary index whose partition attribute is
    ``index_key`` (holding ``partition_key``); a cursor from another list is refused."""
    if not cursor:
        return None
    plain = _decoded(cursor)
    sort_key = index_key[: -len("PK")] + "SK"
    if (
        not isinstance(plain, dict)
        or set(plain) != {"PK", "SK", index_key, sort_key}
        or plain[index_key] != partition_key
        or not all(isinstance(value, str) and 0 < len(value) <= 512 for value in plain.values())
    ):
        raise _invalid()
    return {name: {"S": value} for name, value in plain.items()}
