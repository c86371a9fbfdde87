"""The event-type catalog (issue 26): a tenant's event types, each with a JSON Schema (2020-12) per
version and what publishing does with a payload that breaks it — ``reject`` (422, nothing stored),
``warn`` (published, the errors kept on the message) or ``off``.

Schemas are checked against the 2020-12 meta-schema when saved, compiled with jsonschema-rs (Rust:
compiled once, fast to apply) and never fetch anything: a reference is a fragment of the schema
itself (``#/$defs/x``, ``#name``), anything else is refused. Patterns run on a linear-time regex
engine (no backreferences or lookaround). ``format`` is an annotation, as 2020-12 makes it by
default: it is not checked.

The work a check may cost is bounded before any payload is seen (ADR 0043): a schema's cost per
payload value at each depth (``roomcast.event_types.cost``) is counted when it is saved — past
MAX_SCHEMA_COST_PER_VALUE it is refused — and again when a container compiles it; a check costs
the sum over the payload's values, and one past SCHEMA_CHECK_BUDGET is not made (the message is
refused). ``roomcast.event_types.checks`` makes the checks: the verdict by the fast path
(``is_valid``), the errors only while that stays cheap, else the first error (or none) and
"details cut short".

A schema is kept apart from its event type, under the digest of its text, so a publish reads the
small event-type record and compiles (once per container) only the schemas it has not seen.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from roomcast.event_types.checks import (
    CompiledSchema,
    InvalidSchema,
    SchemaCheck,
    SchemaProblem,
    check_payload,
    compile_schema,
)
from roomcast.event_types.cost import SchemaCost
from roomcast.platform import limits

__all__ = [
    "CompiledSchema",
    "EventType",
    "InvalidSchema",
    "SavedSchema",
    "SchemaCheck",
    "SchemaProblem",
    "UndeclaredEventTypes",
    "Validation",
    "check_payload",
    "checked_schema",
    "compile_schema",
    "schema_digest",
    "schema_text",
]

if TYPE_CHECKING:
    pass

DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
_REFERENCES: Final = ("$ref", "$dynamicRef")
# A schema's own $id may not claim the address of a published one (its references would resolve there).
_RESERVED_IDS: Final = ("https://json-schema.org/", "http://json-schema.org/")
# An event type's name is what publishers send as ``eventType`` (the API's pattern for it).
NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$"


class Validation(StrEnum):
    REJECT = "reject"  # the publish is refused with the errors (422); nothing is stored
    WARN = "warn"  # published; the errors are kept on the message and reported
    OFF = "off"  # not checked


class UndeclaredEventTypes(StrEnum):
    """A room's choice for messages whose event type is not in the tenant's catalog."""

    ALLOW = "allow"
    REJECT = "reject"


@dataclass(frozen=True)
class EventType:
    """An event type of a tenant's catalog, without its schemas' text (``schema_digests``: the
    digest of each version's schema, the key it is stored under)."""

    tenant_id: str
    name: str
    validation: Validation
    created_at: str
    updated_at: str
    description: str = ""
    deprecated: bool = False
    archived: bool = False
    schema_digests: Mapping[str, str] = field(default_factory=dict)


def schema_text(schema: Mapping[str, Any]) -> str:
    """The stored form of a schema: compact JSON (its digest is the digest of this text)."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def schema_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class SavedSchema:
    """A schema that may be saved: its stored text and its cost per payload value by depth."""

    text: str
    cost: SchemaCost


def checked_schema(version: str, schema: object) -> SavedSchema:
    """The text and cost of a schema that may be saved; InvalidSchema otherwise (not an object, too
    large or too deep, another draft than 2020-12, not valid against the meta-schema, a reference
    outside itself, a pattern the linear-time engine cannot run, a cost that cannot be bounded or
    is past MAX_SCHEMA_COST_PER_VALUE)."""
    if not isinstance(schema, dict):
        raise InvalidSchema(version, "must be a JSON Schema object")
    text = schema_text(schema)
    if len(text.encode()) > limits.MAX_SCHEMA_BYTES:
        raise InvalidSchema(version, f"must be at most {limits.MAX_SCHEMA_BYTES // 1024} KiB of JSON")
    declared = schema.get("$schema", DRAFT_2020_12)
    if not isinstance(declared, str) or declared.rstrip("#") != DRAFT_2020_12:
        raise InvalidSchema(version, f"must be JSON Schema 2020-12 ({DRAFT_2020_12}), not {declared!r}")
    _check_structure(version, schema)
    import jsonschema_rs  # only where schemas are checked: not at every function's cold start

    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as error:
        where = "/".join(str(part) for part in error.instance_path)
        raise InvalidSchema(version, f"is not a valid JSON Schema at /{where}: {error.message}") from None
    return SavedSchema(text, compile_schema(text, version).cost)


def _check_structure(version: str, schema: dict[str, Any]) -> None:
    """Depth, references and identifiers, walked without recursion (a hostile schema nests deep)."""
    stack: list[tuple[object, int, str]] = [(schema, 1, "")]
    while stack:
        value, depth, where = stack.pop()
        if depth > limits.MAX_SCHEMA_DEPTH:
            raise InvalidSchema(version, f"nests deeper than {limits.MAX_SCHEMA_DEPTH} levels (at {where})")
        if isinstance(value, dict):
            for keyword in _REFERENCES:
                reference = value.get(keyword)
                if isinstance(reference, str) and not reference.startswith("#"):
                    raise InvalidSchema(
                        version,
                        f"{keyword} {reference[:200]!r} at {where or '/'} is outside the schema, and roomcast"
                        " fetches nothing: a reference is a fragment of the schema itself (#/$defs/name,"
                        " #anchor)",
                    )
            identifier = value.get("$id")
            if isinstance(identifier, str) and identifier.lower().startswith(_RESERVED_IDS):
                problem = f"$id {identifier[:200]!r} is json-schema.org's, not the schema's"
                raise InvalidSchema(version, problem)
            stack.extend((v, depth + 1, f"{where}/{k}") for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, depth + 1, f"{where}/{n}") for n, v in enumerate(value))
