"""``client.event_types``: the tenant's event-type catalog (docs/event-types.md) — create, list,
get, update, archive, restore, validate a payload, export as OpenAPI 3.1 webhooks."""

from __future__ import annotations

from typing import Any

from roomcast_client._core import Call, read_document, read_model, segment, wire_fields
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import EventTypeDefinition, Page, SchemaError, Validated
from roomcast_client.resources.common import page_call

# The answers' models are the API's (generated): an event type (``schemas`` by version, None in
# lists), a payload's check and its errors.
__all__ = ["EventTypeDefinition", "EventTypes", "SchemaError", "Validated"]


def _path(name: str, tail: str = "") -> str:
    return f"/event-types/{segment(name)}{tail}"  # a "/" in a name travels as %2F


def _on_definition(method: str, name: str, tail: str = "", json: Any = None) -> Call[EventTypeDefinition]:
    """A call on one definition (``tail``: the action, if any) that answers the definition."""
    return Call(method, _path(name, tail), read_model(EventTypeDefinition), json=json)


class EventTypes(Resource[E]):
    @operation
    def create(self, /, name: str, **fields: Any) -> Call[EventTypeDefinition]:
        """Add ``name`` (``schemas={"1": {...}}``, ``validation``, ``description``, ``deprecated``)."""
        body = {"name": name, **wire_fields(fields)}
        return Call("POST", "/event-types", read_model(EventTypeDefinition), json=body, retry_safe=False)

    @operation
    def list(
        self, *, limit: int | None = None, cursor: str | None = None, include_archived: bool | None = None
    ) -> Call[Page[EventTypeDefinition]]:
        archived = None if include_archived is None else str(include_archived).lower()
        return page_call(
            "/event-types",
            EventTypeDefinition,
            "eventTypes",
            limit=limit,
            cursor=cursor,
            includeArchived=archived,
        )

    iter = paginated(list.build)

    @operation
    def get(self, name: str) -> Call[EventTypeDefinition]:
        return _on_definition("GET", name)

    @operation
    def update(self, /, name: str, **fields: Any) -> Call[EventTypeDefinition]:
        """Change the given fields; ``schemas={"2": {...}, "1": None}`` sets and removes versions."""
        return _on_definition("PATCH", name, json=wire_fields(fields))

    @operation
    def archive(self, name: str) -> Call[EventTypeDefinition]:
        return _on_definition("DELETE", name)

    @operation
    def restore(self, name: str) -> Call[EventTypeDefinition]:
        return _on_definition("POST", name, "/restore")

    @operation
    def validate(self, name: str, payload: Any, *, event_version: str = "1") -> Call[Validated]:
        """Check a payload against the schema of ``event_version``; nothing is published."""
        body = {"eventVersion": event_version, "payload": payload}
        return Call("POST", _path(name, "/validate"), read_model(Validated), json=body)

    @operation
    def export(self) -> Call[dict[str, Any]]:
        """The catalog as an OpenAPI 3.1 document of ``webhooks``."""
        return Call("GET", "/catalog/openapi.json", read_document)
