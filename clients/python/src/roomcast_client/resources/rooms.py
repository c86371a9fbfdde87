"""``client.rooms``: create, list, get, update, delete."""

from __future__ import annotations

from typing import Any

from roomcast_client._core import Call, read_model, wire_fields
from roomcast_client._executors import E, operation
from roomcast_client.job import Job
from roomcast_client.models import Room
from roomcast_client.resources.common import TenantList, room_path


class Rooms(TenantList[E, Room]):
    listing = ("/rooms", Room, "rooms")

    @operation
    def create(self, /, **fields: Any) -> Call[Room]:
        """Create a room (``name`` and the room's delivery policy fields)."""
        return Call("POST", "/rooms", read_model(Room), json=wire_fields(fields), retry_safe=False)

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
