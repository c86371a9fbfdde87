"""The event-type catalog (issue 26): a tenant's event types, each with a JSON Schema (2020-12) per
version and what publishing does with a payload that breaks it — ``reject`` (422, nothing stored),
``warn`` (published, the errors kept on the message) or ``off``.

Schemas are checked against the 2020-12 meta-schema when saved, compiled with jsonschema-rs (Rust:
compiled once, fast to apply) and never fetch anything: a ``$ref`` outside the schema is refused.
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

from roomcast.domain import limits
from roomcast.domain.payloads import JsonValue

if TYPE_CHECKING:
    import jsonschema_rs

DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
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


class InvalidSchema(ValueError):
    """A schema that cannot be saved: ``version`` says which, ``problem`` why."""

    def __init__(self, version: str, problem: str) -> None:
        super().__init__(f"schemas.{version}: {problem}")
        self.version = version
        self.problem = problem


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


@dataclass(frozen=True)
class SchemaProblem:
    """Where a payload breaks its schema (``payload.items[2].price``) and how."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def schema_text(schema: Mapping[str, Any]) -> str:
    """The stored form of a schema: compact JSON (its digest is the digest of this text)."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def schema_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def checked_schema(version: str, schema: object) -> str:
    """The text of a schema that may be saved; InvalidSchema otherwise (not an object, too large,
    another draft than 2020-12, not valid against the meta-schema, a reference outside itself)."""
    if not isinstance(schema, dict):
        raise InvalidSchema(version, "must be a JSON Schema object")
    text = schema_text(schema)
    if len(text.encode()) > limits.MAX_SCHEMA_BYTES:
        raise InvalidSchema(version, f"must be at most {limits.MAX_SCHEMA_BYTES // 1024} KiB of JSON")
    declared = schema.get("$schema", DRAFT_2020_12)
    if not isinstance(declared, str) or declared.rstrip("#") != DRAFT_2020_12:
        raise InvalidSchema(version, f"must be JSON Schema 2020-12 ({DRAFT_2020_12}), not {declared!r}")
    import jsonschema_rs  # only where schemas are checked: not at every function's cold start

    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as error:
        where = "/".join(str(part) for part in error.instance_path)
        raise InvalidSchema(version, f"is not a valid JSON Schema at /{where}: {error.message}") from None
    compile_schema(text, version)
    return text


def compile_schema(text: str, version: str = "?") -> jsonschema_rs.Validator:
    """A validator for a stored schema. Nothing is fetched: a reference it cannot resolve in
    itself fails (the retriever refuses every address)."""
    import jsonschema_rs

    try:
        return jsonschema_rs.Draft202012Validator(json.loads(text), retriever=_no_retrieval)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InvalidSchema(version, f"cannot be compiled: {first_line}") from None


def _no_retrieval(uri: str) -> Any:
    raise ValueError(f"{uri} is outside the schema; roomcast fetches nothing")


def problems(validator: jsonschema_rs.Validator, payload: JsonValue) -> list[SchemaProblem]:
    """How ``payload`` breaks the schema (at most MAX_SCHEMA_ERRORS), in the schema's order."""
    found: list[SchemaProblem] = []
    for error in validator.iter_errors(payload):
        found.append(SchemaProblem(_path(error.instance_path), error.message))
        if len(found) == limits.MAX_SCHEMA_ERRORS:
            break
    return found


def _path(parts: list[str | int]) -> str:
    path = "payload"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path
