"""The event-type catalog: a tenant's event types, each with a JSON Schema per version, their cost
counted before any payload is seen, their store, and the gate a publish goes through
(docs/event-types.md, ADR 0038, ADR 0043).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.event_types.gate import (
        ADMITTED as ADMITTED,
        Admission as Admission,
        SchemaGate as SchemaGate,
        check_too_costly as check_too_costly,
    )
    from roomcast.event_types.model import (
        NAME_PATTERN as NAME_PATTERN,
        EventType as EventType,
        InvalidSchema as InvalidSchema,
        SavedSchema as SavedSchema,
        SchemaCheck as SchemaCheck,
        UndeclaredEventTypes as UndeclaredEventTypes,
        Validation as Validation,
        check_payload as check_payload,
        checked_schema as checked_schema,
        compile_schema as compile_schema,
        schema_digest as schema_digest,
    )
    from roomcast.event_types.ports import EventTypeRecords as EventTypeRecords
    from roomcast.event_types.store import EventTypeTable as EventTypeTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
