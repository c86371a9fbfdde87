"""The event-type catalog's use cases: create, read, list, change, archive, validate a payload."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from management_api.common import updated_now
from management_api.event_types.export import webhooks_document
from management_api.event_types.models import EventTypeCreate, EventTypePatch
from roomcast.event_types import (
    EventType,
    EventTypeRecords,
    InvalidSchema,
    SavedSchema,
    SchemaCheck,
    Validation,
    check_payload,
    check_too_costly,
    checked_schema,
    compile_schema,
    schema_digest,
)
from roomcast.platform import (
    Conflict,
    InvalidRequest,
    JsonValue,
    NotFound,
    Page,
    Position,
    check_payload_size,
    limits,
    now_iso,
)


@dataclass(frozen=True)
class EventTypeWithSchemas:
    event_type: EventType
    schemas: dict[str, dict[str, Any]]  # by version


@dataclass
class EventTypesService:
    store: EventTypeRecords

    def create(self, tenant_id: str, request: EventTypeCreate) -> EventTypeWithSchemas:
        saved = _checked(request.schemas)
        now = now_iso()
        event_type = EventType(
            tenant_id=tenant_id,
            name=request.name,
            validation=Validation(request.validation),
            created_at=now,
            updated_at=now,
            description=request.description,
            deprecated=request.deprecated,
            schema_digests={version: schema_digest(s.text) for version, s in saved.items()},
        )
        self.store.create(event_type, _by_digest(saved))
        return EventTypeWithSchemas(event_type, _parsed(saved))

    def get(self, tenant_id: str, name: str, *, archived_too: bool = False) -> EventTypeWithSchemas:
        """An event type with its schemas; an archived one is not found unless ``archived_too``."""
        event_type = self._live(tenant_id, name, archived_too=archived_too)
        stored = self.store.schemas(tenant_id, list(event_type.schema_digests.values()))
        texts = {version: stored[digest] for version, digest in event_type.schema_digests.items()}
        return EventTypeWithSchemas(event_type, _parsed(texts))

    def page(
        self, tenant_id: str, limit: int, start: Position | None, *, archived_too: bool
    ) -> Page[EventType]:
        """A page of the catalog by name (archived event types left out unless ``archived_too``,
        so a page may hold fewer than ``limit``)."""
        page = self.store.page(tenant_id, limit, start)
        return Page([t for t in page.items if archived_too or not t.archived], page.next_position)

    def update(self, tenant_id: str, name: str, patch: EventTypePatch) -> EventTypeWithSchemas:
        current = self.get(tenant_id, name)
        changed = patch.model_fields_set
        if not changed:
            return current
        given = patch.schemas or {}
        saved = _checked({version: schema for version, schema in given.items() if schema is not None})
        digests = {
            **{v: d for v, d in current.event_type.schema_digests.items() if v not in given},
            **{version: schema_digest(s.text) for version, s in saved.items()},
        }
        if len(digests) > limits.MAX_SCHEMA_VERSIONS:
            raise _refused("body.schemas", f"an event type has at most {limits.MAX_SCHEMA_VERSIONS} schemas")
        kept = current.event_type
        updated = replace(
            kept,
            description=patch.description if patch.description is not None else kept.description,
            validation=Validation(patch.validation) if patch.validation is not None else kept.validation,
            deprecated=patch.deprecated if patch.deprecated is not None else kept.deprecated,
            schema_digests=dict(sorted(digests.items())),
            updated_at=updated_now(kept.updated_at),
        )
        self.store.replace(updated, kept.updated_at, _by_digest(saved))
        schemas = {v: s for v, s in current.schemas.items() if v in digests and v not in saved} | _parsed(
            saved
        )
        return EventTypeWithSchemas(updated, dict(sorted(schemas.items())))

    def archive(self, tenant_id: str, name: str) -> EventTypeWithSchemas:
        """Out of the catalog (not found, not checked at publish), its name kept for a restore."""
        return self._set_archived(self.get(tenant_id, name), archived=True)

    def restore(self, tenant_id: str, name: str) -> EventTypeWithSchemas:
        """An archived event type back in the catalog; 409 ``not_archived`` for one that is not."""
        current = self.get(tenant_id, name, archived_too=True)
        if not current.event_type.archived:
            raise Conflict(
                f"event type {name} is not archived: there is nothing to restore", code="not_archived"
            )
        return self._set_archived(current, archived=False)

    def _set_archived(self, current: EventTypeWithSchemas, *, archived: bool) -> EventTypeWithSchemas:
        kept = current.event_type
        if kept.archived is archived:
            return current
        changed = replace(kept, archived=archived, updated_at=updated_now(kept.updated_at))
        self.store.replace(changed, kept.updated_at, {})
        return EventTypeWithSchemas(changed, current.schemas)

    def _live(self, tenant_id: str, name: str, *, archived_too: bool = False) -> EventType:
        event_type = self.store.get(tenant_id, name)
        if event_type.archived and not archived_too:
            raise NotFound(f"event type {name} is archived (restore it with POST …/restore)")
        return event_type

    def export(self, tenant_id: str, names: Sequence[str] = ()) -> dict[str, Any]:
        """The catalog (archived event types left out), or the event types ``names``, as OpenAPI 3.1
        ``webhooks``; 422 ``export_too_large`` past MAX_EXPORT_BYTES, found before every schema is
        read (they are read a few at a time, their size added up)."""
        live = [t for t in self.store.every(tenant_id) if not t.archived]
        if names:
            missing = sorted(set(names) - {t.name for t in live})
            if missing:
                raise NotFound(f"event type {missing[0][:128]} not found")
            live = [t for t in live if t.name in names]
        uses = Counter(d for t in live for d in t.schema_digests.values())  # a schema in each of its webhooks
        digests = list(uses)
        texts: dict[str, str] = {}
        size = uses.total() * _OPERATION_BYTES
        for start in range(0, len(digests), _SCHEMAS_READ_AT_ONCE):
            found = self.store.schemas(tenant_id, digests[start : start + _SCHEMAS_READ_AT_ONCE])
            size += sum(len(text) * uses[digest] for digest, text in found.items())
            if size > limits.MAX_EXPORT_BYTES:
                raise _export_too_large(size)
            texts.update(found)
        with_schemas = [(t, {v: json.loads(texts[d]) for v, d in t.schema_digests.items()}) for t in live]
        document = webhooks_document(tenant_id, with_schemas)
        size = len(json.dumps(document, separators=(",", ":")))
        if size > limits.MAX_EXPORT_BYTES:
            raise _export_too_large(size)
        return document

    def validate(self, tenant_id: str, name: str, version: str, payload: JsonValue) -> SchemaCheck | None:
        """The payload checked against the schema of ``version``, as a publish checks it (422
        ``schema_check_too_costly`` where a publish would refuse it so); None when that version has
        no schema."""
        check_payload_size(payload)  # what a publish takes, and no more: 413 before any read
        event_type = self._live(tenant_id, name)
        digest = event_type.schema_digests.get(version)
        if digest is None:
            return None
        text = self.store.schemas(tenant_id, [digest])[digest]
        try:
            compiled = compile_schema(text, version)
        except InvalidSchema as error:  # saved before today's rules, and refused by them
            raise InvalidRequest(
                f"the schema of {name} version {version} {error.problem}; save it again",
                code="schema_unusable",
            ) from error
        check = check_payload(compiled, payload)
        if not check.checked:
            raise check_too_costly(event_type, version, check)
        return check


def _checked(schemas: Mapping[str, Mapping[str, Any]]) -> dict[str, SavedSchema]:
    """Each version's schema text and cost; 400 ``invalid_schema`` naming the version and the problem."""
    saved: dict[str, SavedSchema] = {}
    for version, schema in schemas.items():
        try:
            saved[version] = checked_schema(version, dict(schema))
        except InvalidSchema as error:
            raise _refused(f"body.schemas.{version}", error.problem, str(error)) from error
    return saved


