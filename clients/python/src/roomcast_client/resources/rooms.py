"""``client.rooms``: create, list, get, update, delete."""

from __future__ import annotations

from typing import Any

from roomcast_client._core import Call, read_model, wire_fields
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.job import Job
from roomcast_client.models import Page, Room
from roomcast_client.resources.common import page_call, room_path


class Rooms(Resource[E]):
    @operation
    def create(self, /, **fields: Any) -> Call[Room]:
        """Create a room (``name`` and the room's delivery policy fields)."""
        return Call("POST", "/rooms", read_model(Room), json=wire_fields(fields), retry_safe=False)

    @operation
    def list(self, *, limit: int | None = None, cursor: str | None = None) -> Call[Page[Room]]:
        """One page of the tenant's rooms."""
        return page_call("/rooms", Room, "rooms", limit=limit, cursor=cursor)

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str) -> Call[Room]:
        return Call("GET", room_path(room_id), read_model(Room))

    @operation
    def update(self, /, room_id: str, **fields: Any) -> Call[Room]:
        """Change the given fields (None resets a nullable one)."""
        return Call("PATCH", room_path(room_id), read_model(Room), json=wire_fields(fields))

    @operation
    def delete(self, room_id: str) -> Call[Job]:
        """Start deleting the room with its subscriptions: the job doing it
        (``client.jobs.wait(job.id)``); a second delete answers the same job."""
        return Call("DELETE", room_path(room_id), read_model(Job))
