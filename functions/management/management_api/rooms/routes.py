"""/rooms routes: thin — parse (powertools + pydantic), call RoomsService, map to a response."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from management_api.common import Cursor, Limit, RoomId, no_content
from management_api.dependencies import Rooms
from management_api.rooms.models import RoomCreate, RoomList, RoomPatch, RoomResponse
from roomcast.api.openapi import link, responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant
from roomcast.domain import limits

router = new_router()
TAGS = ["rooms"]
_ROOM_LINKS = {
    "GetRoom": link("getRoom", "Read the room.", roomId="$response.body#/id"),
    "UpdateRoom": link("updateRoom", "Change the room.", roomId="$response.body#/id"),
    "DeleteRoom": link("deleteRoom", "Delete the room.", roomId="$response.body#/id"),
    "CreateSubscription": link("createSubscription", "Subscribe to the room.", roomId="$response.body#/id"),
    "ListSubscriptions": link("listSubscriptions", "List its subscriptions.", roomId="$response.body#/id"),
}


@router.post(
    "/rooms",
    status_code=201,
    operation_id="createRoom",
    summary="Create a room",
    description="A room owns the message expiry and the default delivery policy of its subscriptions "
    "(first redelivery after `deliveryDelayMs`, each next wait `deliveryDelayMultiplier` times longer, "
    "`deliveryAttempts` redeliveries) and may restrict the event types (and versions) it accepts.",
    responses=responses(201, "The room, with its id", 400, 415, links=_ROOM_LINKS),
    tags=TAGS,
)
def create_room(body: RoomCreate, tenant: Tenant, rooms: Rooms) -> RoomResponse:
    return RoomResponse.of(rooms.create(tenant, body))


@router.get(
    "/rooms",
    operation_id="listRooms",
    summary="List rooms",
    description="The tenant's rooms, a page at a time; follow `nextCursor` until it is null.",
    responses=responses(200, "A page of rooms", 400, 422),
    tags=TAGS,
)
def list_rooms(
    tenant: Tenant, rooms: Rooms, limit: Limit = limits.DEFAULT_PAGE_SIZE, cursor: Cursor = None
) -> RoomList:
    page = rooms.page(tenant, limit, cursor)
    return RoomList(rooms=[RoomResponse.of(r) for r in page.items], nextCursor=page.next_cursor)


@router.get(
    "/rooms/<roomId>",
    operation_id="getRoom",
    summary="Read a room",
    description="The room with its policy and accepted event types. Another tenant's room is not found.",
    responses=responses(200, "The room", 404),
    tags=TAGS,
)
def get_room(roomId: RoomId, tenant: Tenant, rooms: Rooms) -> RoomResponse:
    return RoomResponse.of(rooms.get(tenant, roomId))


@router.patch(
    "/rooms/<roomId>",
    operation_id="updateRoom",
    summary="Change a room",
    description="Changes the fields given; absent fields keep their value. Only `messageExpirationMs` "
    "may be null (messages never expire). A change applies to messages published afterwards.",
    responses=responses(200, "The room as changed", 400, 404, 415),
    tags=TAGS,
)
def update_room(roomId: RoomId, body: RoomPatch, tenant: Tenant, rooms: Rooms) -> RoomResponse:
    return RoomResponse.of(rooms.update(tenant, roomId, body))


@router.delete(
    "/rooms/<roomId>",
    status_code=204,
    operation_id="deleteRoom",
    summary="Delete a room",
    description="Deletes the room with all its subscriptions and their PULL queues. Messages already "
    "on their way to a deleted subscription are dropped.",
    responses=responses(204, "Deleted", 404),
    tags=TAGS,
)
def delete_room(roomId: RoomId, tenant: Tenant, rooms: Rooms) -> Response[None]:
    rooms.delete(tenant, roomId)
    return no_content()
