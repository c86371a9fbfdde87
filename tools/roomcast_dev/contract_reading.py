"""The API's OpenAPI document as the Python SDK reads it: the input ``roomcast_dev.sdk_models``
gives datamodel-code-generator for the SDK's models (docs/decisions/0044-generated-sdk-models.md).

It holds the schemas of the API's answers (every 2xx response's body and what it refers to) and of
the webhook body, nothing else: the SDK sends plain JSON, which the API checks. They are read as a
tolerant reader takes them (``_Reader``), so that an older SDK keeps working against a newer API.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from roomcast_dev.contract_enums import ENUMERATIONS, StaleDocumentError, at_pointer

# The SDK's names of the answers whose schema is named otherwise (``Room`` for ``RoomResponse``):
# the names roomcast_client has always exported. Two keep theirs, for the SDK extends them:
# ``JobView`` (``Job`` adds ``finished``) and ``PullResponse`` (``PullAndAckResult``, the answer
# of a pull that acks, whose ``acked`` and ``ackFailed`` are never null).
SDK_NAMES = {
    "AckResponse": "AckResult",
    "ApiKeyView": "ApiKey",
    "AttemptView": "Attempt",
    "DeadLetterView": "DeadLetter",
    "DeliveryView": "Delivery",
    "EventTypeModel": "EventType",
    "EventTypeView": "EventTypeDefinition",
    "ExtendResponse": "ExtendResult",
    "FilterTestResponse": "FilterTest",
    "FilteredOutView": "FilteredOut",
    "NackResponse": "NackResult",
    "OrderingKeyView": "OrderingKey",
    "PublishBatchAccepted": "BatchAccepted",
    "PublishBatchRefused": "BatchRefused",
    "PublishBatchResponse": "PublishBatchResult",
    "PublishResponse": "PublishResult",
    "ReplayResponse": "ReplayResult",
    "RetryResponse": "RetryResult",
    "RoomResponse": "Room",
    "ScheduledAttemptView": "ScheduledAttempt",
    "SubscriptionResponse": "Subscription",
    "ValidateResponse": "Validated",
}
# Answers that are another answer and more: the SDK's model of each extends the other's, as
# roomcast_client's always has (``isinstance(result, PublishResult)`` holds for a batch's accepted
# message). The document states each in full (pydantic writes no ``allOf``); ``_extending`` checks
# that the shared fields are the same and writes the rest as an extension.
SDK_EXTENDS = {
    "PublishBatchAccepted": "PublishResponse",
    "SubscriptionCreated": "SubscriptionResponse",
    "DeliveryItem": "DeliveryView",
    "AlertRuleCreated": "AlertRuleView",
    "PortalSessionCreated": "PortalSessionView",
}
# What a PUSH subscription's endpoint receives: the one schema of the document outside its
# components, added to them under this name.
WEBHOOK_BODY = "/webhooks/message/post/requestBody/content/application~1json/schema"
WEBHOOK_MODEL = "WebhookMessage"

# Keywords that bound a value rather than give its shape: an answer's values are the API's to
# bound (a limit raised later must not break an older SDK), and timestamps stay the API's strings.
_BOUNDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
    }
)
# Keywords that say nothing to a reader: pydantic's titles ("Deliverydelayms") and examples.
_NOISE = frozenset({"title", "examples", "example"})


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"].rpartition("/")[2]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def answer_schema_names(document: dict[str, Any]) -> list[str]:
    """The component schemas an answer of the API reaches: those of every 2xx response's body,
    and every schema they refer to, in the document's order."""
    schemas = document["components"]["schemas"]
    pending = [
        name
        for operations in document["paths"].values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for status, response in operation.get("responses", {}).items()
        if status.startswith("2")
        for name in _refs(response.get("content", {}))
    ]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending.extend(_refs(schemas[name]))
    return [name for name in schemas if name in reached]


def _is_any(schema: Any) -> bool:
    """A schema any JSON value meets (``{}``, perhaps with a description)."""
    return isinstance(schema, dict) and not set(schema) - {"description", "title"}


