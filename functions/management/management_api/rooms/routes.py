"""/rooms routes: thin — parse (powertools + pydantic), call RoomsService, map to a response."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from management_api.common import PAGE_SIZE, Cursor, Limit, RoomId
from management_api.dependencies import Jobs, Lists, Rooms
from management_api.jobs.models import JOB_LINK, JobView, accepted
from management_api.rooms.models import RoomCreate, RoomList, RoomPatch, RoomResponse
from roomcast.access import Scope, access
from roomcast.api import Access, Routes, Tenant, list_scope
from roomcast.platform import NotFound

routes = Routes("rooms")
ROOM = "/rooms/<roomId>"


@routes.post("/rooms", "createRoom", "The room, with its id", 400, 404, 415, status=201)
def create_room(body: RoomCreate, tenant: Tenant, service: Rooms) -> RoomResponse:
    """Create a room

    A room owns the message expiry and the default delivery policy of its subscriptions (first
    redelivery after `deliveryDelayMs`, each next wait `deliveryDelayMultiplier` times longer,
    `deliveryAttempts` redeliveries) and may restrict the event types (and versions) it accepts.
    """
    return RoomResponse.of(service.create(tenant, body))


@routes.get(
    "/rooms",
    "listRooms",
    "A page of rooms",
    400,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH, Scope.CONSUME, beyond_rooms=True),
)
def list_rooms(
    service: Rooms, lists: Lists, caller: Access, limit: Limit = PAGE_SIZE, cursor: Cursor = None
) -> RoomList:
    """List rooms

    The tenant's rooms, a page at a time; follow `nextCursor` until it is null. With a key limited
    to rooms: those of its rooms that exist, on one page.
    """
    limited = caller.caller.rooms
    if limited is not None:
        found = []
        for room_id in sorted(limited):
            try:
                found.append(RoomResponse.of(service.get(lists.tenant_id, room_id)))
            except NotFound:
                continue  # deleted since the key was made
        return RoomList(rooms=found, nextCursor=None)
    scope = list_scope("rooms")
    page = service.page(lists.tenant_id, limit, lists.open(cursor, scope))
    next_cursor = lists.seal(page.next_position, scope)
    return RoomList(rooms=[RoomResponse.of(r) for r in page.items], nextCursor=next_cursor)


@routes.get(ROOM, "getRoom", "The room", 404)
def get_room(roomId: RoomId, tenant: Tenant, service: Rooms) -> RoomResponse:
    """Read a room

    The room with its policy and accepted event types. Another tenant's room is not found.
    """
    return RoomResponse.of(service.get(tenant, roomId))


@routes.patch(ROOM, "updateRoom", "The room as changed", 400, 404, 415)
def update_room(roomId: RoomId, body: RoomPatch, tenant: Tenant, service: Rooms) -> RoomResponse:
    """Change a room

    Changes the fields given; absent fields keep their value. Only `messageExpirationMs` may be
    null (messages never expire). A change applies to messages published afterwards.
    """
    return RoomResponse.of(service.update(tenant, roomId, body))


@routes.delete(ROOM, "deleteRoom", "Deletion started: the job", 404, status=202, links=JOB_LINK)
def delete_room(roomId: RoomId, tenant: Tenant, jobs: Jobs) -> Response[JobView]:
    """Delete a room

    Starts deleting the room with all its subscriptions and their PULL queues, and answers the
    job doing it (poll `GET /jobs/{{jobId}}`); from now on no subscription can be added to it, and
    a second deletion answers the same job. What its subscriptions still owe ends `cleared`.
    """
    return accepted(jobs.delete_room(tenant, roomId))