# What one webhook of the export holds beside its payload's schema (its envelope and headers), at most.
_OPERATION_BYTES: Final = 4 * 1024
_SCHEMAS_READ_AT_ONCE: Final = 25  # 800 KiB at most


def _export_too_large(size: int) -> InvalidRequest:
    return InvalidRequest(
        f"the catalog's export would be {size} bytes or more; the limit is {limits.MAX_EXPORT_BYTES}:"
        " export a few event types at a time (?eventType=order.created&eventType=order.paid)",
        code="export_too_large",
        details=[
            {"field": "query.eventType", "problem": "the export is too large", "type": "export_too_large"}
        ],
    )


def _refused(field: str, problem: str, message: str | None = None) -> InvalidRequest:
    return InvalidRequest(
        message or f"{field.removeprefix('body.')}: {problem}",
        code="invalid_schema",
        http_status=400,
        details=[{"field": field, "problem": problem, "type": "invalid_schema"}],
    )


def _by_digest(saved: Mapping[str, SavedSchema]) -> dict[str, str]:
    return {schema_digest(s.text): s.text for s in saved.values()}


def _parsed(saved: Mapping[str, SavedSchema | str]) -> dict[str, dict[str, Any]]:
    return {version: json.loads(s if isinstance(s, str) else s.text) for version, s in sorted(saved.items())}
