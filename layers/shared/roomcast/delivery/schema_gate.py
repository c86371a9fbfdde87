"""The event-type catalog at publish (issue 26): each message's payload checked against the schema
of its event type and version, as the type's ``validation`` says — ``reject`` refuses that message
(422 ``schema_violation`` with each error's path; the others of a batch go on), ``warn`` lets it
through with the errors kept on it, ``off`` skips the check. An event type not in the catalog (or
archived) is published unchecked, unless the room refuses undeclared event types (422
``undeclared_event_type``).

A publish reads the event types it names (one small item each, read beside the room); a schema is
read and compiled once per container, by digest (schemas never change under a digest)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from roomcast.dal.ports import EventTypeRecords
from roomcast.domain.event_types import (
    EventType,
    SchemaProblem,
    UndeclaredEventTypes,
    Validation,
    compile_schema,
    problems,
)
from roomcast.domain.messages import Publication
from roomcast.domain.models import Room
from roomcast.errors import InvalidRequest, RoomcastError

if TYPE_CHECKING:
    import jsonschema_rs

COMPILED_SCHEMAS: Final = 64  # per container
MAX_KEPT_ERROR_BYTES: Final = 300  # each error kept on a warned message


@dataclass(frozen=True)
class Admission:
    """A message let through (with the errors a ``warn`` type keeps on it), or why it is refused."""

    refused: RoomcastError | None = None
    warnings: tuple[str, ...] = ()


ADMITTED: Final = Admission()


def schema_violation(event_type: EventType, version: str, found: Sequence[SchemaProblem]) -> RoomcastError:
    return InvalidRequest(
        f"the payload breaks the schema of {event_type.name} version {version}: {found[0]}"
        + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""),
        code="schema_violation",
        details=[
            {"field": f"body.{p.path}", "problem": p.message, "type": "schema_violation"} for p in found
        ],
    )


def undeclared(room: Room, name: str) -> RoomcastError:
    problem = f"event type {name!r} is not in the catalog, and room {room.id} refuses undeclared event types"
    return InvalidRequest(
        problem,
        code="undeclared_event_type",
        details=[{"field": "body.eventType", "problem": problem, "type": "undeclared_event_type"}],
    )


class SchemaGate:
    def __init__(self, store: EventTypeRecords) -> None:
        self.store = store
        self._compiled: OrderedDict[str, jsonschema_rs.Validator] = OrderedDict()

    def event_types(self, tenant_id: str, publications: Sequence[Publication]) -> dict[str, EventType]:
        """The catalog's entries for the event types these messages name (read beside the room)."""
        return self.store.find(tenant_id, [p.event_type for p in publications])

    def admit(
        self, room: Room, publications: Sequence[Publication], declared: Mapping[str, EventType]
    ) -> list[Admission]:
        """Each message's admission, in order."""
        return [
            self._admit(room, publication, declared.get(publication.event_type))
            for publication in publications
        ]

    def _admit(self, room: Room, publication: Publication, event_type: EventType | None) -> Admission:
        if event_type is None or event_type.archived:
            if room.undeclared_event_types is UndeclaredEventTypes.REJECT:
                return Admission(refused=undeclared(room, publication.event_type))
            return ADMITTED
        digest = event_type.schema_digests.get(publication.event_version)
        if event_type.validation is Validation.OFF or digest is None:
            return ADMITTED
        found = problems(self._validator(room.tenant_id, digest), publication.payload)
        if not found:
            return ADMITTED
        if event_type.validation is Validation.REJECT:
            return Admission(refused=schema_violation(event_type, publication.event_version, found))
        kept = tuple(str(p).encode()[:MAX_KEPT_ERROR_BYTES].decode(errors="ignore") for p in found)
        return Admission(warnings=kept)

    def _validator(self, tenant_id: str, digest: str) -> jsonschema_rs.Validator:
        validator = self._compiled.get(digest)
        if validator is None:
            text = self.store.schemas(tenant_id, [digest])[digest]
            validator = compile_schema(text)
            self._compiled[digest] = validator
            if len(self._compiled) > COMPILED_SCHEMAS:
                self._compiled.popitem(last=False)
        else:
            self._compiled.move_to_end(digest)
        return validator
