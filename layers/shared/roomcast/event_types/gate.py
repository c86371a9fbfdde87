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
from typing import Final, Protocol

from roomcast.event_types.model import (
    CompiledSchema,
    EventType,
    InvalidSchema,
    SchemaCheck,
    UndeclaredEventTypes,
    Validation,
    check_payload,
    compile_schema,
)
from roomcast.event_types.ports import EventTypeRecords
from roomcast.platform import InvalidRequest, JsonValue, RoomcastError, limits

COMPILED_SCHEMAS: Final = 64  # per container
MAX_KEPT_ERROR_BYTES: Final = 300  # each error kept on a warned message


@dataclass(frozen=True)
class Admission:
    """A message let through (with the errors a ``warn`` type keeps on it), or why it is refused."""

    refused: RoomcastError | None = None
    warnings: tuple[str, ...] = ()


ADMITTED: Final = Admission()


def schema_violation(event_type: EventType, version: str, check: SchemaCheck) -> RoomcastError:
    found = check.problems
    where = f"the payload breaks the schema of {event_type.name} version {version}"
    if not found:
        message = f"{where} (details cut short: collecting them would cost more than a check may)"
    elif check.cut_short:
        message = f"{where}: {found[0]} (and maybe more: details cut short)"
    else:
        message = f"{where}: {found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
    if not found:
        return _refusal("schema_violation", "body.payload", message)
    details = [{"field": f"body.{p.path}", "problem": p.message, "type": "schema_violation"} for p in found]
    return InvalidRequest(message, code="schema_violation", details=details)


def check_too_costly(
    event_type: EventType, version: str, check: SchemaCheck, *, batch_spent: bool = False
) -> RoomcastError:
    checking = f"checking this payload against the schema of {event_type.name} version {version}"
    if batch_spent:
        problem = (
            f"{checking} would pass what the batch's checks may cost together"
            f" ({limits.SCHEMA_REQUEST_BUDGET} evaluations): publish this message in another request"
        )
    else:
        problem = (
            f"{checking} would cost {check.cost} evaluations, more than one check may"
            f" ({limits.SCHEMA_CHECK_BUDGET}): send a smaller payload, or simplify the schema"
            " (docs/event-types.md#what-a-schema-may-cost)"
        )
    return _refusal("schema_check_too_costly", "body.payload", problem)


def schema_unusable(event_type: EventType, version: str, error: InvalidSchema) -> RoomcastError:
    problem = (
        f"the schema of {event_type.name} version {version} {error.problem}; save it again in a form"
        " roomcast accepts now (PATCH /event-types/{name})"
    )
    return _refusal("schema_unusable", "body.eventVersion", problem)


def undeclared(room: Room, name: str) -> RoomcastError:
    problem = f"event type {name!r} is not in the catalog, and room {room.id} refuses undeclared event types"
    return _refusal("undeclared_event_type", "body.eventType", problem)


def _refusal(code: str, field: str, problem: str) -> RoomcastError:
    """A 422 naming one field: ``code`` is its type too."""
    return InvalidRequest(problem, code=code, details=[{"field": field, "problem": problem, "type": code}])


@dataclass
class _RequestBudget:
    """What a request's schema checks may still cost (``counted``: a batch counts every check)."""

    counted: bool
    left: int = limits.SCHEMA_REQUEST_BUDGET


class Room(Protocol):
    """What the gate reads of a room (roomcast.catalog's rooms have it)."""

    @property
    def id(self) -> str: ...
    @property
    def tenant_id(self) -> str: ...
    @property
    def undeclared_event_types(self) -> UndeclaredEventTypes: ...


class Publication(Protocol):
    """What the gate reads of a message to publish (roomcast.messages' publications have it)."""

    @property
    def event_type(self) -> str: ...
    @property
    def event_version(self) -> str: ...
    @property
    def payload(self) -> JsonValue: ...


class SchemaGate:
    def __init__(self, store: EventTypeRecords) -> None:
        self.store = store
        self._compiled: OrderedDict[str, CompiledSchema] = OrderedDict()

    def event_types(self, tenant_id: str, publications: Sequence[Publication]) -> dict[str, EventType]:
        """The catalog's entries for the event types these messages name (read beside the room)."""
        return self.store.find(tenant_id, [p.event_type for p in publications])

    def admit(
        self, room: Room, publications: Sequence[Publication], declared: Mapping[str, EventType]
    ) -> list[Admission]:
        """Each message's admission, in order. A batch's checks together stay within
        SCHEMA_REQUEST_BUDGET: a message whose check would pass what is left is refused (422
        ``schema_check_too_costly``: publish it in another request)."""
        budget = _RequestBudget(counted=len(publications) > 1)
        return [
            self._admit(room, publication, declared.get(publication.event_type), budget)
            for publication in publications
        ]

    def _admit(
        self, room: Room, publication: Publication, event_type: EventType | None, budget: _RequestBudget
    ) -> Admission:
        if event_type is None or event_type.archived:
            if room.undeclared_event_types is UndeclaredEventTypes.REJECT:
                return Admission(refused=undeclared(room, publication.event_type))
            return ADMITTED
        digest = event_type.schema_digests.get(publication.event_version)
        if event_type.validation is Validation.OFF or digest is None:
            return ADMITTED
        try:
            compiled = self._compiled_schema(room.tenant_id, event_type, digest)
        except InvalidSchema as error:  # saved before today's rules, and refused by them
            return Admission(refused=schema_unusable(event_type, publication.event_version, error))
        allowed = min(limits.SCHEMA_CHECK_BUDGET, budget.left)
        check = check_payload(compiled, publication.payload, allowed, counted=budget.counted)
        budget.left -= check.cost if check.checked else 0
        if check.valid:
            return ADMITTED
        version = publication.event_version
        if not check.checked:
            refused = check_too_costly(
                event_type, version, check, batch_spent=allowed < limits.SCHEMA_CHECK_BUDGET
            )
            if event_type.validation is Validation.REJECT:
                return Admission(refused=refused)
            return Admission(warnings=(f"not checked: {refused.message}"[:MAX_KEPT_ERROR_BYTES],))
        if event_type.validation is Validation.REJECT:
            return Admission(refused=schema_violation(event_type, version, check))
        kept = [str(p).encode()[:MAX_KEPT_ERROR_BYTES].decode(errors="ignore") for p in check.problems]
        if check.cut_short:
            kept.append("details cut short")
        return Admission(warnings=tuple(kept))

    def _compiled_schema(self, tenant_id: str, event_type: EventType, digest: str) -> CompiledSchema:
        compiled = self._compiled.get(digest)
        if compiled is None:
            text = self.store.schemas(tenant_id, [digest])[digest]
            compiled = compile_schema(text)
            self._compiled[digest] = compiled
            if len(self._compiled) > COMPILED_SCHEMAS:
                self._compiled.popitem(last=False)
        else:
            self._compiled.move_to_end(digest)
        return compiled