def _admits_null(schema: dict[str, Any]) -> bool:
    branches = schema.get("anyOf", schema.get("oneOf", []))
    return schema.get("type") == "null" or any(b.get("type") == "null" for b in branches)


class _Reader:
    """Rewrites answer schemas as a tolerant reader takes them. Each rule keeps an older SDK
    working against a newer API, and each is what the hand-written models did:

    - a required field that may be null, that takes any JSON value (a payload) or that is a list
      may be absent: None, None and ``[]`` then;
    - an open enumeration (``Enumeration.open``) is a string;
    - no bounds, formats, titles or examples; no ``additionalProperties: false`` (the base class
      keeps unknown fields);
    - a reference to an any-JSON schema (``JsonValue``) is that schema itself, so that a payload
      is the JSON value, not a wrapper of it.
    """

    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.open_values = [at_pointer(document, e.pointer)["enum"] for e in ENUMERATIONS if e.open]

    def schema(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and _is_any(self.schemas.get(ref.rpartition("/")[2])):
            return {key: value for key, value in node.items() if key == "description"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _BOUNDS or key in _NOISE or (key == "additionalProperties" and value is False):
                continue
            if key == "enum" and value in self.open_values:
                continue
            if key == "properties":
                out[key] = {name: self.schema(field) for name, field in value.items()}
            elif key in ("items", "additionalProperties", "not"):
                out[key] = self.schema(value)
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                out[key] = [self.schema(branch) for branch in value]
            else:
                out[key] = copy.deepcopy(value)
        if "properties" in out and "required" in out:
            _tolerate_absence(out)
        return out


def _tolerate_absence(schema: dict[str, Any]) -> None:
    required = []
    for name in schema["required"]:
        field = schema["properties"].get(name, {})
        if field.get("type") == "array":
            field.setdefault("default", [])
        elif _is_any(field):
            field.setdefault("default", None)  # the JSON value itself, None when absent
        elif not _admits_null(field):
            required.append(name)
    schema["required"] = required


def _extending(name: str, base: str, schemas: dict[str, Any]) -> dict[str, Any]:
    """``schemas[name]`` as ``base`` and what it adds (an ``allOf``, which the generator makes a
    subclass)."""
    schema, base_schema = schemas[name], schemas[base]
    fields, base_fields = schema.get("properties", {}), base_schema.get("properties", {})
    differing = sorted(f for f in base_fields if fields.get(f) != base_fields[f])
    if differing or set(base_schema.get("required", [])) - set(schema.get("required", [])):
        raise StaleDocumentError(f"{name} no longer extends {base} (fields {differing} differ)")
    added = {f: field for f, field in fields.items() if f not in base_fields}
    extension: dict[str, Any] = {"type": "object", "properties": added}
    required = [f for f in schema.get("required", []) if f in added]
    if required:
        extension["required"] = required
    kept = {key: value for key, value in schema.items() if key == "description"}
    return {**kept, "allOf": [{"$ref": f"#/components/schemas/{base}"}, extension]}


def sdk_document(document: dict[str, Any]) -> dict[str, Any]:
    """The document the SDK's models are generated from: the answers' schemas and the webhook
    body, read tolerantly (``_Reader``), and nothing else (no requests, no paths)."""
    reader = _Reader(document)
    names = [n for n in answer_schema_names(document) if not _is_any(reader.schemas[n])]
    schemas = {name: reader.schema(reader.schemas[name]) for name in names}
    schemas[WEBHOOK_MODEL] = reader.schema(at_pointer(document, WEBHOOK_BODY))
    missing = sorted((set(SDK_NAMES) | set(SDK_EXTENDS) | set(SDK_EXTENDS.values())) - set(schemas))
    if missing:
        raise StaleDocumentError(f"no answer of openapi.json has these schemas any more: {missing}")
    for name, base in SDK_EXTENDS.items():
        schemas[name] = _extending(name, base, schemas)
    return {
        "openapi": document["openapi"],
        "info": {"title": document["info"]["title"], "version": document["info"]["version"]},
        "paths": {},
        "components": {"schemas": schemas},
    }
