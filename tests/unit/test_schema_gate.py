"""The catalog at publish (roomcast.event_types.gate) over an in-memory catalog: each
validation mode, undeclared and archived event types, and each schema read and compiled once."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from roomcast.catalog.model import Room
from roomcast.event_types.gate import ADMITTED, Admission, SchemaGate
from roomcast.event_types.model import (
    EventType,
    UndeclaredEventTypes,
    Validation,
    checked_schema,
    schema_digest,
)
from roomcast.messages.model import Publication
from roomcast.platform import limits
from roomcast.platform.pages import Page, Position
from roomcast.platform.payloads import JsonValue

SCHEMA = checked_schema("1", {"type": "object", "required": ["orderId"]}).text
DIGEST = schema_digest(SCHEMA)
ROOM = Room("room_1", "t", "orders", None, 1000, 2.0, 5, (), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")


@dataclass
class OneSchemaCatalog:
    schema_reads: int = 0
    text: str = SCHEMA
    types: dict[str, EventType] = field(default_factory=dict)

    def find(self, tenant_id: str, names: Sequence[str]) -> dict[str, EventType]:
        return {n: self.types[n] for n in names if n in self.types}

    def schemas(self, tenant_id: str, digests: Sequence[str]) -> dict[str, str]:
        self.schema_reads += 1
        return {DIGEST: self.text}

    def create(self, event_type: EventType, schemas: Mapping[str, str]) -> None: ...
    def replace(
        self, event_type: EventType, expected_updated_at: str, schemas: Mapping[str, str]
    ) -> None: ...
    def get(self, tenant_id: str, name: str) -> EventType: ...  # type: ignore[empty-body]
    def every(self, tenant_id: str) -> list[EventType]: ...  # type: ignore[empty-body]
    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[EventType]: ...  # type: ignore[empty-body]


def _gate(validation: Validation, **changes: object) -> tuple[SchemaGate, OneSchemaCatalog]:
    order = EventType("t", "order.created", validation, "x", "x", schema_digests={"1": DIGEST})
    catalog = OneSchemaCatalog(types={"order.created": replace(order, **changes)})  # type: ignore[arg-type]
    return SchemaGate(catalog), catalog


def _admit(
    gate: SchemaGate, *payloads: JsonValue, room: Room = ROOM, event_type: str = "order.created"
) -> list[Admission]:
    publications = [Publication(event_type, "1", p) for p in payloads]
    return gate.admit(room, publications, gate.event_types("t", publications))


def test_reject_refuses_only_the_breaking_payload_and_warn_keeps_its_errors() -> None:
    rejecting, _ = _gate(Validation.REJECT)
    warning, _ = _gate(Validation.WARN)

    good, bad = _admit(rejecting, {"orderId": 1}, {})
    assert good == ADMITTED
    assert bad.refused is not None
    assert (bad.refused.code, bad.refused.http_status) == ("schema_violation", 422)
    assert bad.refused.details[0]["field"] == "body.payload"
    (warned,) = _admit(warning, {})
    assert (warned.refused, warned.warnings) == (None, ('payload: "orderId" is a required property',))


def test_off_archived_and_undeclared_types_are_let_through_unless_the_room_refuses_undeclared() -> None:
    off, _ = _gate(Validation.OFF)
    archived, _ = _gate(Validation.REJECT, archived=True)
    strict_room = replace(ROOM, undeclared_event_types=UndeclaredEventTypes.REJECT)

    assert _admit(off, {}) == [ADMITTED]
    assert _admit(archived, {}) == [ADMITTED]
    assert _admit(archived, {}, event_type="order.unknown") == [ADMITTED]
    (refused,) = _admit(archived, {}, room=strict_room)
    assert refused.refused is not None
    assert refused.refused.code == "undeclared_event_type"


def test_a_schema_is_read_and_compiled_once_per_container() -> None:
    gate, catalog = _gate(Validation.REJECT)
    for _ in range(5):
        _admit(gate, {}, {"orderId": 1})
    assert catalog.schema_reads == 1


def test_a_batch_of_costly_checks_stops_at_the_requests_budget_and_refuses_only_the_rest() -> None:
    # Given: a schema at the cost limit (1,300 fractional numbers) and a batch of 100 payloads,
    # each as costly as one check may be
    enum = [n + 0.5 for n in range(1_300)]
    saved = checked_schema("1", {"type": "array", "items": {"enum": enum}})
    per_value = saved.cost.worst
    gate, catalog = _gate(Validation.REJECT)
    catalog.text = saved.text
    items = [enum[-1]] * (limits.SCHEMA_CHECK_BUDGET // per_value - 1)
    payload: JsonValue = list(items)

    # When
    started = time.thread_time()
    answers = _admit(gate, *[payload] * limits.MAX_PUBLISH_BATCH_MESSAGES)
    spent_ms = (time.thread_time() - started) * 1000

    # Then: as many checked as the request's budget takes; the rest refused, to be sent again
    checked = limits.SCHEMA_REQUEST_BUDGET // (len(items) * per_value + per_value)
    assert answers[:checked] == [ADMITTED] * checked
    refused = [a.refused for a in answers[checked:]]
    assert all(r is not None and r.code == "schema_check_too_costly" for r in refused)
    assert "publish this message in another request" in str(refused[0])
    assert spent_ms < 10 * 100  # the ADR's ~100 ms for a batch, with a tenfold margin
