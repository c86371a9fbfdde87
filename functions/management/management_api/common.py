"""Parameters and answers every management resource uses: path ids, pagination, 204, updatedAt."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from http import HTTPStatus
from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from roomcast.api import MAX_CURSOR_LENGTH
from roomcast.platform import InvalidRequest, NotFound, iso_timestamp, limits, now_iso

if TYPE_CHECKING:
    from roomcast.catalog import Catalog

RoomId = Annotated[
    str,
    Path(
        description="The room's id (`room_` and 32 hex digits).",
        examples=["room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"],
    ),
]
SubscriptionIdPath = Annotated[
    str,
    Path(
        description="The subscription's id (`sub_` and 32 hex digits).",
        examples=["sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7"],
    ),
]
MessageIdPath = Annotated[
    str,
    Path(
        description="The message's id (`msg_` and 32 hex digits).",
        examples=["msg_576e648137579110cd6d80e1bdbec8d3"],
    ),
]
Limit = Annotated[
    int, Query(ge=1, le=limits.MAX_PAGE_SIZE, description=f"Page size, default {limits.DEFAULT_PAGE_SIZE}.")
]
# The length is documented, not checked here: a longer cursor is one this stack never sealed,
# answered 400 ``invalid_cursor`` like any other (roomcast.api.cursors), not 422.
Cursor = Annotated[
    str | None,
    Query(
        description="The `nextCursor` of the previous page of this list; absent for the first page.",
        json_schema_extra={"maxLength": MAX_CURSOR_LENGTH},
    ),
]


PAGE_SIZE = limits.DEFAULT_PAGE_SIZE


def no_content() -> Response[None]:
    return Response(status_code=HTTPStatus.NO_CONTENT, body=None)


def updated_now(previous: str) -> str:
    """Now as a new ``updatedAt``, always after ``previous``: writes are conditional on the
    ``updatedAt`` they read, so a change within the millisecond of the last one must change it too."""
    now = now_iso()
    if now > previous:  # same ISO format: text order is time order
        return now
    return iso_timestamp(datetime.fromisoformat(previous) + timedelta(milliseconds=1))


def require_rooms(catalog: Catalog, tenant_id: str, rooms: Sequence[str]) -> None:
    """Each room a key or a portal session is limited to must be the tenant's: 422 naming the
    first that is not (``body.rooms.<index>``, ``room_not_found``)."""
    for index, room_id in enumerate(rooms):
        try:
            catalog.get_room(tenant_id, room_id)
        except NotFound:
            field = f"body.rooms.{index}"
            raise InvalidRequest(
                f"{field}: room {room_id} not found",
                details=[{"field": field, "problem": "no such room", "type": "room_not_found"}],
            ) from None
