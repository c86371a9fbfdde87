"""/event-types: the tenant's event-type catalog, and a payload checked against it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from management_api.common import PAGE_SIZE, Cursor, Limit
from management_api.dependencies import EventTypes, Lists
from management_api.event_types.models import (
    CatalogDocument,
    EventTypeCreate,
    EventTypeList,
    EventTypePatch,
    EventTypeView,
    SchemaError,
    ValidateRequest,
    ValidateResponse,
)
from roomcast.access import Scope, access
from roomcast.api import EventTypeName, Routes, Tenant, list_scope
from roomcast.event_types import EventType
from roomcast.platform import limits

if TYPE_CHECKING:  # the service is imported by its factory, on the first request that needs it
    from management_api.event_types.service import EventTypeWithSchemas

routes = Routes("event types")
EVENT_TYPE = "/event-types/<name>"
Name = Annotated[
    str,
    Path(
        description="The event type's name, as publishers send it in `eventType` (a `/` in it as `%2F`).",
        examples=["order.created"],
    ),
]


@routes.post("/event-types", "createEventType", "The event type", 400, 409, 415, status=201)
def create_event_type(body: EventTypeCreate, tenant: Tenant, service: EventTypes) -> EventTypeView:
    """Add an event type to the catalog

    An event type of your tenant's catalog: a name (the `eventType` publishers use), a description,
    a JSON Schema (2020-12) of the payload per `eventVersion`, what publishing does with a payload
    that breaks it (`validation`), and whether it is deprecated. A schema is checked against the
    meta-schema and may not refer outside itself (400 `invalid_schema`). A name already in the
    catalog is 409; a catalog holds at most 500 event types.
    """
    return _view(service.create(tenant, body))


ArchivedToo = Annotated[bool, Query(description="Also list archived event types.")]


@routes.get(
    "/event-types",
    "listEventTypes",
    "A page of the catalog",
    400,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH, beyond_rooms=True),
)
def list_event_types(
    service: EventTypes,
    lists: Lists,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
    includeArchived: ArchivedToo = False,
) -> EventTypeList:
    """List the catalog

    Your tenant's event types by name (archived ones with `includeArchived=true`), with their
    versions but not their schemas (read one event type for those). A page may hold fewer than
    `limit` when archived ones are left out: follow `nextCursor` until it is null.
    """
    scope = list_scope("event-types", archived=str(includeArchived))
    page = service.page(lists.tenant_id, limit, lists.open(cursor, scope), archived_too=includeArchived)
    return EventTypeList(
        eventTypes=[_summary(t) for t in page.items], nextCursor=lists.seal(page.next_position, scope)
    )


@routes.get(
    EVENT_TYPE,
    "getEventType",
    "The event type with its schemas",
    404,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH, beyond_rooms=True),
)
def get_event_type(name: Name, tenant: Tenant, service: EventTypes) -> EventTypeView:
    """Read an event type

    With every version's schema. Another tenant's event type is not found.
    """
    return _view(service.get(tenant, name))


@routes.patch(EVENT_TYPE, "updateEventType", "The event type as changed", 400, 404, 409, 415)
def update_event_type(name: Name, body: EventTypePatch, tenant: Tenant, service: EventTypes) -> EventTypeView:
    """Change an event type

    The fields given; in `schemas`, each version given a schema gets it (checked as at creation),
    each given null loses its schema. `archived: false` restores an archived event type. A change
    applies to the publishes that start after it. 409 when it changed meanwhile: read it again.
    """
    return _view(service.update(tenant, name, body))


@routes.delete(EVENT_TYPE, "archiveEventType", "The event type, archived", 404, 409)
def archive_event_type(name: Name, tenant: Tenant, service: EventTypes) -> EventTypeView:
    """Archive an event type

    Out of the catalog: not found any more, not checked at publish (a room that refuses undeclared
    event types refuses it), while what is in flight still delivers. It keeps its name (a new event
    type of that name is 409) and `POST …/restore` brings it back.
    """
    return _view(service.archive(tenant, name))


@routes.post(f"{EVENT_TYPE}/restore", "restoreEventType", "The event type, back in the catalog", 404, 409)
def restore_event_type(name: Name, tenant: Tenant, service: EventTypes) -> EventTypeView:
    """Restore an archived event type

    Back in the catalog as it was when archived, checked at publish again. 409 `not_archived` for
    an event type that is not archived.
    """
    return _view(service.restore(tenant, name))


@routes.post(
    f"{EVENT_TYPE}/validate",
    "validatePayload",
    "Whether the payload meets its schema",
    400,
    404,
    413,
    415,
    access=access(Scope.MANAGE, Scope.PUBLISH, beyond_rooms=True),
)
def validate_payload(
    name: Name, body: ValidateRequest, tenant: Tenant, service: EventTypes
) -> ValidateResponse:
    """Check a payload against its schema

    What publishing this payload as `eventVersion` of this event type would find, whatever the
    event type's `validation`: each error's path in the payload and reason (`detailsCutShort` when
    collecting every error would cost more than a check may: then the first one, or none). Nothing
    is published. 413 for a payload a publish would refuse as too large; 422
    `schema_check_too_costly` for one a publish would refuse as too costly to check.
    """
    found = service.validate(tenant, name, body.eventVersion, body.payload)
    errors = [SchemaError(path=p.path, message=p.message) for p in found.problems] if found else []
    return ValidateResponse(
        valid=found is None or found.valid,
        checked=found is not None,
        errors=errors,
        detailsCutShort=found is not None and found.cut_short,
    )


@routes.get(
    "/catalog/openapi.json",
    "exportCatalog",
    "The catalog as OpenAPI 3.1 webhooks",
    404,
    422,
    access=access(Scope.READ, Scope.MANAGE, Scope.PUBLISH, beyond_rooms=True),
)
def export_catalog(
    tenant: Tenant,
    service: EventTypes,
    eventType: Annotated[
        list[EventTypeName] | None,
        Query(
            max_length=limits.MAX_PAGE_SIZE,
            description="Only these event types (repeat the parameter); every one when absent.",
        ),
    ] = None,
) -> CatalogDocument:
    """Export the catalog

    Your tenant's catalog as an OpenAPI 3.1 document of `webhooks`: one per event type and version
    (archived ones left out), whose request body is the webhook a PUSH subscription receives, the
    payload's schema inside, with the signature headers. Generate receivers' code from it with any
    OpenAPI 3.1 tool. `eventType` (repeatable) exports only those event types (404 for one not in the
    catalog). A document over {MAX_EXPORT_BYTES} bytes is refused (422 `export_too_large`): export a
    few event types at a time.
    """
    return CatalogDocument.model_validate(service.export(tenant, eventType or ()))


def _summary(event_type: EventType) -> EventTypeView:
    return EventTypeView.of(event_type, schemas=None, versions=sorted(event_type.schema_digests))


def _view(found: EventTypeWithSchemas) -> EventTypeView:
    return EventTypeView.of(found.event_type, schemas=found.schemas, versions=sorted(found.schemas))
