"""Room use cases: create, read, list, change (deleting one is a job: management_api.jobs)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from management_api.rooms.models import RoomCreate, RoomPatch
from roomcast.catalog import Catalog, Room
from roomcast.event_types import UndeclaredEventTypes
from roomcast.platform import InvalidRequest, Page, Position, ids, now_iso


@dataclass
class RoomsService:
    catalog: Catalog

    def create(self, tenant_id: str, request: RoomCreate) -> Room:
        now = now_iso()
        room_id = ids.new_room_id()
        if request.operationsRoomId is not None:
            self._check_operations_room(tenant_id, room_id, request.operationsRoomId)
        room = Room(
            id=room_id,
            tenant_id=tenant_id,
            name=request.name,
            message_expiration_ms=request.messageExpirationMs or None,
            delivery_delay_ms=request.deliveryDelayMs,
            delivery_delay_multiplier=request.deliveryDelayMultiplier,
            delivery_attempts=request.deliveryAttempts,
            event_types=tuple(e.to_domain() for e in request.eventTypes),
            created_at=now,
            updated_at=now,
            operations_room_id=request.operationsRoomId,
            undeclared_event_types=UndeclaredEventTypes(request.undeclaredEventTypes),
        )
        self.catalog.create_room(room)
        return room

    def get(self, tenant_id: str, room_id: str) -> Room:
        return self.catalog.get_room(tenant_id, room_id)

    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[Room]:
        return self.catalog.list_rooms(tenant_id, limit, start)

    def update(self, tenant_id: str, room_id: str, patch: RoomPatch) -> Room:
        """Apply the fields the patch names (absent ones keep their value)."""
        room = self.get(tenant_id, room_id)
        changed = patch.model_fields_set
        if not changed:
            return room
        if patch.operationsRoomId is not None:
            self._check_operations_room(tenant_id, room_id, patch.operationsRoomId)
        updated = replace(
            room,
            name=patch.name if patch.name is not None else room.name,
            message_expiration_ms=(patch.messageExpirationMs or None)
            if "messageExpirationMs" in changed
            else room.message_expiration_ms,
            delivery_delay_ms=_or(patch.deliveryDelayMs, room.delivery_delay_ms),
            delivery_delay_multiplier=_or(patch.deliveryDelayMultiplier, room.delivery_delay_multiplier),
            delivery_attempts=_or(patch.deliveryAttempts, room.delivery_attempts),
            event_types=tuple(e.to_domain() for e in patch.eventTypes)
            if patch.eventTypes is not None
            else room.event_types,
            operations_room_id=patch.operationsRoomId
            if "operationsRoomId" in changed
            else room.operations_room_id,
            undeclared_event_types=UndeclaredEventTypes(patch.undeclaredEventTypes)
            if patch.undeclaredEventTypes is not None
            else room.undeclared_event_types,
            updated_at=now_iso(),
        )
        self.catalog.replace_room(updated)
        return updated

    def _check_operations_room(self, tenant_id: str, room_id: str, operations_room_id: str) -> None:
        """Another existing room of the same tenant (404 otherwise, also for another tenant's)."""
        if operations_room_id == room_id:
            problem = "a room cannot be its own operations room"
            raise InvalidRequest(
                problem,
                code="invalid_operations_room",
                details=[
                    {"field": "body.operationsRoomId", "problem": problem, "type": "invalid_operations_room"}
                ],
            )
        self.catalog.get_room(tenant_id, operations_room_id)


def _or[T](value: T | None, current: T) -> T:
    return current if value is None else value
